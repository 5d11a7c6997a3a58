// parse_bitstream_file and xilinx_bit_to_bin run as a user runs them, on synthetic bitstreams
// written to a temporary folder: what they print, the .bin they write (byte for byte against
// the one written from the document) and their exit status (0 pass, 1 error in the file, 2 usage).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "bitstream_image.hpp"
#include "test_support/run_process.hpp"

namespace {

using test_support::contains_all;
using test_support::run_process;

class BitstreamTools : public testing::Test {
protected:
    void SetUp() override {
        m_dir = std::filesystem::path(testing::TempDir()) /
                ("pdt_bitstream_" + std::to_string(::getpid()) + "_" +
                 testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }

    std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                     static_cast<std::streamsize>(bytes.size()));
        return path;
    }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    static std::vector<uint8_t> read(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    std::filesystem::path m_dir;
};

TEST_F(BitstreamTools, ParsePrintsEveryPacket) {
    const auto image = bitstream_test::make_image();
    const auto outcome = run_process(PDT_PARSE_TOOL, {write("design.bit", image.bytes)});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_TRUE(contains_all(outcome.output,
                             {".bit format header:", "  design_name=pcie_dma_top;UserID=0XFFFFFFFF;Version=2023.2",
                              "  part_name=7a200tfbg484", "  date=2026/12/04", "  time=17:30:00",
                              "Configuration data: 8 dummy words, bus width detection at byte offset 0x",
                              "Sync word at byte offset 0x", " type 1 NOP words 0\n", " type 1 write CMD words 1: RCRC\n",
                              " type 1 write COR0 words 1: 0x02003fe5\n",
                              " type 1 write IDCODE words 1: 0x03636093 (XC7A200T)\n", " type 1 write FAR words 1: 0x00000000\n",
                              " type 1 write CMD words 1: WCFG\n", " type 1 write FDRI words 0\n",
                              " type 2 write FDRI words 303: frame data (not shown)\n", " type 1 write CRC words 1: 0x5a5a1234\n",
                              " type 1 write CMD words 1: START\n", " type 1 write CMD words 1: DESYNC\n",
                              "End of configuration (DESYNC)", "Packets: 15 in 1 section\n",
                              "IDCODE: 0x03636093 (XC7A200T)\n", "Compressed: no\n", "Encrypted: no\n"}));
    // One line per packet, the frame data not dumped.
    size_t packet_lines = 0;
    for (size_t at = outcome.output.find("\n  0x"); at != std::string::npos; at = outcome.output.find("\n  0x", at + 1))
        ++packet_lines;
    EXPECT_EQ(packet_lines, image.packet_count);
    EXPECT_LT(outcome.output.size(), 3000u);
}

TEST_F(BitstreamTools, ParseCompressedEncryptedJson) {
    bitstream_test::ImageSpec spec;
    spec.compressed = spec.encrypted = true;
    const auto outcome = run_process(PDT_PARSE_TOOL, {write("secret.bit", bitstream_test::make_image(spec).bytes), "--json"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_TRUE(contains_all(outcome.output, {"\"format\": \"bit\"", "\"idcode\": \"0x03636093\"", "\"part\": \"XC7A200T\"",
                                              "\"compressed\": true", "\"encrypted\": true", "\"register\": \"CBC\"",
                                              "\"register\": \"MFWR\"", "\"command\": \"MFW\""}));
}

TEST_F(BitstreamTools, ParseCorruptFileIsExit1WithOffset) {
    const auto image = bitstream_test::make_image();
    ASSERT_GT(image.bytes.size(), 4u);
    // A copy without the last word (erase, not resize: GCC 12 at -O2 reads resize(n - 4) as a
    // possible 2^64-byte memset, -Wstringop-overflow).
    const std::vector<uint8_t> cut(image.bytes.begin(), image.bytes.end() - 4);
    const auto outcome = run_process(PDT_PARSE_TOOL, {write("cut.bit", cut)});
    EXPECT_EQ(outcome.exit_code, 1);
    EXPECT_TRUE(contains_all(outcome.output, {"Error: ", "cut.bit: parse bitstream byte offset 0x",
                                              "the 'e' field's data length"}));
}

TEST_F(BitstreamTools, ParseMissingFileIsExit1) {
    const auto outcome = run_process(PDT_PARSE_TOOL, {path("absent.bit")});
    EXPECT_EQ(outcome.exit_code, 1);
    EXPECT_TRUE(contains_all(outcome.output, {"Error: open bitstream file ", "absent.bit: No such file or directory"}));
}

TEST_F(BitstreamTools, ParseUsageIsExit2) {
    auto outcome = run_process(PDT_PARSE_TOOL, {});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_TRUE(contains_all(outcome.output, {"Error: no bitstream file named", "Usage: parse_bitstream_file"}));
    outcome = run_process(PDT_PARSE_TOOL, {"a.bit", "--no_such_option"});
    EXPECT_EQ(outcome.exit_code, 2);
    outcome = run_process(PDT_PARSE_TOOL, {"--help"});
    EXPECT_EQ(outcome.exit_code, 0);
    EXPECT_TRUE(contains_all(outcome.output, {"Usage: parse_bitstream_file [options] <bitstream file>", "--json"}));
}

TEST_F(BitstreamTools, BitToBinByteForByte) {
    const std::string out = path("design.bin");
    const auto outcome =
        run_process(PDT_BIT_TO_BIN_TOOL, {write("design.bit", bitstream_test::make_image().bytes), out});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    const auto expected = bitstream_test::expected_spi_bin();
    EXPECT_EQ(read(out), expected);
    EXPECT_TRUE(contains_all(outcome.output, {"Wrote ", std::to_string(expected.size()) + " bytes", "not bit-swapped",
                                              "IDCODE 0x03636093 (XC7A200T)"}));
}

TEST_F(BitstreamTools, BitToBinPadded) {
    const std::string out = path("padded.bin");
    const auto outcome = run_process(PDT_BIT_TO_BIN_TOOL,
                                     {write("design.bit", bitstream_test::make_image().bytes), out, "--pad_to", "64K"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    auto expected = bitstream_test::expected_spi_bin();
    expected.resize(65536, 0xFF);
    EXPECT_EQ(read(out), expected);
}

TEST_F(BitstreamTools, BitToBinCorruptWritesNothing) {
    auto image = bitstream_test::make_image();
    image.bytes[image.sync_at] = 0x00;
    const std::string out = path("never.bin");
    const auto outcome = run_process(PDT_BIT_TO_BIN_TOOL, {write("bad.bit", image.bytes), out});
    EXPECT_EQ(outcome.exit_code, 1);
    EXPECT_TRUE(contains_all(outcome.output, {"bad.bit: parse bitstream byte offset 0x", "no Sync word"}));
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(BitstreamTools, BitToBinUnwritableOutputIsExit1) {
    const auto outcome = run_process(PDT_BIT_TO_BIN_TOOL,
                                     {write("design.bit", bitstream_test::make_image().bytes), path("no/such/dir/x.bin")});
    EXPECT_EQ(outcome.exit_code, 1);
    EXPECT_TRUE(contains_all(outcome.output, {"Error: cannot write "}));
}

TEST_F(BitstreamTools, BitToBinUsageIsExit2) {
    auto outcome = run_process(PDT_BIT_TO_BIN_TOOL, {"only_one.bit"});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_TRUE(contains_all(outcome.output, {"Error: two files are needed", "Usage: xilinx_bit_to_bin"}));
    outcome = run_process(PDT_BIT_TO_BIN_TOOL, {"a.bit", "b.bin", "--pad_to", "lots"});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_TRUE(contains_all(outcome.output, {"Error: --pad_to lots: parse size \"lots\""}));
}

}  // namespace
