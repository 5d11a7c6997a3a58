// The display_identified_pcie_fpga_designs executable: output and exit codes.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "test_support/run_process.hpp"

namespace {

// out: stdout; err: stderr.
using ToolRun = test_support::Outcome;

ToolRun run_tool(const std::string& args) {
    test_support::RunOptions options;
    options.stderr_to = test_support::Stderr::separate;
    return test_support::run_process(PDT_IDENTIFY_TOOL, test_support::words(args), options);
}

std::string seed_lines_without_bus_master() {
    std::ifstream in(PDT_GOLDEN_DIR "/seed004_display_identified_pcie_fpga_designs.txt");
    std::string line, text;
    while (std::getline(in, line))
        if (line.rfind("Enabled bus master for ", 0) != 0)
            text += line + "\n";
    return text;
}

const char* kSeedArgs =
    "--sim_design TEF1001_dma_stream_loopback --sim_design XCKU5P_DUAL_QSFP_dma_stream_loopback "
    "--sim_design NiteFury_dma_stream_loopback";

// Runs the tool on the simulated design `name`, given in a design file that holds `json`.
ToolRun run_design_file(const std::string& name, const std::string& json) {
    const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_pdt_tool_" + name + ".json";
    std::ofstream(path) << json;
    const ToolRun run = run_tool("--design_file " + path + " --sim_design " + name);
    std::remove(path.c_str());
    return run;
}

// A stream design (one channel each way, the DMA bridge at BAR 2) whose simulated BAR 2 has
// `bar_size` bytes, too few for the bridge: the design is still listed, the warning names what
// cannot be read, and the run fails.
void expect_unreadable_dma_bridge(const std::string& name, const std::string& subsystem_device,
                                  const std::string& bar_size, const std::string& warning) {
    const ToolRun run = run_design_file(
        name, R"({"name": ")" + name + R"(", "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": ")" +
                  subsystem_device + R"("},
        "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 1, "c2h_channels": 1},
        "simulation": {"bar_sizes": {"2": ")" + bar_size + R"("}}})");
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.output.find("\nDesign " + name + ":\n"), std::string::npos) << run.output << run.err;
    EXPECT_NE(run.err.find("Warning: 0000:15:00.0 " + name + ": " + warning), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("Error: 0000:15:00.0 " + name + ": cannot read the design's DMA bridge"), std::string::npos)
        << run.err;
}

}  // namespace

TEST(IdentifyTool, PrintsTheSeed004Lines) {
    const ToolRun run = run_tool(kSeedArgs);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.output, seed_lines_without_bus_master());
    EXPECT_EQ(run.err, "");
}

TEST(IdentifyTool, NoDesignFoundIsFailureWithAMessage) {
    const ToolRun run = run_tool(std::string(kSeedArgs) + " -d 0000:99:00.0");
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.output, "");
    EXPECT_NE(run.err.find("Error: no known FPGA design found on the simulated bus at the given --device locations"),
              std::string::npos)
        << run.err;
}

TEST(IdentifyTool, KernelBusWithoutDevicesIsFailure) {
    // Without --sim_design the kernel's VFIO devices are used; this test machine has none bound.
    const ToolRun run = run_tool("-d 0000:99:1f.7");
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find("Error: "), std::string::npos) << run.err;
}

TEST(IdentifyTool, UsageErrorsExitTwo) {
    EXPECT_EQ(run_tool("--no_such_option").exit_code, 2);
    EXPECT_EQ(run_tool("--device").exit_code, 2);
    const ToolRun bad_bdf = run_tool("--device 0000:15:00");
    EXPECT_EQ(bad_bdf.exit_code, 2);
    EXPECT_NE(bad_bdf.err.find("Error: --device: "), std::string::npos) << bad_bdf.err;
    const ToolRun unknown = run_tool("--sim_design NoSuchDesign");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("Error: --sim_design NoSuchDesign: unknown design"), std::string::npos) << unknown.err;
}

TEST(IdentifyTool, MalformedDesignFileNamesFileFieldAndProblem) {
    const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_pdt_tool_bad_design.json";
    std::ofstream(path) << R"({"name": "x", "match": {"subsystem_vendor_id": 2, "subsystem_device_id": "0xZZ"}})";
    const ToolRun run = run_tool("--design_file " + path + " " + kSeedArgs);
    std::remove(path.c_str());
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.output, "");
    EXPECT_EQ(run.err, "Error: parse design file " + path +
                           " field match.subsystem_device_id: Invalid argument (expected a number such as 0x2000 or "
                           "8192 (got \"0xZZ\"))\n");
}

TEST(IdentifyTool, UserDesignFileIsIdentifiedWithoutCodeChange) {
    const ToolRun run = run_design_file(
        "my_loopback", R"({"name": "my_loopback", "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0100"},
        "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 1, "c2h_channels": 1},
        "peripherals": [{"type": "user_access_timestamp", "bar": 0, "offset": "0x0"}],
        "simulation": {"user_access_timestamp": "0xC1310413"}})");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.output,
              "Opening device 0000:15:00.0 (10ee:7024) with IOMMU group 41\n"
              "\n"
              "Design my_loopback:\n"
              "  PCI device 0000:15:00.0 rev 00 IOMMU group 41\n"
              "  DMA bridge bar 2 AXI Stream\n"
              "  Channel ID  addr_alignment  len_granularity  num_address_bits\n"
              "       H2C 0               1                1                64\n"
              "       C2H 0               1                1                64\n"
              "  User access build timestamp : C1310413 - 24/02/2024 16:16:19\n");
}

// A user's design file may give a display name: printed in the text, the key stays the name.
TEST(IdentifyTool, UserDesignFileDisplayName) {
    const ToolRun run = run_design_file(
        "my_shown", R"json({"name": "my_shown", "display_name": "my shown (board X)",
        "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0101"}})json");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.output.find("\nDesign my shown (board X):\n  PCI device 0000:15:00.0 rev 00 IOMMU group 41\n"),
              std::string::npos)
        << run.output;
}

TEST(IdentifyTool, JsonGoesToStdoutAndProgressToStderr) {
    const ToolRun run = run_tool(std::string(kSeedArgs) + " --json");
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_EQ(run.output.rfind("{\n  \"designs\": [", 0), 0u) << run.output.substr(0, 80);
    EXPECT_NE(run.err.find("Opening device 0000:2d:00.0 (10ee:9038) with IOMMU group 85\n"), std::string::npos);
}

TEST(IdentifyTool, ListDesigns) {
    const ToolRun run = run_tool("--list_designs");
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.output.find("TEF1001_dma_stream_loopback  10ee:* subsystem 0002:0007  (built-in "
                           "designs/data/TEF1001_dma_stream_loopback.json)\n"),
              std::string::npos)
        << run.output;
}

// A known design whose DMA bridge cannot be read (its BAR is too small to map the registers):
// the warning names it, and the run fails.
TEST(IdentifyTool, UnreadableDmaBridgeIsFailure) {
    expect_unreadable_dma_bridge("tiny_dma", "0x0101", "0x80", "DMA bridge absent: ");
}

// A DMA BAR that holds the channel registers (0x0000-0x1fff) but not the SGDMA blocks at 0x4000:
// the design is still listed, the warning names the missing block, and the run fails.
TEST(IdentifyTool, DmaBarWithoutTheSgdmaBlocksIsAWarningAndAFailure) {
    expect_unreadable_dma_bridge("half_dma", "0x0102", "0x4000",
                                 "DMA bridge unreadable: check XDMA register blocks H2C "
                                 "SGDMA 0 block at 0x4000..0x40ff");
}
