// quad_spi_flasher on simulated designs whose flash lasts from run to run (PDT_SIM_FLASH_DIR,
// which also logs every erase and program command the model takes).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "test_support/run_process.hpp"

namespace {

namespace fs = std::filesystem;

struct FlasherTest : testing::Test {
    fs::path dir = fs::temp_directory_path() / ("qspi_flasher_" + std::to_string(::getpid()) + "_" +
                                               testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }
    test_support::Outcome run(const std::string& args, const std::string& fault = "") {
        test_support::RunOptions options;
        options.environment = {"PDT_SIM_FLASH_DIR=" + dir.string(), "PDT_SIM_FLASH_FAULT=" + fault};
        options.stdin_from_null = true;
        auto words = test_support::words("--sim_design NiteFury_dma_ddr3 --journal " + (dir / "journal").string() + " " + args);
        return test_support::run_process(PDT_QUAD_SPI_FLASHER, words, options);
    }
    // Erase and program commands the model took, from its log.
    size_t write_commands() {
        size_t n = 0;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() == ".log") {
                std::ifstream in(entry.path());
                for (std::string line; std::getline(in, line);)
                    ++n;
            }
        return n;
    }
    // A bitstream (UG470 "Bitstream Composition"): dummy words, bus width detection, Sync, a
    // Type 1 write of IDCODE, DESYNC, then `bytes` in all with padding the parser takes as
    // trailing bytes after the end of configuration.
    std::string image(uint32_t idcode, size_t bytes) {
        const uint32_t words[] = {0xFFFFFFFF, 0xFFFFFFFF, 0x000000BB, 0x11220044, 0xFFFFFFFF, 0xAA995566,
                                  0x20000000, 0x30018001, idcode,     0x30008001, 0x0000000D, 0x20000000};
        std::vector<uint8_t> b;
        for (uint32_t w : words)
            for (int shift = 24; shift >= 0; shift -= 8)
                b.push_back(static_cast<uint8_t>(w >> shift));
        std::mt19937 random(7);
        while (b.size() < bytes)
            b.push_back(static_cast<uint8_t>(random()));
        const fs::path path = dir / ("image_" + std::to_string(idcode) + "_" + std::to_string(bytes) + ".bit");
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        return path.string();
    }
};

TEST_F(FlasherTest, DryRunWritesNothingThenProgramWritesOnlyWhatDiffers) {
    const std::string bit = image(0x03636093, 5 * 4096 + 10);
    auto dry = run("--write " + bit);
    EXPECT_EQ(dry.exit_code, 0) << dry.output;
    EXPECT_NE(dry.output.find("6 differ, 0 unchanged"), std::string::npos) << dry.output;
    EXPECT_NE(dry.output.find("Dry run: nothing written"), std::string::npos);
    EXPECT_EQ(write_commands(), 0u) << "no erase or program command without --program";
    auto programmed = run("--write " + bit + " --program");
    EXPECT_EQ(programmed.exit_code, 0) << programmed.output;
    EXPECT_NE(programmed.output.find("Sectors written: 6, skipped (unchanged): 0"), std::string::npos) << programmed.output;
    EXPECT_NE(programmed.output.find("PASS: verified 24576 bytes"), std::string::npos);
    EXPECT_GT(write_commands(), 6u);
    auto compare = run("--compare " + bit + " --offset 64MiB");
    EXPECT_EQ(compare.exit_code, 0) << compare.output;
    EXPECT_NE(compare.output.find("PASS: verified 20490 bytes"), std::string::npos) << compare.output;
    // without --offset, compare looks where --write put the image: the update offset
    auto where_written = run("--compare " + bit);
    EXPECT_EQ(where_written.exit_code, 0) << where_written.output;
    EXPECT_NE(where_written.output.find("bytes at 0x4000000 with"), std::string::npos) << where_written.output;
    auto again = run("--write " + bit + " --program");
    EXPECT_NE(again.output.find("Sectors written: 0, skipped (unchanged): 6"), std::string::npos) << again.output;
}

TEST_F(FlasherTest, RefusalsWriteNothing) {
    const std::string bit = image(0x03636093, 4096);
    auto wrong = run("--write " + image(0x03631093, 4096) + " --program");
    EXPECT_NE(wrong.output.find("wrong part: the image's IDCODE is 0x3631093 (XC7A100T), design NiteFury_dma_ddr3 is a "
                                "XC7A200T"),
              std::string::npos)
        << wrong.output;
    const fs::path text = dir / "notes.txt";
    std::ofstream(text) << "not a bitstream\n";
    EXPECT_NE(run("--write " + text.string() + " --program").output.find("the image is not a bitstream"),
              std::string::npos);
    const std::string golden = run("--write " + bit + " --offset 0 --program").output;
    EXPECT_NE(golden.find("golden image"), std::string::npos) << golden;
    EXPECT_NE(golden.find("(--overwrite_golden to write it)"), std::string::npos) << golden;  // the tool names the option
    EXPECT_NE(run("--write " + bit + " --offset 0x4000100 --program").output.find("not sector aligned"), std::string::npos);
    EXPECT_NE(run("--write " + bit + " --offset 0x7ff0000 --program", "protected").output.find("protected sector"),
              std::string::npos);
    auto big = run("--write " + image(0x03636093, 8192) + " --offset 0x7fff000 --program");
    EXPECT_NE(big.output.find("the image is larger than the flash"), std::string::npos) << big.output;
    EXPECT_EQ(write_commands(), 0u);
    auto identify = run("");
    EXPECT_EQ(identify.exit_code, 0);
    EXPECT_NE(identify.output.find("Manufacturer ID=0x20 (Micron)"), std::string::npos) << identify.output;
    auto stuck = run("--write " + bit + " --program --busy_timeout 0.05", "stuck_busy");
    EXPECT_EQ(stuck.exit_code, 1);
    EXPECT_NE(stuck.output.find("stuck busy"), std::string::npos) << stuck.output;
}

TEST_F(FlasherTest, InterruptedWriteIsReportedAndFinished) {
    const std::string bit = image(0x03636093, 4 * 4096);
    auto failed = run("--write " + bit + " --program", "program_fails=20");
    EXPECT_EQ(failed.exit_code, 1) << failed.output;
    EXPECT_NE(failed.output.find("the program failed"), std::string::npos) << failed.output;
    EXPECT_TRUE(fs::exists(dir / "journal"));
    auto identify = run("");
    EXPECT_EQ(identify.exit_code, 0);
    EXPECT_NE(identify.output.find("Interrupted write found"), std::string::npos) << identify.output;
    EXPECT_NE(run("--json").output.find(R"("interrupted_write": {"image": ")" + bit), std::string::npos);
    auto other = run("--erase --offset 0x5000000 --length 4096 --program");
    EXPECT_NE(other.output.find("is unfinished: finish it first"), std::string::npos) << other.output;
    auto finished = run("--write " + bit + " --program");
    EXPECT_EQ(finished.exit_code, 0) << finished.output;
    EXPECT_NE(finished.output.find("Interrupted write found"), std::string::npos);
    EXPECT_NE(finished.output.find("Finishing it"), std::string::npos);
    EXPECT_NE(finished.output.find("Sectors written: 3, skipped (unchanged): 1"), std::string::npos) << finished.output;
    EXPECT_FALSE(fs::exists(dir / "journal"));
}

TEST_F(FlasherTest, InterruptedEraseIsFinishedByTheSameErase) {
    const std::string bit = image(0x03636093, 2 * 4096);
    ASSERT_EQ(run("--write " + bit + " --program").exit_code, 0);
    const std::string erase = "--erase --offset 64MiB --length 8192 --program";
    auto stuck = run(erase + " --busy_timeout 0.05", "stuck_busy");
    EXPECT_EQ(stuck.exit_code, 1);
    EXPECT_NE(stuck.output.find("stuck busy"), std::string::npos) << stuck.output;
    auto refused = run("--write " + bit + " --program");
    EXPECT_NE(refused.output.find("finish it first (--erase --length 0x2000 --offset 0x4000000 --program)"),
              std::string::npos)
        << refused.output;
    auto finished = run(erase);
    EXPECT_EQ(finished.exit_code, 0) << finished.output;
    EXPECT_NE(finished.output.find("Finishing it"), std::string::npos);
    EXPECT_NE(finished.output.find("Sectors written: 2, skipped (unchanged): 0"), std::string::npos) << finished.output;
    EXPECT_FALSE(fs::exists(dir / "journal"));
}

TEST_F(FlasherTest, JsonAndReadToFile) {
    const std::string bit = image(0x03636093, 3 * 4096);
    auto dry = run("--write " + bit + " --json");
    EXPECT_EQ(dry.exit_code, 0) << dry.output;
    EXPECT_NE(dry.output.find(R"("mode": "write", "verdict": "DRY_RUN")"), std::string::npos) << dry.output;
    EXPECT_NE(dry.output.find(R"("sectors_differ": 3)"), std::string::npos);
    EXPECT_EQ(dry.output.find("Displaying"), std::string::npos) << "no text lines with --json";
    auto identify = run("--json");
    EXPECT_NE(identify.output.find(R"("manufacturer_id": 32, "manufacturer": "Micron")"), std::string::npos)
        << identify.output;
    EXPECT_NE(identify.output.find(R"("size": 134217728, "page_size": 256, "address_bytes": 4)"), std::string::npos);
    ASSERT_EQ(run("--write " + bit + " --program").exit_code, 0);
    const std::string out = (dir / "read.bin").string();
    auto read = run("--read " + out + " --offset 64MiB --length 12288");
    EXPECT_EQ(read.exit_code, 0) << read.output;
    EXPECT_NE(read.output.find("Read 12288 bytes from flash at 0x4000000"), std::string::npos) << read.output;
    std::ifstream a(bit, std::ios::binary), b(out, std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}));
    auto bad_bits = run("--compare " + bit + " --offset 64MiB --json", "read_bit_error");
    EXPECT_EQ(bad_bits.exit_code, 1);
    EXPECT_NE(bad_bits.output.find("does not read back the same"), std::string::npos) << bad_bits.output;
    EXPECT_NE(bad_bits.output.find(R"("verdict": "FAIL")"), std::string::npos);
    auto differs = run("--compare " + bit + " --offset 65MiB");
    EXPECT_EQ(differs.exit_code, 1);
    EXPECT_NE(differs.output.find("FAIL: first difference at 0x4100008"), std::string::npos) << differs.output;
}

TEST_F(FlasherTest, MacronixShapeOfTheKintexDesigns) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    auto tef = test_support::run_process(PDT_QUAD_SPI_FLASHER, test_support::words("--sim_design TEF1001_dma_ddr3"), options);
    EXPECT_EQ(tef.exit_code, 0) << tef.output;
    EXPECT_NE(tef.output.find("Manufacturer ID=0xc2 (Macronix)  Memory Interface Type=0x20  Density=0x1a"),
              std::string::npos)
        << tef.output;
    EXPECT_NE(tef.output.find("Flash Size Bytes=67108864  Page Size Bytes=256  Num Address Bytes=4 (4-byte mode (0xB7))"),
              std::string::npos);
    EXPECT_NE(tef.output.find("Quad enable: QE is status register 1 bit 6"), std::string::npos);
    options.environment = {"PDT_SIM_FLASH_FAULT=melt"};
    auto bad = test_support::run_process(PDT_QUAD_SPI_FLASHER, test_support::words("--sim_design TEF1001_dma_ddr3"), options);
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("unknown flash fault"), std::string::npos) << bad.output;
}

TEST_F(FlasherTest, UsageErrors) {
    EXPECT_EQ(run("--read a --compare b").exit_code, 2);
    EXPECT_EQ(run("--offset 12Q").exit_code, 2);
    test_support::RunOptions options;
    options.stdin_from_null = true;
    auto two = test_support::run_process(
        PDT_QUAD_SPI_FLASHER, test_support::words("--sim_design NiteFury_dma_ddr3 --sim_design TEF1001_dma_ddr3 --read x"),
        options);
    EXPECT_EQ(two.exit_code, 2);
    EXPECT_NE(two.output.find("2 designs with a quad_spi flash found"), std::string::npos) << two.output;
}

}  // namespace
