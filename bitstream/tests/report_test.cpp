// parse_bitstream_file's report: the text lines and the JSON document (read back as JSON).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/format.hpp"
#include "bitstream/report.hpp"
#include "bitstream_image.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace report_test {

namespace {

using nlohmann::json;

bitstream::Bitstream parsed(const bitstream_test::Image& image) {
    auto result = bitstream::parse(image.bytes);
    EXPECT_TRUE(result.ok());
    return result.ok() ? *result : bitstream::Bitstream{};
}

TEST(BitstreamReport, PacketLines) {
    const auto image = bitstream_test::make_image();
    const auto b = parsed(image);
    const auto& p = b.configuration.packets;
    EXPECT_EQ(bitstream::format_packet(p[0]), pdt::format("0x%08zx type 1 NOP words 0", image.sync_at + 4));
    EXPECT_EQ(bitstream::format_packet(p[1]).substr(10), " type 1 write CMD words 1: RCRC");
    EXPECT_EQ(bitstream::format_packet(p[4]).substr(10), " type 1 write IDCODE words 1: 0x03636093 (XC7A200T)");
    EXPECT_EQ(bitstream::format_packet(p[9]),
              pdt::format("0x%08zx type 2 write FDRI words 303: frame data (not shown)", image.fdri_type2_at));
    EXPECT_EQ(bitstream::format_packet(p[13]).substr(10), " type 1 NOP words 0");
}

TEST(BitstreamReport, UnknownIdcodeAndCommandSaySo) {
    bitstream_test::ImageSpec spec;
    spec.idcode = 0x01234093;
    const auto text = bitstream::format_text(parsed(bitstream_test::make_image(spec)), "x.bit", 0);
    EXPECT_NE(text.find("IDCODE: 0x01234093 (unknown part)\n"), std::string::npos) << text;
    EXPECT_EQ(bitstream::command_name(0x15), "unknown (0x15)");
    EXPECT_EQ(bitstream::register_name(0x1e), "unknown (0x1e)");
}

TEST(BitstreamReport, JsonDocument) {
    bitstream_test::ImageSpec spec;
    spec.encrypted = true;
    const auto image = bitstream_test::make_image(spec);
    const json doc = json::parse(bitstream::format_json(parsed(image), "d.bit", image.bytes.size()));
    EXPECT_EQ(doc["file"], "d.bit");
    EXPECT_EQ(doc["format"], "bit");
    EXPECT_EQ(doc["size"], image.bytes.size());
    EXPECT_EQ(doc["header"]["part"], "7a200tfbg484");
    EXPECT_EQ(doc["header"]["version"], "2023.2");
    EXPECT_EQ(doc["data_offset"], image.data_offset);
    EXPECT_EQ(doc["sync_offsets"], json::array({image.sync_at}));
    EXPECT_EQ(doc["packets"].size(), image.packet_count);
    EXPECT_EQ(doc["packets"][1]["command"], "RCRC");
    EXPECT_EQ(doc["packets"][0].count("register"), 0u);  // a NOP names no register
    EXPECT_EQ(doc["idcode"], "0x03636093");
    EXPECT_EQ(doc["part"], "XC7A200T");
    EXPECT_EQ(doc["encrypted"], true);
    EXPECT_EQ(doc["compressed"], false);
    EXPECT_EQ(doc["desync_seen"], true);
}

// A header string that is no UTF-8 is replaced in the JSON, never an exception.
TEST(BitstreamReport, JsonOfANonUtf8Header) {
    bitstream_test::ImageSpec spec;
    spec.part = std::string("7a\xff\xfe", 4);
    const auto image = bitstream_test::make_image(spec);
    const json doc = json::parse(bitstream::format_json(parsed(image), "d.bit", image.bytes.size()));
    EXPECT_EQ(doc["header"]["part"], "7a\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace

}  // namespace report_test
