// dump_pci_info's library: device selection, the chain dump, JSON; and the OS backends read
// this machine's devices (read-only) and agree byte for byte with an lspci -xxxx capture.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "lspci_text.hpp"
#include "pcie_tools/backends.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/dump_info.hpp"
#include "sim/config_topology.hpp"

namespace pcie {
namespace {

using namespace ::sim;

std::vector<std::string> names(const std::vector<PciAddress>& list) {
    std::vector<std::string> out;
    for (const auto& a : list)
        out.push_back(a.to_string());
    return out;
}

TEST(SelectDevices, FpgaSioArguments) {
    auto bus = make_demo_topology();
    EXPECT_EQ(names(*select_devices(*bus, {})),
              (std::vector<std::string>{"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}));
    EXPECT_EQ(names(*select_devices(*bus, {"10ee:9038"})), (std::vector<std::string>{"0000:02:00.0"}));
    EXPECT_EQ(select_devices(*bus, {"8086"})->size(), 4u);
    EXPECT_EQ(names(*select_devices(*bus, {"0000:00:02.0", "01:00.0", "0000:00:02.0"})),
              (std::vector<std::string>{"0000:00:02.0", "0000:01:00.0"}));
}

TEST(SelectDevices, Failures) {
    auto bus = make_demo_topology();
    for (const char* bad : {"zz", "10ee:", "12345", "10ee:70245"}) {
        auto r = select_devices(*bus, {bad});
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, EINVAL) << bad;
        EXPECT_NE(r.error().message().find("Invalid PCI device ID"), std::string::npos);
    }
    auto none = select_devices(*bus, {"1234"});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, ENODEV);
    EXPECT_NE(none.error().message().find("No device found"), std::string::npos);
    auto absent = select_devices(*bus, {"0000:09:00.0"});
    ASSERT_FALSE(absent.ok());
    EXPECT_EQ(absent.error().code, ENODEV);
    auto bad_bdf = select_devices(*bus, {"0000:01:20.0"});
    ASSERT_FALSE(bad_bdf.ok());
    EXPECT_EQ(bad_bdf.error().code, EINVAL);
    ConfigTopology empty;
    auto no_xilinx = select_devices(empty, {});
    ASSERT_FALSE(no_xilinx.ok());
    EXPECT_EQ(no_xilinx.error().code, ENODEV);
}

TEST(DumpDevice, DeviceThenIndentedParentsThenLinkSummary) {
    auto bus = make_demo_topology();
    auto lines = dump_device(*bus, PciAddress{0, 1, 0, 0});
    ASSERT_TRUE(lines.ok()) << lines.error().message();
    std::string text;
    for (const auto& l : *lines)
        text += l + "\n";
    const auto device = text.find("domain=0000 bus=01 dev=00 func=00 rev=01\n");
    const auto parent = text.find("\n  domain=0000 bus=00 dev=01 func=00 rev=00\n");
    const auto link = text.find("\nLink 0000:00:01.0 -> 0000:01:00.0: negotiated 2.5 GT/s x4, capable 5 GT/s x4 (downgraded speed)");
    const auto warning = text.find("\nWarning: Device device 0000:01:00.0 (10ee:7024) has reduced bandwidth\n");
    EXPECT_EQ(device, 0u) << text;
    EXPECT_NE(parent, std::string::npos);
    EXPECT_LT(device, parent);
    EXPECT_LT(parent, link);
    EXPECT_LT(link, warning);
    // fpga_sio's capability text, indented two spaces more for the parent.
    EXPECT_NE(text.find("\n    DevCap: MaxPayload 512 bytes PhantFunc 0 Latency L0s No limit L1 No limit\n"),
              std::string::npos) << text;
    EXPECT_NE(text.find("\n      Link capabilities2: Supported link speeds 2.5 GT/s 5.0 GT/s\n"), std::string::npos);
    EXPECT_NE(text.find("bandwidth per direction: 1.00 GB/s after encoding"), std::string::npos);
    EXPECT_NE(text.find("vendor_id=10ee (Xilinx Corporation) device_id=7024 (Simulated FPGA 5 GT/s x4) "
                        "subvendor_id=0002 subdevice_id=0009"),
              std::string::npos);
}

TEST(DumpDevice, Json) {
    auto bus = make_demo_topology();
    auto j = dump_device_json(*bus, PciAddress{0, 1, 0, 0});
    ASSERT_TRUE(j.ok());
    EXPECT_EQ((*j)["device"], "0000:01:00.0");
    EXPECT_EQ((*j)["path"].size(), 2u);
    EXPECT_EQ((*j)["path"][0]["express"]["max_payload"], 256);
    EXPECT_EQ((*j)["path"][0]["express"]["max_read_request"], 512);
    EXPECT_EQ((*j)["path"][1]["express"]["port_type"], "Root Port");
    EXPECT_EQ((*j)["links"][0]["port"], "0000:00:01.0");
    EXPECT_EQ((*j)["links"][0]["downgraded"], true);
    EXPECT_EQ((*j)["path"][0]["aer"]["uncorrectable_mask"], nlohmann::json({"UncorrIntErr"}));
    EXPECT_EQ((*j)["downgraded"], true);
}

// The OS backends, on whatever this machine has. Read-only: a backend opened without write
// access refuses writes before any system call.
void check_backend(ConfigBackend& bus) {
    auto devices = bus.devices();
    ASSERT_TRUE(devices.ok());
    if (devices->empty())
        GTEST_SKIP() << "no PCI devices on this machine";
    int status = 0;
    for (const PciAddress& a : *devices) {
        ConfigSpace* space = bus.open(a).value();
        auto ids = space->read32(0);
        ASSERT_TRUE(ids.ok()) << a.to_string();
        EXPECT_NE(*ids, 0xffffffffu);
        const uint16_t any = 0;
        auto write = space->write(0x04, &any, 2);
        ASSERT_FALSE(write.ok());
        EXPECT_EQ(write.error().code, EROFS);
        if (geteuid() != 0)
            continue;
        // Byte-for-byte the same as an lspci -xxxx capture of the same function.
        const std::string capture =
            test::run_command("lspci -xxxx -s " + a.to_string() + " 2>/dev/null", &status);
        auto dump = DumpBackend::parse(capture, "lspci -xxxx");
        ASSERT_TRUE(dump.ok());
        ConfigSpace* captured = (*dump)->open(a).value();
        const uint32_t n = std::min(space->size(), captured->size());
        std::vector<uint8_t> ours(n), theirs(n);
        ASSERT_TRUE(space->read(0, ours.data(), n).ok());
        ASSERT_TRUE(captured->read(0, theirs.data(), n).ok());
        // Status bits can change between the two reads; compare the identity and capability area.
        ours[6] = theirs[6] = ours[7] = theirs[7] = 0;
        EXPECT_EQ(ours, theirs) << a.to_string();
    }
}

bool have_sysfs_pci() { return std::filesystem::exists("/sys/bus/pci/devices"); }

// Opens an OS backend read-only with `open` and checks it (skipped where this machine has no /sys/bus/pci).
void check_os_backend(Result<std::unique_ptr<ConfigBackend>> (*open)(bool writable)) {
    if (!have_sysfs_pci())
        GTEST_SKIP() << "no /sys/bus/pci";
    auto bus = open(false);
    ASSERT_TRUE(bus.ok()) << bus.error().message();
    check_backend(**bus);
}

TEST(OsBackends, LibpciReadsThisMachine) { check_os_backend(open_libpci_backend); }

TEST(OsBackends, PciaccessReadsThisMachine) { check_os_backend(open_pciaccess_backend); }

TEST(OpenBackend, AccessSpecifiers) {
    EXPECT_TRUE(open_backend("sim", false, {}, ::sim::open_demo_topology).ok());
    // A program without a simulated topology says so instead of opening something else.
    set_default_simulated_topology({});
    auto no_sim = open_backend("sim", false);
    ASSERT_FALSE(no_sim.ok());
    EXPECT_EQ(no_sim.error().code, EINVAL);
    EXPECT_NE(no_sim.error().message().find("no simulated topology"), std::string::npos);
    // The one sim/ registers (as it does in every program that links its simulated devices).
    set_default_simulated_topology(::sim::open_demo_topology);
    auto by_default = open_backend("sim", false);
    ASSERT_TRUE(by_default.ok());
    EXPECT_EQ((*by_default)->name(), "simulated");
    auto unknown = open_backend("ecam", false);
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, EINVAL);
    auto dump = open_backend(std::string("dump:") + PDT_PCIE_FIXTURES + "/qemu_rootport_00_01_0.lspci", false);
    ASSERT_TRUE(dump.ok()) << dump.error().message();
    EXPECT_EQ((*dump)->devices()->size(), 1u);
}

}  // namespace
}  // namespace pcie
