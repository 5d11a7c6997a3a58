// tool_support::open_designs and its diagnostics, against simulated designs and fake machines.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <sstream>

#include "fake_kernel.hpp"
#include "tool_support/open_designs.hpp"

namespace {

// 10ee:7024 subsystem 0002:0007: TEF1001_dma_stream_loopback.
const FakeDevice kTef1001{"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, "xdma", 41};
const FakeDevice kNic{"0000:02:00.0", 0x8086, 0x100e, 0x8086, 0x001e, "e1000", 7};

}  // namespace

TEST(ExplainNoDesign, VfioNotLoadedIsNamedWithTheCommand) {
    FakeMachine machine;
    machine.add(kNic);
    const auto causes = tool_support::explain_no_design(fake_kernel_options(machine), builtin_registry(), {});
    ASSERT_EQ(causes.size(), 2u);
    EXPECT_EQ(causes[0], "vfio-pci is not loaded: " + machine.tree.path("dev/vfio") +
                             " does not exist (load it: sudo modprobe vfio-pci)");
    EXPECT_EQ(causes[1], "no PCI device matches a known design (1 PCI devices listed)");
}

TEST(ExplainNoDesign, DeviceBoundToAnotherDriverNamesItAndTheBindCommands) {
    FakeMachine machine;
    machine.add(kNic);
    machine.add(kTef1001);
    machine.load_vfio();
    const auto causes = tool_support::explain_no_design(fake_kernel_options(machine), builtin_registry(), {});
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0],
              "device 0000:15:00.0 (10ee:7024) (design TEF1001_dma_stream_loopback) is bound to xdma, not vfio-pci; "
              "bind it: echo 0000:15:00.0 | sudo tee /sys/bus/pci/devices/0000:15:00.0/driver/unbind; "
              "echo vfio-pci | sudo tee /sys/bus/pci/devices/0000:15:00.0/driver_override; "
              "echo 0000:15:00.0 | sudo tee /sys/bus/pci/drivers/vfio-pci/bind");
}

TEST(ExplainNoDesign, UnboundDeviceNeedsNoUnbind) {
    FakeMachine machine;
    FakeDevice unbound = kTef1001;
    unbound.driver = "";
    machine.add(unbound);
    machine.load_vfio();
    const auto causes = tool_support::explain_no_design(fake_kernel_options(machine), builtin_registry(), {});
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_NE(causes[0].find("is bound to no driver, not vfio-pci; bind it: echo vfio-pci | sudo tee"), std::string::npos)
        << causes[0];
    EXPECT_EQ(causes[0].find("unbind"), std::string::npos) << causes[0];
}

TEST(ExplainNoDesign, LocationsLimitTheDevicesConsidered) {
    FakeMachine machine;
    machine.add(kTef1001);
    machine.load_vfio();
    const auto causes = tool_support::explain_no_design(fake_kernel_options(machine), builtin_registry(),
                                                        {vfio::PciAddress::parse("0000:16:00.0").value()});
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0], "no PCI device at the given locations matches a known design (1 PCI devices listed)");
}

TEST(ExplainNoDesign, UnreadableDumpIsNamed) {
    FakeMachine machine;
    machine.load_vfio();
    vfio::KernelOptions options = fake_kernel_options(machine);
    options.pci_dump_file = machine.tree.path("no_such_dump");
    const auto causes = tool_support::explain_no_design(options, builtin_registry(), {});
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].rfind("cannot list the PCI devices: ", 0), 0u) << causes[0];
}

TEST(OpenDesigns, UnknownSimDesignIsAUsageError) {
    std::ostringstream progress, errors;
    const auto opened = tool_support::open_designs(builtin_registry(), {{"NoSuchDesign"}, {}}, &progress, errors);
    EXPECT_EQ(opened.status, 2);
    EXPECT_EQ(errors.str(), "Error: " + tool_support::unknown_design_message("NoSuchDesign") + "\n");
    EXPECT_EQ(progress.str(), "");
    EXPECT_TRUE(opened.found.designs.empty());
}

TEST(OpenDesigns, MoreSimDesignsThanTheBusHoldsIsAUsageError) {
    std::ostringstream progress, errors;
    tool_support::DesignSelection selection;
    selection.sim_designs.assign(21, "TEF1001_dma_stream_loopback");
    const auto opened = tool_support::open_designs(builtin_registry(), selection, &progress, errors);
    EXPECT_EQ(opened.status, 2) << errors.str();
    EXPECT_NE(errors.str().find("at most 20 simulated designs"), std::string::npos) << errors.str();
    EXPECT_TRUE(opened.found.designs.empty());
}

TEST(OpenDesigns, SimulatedDesignsAreIdentified) {
    std::ostringstream progress, errors;
    const auto opened =
        tool_support::open_designs(builtin_registry(), {{"TEF1001_dma_stream_loopback"}, {}}, &progress, errors);
    EXPECT_EQ(opened.status, 0) << errors.str();
    ASSERT_EQ(opened.found.designs.size(), 1u);
    EXPECT_EQ(opened.found.designs[0].design->name, "TEF1001_dma_stream_loopback");
    EXPECT_NE(progress.str().find("Opening device 0000:"), std::string::npos) << progress.str();
    EXPECT_EQ(errors.str(), "");
}

TEST(OpenDesigns, NothingAtTheLocationsIsFailureWithTheBus) {
    std::ostringstream errors;
    const auto opened = tool_support::open_designs(
        builtin_registry(), {{"TEF1001_dma_stream_loopback"}, {vfio::PciAddress::parse("0000:99:00.0").value()}}, nullptr,
        errors);
    EXPECT_EQ(opened.status, 1);
    EXPECT_EQ(errors.str(), "Error: no known FPGA design found on the simulated bus at the given --device locations\n");
}

TEST(OpenDesigns, KernelBusWithoutVfioSaysSo) {
    FakeMachine machine;
    machine.add(kTef1001);
    ::setenv("PDT_PCI_DUMP_FILE", machine.tree.path("dump.txt").c_str(), 1);
    ::setenv("PDT_SYSFS_ROOT", machine.tree.path("sys").c_str(), 1);
    ::setenv("PDT_DEV_VFIO_ROOT", machine.tree.path("dev/vfio").c_str(), 1);
    std::ostringstream errors;
    const auto opened = tool_support::open_designs(builtin_registry(), {}, nullptr, errors);
    ::unsetenv("PDT_PCI_DUMP_FILE");
    ::unsetenv("PDT_SYSFS_ROOT");
    ::unsetenv("PDT_DEV_VFIO_ROOT");
    EXPECT_EQ(opened.status, 1);
    EXPECT_EQ(errors.str(),
              "Error: no known FPGA design found on the vfio bus\n"
              "  vfio-pci is not loaded: " + machine.tree.path("dev/vfio") +
                  " does not exist (load it: sudo modprobe vfio-pci)\n"
                  "  device 0000:15:00.0 (10ee:7024) (design TEF1001_dma_stream_loopback) is bound to xdma, not "
                  "vfio-pci; bind it: " +
                  vfio::bind_to_vfio_commands(vfio::PciAddress::parse("0000:15:00.0").value(), "xdma") + "\n");
}

TEST(OpenDesigns, KernelOptionsFollowTheEnvironment) {
    EXPECT_EQ(tool_support::kernel_options().sysfs_root, "/sys");
    ::setenv("PDT_SYSFS_ROOT", "/tmp/fake_sys", 1);
    EXPECT_EQ(tool_support::kernel_options().sysfs_root, "/tmp/fake_sys");
    ::unsetenv("PDT_SYSFS_ROOT");
}

TEST(ParseLocations, BadLocationNamesTheOption) {
    std::string error;
    EXPECT_FALSE(tool_support::parse_locations({"0000:15:00.0", "0000:15:00"}, "-d", error));
    EXPECT_EQ(error.rfind("-d: ", 0), 0u) << error;
    const auto good = tool_support::parse_locations({"0000:15:00.0"}, "-d", error);
    ASSERT_TRUE(good);
    EXPECT_EQ(good->front().to_string(), "0000:15:00.0");
}

TEST(ExplainNoDesign, VfioDirectoryWithoutContainerNodeIsNotLoadedEither) {
    FakeMachine machine;
    machine.tree.mkdir("dev/vfio");  // a /dev/vfio without its container node
    EXPECT_EQ(tool_support::vfio_unavailable(machine.tree.path("dev/vfio")),
              "vfio-pci is not loaded: " + machine.tree.path("dev/vfio/vfio") +
                  " does not exist (load it: sudo modprobe vfio-pci)");
    machine.load_vfio();
    EXPECT_EQ(tool_support::vfio_unavailable(machine.tree.path("dev/vfio")), std::nullopt);
}
