// The bad-input matrix (docs/bad_input_matrix.md): every tool main run as a process with each
// kind of bad input -- malformed BDFs, unknown options, out-of-range numbers, missing devices,
// devices not bound to vfio-pci, no permission on the VFIO nodes -- on a fake machine (never
// this machine's devices). Each gives a clear message and exit 2 (usage) or 1 (failure): never
// a crash, never a PASS, never silence.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_support/run_process.hpp"
#include "fake_machine.hpp"

namespace {

const std::vector<std::string> kToolPaths = {PDT_ALL_TOOL_PATHS};

std::string path_of(const std::string& name) {
    for (const std::string& path : kToolPaths)
        if (std::filesystem::path(path).filename() == name)
            return path;
    return "";
}

// The machine a row runs on: every row gets a fake one, so nothing reaches this machine's devices.
enum class Machine {
    empty,                  // vfio-pci loaded, no PCI device at all
    no_vfio,                // a TEF1001 loopback bound to vfio-pci, but no /dev/vfio
    bound_elsewhere,        // vfio-pci loaded, the TEF1001 loopback bound to xdma
    container_no_permission // bound to vfio-pci, the container node /dev/vfio/vfio mode 000 (run as a user)
    // A group node without permission, or busy: a fake machine cannot get that far (the container
    // node must be the kernel's to answer VFIO_GET_API_VERSION); see docs/bad_input_matrix.md.
};

// One bad input of one tool.
struct BadInput {
    std::string tool;
    std::string name;     // the test's name: <tool>_<name>
    std::string args;     // {root} stands for the fake machine's directory
    Machine machine;
    int exit_code;
    std::string message;  // appears in what the tool printed (stdout and stderr)
};

// Test names and failures show the row, not its bytes.
void PrintTo(const BadInput& row, std::ostream* out) { *out << row.tool << " " << row.args; }

constexpr int kUsage = 2, kFail = 1;
// What every tool says of the malformed location 0000:15:00 (no function number).
#define BAD_BDF \
    "parse PCI address \"0000:15:00\": Invalid argument (wrong length; expected dddd:bb:dd.f, e.g. 0000:15:00.0)"
constexpr Machine E = Machine::empty;

// A row of a tool's table: BadInput without the tool, whose name {tool} stands for in `message`.
struct Row {
    std::string name, args;
    Machine machine;
    int exit_code;
    std::string message;
};

// Rows that several tools share word for word.
const Row kUnknownOption = {"unknown_option", "--no_such_option", E, kUsage,
                            "Error: unrecognised option '--no_such_option'"};
const Row kNamedUnknownOption = {"unknown_option", "--no_such_option", E, kUsage,
                                 "{tool}: unrecognised option '--no_such_option'"};
const Row kUnknownDesign = {"unknown_design", "--sim_design NoSuchDesign", E, kUsage,
                            "Error: --sim_design NoSuchDesign: unknown design"};
const Row kMissingDesignFile = {"missing_design_file", "--design_file {root}/none.json", E, kUsage,
                                "none.json: No such file or directory (the design file (--design_file) must be a "
                                "readable JSON file)"};
// memmapped_persistence under each of its names.
const Row kPersistenceMalformedBdf = {"malformed_bdf", "--bar 0 --offset 0 --size 64 -d 0000:15:00", E, kUsage,
                                      "Error: --device: " BAD_BDF};
const Row kNoDesign = {"no_device", "", E, kFail, "Error: no known FPGA design found on the vfio bus"};
const Row kStreamNotBound = {"not_bound_to_vfio", "", Machine::bound_elsewhere, kFail,
                             "is bound to xdma, not vfio-pci; bind it: "};
const Row kNoPermission = {"container_no_permission", "", Machine::container_no_permission, kFail,
                           "no read/write permission"};
const Row kVerifyThreadsOutOfRange = {
    "verify_threads_out_of_range", "--verify_threads 100000", E, kUsage,
    "Error: parse option --verify_threads \"100000\": Invalid argument (must be in the range 0..256)"};
// The tools that set the AXI stream switch's routes.
const Row kRoutingMalformedBdf = {
    "malformed_bdf", "--device_routing 0000:15:00,0:1", E, kUsage,
    "Error: parse option --device_routing \"0000:15:00,0:1\": Invalid argument (" BAD_BDF ")"};
// The config-space tools (dump_pci_info, display_physical_slots and their other names).
const Row kAccessMalformedBdf = {
    "malformed_bdf", "--access sim 0000:zz:00.0", E, kUsage,
    "{tool}: parse PCI address \"0000:zz:00.0\": Invalid argument (non-hex digit; "};
const Row kUnknownAccess = {
    "unknown_access", "--access bogus", E, kUsage,
    "{tool}: choose config-space access \"bogus\": Invalid argument (expected libpci, pciaccess, vfio, "};
const Row kMissingDumpFile = {"missing_dump_file", "--access dump:{root}/none.lspci", E, kFail,
                              "none.lspci: No such file or directory (expected the output of lspci -xxxx)"};
// A dump whose bytes do not parse: the file's fault, not the command line's (exit 1).
const Row kMalformedDumpFile = {"malformed_dump_file", "--access dump:{root}/malformed.lspci", E, kFail,
                                "malformed.lspci:2: Invalid argument (bad byte \"zz\")"};
const Row kSetSpeedMalformedBdf = {"malformed_bdf", "--access sim 0000:01:00", E, kUsage,
                                   "Invalid PCI device location 0000:01:00: "};

// The rows of a tool that selects its FPGA design's device with `flag` (-d or --device).
Row malformed_device(const std::string& flag) {
    return {"malformed_bdf", flag + " 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF};
}
Row missing_device(const std::string& flag) {
    return {"missing_device", flag + " 0000:99:00.0", E, kFail, "Error: no known FPGA design found"};
}
Row device_not_bound(const std::string& flag) {
    return {"not_bound_to_vfio", flag + " 0000:15:00.0", Machine::bound_elsewhere, kFail,
            "not bound to vfio-pci but to xdma; bind it: "};
}

// The rows of a tool that opens its designs as display_identified_pcie_fpga_designs does (-d,
// --sim_design, --design_file), then the tool's own.
std::vector<Row> design_tool_rows(const std::vector<Row>& own) {
    std::vector<Row> rows = {kUnknownOption, malformed_device("-d"), kUnknownDesign, kMissingDesignFile,
                             kNoDesign,      missing_device("-d"),   device_not_bound("-d"), kNoPermission};
    rows.insert(rows.end(), own.begin(), own.end());
    return rows;
}

struct ToolRows {
    std::string tool;
    std::vector<Row> rows;
};

const ToolRows kTables[] = {
    {"display_identified_pcie_fpga_designs",
     design_tool_rows(
         {{"no_vfio", "", Machine::no_vfio, kFail, "does not exist: no VFIO support; load the vfio-pci module"}})},

    // The sensor tools open designs as display_identified_pcie_fpga_designs does.
    {"display_sensor_values", design_tool_rows({})},
    // quad_spi_flasher opens designs as display_sensor_values does; its modes and numbers.
    {"quad_spi_flasher",
     design_tool_rows(
         {{"two_modes", "--read a.bin --compare b.bin", E, kUsage,
           "Error: give one of --read, --compare, --write, --erase"},
          {"bad_offset", "--read a.bin --offset 12Q", E, kUsage, "Error: --offset "},
          {"bad_busy_timeout", "--busy_timeout 0", E, kUsage, "busy_timeout"}})},
    {"display_temperature_values",
     {kUnknownOption, malformed_device("-d"), kUnknownDesign, kNoDesign,
      {"zero_interval", "--interval 0", E, kUsage, "Error: parse option --interval \"0\""},
      {"bad_max_temperature", "--sim_design TEF1001_dma_ddr3 --max_temperature warm", E, kUsage,
       "Error: parse option --max_temperature \"warm\": Invalid argument (a temperature in degrees C, 0..150)"},
      {"metrics_unwritable", "--sim_design TEF1001_dma_ddr3 --metrics {root}/no_such_dir/pdt.prom", E, kFail,
       "no_such_dir"},
      device_not_bound("-d")}},

    // The CMAC tools (tools/ethernet/) open designs as display_sensor_values does; their own options.
    {"cmac_statistics",
     design_tool_rows(
         {{"zero_interval", "--interval 0", E, kUsage, "Error: parse option --interval \"0\""},
          {"duration_without_interval", "--duration 5", E, kUsage, "Error: --duration needs --interval"},
          {"bad_port", "--port first", E, kUsage, "Error: parse option --port \"first\""},
          {"no_cmac", "--sim_design TEF1001_dma_ddr3", E, kFail, "No CMAC designs to operate on"},
          {"missing_port", "--sim_design U200_100G_ether_duplex --port 2", E, kFail,
           "Error: --port 2: no CMAC port 2"}})},
    {"cmac_configuration",
     design_tool_rows(
         {{"unknown_field", "bogus=1", E, kUsage, "Error: Unknown field name bogus"},
          {"value_too_large", "tx_enable=2", E, kUsage, "Error: Value 2 is too large for field tx_enable"},
          {"field_twice", "tx_enable=1 tx_enable=0", E, kUsage, "Error: Multiple values specified for field tx_enable"},
          {"no_value", "tx_enable", E, kUsage, "Error: Invalid field_name=<value> : tx_enable"},
          {"value_not_a_number", "tx_enable=on", E, kUsage, "Error: Invalid field_name=<value> : tx_enable=on"},
          {"drp_attribute", "--sim_design U200_100G_ether_duplex ctl_rx_max_packet_len=9600", E, kUsage,
           "Error: field ctl_rx_max_packet_len is a DRP attribute"},
          {"missing_port", "--sim_design U200_100G_ether_duplex --port 2", E, kFail,
           "Error: --port 2: no CMAC port 2 in the designs found (their ports: 0, 1)"},
          {"no_cmac", "--sim_design TEF1001_dma_ddr3 --dump", E, kFail, "No CMAC designs to operate on"}})},
    {"cmac_link_control",
     design_tool_rows(
         {{"zero_align_timeout", "--align_timeout 0", E, kUsage, "Error: parse option --align_timeout \"0\""},
          {"align_timeout_too_long", "--sim_design U200_100G_ether_duplex --align_timeout 601", E, kUsage,
           "at most 600 seconds"},
          {"no_cmac", "--sim_design TEF1001_dma_ddr3", E, kFail, "No CMAC designs to operate on"},
          {"missing_port", "--sim_design open-nic --port 7", E, kFail, "Error: --port 7: no CMAC port 7"}})},

    // The bitstream tools read files, no device.
    {"parse_bitstream_file",
     {kUnknownOption,
      {"no_file", "", E, kUsage, "Error: no bitstream file named"},
      {"missing_file", "{root}/none.bit", E, kFail, "none.bit: No such file or directory"},
      {"directory", "{root}", E, kFail, "is a directory, not a bitstream file"}}},
    {"xilinx_bit_to_bin",
     {kUnknownOption,
      {"one_file", "{root}/none.bit", E, kUsage, "Error: two files are needed, in and out"},
      {"bad_pad_to", "{root}/none.bit {root}/out.bin --pad_to lots", E, kUsage, "Error: --pad_to lots: parse size"},
      {"missing_input", "{root}/none.bit {root}/out.bin", E, kFail, "none.bit: No such file or directory"}}},

    // The register tools (docs/tools/registers.md): their region and width checks have their own
    // tests (xdma_probe_tests, mmio_timing_tests, bar_persistence_tests).
    {"probe_xilinx_ip",
     {kUnknownOption, malformed_device("-d"), kUnknownDesign, kNoDesign,
      {"scan_window_outside_bar", "--sim_design TEF1001_dma_ddr3 -b 2 -e 0x20000", E, kUsage,
       "the window must be non-empty and inside the BAR (BAR 2 is 0x10000 bytes)"}}},
    {"time_memmapped",
     {kUnknownOption,
      {"malformed_bdf", "--bar 0 -d 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF},
      {"missing_device", "--bar 0 -d 0000:99:00.0", E, kFail, "Error: no vfio-pci device at the --device locations"},
      {"copy_with_json", "--sim_design TEF1001_dma_ddr3 --bar 0 --copy --json", E, kUsage,
       "Error: --copy prints fpga_sio's timing blocks: not with --json or --write"}}},
    {"memmapped_persistence",
     {kUnknownOption, kPersistenceMalformedBdf,
      {"missing_device", "--bar 0 --offset 0 --size 64 -d 0000:99:00.0", E, kFail,
       "Error: no vfio-pci device at the --device locations"},
      {"unknown_access", "--bar 0 --offset 0 --size 64 -d 0000:99:00.0 --access libpci", E, kUsage,
       "Error: --access libpci: vfio or sysfs"}}},
    {"memmapped_persistence_libpciaccess",
     {kUnknownOption, kPersistenceMalformedBdf,
      {"missing_device", "--bar 0 --offset 0 --size 64 -d 0000:99:00.0", E, kFail, "(no such PCI device)"},
      {"reset", "--bar 0 --offset 0 --size 64 -d 0000:99:00.0 --reset", E, kUsage,
       "Error: --reset is VFIO_DEVICE_RESET: not with --access sysfs, which opens no VFIO device"}}},

    {"memmapped_persistence_vfio", {kUnknownOption, kPersistenceMalformedBdf}},

    {"display_possible_fpga_designs",
     {kUnknownOption, kMissingDesignFile, {"no_device", "", E, kFail, "No PCI device matches a known design"}}},

    {"display_vfio_information",
     {kNamedUnknownOption,
      {"malformed_bdf", "--device 0000:15:00", E, kUsage, "display_vfio_information: " BAD_BDF},
      {"id_out_of_range", "--vendor 10000", E, kUsage,
       "parse ID --vendor '10000': Invalid argument (expected 1 to 4 hex digits, e.g. 10ee)"},
      {"no_device", "", E, kFail, "No device found: no PCI device is bound to vfio-pci"},
      {"missing_device", "--device 0000:99:00.0", E, kFail,
       "No device found: no selected PCI device is bound to vfio-pci\n  open 0000:99:00.0: No such device (no such "
       "PCI device in "},
      {"not_bound_to_vfio", "--device 0000:15:00.0", Machine::bound_elsewhere, kFail,
       "Error: open 0000:15:00.0: No such device (not bound to vfio-pci but to xdma; bind it: "},
      kNoPermission}},

    {"dump_pci_info",
     {kNamedUnknownOption, kAccessMalformedBdf, kUnknownAccess,
      {"missing_device", "--access dump:{root}/dump.txt 0000:99:00.0", Machine::bound_elsewhere, kFail,
       "0000:99:00.0"},
      kMissingDumpFile, kMalformedDumpFile}},

    {"pcie_set_speed",
     {kNamedUnknownOption,
      {"no_bdf", "--access sim", E, kUsage, "Usage: pcie_set_speed"},
      kSetSpeedMalformedBdf,
      {"speed_out_of_range", "--access sim 0000:01:00.0 7", E, kUsage, "Invalid target link speed 7: "},
      {"negative_timeout", "--access sim --timeout-ms -1 0000:01:00.0", E, kUsage,
       "pcie_set_speed: invalid --timeout-ms -1: expected milliseconds in the range 1..600000"},
      {"missing_device", "--access sim 0000:99:00.0", E, kFail,
       "pcie_set_speed: open config space 0000:99:00.0: No such device (not in the simulated topology)"}}},

    {"display_physical_slots",
     {kNamedUnknownOption, kAccessMalformedBdf, kUnknownAccess, kMissingDumpFile, kMalformedDumpFile}},

    // fpga_sio's names (symbolic links to the mains): their messages carry the name run.
    {"dump_pci_info_pciutils", {kNamedUnknownOption, kAccessMalformedBdf}},
    {"dump_pci_info_libpciaccess", {kNamedUnknownOption, kAccessMalformedBdf}},
    {"dump_pci_info_vfio", {kNamedUnknownOption, kAccessMalformedBdf}},
    {"display_physical_slots_pciutils", {kNamedUnknownOption, kAccessMalformedBdf}},
    {"display_physical_slots_libpciaccess", {kNamedUnknownOption, kAccessMalformedBdf}},
    {"display_physical_slots_vfio", {kNamedUnknownOption, kAccessMalformedBdf}},
    {"pcie_set_speed_pciutils", {kNamedUnknownOption, kSetSpeedMalformedBdf}},
    {"pcie_set_speed_libpciaccess", {kNamedUnknownOption, kSetSpeedMalformedBdf}},
    {"pcie_set_speed_vfio",
     {kNamedUnknownOption,
      {"malformed_bdf", "0000:01:00", E, kUsage, "Invalid PCI device location 0000:01:00: "},
      {"no_bdf", "", E, kUsage, "Usage: pcie_set_speed_vfio "}}},

    {"pattern_benchmark",
     {{"unknown_option", "--no_such_option", E, kUsage, "Error: unrecognised argument '--no_such_option'"},
      {"zero_size", "--size_mib 0", E, kUsage, "Error: --size_mib 0: expected a number in the range 1..32768"},
      {"negative_size", "--size_mib -1", E, kUsage, "Error: --size_mib -1: expected a number in the range 1..32768"},
      {"huge_size", "--size_mib 99999999999", E, kUsage,
       "Error: --size_mib 99999999999: expected a number in the range 1..32768"},
      {"malformed_repeats", "--repeats 1x", E, kUsage, "Error: --repeats 1x: expected a number in the range 1..1000"}}},

    {"test_dma_bridge",
     {kUnknownOption, malformed_device("--device"),
      {"combinations_out_of_range", "--max_channel_combinations 17", E, kUsage, "must be in the range 1..16"},
      {"zero_min_words", "--min_words 0", E, kUsage,
       "Error: parse option --min_words \"0\": Invalid argument (must be in the range 1.."},
      {"unknown_test", "--enabled_tests bogus", E, kUsage, "unknown test"},
      {"zero_timeout", "--transfer_timeout 0", E, kUsage, "expected a positive number of seconds"},
      {"huge_timeout", "--transfer_timeout 1e300", E, kUsage,
       "Error: parse option --transfer_timeout \"1e300\": Invalid argument (must be at most 1000000000 seconds)"},
      kVerifyThreadsOutOfRange, kUnknownDesign, kNoDesign, missing_device("--device"), device_not_bound("--device"),
      kNoPermission}},

    {"test_dma_bridge_memory_addressing", {kUnknownOption, malformed_device("--device")}},

    {"test_dma_bridge_parallel_streams",
     {kUnknownOption,
      {"malformed_bdf", "--stream_device 0000:15:00,0", E, kUsage,
       "Error: parse option --stream_device \"0000:15:00,0\": Invalid argument (" BAD_BDF ")"},
      {"channel_out_of_range", "--stream_device 0000:15:00.0,4", E, kUsage, "must be in the range 0..3"},
      {"descriptors_out_of_range", "--stream_num_descriptors 1024", E, kUsage, "must be in the range 1..1023"},
      {"huge_duration", "--duration 1e300", E, kUsage,
       "Error: parse option --duration \"1e300\": Invalid argument (must be at most 1000000000 seconds)"},
      kVerifyThreadsOutOfRange,
      {"negative_verify_threads", "--verify_threads -2", E, kUsage,
       "Error: parse option --verify_threads \"-2\": Invalid argument (must be in the range 0..256)"},
      kNoDesign, kStreamNotBound, kNoPermission}},

    {"test_dma_bridge_independent_streams",
     {kUnknownOption,
      {"malformed_bdf", "--h2c_stream_device 0000:15:00.0", E, kUsage,
       "expected <domain>:<bus>:<dev>.<func>,<channel>"},
      {"channel_out_of_range", "--c2h_stream_device 0000:15:00.0,9", E, kUsage, "must be in the range 0..3"},
      {"zero_mapping_size", "--stream_mapping_size 0", E, kUsage,
       "Error: parse option --stream_mapping_size \"0\": Invalid argument (must be in the range 4..1099511627776)"},
      kNoDesign, kStreamNotBound}},

    {"test_dma_descriptor_credits",
     {kUnknownOption, malformed_device("-d"),
      {"malformed_routing", "-s 0000:15:00.0,1", E, kUsage,
       "Error: parse option --device_routing \"0000:15:00.0,1\": Invalid argument (each route is <master>:<slave>)"},
      {"negative_timeout", "--transfer_timeout -1", E, kUsage, "expected a positive number of seconds"},
      kNoDesign, missing_device("-d"), device_not_bound("-d"), kNoPermission}},

    {"xilinx_axi_stream_switch_set_routing",
     {kUnknownOption,
      {"no_routing_given", "", E, kUsage,
       "Either default_routing or at least one device_routing option must be specified"},
      kRoutingMalformedBdf,
      {"port_out_of_range", "--device_routing 0000:15:00.0,16:0", E, kUsage, "must be in the range 0..15"},
      {"no_device", "--default_routing", E, kFail, "Error: no known FPGA design found on the vfio bus"},
      {"not_bound_to_vfio", "--default_routing", Machine::bound_elsewhere, kFail,
       "is bound to xdma, not vfio-pci; bind it: "}}},

    {"crc64_stream_latency",
     {kUnknownOption,
      {"zero_samples", "--samples 0", E, kUsage, "must be in the range 1..100000000"},
      {"packet_out_of_range", "--max_packet_bytes 4", E, kUsage,
       "Error: parse option --max_packet_bytes \"4\": Invalid argument (must be in the range 8..268435456)"},
      kRoutingMalformedBdf, kNoDesign, kStreamNotBound}},

    // A server: every row must end it before it listens.
    {"vfio_multi_process_manager",
     {kNamedUnknownOption,
      {"malformed_bdf", "-d 0000:15:00", E, kUsage, "vfio_multi_process_manager: " BAD_BDF},
      {"unknown_group", "--allow_group no_such_group_pdt", E, kUsage, "no_such_group_pdt"},
      {"no_device", "--once", E, kFail,
       "Error: start VFIO manager: No such device (No available IOMMU groups to manage: no selected device is bound "
       "to vfio-pci)"},
      {"missing_device", "--once -d 0000:99:00.0", Machine::bound_elsewhere, kFail,
       "No available IOMMU groups to manage"},
      {"not_bound_to_vfio", "--once -d 0000:15:00.0", Machine::bound_elsewhere, kFail,
       "No available IOMMU groups to manage: no selected device is bound to vfio-pci"},
      {"no_vfio", "--once", Machine::no_vfio, kFail, "no VFIO support"}}},

    // The xdma endpoint opens designs as the stream tools do.
    {"pcie_link_measure",
     {{"unknown_option", "--no_such_option", E, kUsage,
       "pcie_link_measure: pcie_link_measure options: Invalid argument (unrecognised option '--no_such_option')"},
      {"malformed_bdf", "sweep --endpoint xdma --device 0000:15:00", E, kUsage, "--device: " BAD_BDF},
      {"unknown_subcommand", "sweeps", E, kUsage, "subcommand sweeps: Invalid argument"},
      {"unknown_endpoint", "sweep --endpoint bogus", E, kUsage, "known endpoints: model, xdma, edu, cuda, etsoc1"},
      {"unknown_design", "sweep --endpoint xdma --sim_design NoSuchDesign", E, kUsage,
       "Error: --sim_design NoSuchDesign: unknown design"},
      {"out_of_range", "sweep --repeats 0", E, kUsage, "--repeats 0: Invalid argument (expected 1 or more)"},
      {"no_device", "sweep --endpoint xdma", E, kFail, "no known FPGA design found"},
      {"edu_malformed_bdf", "latency --endpoint edu --device 0000:15:00", E, kUsage, "--device: " BAD_BDF},
      {"edu_two_devices", "latency --endpoint edu --device 0000:01:00.0 --device 0000:02:00.0", E, kUsage,
       "the edu endpoint measures one device: give one --device"},
      {"edu_no_device", "latency --endpoint edu", E, kFail, "no edu device (1234:11e8) bound to vfio-pci there"},
      {"edu_no_vfio", "latency --endpoint edu", Machine::no_vfio, kFail, "does not exist"},
      {"not_bound_to_vfio", "sweep --endpoint xdma --device 0000:15:00.0", Machine::bound_elsewhere, kFail,
       "not bound to vfio-pci but to xdma"}}},

    // A user's design (F26): the file and the card range are checked before anything is written.
    {"dma_to_device",
     {kUnknownOption,
      {"malformed_bdf", "-f {root}/malformed.lspci -d 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF},
      {"no_device", "-f {root}/malformed.lspci", E, kUsage,
       "Error: name the device: --device BDF (any vfio-pci device) or --sim_design NAME"},
      {"no_file", "--sim_design TEF1001_dma_ddr3", E, kUsage, "Error: --file is required (- reads standard input)"},
      {"unknown_design", "--sim_design NoSuchDesign -f {root}/malformed.lspci", E, kUsage,
       "Error: --sim_design NoSuchDesign: unknown design"},
      {"missing_file", "--sim_design TEF1001_dma_ddr3 -f {root}/none.bin", E, kFail,
       "none.bin: No such file or directory (the file to copy to the card must be readable)"},
      {"file_shorter_than_size", "--sim_design TEF1001_dma_ddr3 -f {root}/malformed.lspci --size 1MiB", E, kFail,
       "Numerical result out of range (shorter than the 1048576 bytes asked from offset 0x0: it holds "},
      {"address_outside_card_memory", "--sim_design TEF1001_dma_ddr3 -f {root}/malformed.lspci --address 0x1ffffffff",
       E, kFail, "are not all in the card memory [0x0, 0x200000000)"},
      {"missing_device", "-f {root}/malformed.lspci -d 0000:99:00.0", E, kFail, "no known FPGA design found"},
      {"not_bound_to_vfio", "-f {root}/malformed.lspci -d 0000:15:00.0", Machine::bound_elsewhere, kFail,
       "not bound to vfio-pci but to xdma"}}},
    {"dma_from_device",
     {kUnknownOption,
      {"malformed_bdf", "-s 4096 -f {root}/out.bin -d 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF},
      {"no_size", "--sim_design TEF1001_dma_ddr3 -f {root}/out.bin", E, kUsage, "Error: --size is required"},
      {"zero_size", "--sim_design TEF1001_dma_ddr3 -s 0 -f {root}/out.bin", E, kUsage,
       "Error: parse option --size \"0\": a transfer moves at least one byte"},
      {"address_outside_card_memory", "--sim_design U200_qdma_ram -s 4096 -a 0x7ff001 -f {root}/out.bin", E, kFail,
       "are not all in the card memory [0x0, 0x800000)"},
      {"unwritable_file", "--sim_design TEF1001_dma_ddr3 -s 4096 -f {root}/no_such_dir/out.bin", E, kFail,
       "out.bin: No such file or directory"},
      {"missing_device", "-s 4096 -f {root}/out.bin -d 0000:99:00.0", E, kFail, "no known FPGA design found"}}},
    {"reg_rw",
     {kUnknownOption,
      {"malformed_bdf", "--bar 0 --offset 0 -d 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF},
      {"no_offset", "--sim_design TEF1001_dma_ddr3 --bar 2", E, kUsage, "Error: --bar and --offset are required"},
      {"bad_width", "--sim_design TEF1001_dma_ddr3 --bar 2 --offset 0 --width 12", E, kUsage,
       "Error: parse option --width \"12\": expected 8, 16, 32 or 64 bits"},
      {"offset_out_of_range", "--sim_design TEF1001_dma_ddr3 --bar 2 --offset 0x40000000", E, kFail,
       "check BAR access BAR 2 offset 0x40000000 width 4: Numerical result out of range (the access ends past BAR 2 of "},
      {"no_such_bar", "--sim_design TEF1001_dma_ddr3 --bar 5 --offset 0", E, kFail, "BAR 5 does not exist on this device"},
      {"missing_device", "--bar 0 --offset 0 -d 0000:99:00.0", E, kFail,
       "Error: no vfio-pci device at the --device locations"}}},
    {"user_interrupts",
     {kUnknownOption,
      {"malformed_bdf", "-d 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF},
      kUnknownDesign,
      {"vector_that_does_not_exist", "--sim_design TEF1001_dma_ddr3 --irq 1 --vector 20", E, kFail,
       "MSI vector 20: Invalid argument (the vector does not exist: the device enabled 16 MSI vectors (0 to 15))"},
      {"irq_beyond_pg195", "--sim_design TEF1001_dma_ddr3 --irq 16", E, kUsage,
       "PG195's usr_irq_req has at most 16 bits (0 to 15)"},
      {"sim_raise_without_sim_design", "-d 0000:15:00.0 --sim_raise", E, kUsage,
       "Error: --sim_raise needs --sim_design"},
      {"zero_timeout", "--sim_design TEF1001_dma_ddr3 --timeout 0", E, kUsage,
       "Error: parse option --timeout \"0\": Invalid argument (expected a positive number of seconds)"},
      {"no_event_in_time", "--sim_design TEF1001_dma_ddr3 --timeout 0.05", E, kFail,
       "FAIL: no user interrupt within 50 ms: user interrupt 0 (MSI vector 0) has 0 of 1"},
      {"design_without_dma_ip", "--sim_design XCKU5P_DUAL_QSFP_ibert", E, kFail,
       "Operation not supported (the design has no XDMA or QDMA IP)"},
      {"missing_device", "-d 0000:99:00.0", E, kFail, "no known FPGA design found"}}},

    {"qdma_ctl",
     {kUnknownOption,
      {"malformed_bdf", "--command list -d 0000:15:00", E, kUsage, "Error: --device: " BAD_BDF},
      {"no_command", "--sim_design U200_qdma_ram", E, kUsage,
       "Error: --command is required: list, context, dump, reg_dump or errors"},
      {"queue_does_not_exist", "--sim_design U200_qdma_ram --command context --idx 0 --dir h2c", E, kUsage,
       "queue 0 does not exist: the function has no queues (its FMAP context reads qid_max 0"},
      {"not_a_qdma_design", "--sim_design TEF1001_dma_ddr3 --command errors", E, kFail,
       "its design data has no qdma section: not a QDMA design"},
      {"missing_device", "--command list -d 0000:99:00.0", E, kFail,
       "Error: no vfio-pci device at the --device locations"}}},

    // Reads result files; takes no PCI location.
    {"pcie_link_report",
     {kNamedUnknownOption,
      {"no_output", "{root}/result.json", E, kUsage, "--output FILE.html is required"},
      {"missing_result_file", "--output {root}/r.html {root}/none.json", E, kFail,
       "none.json: No such file or directory (give the path of a result JSON written by pcie_link_measure)"}}},

    {"vfio_access_keep_open",
     {kNamedUnknownOption,
      {"malformed_bdf", "0000:15:00", E, kUsage, "vfio_access_keep_open: " BAD_BDF},
      {"no_device", "", E, kFail, "Error: no device opened: no PCI device is bound to vfio-pci"},
      {"missing_device", "0000:99:00.0", E, kFail,
       "Error: no device opened: no selected PCI device is bound to vfio-pci"},
      {"not_bound_to_vfio", "0000:15:00.0", Machine::bound_elsewhere, kFail, "not bound to vfio-pci but to xdma"},
      {"no_vfio", "", Machine::no_vfio, kFail, "no VFIO support"},
      kNoPermission}},
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    return text;
}

// Every tool's rows, in the order of the tables, with {tool} replaced by the tool's name.
std::vector<BadInput> matrix() {
    std::vector<BadInput> rows;
    for (const ToolRows& table : kTables)
        for (const Row& row : table.rows)
            rows.push_back({table.tool, row.name, row.args, row.machine, row.exit_code,
                            replace_all(row.message, "{tool}", table.tool)});
    return rows;
}

void build(FakeMachine& machine, Machine kind) {
    using std::filesystem::perms;
    const char* driver = kind == Machine::bound_elsewhere ? "xdma" : "vfio-pci";
    if (kind != Machine::empty)
        machine.add({"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, driver, 41});
    if (kind != Machine::no_vfio)
        machine.load_vfio();
    machine.tree.write("malformed.lspci", "01:00.0 Memory controller: Xilinx Corporation Device 7024\n00: zz\n");
    // The child may run as a user: it must reach the tree, as a user reaches /sys and /dev.
    std::filesystem::permissions(machine.tree.root(), perms::owner_all | perms::group_read | perms::group_exec |
                                                          perms::others_read | perms::others_exec);
    if (kind == Machine::container_no_permission)
        std::filesystem::permissions(machine.tree.path("dev/vfio/vfio"), perms::none);
}

// The first directory on the way to `path` (or the file) that other users cannot pass or run;
// "" when user nobody can run it.
std::string closed_to_others(const std::filesystem::path& path) {
    using std::filesystem::perms;
    for (std::filesystem::path at = path; !at.empty() && at != at.root_path(); at = at.parent_path())
        if ((std::filesystem::status(at).permissions() & perms::others_exec) == perms::none)
            return at.string();
    return "";
}

class BadInputMatrix : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputMatrix, ClearMessageAndExitCodeNeverPass) {
    const BadInput& row = GetParam();
    const std::string tool = path_of(row.tool);
    ASSERT_FALSE(tool.empty()) << row.tool << " is not among the tools this test was built with";
    FakeMachine machine;
    build(machine, row.machine);
    test_support::RunOptions options;
    options.environment = test_support::words(machine.environment());
    options.stdin_from_null = true;
    options.unprivileged = row.machine == Machine::container_no_permission;
    if (options.unprivileged && ::geteuid() == 0)
        if (const std::string closed = closed_to_others(tool); !closed.empty())
            GTEST_SKIP() << "the permission row runs the tool as user nobody, who cannot reach " << closed;
    options.timeout = std::chrono::seconds(60);
    const std::string args = replace_all(row.args, "{root}", machine.tree.root());
    const test_support::Outcome r = test_support::run_process(tool, test_support::words(args), options);
    EXPECT_EQ(r.exit_code, row.exit_code) << row.tool << " " << row.args << ":\n" << r.output;
    EXPECT_TRUE(test_support::contains(r.output, row.message))
        << row.tool << " " << row.args << ": expected \"" << row.message << "\" in:\n" << r.output;
    EXPECT_FALSE(test_support::contains(r.output, "PASS")) << r.output;
    EXPECT_FALSE(test_support::contains(r.output, "runtime error")) << r.output;  // UBSan
    EXPECT_FALSE(test_support::contains(r.output, "AddressSanitizer")) << r.output;
}

INSTANTIATE_TEST_SUITE_P(EveryTool, BadInputMatrix, ::testing::ValuesIn(matrix()),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                             return info.param.tool + "_" + info.param.name;
                         });

// Every tool built is in the matrix with an unknown option at least; tools that take a PCI
// location have a malformed one too.
TEST(BadInputMatrixCoverage, EveryToolHasRows) {
    std::map<std::string, std::set<std::string>> names;
    for (const BadInput& row : matrix())
        names[row.tool].insert(row.name);
    ASSERT_GE(kToolPaths.size(), 18u);
    for (const std::string& path : kToolPaths) {
        const std::string tool = std::filesystem::path(path).filename().string();
        EXPECT_TRUE(names[tool].count("unknown_option")) << tool;
        if (tool != "display_possible_fpga_designs" && tool != "pattern_benchmark" && tool != "pcie_link_report" &&
            tool != "parse_bitstream_file" && tool != "xilinx_bit_to_bin") {
            EXPECT_TRUE(names[tool].count("malformed_bdf")) << tool;
        }
    }
}

}  // namespace
