// display_possible_fpga_designs and its library part, against fake machines and this machine.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "test_support/run_process.hpp"
#include "fake_kernel.hpp"
#include "identify/identify.hpp"
#include "tool_support/open_designs.hpp"
#include "tool_support/possible_designs.hpp"

namespace {

// out: stdout; err: stderr.
using ToolRun = test_support::Outcome;

ToolRun run_tool(const std::string& environment) {
    test_support::RunOptions options;
    options.environment = test_support::words(environment);
    options.stderr_to = test_support::Stderr::separate;
    return test_support::run_process(PDT_POSSIBLE_TOOL, {}, options);
}

void add_three(FakeMachine& machine) {
    machine.add({"0000:02:00.0", 0x8086, 0x100e, 0x8086, 0x001e, "e1000", 7});     // not a design
    machine.add({"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, "vfio-pci", 41});  // TEF1001 loopback
    machine.add({"0000:36:00.0", 0x10ee, 0x7011, 0x0000, 0x0000, "xdma", 86});      // Lite or NiteFury
    machine.slot("4", "0000:36:00");
}

}  // namespace

TEST(PossibleDesigns, ListsMatchingDevicesWithDriverAndSlot) {
    FakeMachine machine;
    add_three(machine);
    const auto found = tool_support::possible_designs(fake_kernel_options(machine), builtin_registry());
    ASSERT_TRUE(found.ok()) << found.error().message();
    ASSERT_EQ(found->size(), 2u);
    EXPECT_EQ(tool_support::possible_design_line((*found)[0]),
              "PCI device 0000:15:00.0  Design name TEF1001_dma_stream_loopback  IOMMU group 41");
    EXPECT_EQ(tool_support::binding_line((*found)[0]), "  bound to vfio-pci");
    EXPECT_EQ(tool_support::possible_design_line((*found)[1]),
              "PCI device 0000:36:00.0  physical slot 4  Design name Litefury Project-0 or Nitefury Project-0  "
              "IOMMU group 86");
    EXPECT_EQ(tool_support::binding_line((*found)[1]),
              "  bound to xdma, not vfio-pci; bind it: echo 0000:36:00.0 | sudo tee "
              "/sys/bus/pci/devices/0000:36:00.0/driver/unbind; echo vfio-pci | sudo tee "
              "/sys/bus/pci/devices/0000:36:00.0/driver_override; echo 0000:36:00.0 | sudo tee "
              "/sys/bus/pci/drivers/vfio-pci/bind");
}

TEST(PossibleDesigns, NoIommuGroupIsSaidAsFpgaSioSaysIt) {
    tool_support::PossibleDesign possible;
    possible.device.identity.address = vfio::PciAddress::parse("0000:15:00.0").value();
    possible.device.identity.iommu_group = -1;
    possible.candidates = {builtin_registry().find("TEF1001_dma_stream_loopback")};
    EXPECT_EQ(tool_support::possible_design_line(possible),
              "PCI device 0000:15:00.0  Design name TEF1001_dma_stream_loopback  No IOMMU group set, won't be able to "
              "open device using VFIO");
    EXPECT_EQ(tool_support::binding_line(possible).find("  bound to no driver, not vfio-pci; bind it: echo vfio-pci"), 0u);
}

// On the kernel bus identify's "PCI device" line names the slot sysfs gives (fpga_sio: libpci's).
TEST(PossibleDesigns, IdentifiedDesignsGetTheirPhysicalSlot) {
    FakeMachine machine;
    add_three(machine);
    identify::Identification found;
    for (const char* bdf : {"0000:15:00.0", "0000:36:00.0"}) {
        identify::IdentifiedDesign design;
        design.identity.address = vfio::PciAddress::parse(bdf).value();
        found.designs.push_back(std::move(design));
    }
    tool_support::set_physical_slots(found, fake_kernel_options(machine).sysfs_root);
    EXPECT_EQ(found.designs[0].physical_slot, "");
    EXPECT_EQ(found.designs[1].physical_slot, "4");
}

TEST(PossibleDesignsTool, ListsWithoutOpeningAndNotesVfio) {
    FakeMachine machine;
    add_three(machine);
    const ToolRun run = run_tool(machine.environment());
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.output,
              "PCI device 0000:15:00.0  Design name TEF1001_dma_stream_loopback  IOMMU group 41\n"
              "  bound to vfio-pci\n"
              "PCI device 0000:36:00.0  physical slot 4  Design name Litefury Project-0 or Nitefury Project-0  IOMMU "
              "group 86\n"
              "  bound to xdma, not vfio-pci; bind it: echo 0000:36:00.0 | sudo tee "
              "/sys/bus/pci/devices/0000:36:00.0/driver/unbind; echo vfio-pci | sudo tee "
              "/sys/bus/pci/devices/0000:36:00.0/driver_override; echo 0000:36:00.0 | sudo tee "
              "/sys/bus/pci/drivers/vfio-pci/bind\n"
              "Note: vfio-pci is not loaded: " + machine.tree.path("dev/vfio") +
                  " does not exist (load it: sudo modprobe vfio-pci)\n");
    EXPECT_EQ(run.err, "");
}

TEST(PossibleDesignsTool, NoMatchIsFailure) {
    FakeMachine machine;
    machine.add({"0000:02:00.0", 0x8086, 0x100e, 0x8086, 0x001e, "e1000", 7});
    const ToolRun run = run_tool(machine.environment());
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.output, "No PCI device matches a known design\n");
}

TEST(PossibleDesignsTool, UnreadableBusIsFailure) {
    const ToolRun run = run_tool("PDT_PCI_DUMP_FILE=/nonexistent/dump.txt");
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.err.rfind("Error: ", 0), 0u) << run.err;
}

// This machine, for real (read-only: libpci and sysfs): no FPGA design here.
TEST(PossibleDesignsTool, ThisMachine) {
    const ToolRun run = run_tool("");
    if (run.exit_code == 0)
        GTEST_SKIP() << "this machine has a device of a known design:\n" << run.output;
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_EQ(run.output, "No PCI device matches a known design\n");
}
