#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>
#include <cstdio>
#include <vector>

#include "cuda_raii.hpp"
#include "cuda_stream/cuda_stream.hpp"

namespace cuda_stream {

using detail::cuda_error;

const char* to_string(HostMemory memory) { return memory == HostMemory::Pinned ? "pinned" : "pageable"; }

pdt::Result<int> gpu_count() {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess)
        return pdt::make_error("cudaGetDeviceCount", "CUDA runtime", ENODEV,
                               std::string("no usable NVIDIA GPU: ") + cudaGetErrorName(error) + ": " +
                                   cudaGetErrorString(error));
    if (count == 0)
        return pdt::make_error("cudaGetDeviceCount", "CUDA runtime", ENODEV, "no NVIDIA GPU found");
    return count;
}

pdt::Result<GpuInfo> gpu_info(int ordinal) {
    const int count = PDT_TRY(gpu_count());
    const std::string object = "GPU " + std::to_string(ordinal);
    if (ordinal < 0 || ordinal >= count)
        return pdt::make_error("select CUDA device", object, ENODEV,
                               "this machine has " + std::to_string(count) + " GPU(s), numbered from 0");
    cudaDeviceProp prop{};
    PDT_CUDA(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties", object);
    char bus_id[32] = {};
    PDT_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal), "cudaDeviceGetPCIBusId", object);
    GpuInfo info;
    info.ordinal = ordinal;
    info.name = prop.name;
    info.pci_bus_id = bus_id;
    for (char& c : info.pci_bus_id)  // the driver prints "00000000:19:00.0" in capitals
        c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    if (info.pci_bus_id.size() > 12)
        info.pci_bus_id = info.pci_bus_id.substr(info.pci_bus_id.size() - 12);
    info.memory_bytes = prop.totalGlobalMem;
    return info;
}

namespace {

// One direction of the bare loop: `streams` CUDA streams, each cycling its copies in flight.
struct BareDirection {
    cudaMemcpyKind kind;
    std::vector<detail::HostBuffer> host;
    std::vector<detail::DeviceBuffer> device;
    std::vector<detail::Stream> streams;
    std::vector<detail::Event> events;
    uint64_t issued = 0;
    uint64_t bytes = 0;
};

pdt::Result<BareDirection> make_direction(const BareConfig& c, cudaMemcpyKind kind) {
    BareDirection d{kind, {}, {}, {}, {}, 0, 0};
    const std::string object = "bare copy reference";
    for (unsigned s = 0; s < c.streams; ++s)
        d.streams.push_back(PDT_TRY(detail::Stream::create(object)));
    for (size_t i = 0; i < c.buffer_count * c.streams; ++i) {
        d.host.push_back(PDT_TRY(detail::HostBuffer::allocate(c.buffer_size, c.memory, object)));
        d.device.push_back(PDT_TRY(detail::DeviceBuffer::allocate(c.buffer_size, object)));
        d.events.push_back(PDT_TRY(detail::Event::create(object)));
    }
    return d;
}

pdt::Result<void> step(BareDirection& d, const BareConfig& c, bool count);

// One direction for the configured time after a warm-up ring: the bytes of every copy that
// completes in that time, over the time.
pdt::Result<double> measure_one(BareDirection& d, const BareConfig& c) {
    using Clock = std::chrono::steady_clock;
    PDT_CUDA(cudaSetDevice(c.gpu), "cudaSetDevice", "bare copy reference");
    d.issued = d.bytes = 0;
    for (size_t i = 0; i < d.events.size(); ++i)
        PDT_CHECK(step(d, c, false));
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration<double>(c.seconds_per_mode);
    while (Clock::now() < end)
        PDT_CHECK(step(d, c, true));
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    for (auto& stream : d.streams)
        PDT_CUDA(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize", "bare copy reference");
    return static_cast<double>(d.bytes) / seconds / 1e9;
}

// Issues the next copy, first waiting for the copy that last used its buffer.
pdt::Result<void> step(BareDirection& d, const BareConfig& c, bool count) {
    const size_t slots = d.events.size();
    const size_t slot = d.issued % slots;
    if (d.issued >= slots) {
        PDT_CUDA(cudaEventSynchronize(d.events[slot].get()), "cudaEventSynchronize", "bare copy reference");
        if (count)
            d.bytes += c.buffer_size;
    }
    void* dst = d.kind == cudaMemcpyHostToDevice ? static_cast<void*>(d.device[slot].data()) : d.host[slot].data();
    const void* src = d.kind == cudaMemcpyHostToDevice ? static_cast<void*>(d.host[slot].data()) : d.device[slot].data();
    cudaStream_t stream = d.streams[slot % d.streams.size()].get();
    PDT_CUDA(cudaMemcpyAsync(dst, src, c.buffer_size, d.kind, stream), "cudaMemcpyAsync", "bare copy reference");
    PDT_CUDA(cudaEventRecord(d.events[slot].get(), stream), "cudaEventRecord", "bare copy reference");
    ++d.issued;
    return {};
}

// Runs the directions together for the configured time (after one warm-up ring), in GB/s; each
// direction on a host thread of its own, so neither waits on the other's completions.
pdt::Result<std::vector<double>> measure(std::vector<BareDirection*> directions, const BareConfig& c) {
    std::vector<pdt::Result<double>> rates(directions.size(), pdt::Result<double>(0.0));
    std::vector<std::thread> threads;
    for (size_t i = 0; i < directions.size(); ++i)
        threads.emplace_back([&, i] { rates[i] = measure_one(*directions[i], c); });
    for (auto& thread : threads)
        thread.join();
    std::vector<double> values;
    for (auto& rate : rates)
        values.push_back(PDT_TRY(std::move(rate)));
    return values;
}

}  // namespace

pdt::Result<BareRates> bare_copy_rates(const BareConfig& config) {
    PDT_TRY(gpu_info(config.gpu));
    PDT_CUDA(cudaSetDevice(config.gpu), "cudaSetDevice", "GPU " + std::to_string(config.gpu));
    BareDirection h2d = PDT_TRY(make_direction(config, cudaMemcpyHostToDevice));
    BareDirection d2h = PDT_TRY(make_direction(config, cudaMemcpyDeviceToHost));
    BareRates rates;
    rates.h2d_gbps = PDT_TRY(measure({&h2d}, config))[0];
    rates.d2h_gbps = PDT_TRY(measure({&d2h}, config))[0];
    const std::vector<double> both = PDT_TRY(measure({&h2d, &d2h}, config));
    rates.both_h2d_gbps = both[0];
    rates.both_d2h_gbps = both[1];
    return rates;
}

}  // namespace cuda_stream
