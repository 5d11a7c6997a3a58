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

struct BadInput {
    const char* tool;
    const char* name;  // the test's name: <tool>_<name>
    const char* args;  // {root} stands for the fake machine's directory
    Machine machine;
    int exit_code;
    const char* message;  // appears in what the tool printed (stdout and stderr)
};

// Test names and failures show the row, not its bytes.
void PrintTo(const BadInput& row, std::ostream* out) { *out << row.tool << " " << row.args; }

constexpr int kUsage = 2, kFail = 1;
// What every tool says of the malformed location 0000:15:00 (no function number).
#define BAD_BDF \
    "parse PCI address \"0000:15:00\": Invalid argument (wrong length; expected dddd:bb:dd.f, e.g. 0000:15:00.0)"
constexpr Machine E = Machine::empty;

const BadInput kMatrix[] = {
    // display_identified_pcie_fpga_designs
    {"display_identified_pcie_fpga_designs", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"display_identified_pcie_fpga_designs", "malformed_bdf", "-d 0000:15:00", E, kUsage,
     "Error: --device: " BAD_BDF},
    {"display_identified_pcie_fpga_designs", "unknown_design", "--sim_design NoSuchDesign", E, kUsage,
     "Error: --sim_design NoSuchDesign: unknown design"},
    {"display_identified_pcie_fpga_designs", "missing_design_file", "--design_file {root}/none.json", E, kUsage,
     "none.json: No such file or directory (--design_file takes a readable JSON file)"},
    {"display_identified_pcie_fpga_designs", "no_device", "", E, kFail,
     "Error: no known FPGA design found on the vfio bus"},
    {"display_identified_pcie_fpga_designs", "missing_device", "-d 0000:99:00.0", E, kFail,
     "Error: no known FPGA design found"},
    {"display_identified_pcie_fpga_designs", "no_vfio", "", Machine::no_vfio, kFail,
     "does not exist: no VFIO support; load the vfio-pci module"},
    {"display_identified_pcie_fpga_designs", "not_bound_to_vfio", "-d 0000:15:00.0", Machine::bound_elsewhere, kFail,
     "not bound to vfio-pci but to xdma; bind it: "},
    {"display_identified_pcie_fpga_designs", "container_no_permission", "", Machine::container_no_permission, kFail,
     "no read/write permission"},

    // display_possible_fpga_designs
    {"display_possible_fpga_designs", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"display_possible_fpga_designs", "missing_design_file", "--design_file {root}/none.json", E, kUsage,
     "none.json: No such file or directory (--design_file takes a readable JSON file)"},
    {"display_possible_fpga_designs", "no_device", "", E, kFail, "No PCI device matches a known design"},

    // display_vfio_information
    {"display_vfio_information", "unknown_option", "--no_such_option", E, kUsage,
     "display_vfio_information: unrecognised option '--no_such_option'"},
    {"display_vfio_information", "malformed_bdf", "--device 0000:15:00", E, kUsage,
     "display_vfio_information: " BAD_BDF},
    {"display_vfio_information", "id_out_of_range", "--vendor 10000", E, kUsage,
     "parse ID --vendor '10000': Invalid argument (expected 1 to 4 hex digits, e.g. 10ee)"},
    {"display_vfio_information", "no_device", "", E, kFail, "No device found: no PCI device is bound to vfio-pci"},
    {"display_vfio_information", "missing_device", "--device 0000:99:00.0", E, kFail,
     "No device found: no selected PCI device is bound to vfio-pci\n  open 0000:99:00.0: No such device (no such PCI "
     "device in "},
    {"display_vfio_information", "not_bound_to_vfio", "--device 0000:15:00.0", Machine::bound_elsewhere, kFail,
     "Error: open 0000:15:00.0: No such device (not bound to vfio-pci but to xdma; bind it: "},
    {"display_vfio_information", "container_no_permission", "", Machine::container_no_permission, kFail,
     "no read/write permission"},

    // dump_pci_info
    {"dump_pci_info", "unknown_option", "--no_such_option", E, kUsage,
     "dump_pci_info: unrecognised option '--no_such_option'"},
    {"dump_pci_info", "malformed_bdf", "--access sim 0000:zz:00.0", E, kUsage,
     "dump_pci_info: parse PCI address \"0000:zz:00.0\": Invalid argument (non-hex digit; "},
    {"dump_pci_info", "unknown_access", "--access bogus", E, kUsage,
     "dump_pci_info: choose config-space access \"bogus\": Invalid argument (expected libpci, pciaccess, vfio, "},
    {"dump_pci_info", "missing_device", "--access dump:{root}/dump.txt 0000:99:00.0", Machine::bound_elsewhere, kFail,
     "0000:99:00.0"},
    {"dump_pci_info", "missing_dump_file", "--access dump:{root}/none.lspci", E, kFail,
     "none.lspci: No such file or directory (expected the output of lspci -xxxx)"},

    // pcie_set_speed
    {"pcie_set_speed", "unknown_option", "--no_such_option", E, kUsage,
     "pcie_set_speed: unrecognised option '--no_such_option'"},
    {"pcie_set_speed", "no_bdf", "--access sim", E, kUsage, "Usage: pcie_set_speed"},
    {"pcie_set_speed", "malformed_bdf", "--access sim 0000:01:00", E, kUsage,
     "Invalid PCI device location 0000:01:00: "},
    {"pcie_set_speed", "speed_out_of_range", "--access sim 0000:01:00.0 7", E, kUsage,
     "Invalid target link speed 7: "},
    {"pcie_set_speed", "negative_timeout", "--access sim --timeout-ms -1 0000:01:00.0", E, kUsage,
     "pcie_set_speed: invalid --timeout-ms -1: expected milliseconds in the range 1..600000"},
    {"pcie_set_speed", "missing_device", "--access sim 0000:99:00.0", E, kFail,
     "pcie_set_speed: open config space 0000:99:00.0: No such device (not in the simulated topology)"},

    // display_physical_slots
    {"display_physical_slots", "unknown_option", "--no_such_option", E, kUsage,
     "display_physical_slots: unrecognised option '--no_such_option'"},
    {"display_physical_slots", "malformed_bdf", "--access sim 0000:zz:00.0", E, kUsage,
     "display_physical_slots: parse PCI address \"0000:zz:00.0\": Invalid argument (non-hex digit; "},
    {"display_physical_slots", "unknown_access", "--access bogus", E, kUsage,
     "display_physical_slots: choose config-space access \"bogus\": Invalid argument (expected libpci, pciaccess, vfio, "},
    {"display_physical_slots", "missing_dump_file", "--access dump:{root}/none.lspci", E, kFail,
     "none.lspci: No such file or directory (expected the output of lspci -xxxx)"},

    // fpga_sio's names of dump_pci_info and pcie_set_speed: their messages carry the name run.
    {"dump_pci_info_pciutils", "unknown_option", "--no_such_option", E, kUsage,
     "dump_pci_info_pciutils: unrecognised option '--no_such_option'"},
    {"dump_pci_info_pciutils", "malformed_bdf", "--access sim 0000:zz:00.0", E, kUsage,
     "dump_pci_info_pciutils: parse PCI address \"0000:zz:00.0\": Invalid argument (non-hex digit; "},
    {"dump_pci_info_libpciaccess", "unknown_option", "--no_such_option", E, kUsage,
     "dump_pci_info_libpciaccess: unrecognised option '--no_such_option'"},
    {"dump_pci_info_libpciaccess", "malformed_bdf", "--access sim 0000:zz:00.0", E, kUsage,
     "dump_pci_info_libpciaccess: parse PCI address \"0000:zz:00.0\": Invalid argument (non-hex digit; "},
    {"pcie_set_speed_pciutils", "unknown_option", "--no_such_option", E, kUsage,
     "pcie_set_speed_pciutils: unrecognised option '--no_such_option'"},
    {"pcie_set_speed_pciutils", "malformed_bdf", "--access sim 0000:01:00", E, kUsage,
     "Invalid PCI device location 0000:01:00: "},
    {"pcie_set_speed_libpciaccess", "unknown_option", "--no_such_option", E, kUsage,
     "pcie_set_speed_libpciaccess: unrecognised option '--no_such_option'"},
    {"pcie_set_speed_libpciaccess", "malformed_bdf", "--access sim 0000:01:00", E, kUsage,
     "Invalid PCI device location 0000:01:00: "},
    {"pcie_set_speed_vfio", "unknown_option", "--no_such_option", E, kUsage,
     "pcie_set_speed_vfio: unrecognised option '--no_such_option'"},
    {"pcie_set_speed_vfio", "malformed_bdf", "0000:01:00", E, kUsage, "Invalid PCI device location 0000:01:00: "},
    {"pcie_set_speed_vfio", "no_bdf", "", E, kUsage, "Usage: pcie_set_speed_vfio "},

    // pattern_benchmark
    {"pattern_benchmark", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised argument '--no_such_option'"},
    {"pattern_benchmark", "zero_size", "--size_mib 0", E, kUsage,
     "Error: --size_mib 0: expected a number in the range 1..32768"},
    {"pattern_benchmark", "negative_size", "--size_mib -1", E, kUsage,
     "Error: --size_mib -1: expected a number in the range 1..32768"},
    {"pattern_benchmark", "huge_size", "--size_mib 99999999999", E, kUsage,
     "Error: --size_mib 99999999999: expected a number in the range 1..32768"},
    {"pattern_benchmark", "malformed_repeats", "--repeats 1x", E, kUsage,
     "Error: --repeats 1x: expected a number in the range 1..1000"},

    // test_dma_bridge
    {"test_dma_bridge", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"test_dma_bridge", "malformed_bdf", "--device 0000:15:00", E, kUsage,
     "Error: --device: " BAD_BDF},
    {"test_dma_bridge", "combinations_out_of_range", "--max_channel_combinations 17", E, kUsage,
     "must be in the range 1..16"},
    {"test_dma_bridge", "zero_min_words", "--min_words 0", E, kUsage,
     "Error: parse option --min_words \"0\": Invalid argument (must be in the range 1.."},
    {"test_dma_bridge", "unknown_test", "--enabled_tests bogus", E, kUsage, "unknown test"},
    {"test_dma_bridge", "zero_timeout", "--transfer_timeout 0", E, kUsage, "expected a positive number of seconds"},
    {"test_dma_bridge", "huge_timeout", "--transfer_timeout 1e300", E, kUsage,
     "Error: parse option --transfer_timeout \"1e300\": Invalid argument (must be at most 1000000000 seconds)"},
    {"test_dma_bridge", "verify_threads_out_of_range", "--verify_threads 100000", E, kUsage,
     "Error: parse option --verify_threads \"100000\": Invalid argument (must be in the range 0..256)"},
    {"test_dma_bridge", "unknown_design", "--sim_design NoSuchDesign", E, kUsage,
     "Error: --sim_design NoSuchDesign: unknown design"},
    {"test_dma_bridge", "no_device", "", E, kFail, "Error: no known FPGA design found on the vfio bus"},
    {"test_dma_bridge", "missing_device", "--device 0000:99:00.0", E, kFail, "Error: no known FPGA design found"},
    {"test_dma_bridge", "not_bound_to_vfio", "--device 0000:15:00.0", Machine::bound_elsewhere, kFail,
     "not bound to vfio-pci but to xdma; bind it: "},
    {"test_dma_bridge", "container_no_permission", "", Machine::container_no_permission, kFail,
     "no read/write permission"},

    // test_dma_bridge_parallel_streams
    {"test_dma_bridge_parallel_streams", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"test_dma_bridge_parallel_streams", "malformed_bdf", "--stream_device 0000:15:00,0", E, kUsage,
     "Error: parse option --stream_device \"0000:15:00,0\": Invalid argument (" BAD_BDF ")"},
    {"test_dma_bridge_parallel_streams", "channel_out_of_range", "--stream_device 0000:15:00.0,4", E, kUsage,
     "must be in the range 0..3"},
    {"test_dma_bridge_parallel_streams", "descriptors_out_of_range", "--stream_num_descriptors 1024", E, kUsage,
     "must be in the range 1..1023"},
    {"test_dma_bridge_parallel_streams", "huge_duration", "--duration 1e300", E, kUsage,
     "Error: parse option --duration \"1e300\": Invalid argument (must be at most 1000000000 seconds)"},
    {"test_dma_bridge_parallel_streams", "verify_threads_out_of_range", "--verify_threads 100000", E, kUsage,
     "Error: parse option --verify_threads \"100000\": Invalid argument (must be in the range 0..256)"},
    {"test_dma_bridge_parallel_streams", "negative_verify_threads", "--verify_threads -2", E, kUsage,
     "Error: parse option --verify_threads \"-2\": Invalid argument (must be in the range 0..256)"},
    {"test_dma_bridge_parallel_streams", "no_device", "", E, kFail,
     "Error: no known FPGA design found on the vfio bus"},
    {"test_dma_bridge_parallel_streams", "not_bound_to_vfio", "", Machine::bound_elsewhere, kFail,
     "is bound to xdma, not vfio-pci; bind it: "},
    {"test_dma_bridge_parallel_streams", "container_no_permission", "", Machine::container_no_permission, kFail,
     "no read/write permission"},

    // test_dma_bridge_independent_streams
    {"test_dma_bridge_independent_streams", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"test_dma_bridge_independent_streams", "malformed_bdf", "--h2c_stream_device 0000:15:00.0", E, kUsage,
     "expected <domain>:<bus>:<dev>.<func>,<channel>"},
    {"test_dma_bridge_independent_streams", "channel_out_of_range", "--c2h_stream_device 0000:15:00.0,9", E, kUsage,
     "must be in the range 0..3"},
    {"test_dma_bridge_independent_streams", "zero_mapping_size", "--stream_mapping_size 0", E, kUsage,
     "Error: parse option --stream_mapping_size \"0\": Invalid argument (must be in the range 4..1099511627776)"},
    {"test_dma_bridge_independent_streams", "no_device", "", E, kFail,
     "Error: no known FPGA design found on the vfio bus"},
    {"test_dma_bridge_independent_streams", "not_bound_to_vfio", "", Machine::bound_elsewhere, kFail,
     "is bound to xdma, not vfio-pci; bind it: "},

    // test_dma_descriptor_credits
    {"test_dma_descriptor_credits", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"test_dma_descriptor_credits", "malformed_bdf", "-d 0000:15:00", E, kUsage,
     "Error: --device: " BAD_BDF},
    {"test_dma_descriptor_credits", "malformed_routing", "-s 0000:15:00.0,1", E, kUsage,
     "Error: parse option --device_routing \"0000:15:00.0,1\": Invalid argument (each route is <master>:<slave>)"},
    {"test_dma_descriptor_credits", "negative_timeout", "--transfer_timeout -1", E, kUsage,
     "expected a positive number of seconds"},
    {"test_dma_descriptor_credits", "no_device", "", E, kFail, "Error: no known FPGA design found on the vfio bus"},
    {"test_dma_descriptor_credits", "missing_device", "-d 0000:99:00.0", E, kFail, "Error: no known FPGA design found"},
    {"test_dma_descriptor_credits", "not_bound_to_vfio", "-d 0000:15:00.0", Machine::bound_elsewhere, kFail,
     "not bound to vfio-pci but to xdma; bind it: "},
    {"test_dma_descriptor_credits", "container_no_permission", "", Machine::container_no_permission, kFail,
     "no read/write permission"},

    // xilinx_axi_stream_switch_set_routing
    {"xilinx_axi_stream_switch_set_routing", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"xilinx_axi_stream_switch_set_routing", "no_routing_given", "", E, kUsage,
     "Either default_routing or at least one device_routing option must be specified"},
    {"xilinx_axi_stream_switch_set_routing", "malformed_bdf", "--device_routing 0000:15:00,0:1", E, kUsage,
     "Error: parse option --device_routing \"0000:15:00,0:1\": Invalid argument (" BAD_BDF ")"},
    {"xilinx_axi_stream_switch_set_routing", "port_out_of_range", "--device_routing 0000:15:00.0,16:0", E, kUsage,
     "must be in the range 0..15"},
    {"xilinx_axi_stream_switch_set_routing", "no_device", "--default_routing", E, kFail,
     "Error: no known FPGA design found on the vfio bus"},
    {"xilinx_axi_stream_switch_set_routing", "not_bound_to_vfio", "--default_routing", Machine::bound_elsewhere, kFail,
     "is bound to xdma, not vfio-pci; bind it: "},

    // crc64_stream_latency
    {"crc64_stream_latency", "unknown_option", "--no_such_option", E, kUsage,
     "Error: unrecognised option '--no_such_option'"},
    {"crc64_stream_latency", "zero_samples", "--samples 0", E, kUsage, "must be in the range 1..100000000"},
    {"crc64_stream_latency", "packet_out_of_range", "--max_packet_bytes 4", E, kUsage,
     "Error: parse option --max_packet_bytes \"4\": Invalid argument (must be in the range 8..268435456)"},
    {"crc64_stream_latency", "malformed_bdf", "--device_routing 0000:15:00,0:1", E, kUsage,
     "Error: parse option --device_routing \"0000:15:00,0:1\": Invalid argument (" BAD_BDF ")"},
    {"crc64_stream_latency", "no_device", "", E, kFail, "Error: no known FPGA design found on the vfio bus"},
    {"crc64_stream_latency", "not_bound_to_vfio", "", Machine::bound_elsewhere, kFail,
     "is bound to xdma, not vfio-pci; bind it: "},

    // vfio_multi_process_manager (a server: every row must end it before it listens)
    {"vfio_multi_process_manager", "unknown_option", "--no_such_option", E, kUsage,
     "vfio_multi_process_manager: unrecognised option '--no_such_option'"},
    {"vfio_multi_process_manager", "malformed_bdf", "-d 0000:15:00", E, kUsage,
     "vfio_multi_process_manager: " BAD_BDF},
    {"vfio_multi_process_manager", "unknown_group", "--allow_group no_such_group_pdt", E, kUsage,
     "no_such_group_pdt"},
    {"vfio_multi_process_manager", "no_device", "--once", E, kFail,
     "Error: start VFIO manager: No such device (No available IOMMU groups to manage: no selected device is bound to "
     "vfio-pci)"},
    {"vfio_multi_process_manager", "missing_device", "--once -d 0000:99:00.0", Machine::bound_elsewhere, kFail,
     "No available IOMMU groups to manage"},
    {"vfio_multi_process_manager", "not_bound_to_vfio", "--once -d 0000:15:00.0", Machine::bound_elsewhere, kFail,
     "No available IOMMU groups to manage: no selected device is bound to vfio-pci"},
    {"vfio_multi_process_manager", "no_vfio", "--once", Machine::no_vfio, kFail, "no VFIO support"},

    // pcie_link_measure (the xdma endpoint opens designs as the stream tools do)
    {"pcie_link_measure", "unknown_option", "--no_such_option", E, kUsage,
     "pcie_link_measure: pcie_link_measure options: Invalid argument (unrecognised option '--no_such_option')"},
    {"pcie_link_measure", "malformed_bdf", "sweep --endpoint xdma --device 0000:15:00", E, kUsage,
     "--device: " BAD_BDF},
    {"pcie_link_measure", "unknown_subcommand", "sweeps", E, kUsage, "subcommand sweeps: Invalid argument"},
    {"pcie_link_measure", "unknown_endpoint", "sweep --endpoint bogus", E, kUsage,
     "known endpoints: model, xdma, edu, cuda, etsoc1"},
    {"pcie_link_measure", "unknown_design", "sweep --endpoint xdma --sim_design NoSuchDesign", E, kUsage,
     "Error: --sim_design NoSuchDesign: unknown design"},
    {"pcie_link_measure", "out_of_range", "sweep --repeats 0", E, kUsage, "--repeats 0: Invalid argument (expected 1 or more)"},
    {"pcie_link_measure", "no_device", "sweep --endpoint xdma", E, kFail, "no known FPGA design found"},
    {"pcie_link_measure", "edu_malformed_bdf", "latency --endpoint edu --device 0000:15:00", E, kUsage,
     "--device: " BAD_BDF},
    {"pcie_link_measure", "edu_two_devices", "latency --endpoint edu --device 0000:01:00.0 --device 0000:02:00.0", E,
     kUsage, "the edu endpoint measures one device: give one --device"},
    {"pcie_link_measure", "edu_no_device", "latency --endpoint edu", E, kFail,
     "no edu device (1234:11e8) bound to vfio-pci there"},
    {"pcie_link_measure", "edu_no_vfio", "latency --endpoint edu", Machine::no_vfio, kFail, "does not exist"},
    {"pcie_link_measure", "not_bound_to_vfio", "sweep --endpoint xdma --device 0000:15:00.0", Machine::bound_elsewhere,
     kFail, "not bound to vfio-pci but to xdma"},

    // pcie_link_report (reads result files; takes no PCI location)
    {"pcie_link_report", "unknown_option", "--no_such_option", E, kUsage,
     "pcie_link_report: unrecognised option '--no_such_option'"},
    {"pcie_link_report", "no_output", "{root}/result.json", E, kUsage, "--output FILE.html is required"},
    {"pcie_link_report", "missing_result_file", "--output {root}/r.html {root}/none.json", E, kFail,
     "none.json: No such file or directory (give the path of a result JSON written by pcie_link_measure)"},

    // vfio_access_keep_open
    {"vfio_access_keep_open", "unknown_option", "--no_such_option", E, kUsage,
     "vfio_access_keep_open: unrecognised option '--no_such_option'"},
    {"vfio_access_keep_open", "malformed_bdf", "0000:15:00", E, kUsage, "vfio_access_keep_open: " BAD_BDF},
    {"vfio_access_keep_open", "no_device", "", E, kFail,
     "Error: no device opened: no PCI device is bound to vfio-pci"},
    {"vfio_access_keep_open", "missing_device", "0000:99:00.0", E, kFail,
     "Error: no device opened: no selected PCI device is bound to vfio-pci"},
    {"vfio_access_keep_open", "not_bound_to_vfio", "0000:15:00.0", Machine::bound_elsewhere, kFail,
     "not bound to vfio-pci but to xdma"},
    {"vfio_access_keep_open", "no_vfio", "", Machine::no_vfio, kFail, "no VFIO support"},
    {"vfio_access_keep_open", "container_no_permission", "", Machine::container_no_permission, kFail,
     "no read/write permission"},
};

void build(FakeMachine& machine, Machine kind) {
    using std::filesystem::perms;
    const char* driver = kind == Machine::bound_elsewhere ? "xdma" : "vfio-pci";
    if (kind != Machine::empty)
        machine.add({"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, driver, 41});
    if (kind != Machine::no_vfio)
        machine.load_vfio();
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

std::string replace_root(std::string args, const std::string& root) {
    for (size_t at; (at = args.find("{root}")) != std::string::npos;)
        args.replace(at, 6, root);
    return args;
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
    const test_support::Outcome r =
        test_support::run_process(tool, test_support::words(replace_root(row.args, machine.tree.root())), options);
    EXPECT_EQ(r.exit_code, row.exit_code) << row.tool << " " << row.args << ":\n" << r.output;
    EXPECT_TRUE(test_support::contains(r.output, row.message))
        << row.tool << " " << row.args << ": expected \"" << row.message << "\" in:\n" << r.output;
    EXPECT_FALSE(test_support::contains(r.output, "PASS")) << r.output;
    EXPECT_FALSE(test_support::contains(r.output, "runtime error")) << r.output;  // UBSan
    EXPECT_FALSE(test_support::contains(r.output, "AddressSanitizer")) << r.output;
}

INSTANTIATE_TEST_SUITE_P(EveryTool, BadInputMatrix, ::testing::ValuesIn(kMatrix),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                             return std::string(info.param.tool) + "_" + info.param.name;
                         });

// Every tool built is in the matrix with an unknown option at least; tools that take a PCI
// location have a malformed one too.
TEST(BadInputMatrixCoverage, EveryToolHasRows) {
    std::map<std::string, std::set<std::string>> names;
    for (const BadInput& row : kMatrix)
        names[row.tool].insert(row.name);
    ASSERT_GE(kToolPaths.size(), 18u);
    for (const std::string& path : kToolPaths) {
        const std::string tool = std::filesystem::path(path).filename().string();
        EXPECT_TRUE(names[tool].count("unknown_option")) << tool;
        if (tool != "display_possible_fpga_designs" && tool != "pattern_benchmark" && tool != "pcie_link_report") {
            EXPECT_TRUE(names[tool].count("malformed_bdf")) << tool;
        }
    }
}

}  // namespace
