#include "adapters/adapter_table.hpp"

#include <algorithm>

#include "adapter_glue.hpp"

namespace adapters {

const std::vector<Adapter>& adapter_table() {
    static const std::vector<Adapter> table{
        {.name = "model",
         .summary = "a model of a link and its card (sim): rates, latency, queues and faults as --model_* set them",
         .listed = 1,
         .add_options = add_model_options,
         .open_copy_endpoint = open_model_endpoint},
        {.name = "xdma",
         .summary = "an XDMA design (PG195), real or --sim_design: its card memory through the memory-mapped "
                    "engines, and the stream designs of the bus",
         .listed = 2,
         .add_options = add_xdma_options,
         .stream_devices = StreamDeviceOpening{{"--sim_design", "--device_routing"}, designs_named,
                                               open_designs_as_stream_devices},
         .open_copy_endpoint = open_xdma_endpoint},
        {.name = "qdma",
         .summary = "a QDMA design (PG302), real or --sim_design: its card memory through memory-mapped queue "
                    "pairs (its stream queues open with the designs of the bus)",
         .listed = 6,
         .add_options = add_qdma_options,
         .open_copy_endpoint = open_qdma_endpoint},
        {.name = "edu",
         .summary = "QEMU's edu device bound to vfio-pci, or its register model (--edu_sim)",
         .listed = 3,
         .add_options = add_edu_options,
         .open_copy_endpoint = open_edu_endpoint},
        {.name = "cuda",
         .summary = "NVIDIA GPUs through CUDA (built when CMake finds CUDA)",
         .listed = 4,
         .add_options = add_cuda_endpoint_options,
         .stream_devices = StreamDeviceOpening{{"--cuda_device"}, gpus_named, open_gpus_as_stream_devices},
         .open_copy_endpoint = open_cuda_endpoint},
        {.name = "etsoc1",
         .summary = "Esperanto ET-SoC-1 cards through their runtime, or the fake card",
         .listed = 5,
         .add_options = add_etsoc1_endpoint_options,
         .check_unused = check_etsoc1_unused,
         .stream_devices = StreamDeviceOpening{{"--etsoc1_device"}, etsoc1_cards_named,
                                               open_etsoc1_cards_as_stream_devices},
         .open_copy_endpoint = open_etsoc1_endpoint},
    };
    return table;
}

const Adapter* find_adapter(const std::string& name) {
    for (const Adapter& row : adapter_table())
        if (row.name == name)
            return &row;
    return nullptr;
}

std::string known_endpoints() {
    std::vector<const Adapter*> rows;
    for (const Adapter& row : adapter_table())
        if (row.open_copy_endpoint)
            rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](const Adapter* a, const Adapter* b) { return a->listed < b->listed; });
    std::string text = "known endpoints:";
    for (const Adapter* row : rows)
        text += (row == rows.front() ? " " : ", ") + row->name;
    return text;
}

}  // namespace adapters
