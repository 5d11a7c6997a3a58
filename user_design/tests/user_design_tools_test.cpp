// dma_to_device, dma_from_device and reg_rw run as a user runs them, on simulated designs: a file
// sent with --verify to XDMA and QDMA card memory passes; on a lying device (PDT_SIM_FAULT) the
// read-back differs and --verify fails naming the offset; standard input and output as a shell
// pipes them; card memory read to a file; a 64 MiB file sent by one process and read back by the
// next, byte for byte, only while PDT_SIM_CARD_MEMORY_DIR keeps the card memory; a register
// written and read back on the model, and a read outside its BAR refused; XDMA's own count of a
// copy after its rate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "pattern_file.hpp"
#include "test_support/run_process.hpp"

namespace {

std::filesystem::path tool_scratch(const std::string& name) {
    return std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
}

std::filesystem::path tool_pattern_file(const std::string& name, uint64_t bytes) {
    const auto path = tool_scratch(name);
    std::ofstream out(path, std::ios::binary);
    for (uint64_t i = 0; i < bytes; ++i)
        out.put(static_cast<char>((i * 13) ^ (i >> 9)));
    return path;
}

test_support::Outcome run(const std::string& tool, const std::vector<std::string>& args,
                          const std::vector<std::string>& environment = {}) {
    test_support::RunOptions options;
    options.environment = environment;
    options.stdin_from_null = true;
    options.timeout = std::chrono::seconds(120);
    return test_support::run_process(tool, args, options);
}

struct MemoryDesign {
    const char* name;
    const char* adapter;
};
const MemoryDesign kDesigns[] = {{"TEF1001_dma_ddr3", "(xdma)"}, {"U200_qdma_ram", "(qdma)"}};

TEST(DmaToDevice, AFileSentWithVerifyPassesOnXdmaAndQdmaDesigns) {
    const auto file = tool_pattern_file("dma_to_device_ok", (4 << 20) + 3);
    for (const MemoryDesign& d : kDesigns) {
        const auto out = run(DMA_TO_DEVICE, {"--sim_design", d.name, "--file", file.string(), "--verify", "--count", "2"});
        EXPECT_TRUE(test_support::exited_printing(out, 0,
                                                  {std::string(d.adapter) + ": 4194307 bytes from " + file.string(),
                                                   "Verify: PASS: the 4194307 bytes read back",
                                                   " MB/s (10^6 bytes a second; 4194307 x 2 bytes in "}))
            << d.name;
    }
    std::filesystem::remove(file);
}

TEST(DmaToDevice, OnALyingDeviceVerifyFailsNamingTheOffset) {
    const auto file = tool_pattern_file("dma_to_device_lie", 1 << 20);
    for (const MemoryDesign& d : kDesigns)
        for (const char* lie : {"moves_nothing", "stale_after=1"}) {
            const auto out = run(DMA_TO_DEVICE, {"--sim_design", d.name, "-f", file.string(), "--verify"},
                                 {std::string("PDT_SIM_FAULT=") + lie});
            EXPECT_TRUE(test_support::exited_printing(
                out, 1, {"Verify: FAIL: ", "first difference at offset 0x0 (file byte 0x0, card address "}))
                << d.name << " " << lie;
            EXPECT_FALSE(test_support::contains(out.output, "PASS")) << out.output;
        }
    std::filesystem::remove(file);
}

// XDMA's performance monitors count the copy alone (not --verify's decoy or check): its data
// beats of the model's 8-byte datapath agree with the bytes copied. QDMA keeps no counts here.
TEST(DmaToDevice, TheIpsOwnCountOfTheCopyFollowsTheRateOnXdma) {
    const auto file = tool_pattern_file("dma_to_device_ip", 1 << 20);
    const auto to = run(DMA_TO_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-f", file.string(), "-c", "2"});
    EXPECT_TRUE(test_support::exited_printing(
        to, 0, {"IP: H2C 0 performance monitor: ", " 262144 data beats (duty cycle ", "): 2097152 bytes at 8 bytes a beat"}));
    // With --verify each transfer is checked alone: the counts are the last transfer's, without
    // the decoy's write and the reads of the checks.
    const auto verified = run(DMA_TO_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-f", file.string(), "--verify", "-c", "2"});
    EXPECT_TRUE(test_support::exited_printing(
        verified, 0, {"IP: H2C 0 performance monitor: ", " 131072 data beats (duty cycle ",
                      "): 1048576 bytes at 8 bytes a beat", "Verify: PASS"}));
    EXPECT_FALSE(test_support::contains(verified.output, "IP: C2H")) << "the checks' reads counted: " << verified.output;
    const auto from = run(DMA_FROM_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-s", "64KiB", "-f", file.string()});
    EXPECT_TRUE(test_support::exited_printing(
        from, 0, {"IP: C2H 0 performance monitor: ", " 8192 data beats", "): 65536 bytes at 8 bytes a beat"}));
    const auto json = run(DMA_FROM_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-s", "4KiB", "-f", file.string(), "--json"});
    EXPECT_TRUE(test_support::exited_printing(json, 0, {"\"ip_counts\": [\"C2H 0 performance monitor: "}));
    const auto qdma = run(DMA_TO_DEVICE, {"--sim_design", "U200_qdma_ram", "-f", file.string()});
    EXPECT_TRUE(test_support::exited_printing(qdma, 0, {" MB/s (10^6 bytes a second; "}));
    EXPECT_FALSE(test_support::contains(qdma.output, "IP: ")) << qdma.output;
    std::filesystem::remove(file);
}

// With --count each transfer is checked alone (the decoy before it, read back, and the range after
// it): a device that stops moving data after the first transfer fails at the second.
TEST(DmaToDevice, EveryTransferIsCheckedSoADeviceThatGoesStaleFails) {
    const auto file = tool_pattern_file("dma_to_device_stale", 64 << 10);
    const auto honest = run(DMA_TO_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-f", file.string(), "--verify", "-c", "3"});
    EXPECT_TRUE(test_support::exited_printing(
        honest, 0, {"65536 x 3 bytes in ", "Verify: PASS: the 65536 bytes read back from card address 0x0 match the "
                                           "file after each of the 3 transfers"}));
    // Four transfers move data: the first round's decoy, its read-back, the copy and its check.
    const auto stale = run(DMA_TO_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-f", file.string(), "--verify", "-c", "3"},
                           {"PDT_SIM_FAULT=stale_after=4"});
    EXPECT_TRUE(test_support::exited_printing(stale, 1, {"Verify: FAIL: the card did not take the decoy"}));
    EXPECT_FALSE(test_support::contains(stale.output, "PASS")) << stale.output;
    std::filesystem::remove(file);
}

TEST(DmaToDevice, JsonNamesTheCopyAndTheCheck) {
    const auto file = tool_pattern_file("dma_to_device_json", 8192);
    const auto out = run(DMA_TO_DEVICE, {"--sim_design", "TEF1001_dma_ddr3", "-f", file.string(), "--offset", "4096",
                                         "--address", "0x100000", "--verify", "--json"});
    EXPECT_TRUE(test_support::exited_printing(out, 0,
                                              {"\"adapter\": \"xdma\"",
                                               "\"file_offset\": 4096, \"address\": 1048576, \"bytes\": 4096, \"count\": 1",
                                               "\"verify\": {\"result\": \"pass\", \"transfers\": 1}"}));
    std::filesystem::remove(file);
}

TEST(DmaToDevice, StandardInputIsReadOnceAndHeld) {
    const auto file = tool_pattern_file("dma_to_device_stdin", 70000);
    // 4096 bytes skipped, the next 65536 sent (twice, from what was held) and checked.
    const auto out = run("/bin/sh", {"-c", std::string(DMA_TO_DEVICE) + " --sim_design U200_qdma_ram -f - -o 4096 -s 64KiB"
                                               " -c 2 --verify < " + file.string()});
    EXPECT_TRUE(test_support::exited_printing(
        out, 0, {"65536 bytes from standard input (offset 0x1000) to card address 0x0, 2 transfers", "Verify: PASS"}));
    std::filesystem::remove(file);
}

TEST(DmaFromDevice, StandardOutputCarriesTheBytesAndTheReportGoesToStandardError) {
    const auto file = tool_scratch("dma_from_device_stdout");
    const auto out = run("/bin/sh", {"-c", std::string(DMA_FROM_DEVICE) + " --sim_design TEF1001_dma_ddr3 -s 12345 -f - > " +
                                               file.string()});
    EXPECT_TRUE(
        test_support::exited_printing(out, 0, {"12345 bytes from card address 0x0 to standard output, 1 transfer"}));
    EXPECT_EQ(std::filesystem::file_size(file), 12345u);
    std::filesystem::remove(file);
}

// --verify reads each chunk twice, the second time into the complement of what the first brought:
// an honest design passes; a device that moves nothing, or stops after its first transfer, fails,
// and no byte of the chunk that failed reaches the file.
TEST(DmaFromDevice, VerifyReadsTwiceAndFailsADeviceThatDoesNotMoveTheBytes) {
    const auto file = tool_scratch("dma_from_device_verify");
    for (const MemoryDesign& d : kDesigns) {
        const auto honest =
            run(DMA_FROM_DEVICE, {"--sim_design", d.name, "-s", "64KiB", "-f", file.string(), "--verify", "-c", "2"});
        EXPECT_TRUE(test_support::exited_printing(honest, 0,
                                                  {"65536 x 2 bytes in ", "Verify: PASS: each of the 65536 bytes from "
                                                                          "card address "}))
            << d.name;
        EXPECT_EQ(std::filesystem::file_size(file), 2u * 65536) << d.name;
        EXPECT_FALSE(test_support::contains(honest.output, "IP: ")) << "the second reads would be counted";
        for (const char* lie : {"moves_nothing", "stale_after=1"}) {
            const auto lying = run(DMA_FROM_DEVICE, {"--sim_design", d.name, "-s", "64KiB", "-f", file.string(), "--verify"},
                                   {std::string("PDT_SIM_FAULT=") + lie});
            EXPECT_TRUE(test_support::exited_printing(
                lying, 1, {"Verify: FAIL: a second read differs at offset 0x0 (card address ", "65536 bytes of that chunk"}))
                << d.name << " " << lie;
            EXPECT_FALSE(test_support::contains(lying.output, "PASS")) << lying.output;
            EXPECT_EQ(std::filesystem::file_size(file), 0u) << d.name << " " << lie << ": the unmoved chunk reached the file";
        }
    }
    std::filesystem::remove(file);
}

TEST(DmaFromDevice, CardMemoryToAFile) {
    const auto file = tool_scratch("dma_from_device_out");
    for (const MemoryDesign& d : kDesigns) {
        const auto out = run(DMA_FROM_DEVICE, {"--sim_design", d.name, "--size", "64KiB", "-f", file.string(), "-c", "2"});
        EXPECT_TRUE(
            test_support::exited_printing(out, 0, {std::string(d.adapter) + ": 65536 bytes from card address "}))
            << d.name;
        EXPECT_EQ(std::filesystem::file_size(file), 2u * 65536) << d.name;  // each transfer appended
    }
    std::filesystem::remove(file);
}

TEST(RegRw, AWriteIsReadBackOnTheModel) {
    // H2C channel 0's SGDMA Descriptor Low Address (PG195: 0x4080), a register that keeps what is written.
    const auto wrote = run(REG_RW, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x4080", "--write",
                                    "0x12345640"});
    EXPECT_TRUE(test_support::exited_printing(
        wrote, 0, {"BAR 2 offset 0x4080 32 bits: before 0x00000000, wrote 0x12345640, after 0x12345640"}));
    const auto read = run(REG_RW, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x0", "--json"});
    EXPECT_TRUE(test_support::exited_printing(read, 0, {"\"bar\": 2, \"offset\": 0, \"bits\": 32, \"value\": "}));
}

TEST(RegRw, AccessesTheBarRefusesAreNotMade) {
    const auto past = run(REG_RW, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x40000000"});
    EXPECT_TRUE(test_support::exited_printing(past, 1, {"Numerical result out of range"}));
    const auto wide = run(REG_RW, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x0", "--width", "64"});
    EXPECT_EQ(wide.exit_code, 2) << wide.output;
    const auto too_big = run(REG_RW, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x4080", "--width",
                                      "8", "--write", "0x100"});
    EXPECT_TRUE(test_support::exited_printing(too_big, 2, {"does not fit 8 bits"}));
}

// ---- the card memory from one process to the next (PDT_SIM_CARD_MEMORY_DIR) ----

const MemoryDesign kKeptDesigns[] = {{"TEF1001_dma_ddr3", "(xdma)"}, {"VD100_qdma_ddr4", "(qdma)"}};
constexpr uint64_t kKeptBytes = 64ull << 20;

// 64 MiB in which no 8-byte word repeats (none is zero).
std::filesystem::path kept_pattern_file(const std::string& name) {
    const auto path = tool_scratch(name);
    user_design_test::write_pattern_file(path, kKeptBytes);
    return path;
}

// dma_to_device sends `file` to the design's card memory, then dma_from_device, another
// process, reads as many bytes back to `back`; both with `variable` ("NAME=value") in their
// environment. Both runs must pass.
void send_then_read_back(const MemoryDesign& d, const std::filesystem::path& file, const std::filesystem::path& back,
                         const std::string& variable) {
    const auto sent = run(DMA_TO_DEVICE, {"--sim_design", d.name, "-f", file.string()}, {variable});
    EXPECT_TRUE(test_support::exited_printing(sent, 0, {std::string(d.adapter) + ": 67108864 bytes from "}))
        << d.name;
    std::filesystem::remove(back);
    const auto read = run(DMA_FROM_DEVICE, {"--sim_design", d.name, "-f", back.string(), "--size", "64MiB"}, {variable});
    EXPECT_TRUE(test_support::exited_printing(read, 0, {std::string(d.adapter) + ": 67108864 bytes from card address "}))
        << d.name;
}

TEST(CardMemoryKept, AFileSentByOneProcessIsReadBackByTheNextByteForByte) {
    const auto file = kept_pattern_file("card_memory_kept_in");
    const auto back = tool_scratch("card_memory_kept_back");
    const auto dir = tool_scratch("card_memory_kept_dir");
    const std::vector<char> sent = user_design_test::file_bytes(file);
    for (const MemoryDesign& d : kKeptDesigns) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        send_then_read_back(d, file, back, "PDT_SIM_CARD_MEMORY_DIR=" + dir.string());
        EXPECT_TRUE(user_design_test::file_bytes(back) == sent) << d.name << ": the file read back by another process differs";
        // The card memory in <dir>/<design>-<address>-card.mem, as the BAR memory's files are named.
        const auto kept = dir / (std::string(d.name) + "-0000:15:00.0-card.mem");
        EXPECT_TRUE(std::filesystem::exists(kept)) << kept;
    }
    std::filesystem::remove_all(dir);
    std::filesystem::remove(file);
    std::filesystem::remove(back);
}

TEST(CardMemoryKept, WithoutTheVariableTheNextProcessReadsZerosNeverTheFile) {
    const auto file = kept_pattern_file("card_memory_lost_in");
    const auto back = tool_scratch("card_memory_lost_back");
    for (const MemoryDesign& d : kKeptDesigns) {
        send_then_read_back(d, file, back, "PDT_SIM_CARD_MEMORY_DIR=");  // empty: unset
        const std::vector<char> got = user_design_test::file_bytes(back);
        ASSERT_EQ(got.size(), kKeptBytes) << d.name;
        EXPECT_TRUE(got == std::vector<char>(kKeptBytes, 0)) << d.name << ": a fresh card memory reads zeros";
    }
    std::filesystem::remove(file);
    std::filesystem::remove(back);
}

}  // namespace
