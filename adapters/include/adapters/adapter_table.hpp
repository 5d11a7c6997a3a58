// The adapter table: one row per adapter the registry knows (model, xdma, qdma, edu, cuda,
// etsoc1), with its name, what it is, its options, how it opens the stream tools' stream devices
// and how it opens pcie_link_measure's copy endpoint. copy_endpoints.hpp and stream_devices.hpp
// open through it; the rows' glue is one file per adapter (adapters/src/<name>.cpp). Adding an
// adapter is adding its folder and a row.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "adapters/copy_endpoints.hpp"
#include "adapters/stream_devices.hpp"

namespace adapters {

using OpenedCopyEndpoint = pdt::Result<std::unique_ptr<streams::CopyEndpoint>>;

// The kinds of glue function a row points to, each written once: the adapters' glue
// (adapters/src/adapter_glue.hpp) declares its functions with them.
// Adds an adapter's pcie_link_measure options to `options`, bound to `settings`.
using AddOptions = void(boost::program_options::options_description& options, EndpointSettings& settings);
// An adapter's options given while another endpoint is named: a usage error (pdt::usage_error).
using CheckUnused = pdt::Result<void>(const EndpointSettings& settings, const std::string& endpoint);
// Opens an adapter's copy endpoint; `holds` receives what it copies through.
using OpenCopyEndpoint = OpenedCopyEndpoint(const EndpointSettings& settings, EndpointHolds& holds);
// Whether the request names an adapter's stream devices; a usage error (pdt::usage_error) for its
// options given without them.
using StreamDevicesNamed = pdt::Result<bool>(const StreamDeviceRequest& request);
// Opens them (OpenedStreamDevices: the status, the reason on `errors`).
using OpenStreamDevices = OpenedStreamDevices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                              std::ostream& errors);

// How an adapter opens the stream tools' stream devices.
struct StreamDeviceOpening {
    // The options that name its devices, as a usage error names them ("--cuda_device").
    std::vector<std::string> naming_options;
    StreamDevicesNamed* named = nullptr;
    OpenStreamDevices* open = nullptr;
};

struct Adapter {
    std::string name;     // as on the command line: --endpoint NAME
    std::string summary;  // one line of what it is
    // Its place in the "known endpoints" hint: the order the endpoints came to pcie_link_measure.
    unsigned listed = 0;
    AddOptions* add_options = nullptr;
    CheckUnused* check_unused = nullptr;  // null: not checked
    // Absent for an adapter without stream devices.
    std::optional<StreamDeviceOpening> stream_devices = std::nullopt;
    OpenCopyEndpoint* open_copy_endpoint = nullptr;  // null where it has none
};

// Every adapter, in the order pcie_link_measure's --help lists their options.
const std::vector<Adapter>& adapter_table();
// The row of that name; null when there is none.
const Adapter* find_adapter(const std::string& name);
// "known endpoints: model, xdma, edu, cuda, etsoc1, qdma": the rows with a copy endpoint, as listed.
std::string known_endpoints();

}  // namespace adapters
