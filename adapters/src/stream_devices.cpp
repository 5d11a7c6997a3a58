#include "adapters/stream_devices.hpp"

#include "adapter_glue.hpp"

namespace adapters {
namespace {

OpenedStreamDevices refused_as_usage(const std::string& message, std::ostream& errors) {
    errors << "Error: " << message << "\n";
    OpenedStreamDevices opened;
    opened.status = tool_support::kUsageError;
    return opened;
}

// "--sim_design, --device_routing or --cuda_device"
std::string either_option(const std::vector<std::string>& options) {
    std::string text;
    for (size_t i = 0; i < options.size(); ++i)
        text += (i == 0 ? "" : i + 1 == options.size() ? " or " : ", ") + options[i];
    return text;
}

// The rows of the adapter table with stream devices, in its order: the designs of the bus first.
std::vector<const StreamDeviceOpening*> stream_rows() {
    std::vector<const StreamDeviceOpening*> rows;
    for (const Adapter& row : adapter_table())
        if (row.stream_devices)
            rows.push_back(&*row.stream_devices);
    return rows;
}

// Whether the request names each row's devices; a usage error for a row's options given wrongly.
pdt::Result<std::vector<bool>> rows_named(const std::vector<const StreamDeviceOpening*>& rows,
                                          const StreamDeviceRequest& request) {
    std::vector<bool> named;
    for (const StreamDeviceOpening* row : rows)
        named.push_back(PDT_TRY(row->named(request)));
    return named;
}

}  // namespace

OpenedStreamDevices opened_or_failed(pdt::Result<StreamDevices> devices, std::ostream& errors) {
    OpenedStreamDevices opened;
    if (!devices.ok()) {
        errors << "Error: " << devices.error().message() << "\n";
        opened.status = devices.error().usage ? tool_support::kUsageError : 1;
        return opened;
    }
    opened.devices = std::move(*devices);
    return opened;
}

// The last row whose devices the request names opens them; the first row (the designs of the
// bus) when none is named. A row before it named too is a usage error naming the options of
// every row before it: "--etsoc1_device cannot be combined with --sim_design, --device_routing
// or --cuda_device".
OpenedStreamDevices open_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                        std::ostream& errors) {
    const std::vector<const StreamDeviceOpening*> rows = stream_rows();
    const pdt::Result<std::vector<bool>> named = rows_named(rows, request);
    if (!named.ok())
        return refused_as_usage(named.error().message(), errors);
    size_t picked = rows.size() - 1;
    while (picked > 0 && !(*named)[picked])
        --picked;
    bool combined = false;
    std::vector<std::string> before;  // the options naming the devices of the rows before it
    for (size_t i = 0; i < picked; ++i) {
        combined = combined || (*named)[i];
        before.insert(before.end(), rows[i]->naming_options.begin(), rows[i]->naming_options.end());
    }
    if (combined)
        return refused_as_usage(
            either_option(rows[picked]->naming_options) + " cannot be combined with " + either_option(before), errors);
    return rows[picked]->open(request, use, errors);
}

}  // namespace adapters
