// cli::invoked_name and cli::name_invoked: a main installed under several names (symbolic links
// to one executable) takes the defaults of the name it was run under, and its own otherwise.
#include "cli/invoked_name.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string_view>

namespace {

struct ToolName {
    std::string_view name;
    std::string_view access;
};
constexpr std::array<ToolName, 3> kToolNames{
    {{"dump_pci_info", "libpci"}, {"dump_pci_info_libpciaccess", "pciaccess"}, {"dump_pci_info_vfio", "vfio"}}};

const ToolName& invoked_as(const char* argv0) { return cli::name_invoked(argv0, std::span<const ToolName>(kToolNames)); }

TEST(InvokedName, IsTheLastComponentOfArgv0) {
    EXPECT_EQ(cli::invoked_name("/usr/bin/dump_pci_info_vfio"), "dump_pci_info_vfio");
    EXPECT_EQ(cli::invoked_name("./dump_pci_info"), "dump_pci_info");
    EXPECT_EQ(cli::invoked_name("dump_pci_info_libpciaccess"), "dump_pci_info_libpciaccess");
    EXPECT_EQ(cli::invoked_name(""), "");
    EXPECT_EQ(cli::invoked_name(nullptr), "");
}

TEST(InvokedName, PicksTheDefaultsOfTheNameRunUnder) {
    EXPECT_EQ(invoked_as("/usr/bin/dump_pci_info_vfio").access, "vfio");
    EXPECT_EQ(invoked_as("build/pcie_tools/dump_pci_info_libpciaccess").access, "pciaccess");
    EXPECT_EQ(invoked_as("dump_pci_info").access, "libpci");
}

// Another name (a renamed copy, a name that only starts like one of them) is the main itself.
TEST(InvokedName, AnUnknownNameIsTheMainItself) {
    EXPECT_EQ(invoked_as("/tmp/my_dump").name, "dump_pci_info");
    EXPECT_EQ(invoked_as("dump_pci_info_vfio.old").name, "dump_pci_info");
    EXPECT_EQ(invoked_as("/usr/bin/dump_pci_info_vfio/").name, "dump_pci_info");
    EXPECT_EQ(invoked_as(nullptr).name, "dump_pci_info");
}

// fpga_sio's PCI tools: <tool>_pciutils, _libpciaccess and _vfio pick the backend; the tool's own
// name and any other pick libpci under the tool's own name.
TEST(PciAccessName, TheSuffixPicksTheBackend) {
    const auto expect = [](const char* argv0, const char* name, const char* access) {
        const cli::PciAccessName got = cli::pci_access_name(argv0, "pcie_set_speed");
        EXPECT_EQ(got.name, name) << argv0;
        EXPECT_EQ(got.access, access) << argv0;
    };
    expect("/usr/bin/pcie_set_speed", "pcie_set_speed", "libpci");
    expect("pcie_set_speed_pciutils", "pcie_set_speed_pciutils", "libpci");
    expect("./pcie_set_speed_libpciaccess", "pcie_set_speed_libpciaccess", "pciaccess");
    expect("/usr/bin/pcie_set_speed_vfio", "pcie_set_speed_vfio", "vfio");
    expect("pcie_set_speed_vfio.old", "pcie_set_speed", "libpci");
    expect("dump_pci_info_vfio", "pcie_set_speed", "libpci");
    expect(nullptr, "pcie_set_speed", "libpci");
}

}  // namespace
