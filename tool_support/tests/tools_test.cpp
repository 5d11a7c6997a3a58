// Every tool main that opens designs, run as a process: the same usage error (exit 2) for an
// unknown design, and on a kernel bus with no usable device, exit 1 naming the real cause.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "test_support/run_process.hpp"
#include "fake_machine.hpp"
#include "tool_support/open_designs.hpp"

namespace {

const std::vector<std::string> kTools = {PDT_TOOL_PATHS};

// out: stdout; err: stderr; stdin from /dev/null.
using ToolRun = test_support::Outcome;

ToolRun run(const std::string& environment, const std::string& tool, const std::string& args) {
    test_support::RunOptions options;
    options.environment = test_support::words(environment);
    options.stderr_to = test_support::Stderr::separate;
    options.stdin_from_null = true;
    return test_support::run_process(tool, test_support::words(args), options);
}

std::string name_of(const std::string& tool) { return std::filesystem::path(tool).filename().string(); }

// The options a tool needs besides the design selection to get as far as opening devices.
std::string extra_args(const std::string& tool) {
    return name_of(tool) == "xilinx_axi_stream_switch_set_routing" ? "--default_routing" : "";
}

}  // namespace

TEST(EveryTool, UnknownDesignIsTheSameUsageError) {
    ASSERT_GE(kTools.size(), 6u);
    for (const std::string& tool : kTools) {
        const ToolRun r = run("", tool, "--sim_design NoSuchDesign " + extra_args(tool));
        EXPECT_EQ(r.exit_code, 2) << name_of(tool) << ": " << r.output << r.err;
        EXPECT_EQ(r.err, "Error: " + tool_support::unknown_design_message("NoSuchDesign") + "\n") << name_of(tool);
        EXPECT_EQ(r.output, "") << name_of(tool);
    }
}

TEST(EveryTool, NoVfioAndADeviceBoundElsewhereAreNamed) {
    FakeMachine machine;
    machine.add({"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, "xdma", 41});
    for (const std::string& tool : kTools) {
        const ToolRun r = run(machine.environment(), tool, extra_args(tool));
        EXPECT_EQ(r.exit_code, 1) << name_of(tool) << ": " << r.output << r.err;
        EXPECT_NE(r.err.find("Error: no known FPGA design found on the vfio bus\n"), std::string::npos)
            << name_of(tool) << ": " << r.err;
        EXPECT_NE(r.err.find("  vfio-pci is not loaded: " + machine.tree.path("dev/vfio") + " does not exist"),
                  std::string::npos)
            << name_of(tool) << ": " << r.err;
        EXPECT_NE(r.err.find("(design TEF1001_dma_stream_loopback) is bound to xdma, not vfio-pci; bind it: echo "
                             "0000:15:00.0 | sudo tee /sys/bus/pci/devices/0000:15:00.0/driver/unbind;"),
                  std::string::npos)
            << name_of(tool) << ": " << r.err;
        EXPECT_EQ(r.err.find("loopback route"), std::string::npos) << name_of(tool) << ": " << r.err;
    }
}

// Identification warnings are shown by every tool: here a design whose DMA BAR (128 bytes)
// cannot hold the bridge's registers. Nothing can be tested on it, so every tool fails.
TEST(EveryTool, ShowsIdentificationWarnings) {
    const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_pdt_tiny_dma.json";
    std::ofstream(path) << R"({"name": "tiny_dma", "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0101"},
        "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 1, "c2h_channels": 1},
        "simulation": {"bar_sizes": {"2": "0x80"}}})";
    for (const std::string& tool : kTools) {
        const ToolRun r = run("", tool, "--design_file " + path + " --sim_design tiny_dma " + extra_args(tool));
        EXPECT_EQ(r.exit_code, 1) << name_of(tool) << ": " << r.output << r.err;
        EXPECT_NE(r.err.find("Warning: 0000:15:00.0 tiny_dma: DMA bridge absent: "), std::string::npos)
            << name_of(tool) << ": " << r.err;
    }
    std::remove(path.c_str());
}

// A device named with --device that is bound to another driver: the open names the driver and
// gives the commands that bind it to vfio-pci.
TEST(EveryTool, NamedDeviceBoundElsewhereIsNamed) {
    FakeMachine machine;
    machine.add({"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, "xdma", 41});
    machine.load_vfio();
    for (const std::string& tool : kTools) {
        const std::string name = name_of(tool);
        const std::string option = name == "display_identified_pcie_fpga_designs" || name == "test_dma_descriptor_credits"
                                       ? "-d"
                                       : name == "test_dma_bridge" ? "--device" : "";
        if (option.empty())
            continue;  // the stream tools select devices by --device_routing / --stream_device
        const ToolRun r = run(machine.environment(), tool, option + " 0000:15:00.0");
        EXPECT_EQ(r.exit_code, 1) << name << ": " << r.output << r.err;
        EXPECT_NE(r.err.find("Error: open 0000:15:00.0: No such device (not bound to vfio-pci but to xdma; bind it: "
                             "echo 0000:15:00.0 | sudo tee /sys/bus/pci/devices/0000:15:00.0/driver/unbind; "),
                  std::string::npos)
            << name << ": " << r.err;
    }
}

// This machine, for real: without vfio-pci loaded every tool says so (skipped where it is).
TEST(EveryTool, ThisMachineWithoutVfio) {
    if (std::filesystem::exists("/dev/vfio/vfio"))
        GTEST_SKIP() << "vfio-pci is loaded here";
    for (const std::string& tool : kTools) {
        const ToolRun r = run("", tool, extra_args(tool));
        EXPECT_EQ(r.exit_code, 1) << name_of(tool) << ": " << r.output << r.err;
        EXPECT_NE(r.err.find("  vfio-pci is not loaded: /dev/vfio"), std::string::npos) << name_of(tool) << ": " << r.err;
    }
}
