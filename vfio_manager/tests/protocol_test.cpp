#include <gtest/gtest.h>

#include "vfio_manager/protocol.hpp"

namespace vfio_manager {
namespace {

std::string decode_error(const std::vector<uint8_t>& bytes) {
    auto decoded = decode(bytes.data(), bytes.size());
    EXPECT_FALSE(decoded.ok());
    if (decoded.ok())
        return {};
    EXPECT_EQ(decoded.error().code, EPROTO);
    return decoded.error().message();
}

void expect_round_trip(const Message& message) {
    const std::vector<uint8_t> bytes = encode(message);
    auto decoded = decode(bytes.data(), bytes.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message();
    EXPECT_EQ(*decoded, message);
}

TEST(VfioManagerProtocol, EveryMessageTypeRoundTrips) {
    expect_round_trip({1, OpenDevice{{0x10, 0x2, 0x1f, 7}}});
    OpenDeviceReply open;
    open.container_id = 3;
    open.iommu_type = 3;
    open.iommu_group = 12;
    open.noiommu = true;
    open.page_size = 4096;
    expect_round_trip({2, open});
    OpenDeviceReply failed;
    failed.error = {19, "open", "0000:01:00.0", "not managed"};
    expect_round_trip({3, failed});
    expect_round_trip({4, AllocateIova{2, 28, 0x3000}});
    expect_round_trip({5, AllocateIovaReply{{}, 0xfff0000}});
    expect_round_trip({6, FreeIova{2, 0x1000, 0x2000}});
    expect_round_trip({7, FreeIovaReply{{1, "free IOVA", "IOVA 0x1000", ""}}});
    expect_round_trip({8, Status{}});
    expect_round_trip({0xffffffffu, StatusReply{1, 2, 3, 4, 5}});
}

TEST(VfioManagerProtocol, FieldsAreLittleEndianAtFixedOffsets) {
    const std::vector<uint8_t> bytes = encode({0x01020304, AllocateIova{0x0a0b0c0d, 32, 0x1122334455667788ull}});
    const std::vector<uint8_t> expected = {'P', 'D', 'T', 'M', 1, 0, 3, 0, 16, 0, 0, 0, 4, 3, 2, 1,
                                           0x0d, 0x0c, 0x0b, 0x0a, 32, 0, 0, 0,
                                           0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
    EXPECT_EQ(bytes, expected);
}

TEST(VfioManagerProtocol, HeaderErrorsAreNamed) {
    const std::vector<uint8_t> good = encode({1, Status{}});
    EXPECT_NE(decode_error({}).find("0 bytes, shorter than the 16-byte header"), std::string::npos);
    EXPECT_NE(decode_error({good.begin(), good.begin() + 15}).find("shorter than the 16-byte header"), std::string::npos);
    // One header byte of a good message changed, and what the decoder says of it.
    const struct {
        size_t offset;
        uint8_t value;
        const char* error;
    } patches[] = {
        {0, 'X', "bad magic"},
        {4, 2, "protocol version 2, this build speaks version 1"},
        {6, 9, "unknown message type 9"},
        {6, 0, "unknown message type 0"},
        {8, 1, "payload length field 1 but 0 payload bytes received"},
    };
    for (const auto& patch : patches) {
        auto bad = good;
        bad[patch.offset] = patch.value;
        EXPECT_NE(decode_error(bad).find(patch.error), std::string::npos)
            << "byte " << patch.offset << " set to " << int{patch.value};
    }
    std::vector<uint8_t> huge(k_max_message + 1, 0);
    EXPECT_NE(decode_error(huge).find("longer than 4096"), std::string::npos);
    EXPECT_FALSE(decode(nullptr, 0).ok());
}

// A payload with the header patched to match its (wrong) length.
std::vector<uint8_t> with_payload(MessageType type, std::vector<uint8_t> payload) {
    std::vector<uint8_t> bytes = encode({1, Status{}});
    bytes[6] = static_cast<uint8_t>(type);
    bytes[8] = static_cast<uint8_t>(payload.size());
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    return bytes;
}

TEST(VfioManagerProtocol, PayloadErrorsNameTheField) {
    EXPECT_NE(decode_error(with_payload(MessageType::OpenDevice, {0, 0})).find("OpenDevice: PCI bus truncated"), std::string::npos);
    EXPECT_NE(decode_error(with_payload(MessageType::OpenDevice, {0, 0, 1, 32, 0})).find("PCI device 32 exceeds 31"),
              std::string::npos);
    EXPECT_NE(decode_error(with_payload(MessageType::OpenDevice, {0, 0, 1, 2, 8})).find("PCI function 8 exceeds 7"),
              std::string::npos);
    EXPECT_NE(decode_error(with_payload(MessageType::OpenDevice, {0, 0, 1, 2, 3, 0})).find("1 unexpected bytes"),
              std::string::npos);
    EXPECT_NE(decode_error(with_payload(MessageType::Status, {0})).find("1 unexpected bytes"), std::string::npos);

    auto mask = encode({1, AllocateIova{1, 11, 4096}});
    EXPECT_NE(decode_error(mask).find("DMA mask bits 11 is outside 12..64"), std::string::npos);
    auto zero = encode({1, AllocateIova{1, 32, 0}});
    EXPECT_NE(decode_error(zero).find("size is 0"), std::string::npos);
    auto free_zero = encode({1, FreeIova{1, 0x1000, 0}});
    EXPECT_NE(decode_error(free_zero).find("FreeIova: size is 0"), std::string::npos);

    OpenDeviceReply page;
    page.page_size = 4097;
    EXPECT_NE(decode_error(encode({1, page})).find("page size 4097 is not a power of two"), std::string::npos);
    OpenDeviceReply noiommu;
    noiommu.page_size = 4096;
    auto flag = encode({1, noiommu});
    flag[flag.size() - 9] = 2;  // the noiommu byte precedes the 8-byte page size
    EXPECT_NE(decode_error(flag).find("noiommu is 2, not 0 or 1"), std::string::npos);

    auto code = encode({1, FreeIovaReply{{-1, "", "", ""}}});
    EXPECT_NE(decode_error(code).find("error code -1 is not an errno value"), std::string::npos);
}

TEST(VfioManagerProtocol, StringsAreLengthChecked) {
    // FreeIovaReply: code (4) then the operation string's u16 length.
    auto bytes = encode({1, FreeIovaReply{{5, "abc", "", ""}}});
    bytes[k_header_size + 4] = 200;  // claims 200 bytes, 9 remain
    EXPECT_NE(decode_error(bytes).find("error operation string of 200 bytes runs past the end"), std::string::npos);
    bytes[k_header_size + 4] = 0x01;
    bytes[k_header_size + 5] = 0x08;  // 0x801 = 2049 > 1024
    EXPECT_NE(decode_error(bytes).find("error operation length 2049 exceeds 1024"), std::string::npos);
    // Over-long texts are cut to the limit when encoding, so they always decode.
    FreeIovaReply long_text{{5, std::string(3000, 'x'), "", ""}};
    auto encoded = encode({1, long_text});
    auto decoded = decode(encoded.data(), encoded.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message();
    EXPECT_EQ(std::get<FreeIovaReply>(decoded->body).error.operation.size(), k_max_string);
}

TEST(VfioManagerProtocol, EveryTruncationOfEveryMessageIsRejected) {
    OpenDeviceReply open;
    open.page_size = 4096;
    open.error = {0, "op", "obj", "hint"};
    const std::vector<Message> messages = {{1, OpenDevice{}}, {1, open}, {1, AllocateIova{1, 32, 1}},
                                           {1, AllocateIovaReply{}}, {1, FreeIova{1, 0, 1}}, {1, StatusReply{}}};
    for (const Message& m : messages) {
        const auto bytes = encode(m);
        for (size_t cut = k_header_size; cut < bytes.size(); ++cut) {
            auto truncated = std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
            truncated[8] = static_cast<uint8_t>(cut - k_header_size);  // consistent length field
            EXPECT_FALSE(decode(truncated.data(), truncated.size()).ok()) << to_string(m.type()) << " cut at " << cut;
        }
    }
}

TEST(VfioManagerProtocol, ReplyErrorCarriesTheWholeError) {
    const pdt::Error error = pdt::make_error("open", "0000:01:00.0", ENODEV, "not managed");
    const ReplyError carried = ReplyError::from(error);
    EXPECT_EQ(carried.to_error().message(), error.message());
}

}  // namespace
}  // namespace vfio_manager
