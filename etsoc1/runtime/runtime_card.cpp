// etsoc1::Card on Esperanto's runtime, libetrt (rt::IRuntime), written from the API facts in
// shared/reference/et_soc1.md (et-platform f5e790405, runtime v0.19.0). The only file of the
// toolkit that includes a vendor header. Built when CMake finds the runtime under /opt/et, and,
// with PDT_ETSOC1_STANDIN, compiled (not linked) against etsoc1/standin/ so that it cannot rot.
//
// Every runtime call is wrapped: rt::Exception and dev::Exception (std::exception underneath,
// with a stack trace in what()) become vfio errors naming the call. Device-reported errors are
// not exceptions: the adapter drains them per stream after every wait.
#include <device-layer/IDeviceLayer.h>
#include <hostUtils/logging/Logger.h>
#include <runtime/IRuntime.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "etsoc1/runtime_card.hpp"

namespace etsoc1 {

namespace {

// The first line of an exception's text (the rest is the stack trace).
std::string first_line(const char* what) {
    const std::string text(what == nullptr ? "" : what);
    return text.substr(0, text.find('\n'));
}

template <typename F>
auto guarded(const char* call, const std::string& object, F&& f) -> pdt::Result<decltype(f())> {
    try {
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            return {};
        } else {
            return f();
        }
    } catch (const std::exception& e) {
        return pdt::make_error(call, object, EIO, first_line(e.what()));
    }
}

std::byte* card_pointer(CardAddress address) { return reinterpret_cast<std::byte*>(static_cast<uintptr_t>(address)); }
CardAddress card_address(const std::byte* pointer) { return reinterpret_cast<uintptr_t>(pointer); }
rt::StreamId stream_id(StreamId stream) { return static_cast<rt::StreamId>(stream); }
rt::EventId event_id(EventId event) { return static_cast<rt::EventId>(static_cast<uint16_t>(event)); }
EventId our_event(rt::EventId event) { return static_cast<uint16_t>(event); }

class RuntimeCard : public Card {
public:
    RuntimeCard(std::shared_ptr<dev::IDeviceLayer> layer, rt::RuntimePtr runtime, std::vector<rt::DeviceId> devices,
                std::vector<DeviceInfo> sysfs, std::string mode)
        : m_layer(std::move(layer)), m_runtime(std::move(runtime)), m_devices(std::move(devices)),
          m_sysfs(std::move(sysfs)), m_mode(std::move(mode)) {}

    int device_count() const override { return static_cast<int>(m_devices.size()); }

    pdt::Result<DeviceInfo> info(int device) const override {
        const rt::DeviceId id = PDT_TRY(device_id(device));
        DeviceInfo info = device < static_cast<int>(m_sysfs.size()) ? m_sysfs[device] : DeviceInfo{};
        if (info.name.empty())
            info.name = "ET-SoC-1 " + std::to_string(device);
        info.name += " (" + m_mode + ")";
        const auto properties = PDT_TRY(guarded("rt::IRuntime::getDeviceProperties", info.name,
                                                [&] { return m_runtime->getDeviceProperties(id); }));
        info.frequency_mhz = static_cast<unsigned>(properties.frequency_);
        info.memory_bytes = static_cast<uint64_t>(properties.memorySize_);
        return info;
    }

    pdt::Result<DmaLimits> limits(int device) const override {
        const rt::DeviceId id = PDT_TRY(device_id(device));
        const auto dma = PDT_TRY(guarded("rt::IRuntime::getDmaInfo", name(device), [&] { return m_runtime->getDmaInfo(id); }));
        DmaLimits limits;  // channels: pcie_dma.h's 4 + 4; the runtime does not report them
        limits.max_node_bytes = static_cast<uint64_t>(dma.maxElementSize_);
        limits.max_nodes = static_cast<unsigned>(dma.maxElementCount_);
        return limits;
    }

    pdt::Result<CardAddress> allocate(int device, uint64_t bytes, uint32_t alignment) override {
        const rt::DeviceId id = PDT_TRY(device_id(device));
        return guarded("rt::IRuntime::mallocDevice", name(device), [&] {
            return card_address(m_runtime->mallocDevice(id, static_cast<size_t>(bytes), alignment));
        });
    }

    pdt::Result<void> free(int device, CardAddress address) override {
        const rt::DeviceId id = PDT_TRY(device_id(device));
        return guarded("rt::IRuntime::freeDevice", name(device), [&] { m_runtime->freeDevice(id, card_pointer(address)); });
    }

    pdt::Result<StreamId> create_stream(int device) override {
        const rt::DeviceId id = PDT_TRY(device_id(device));
        return guarded("rt::IRuntime::createStream", name(device),
                       [&] { return static_cast<StreamId>(m_runtime->createStream(id)); });
    }

    pdt::Result<void> destroy_stream(StreamId stream) override {
        return guarded("rt::IRuntime::destroyStream", stream_name(stream),
                       [&] { m_runtime->destroyStream(stream_id(stream)); });
    }

    pdt::Result<EventId> copy_to_card(StreamId stream, std::span<const Node> nodes, bool barrier) override {
        return copy("rt::IRuntime::memcpyHostToDevice", stream, nodes, barrier,
                    [](const Node& n) { return Ends{as_bytes(n.host), card_pointer(n.card)}; },
                    [&](auto&&... args) { return m_runtime->memcpyHostToDevice(args...); });
    }

    pdt::Result<EventId> copy_from_card(StreamId stream, std::span<const Node> nodes, bool barrier) override {
        return copy("rt::IRuntime::memcpyDeviceToHost", stream, nodes, barrier,
                    [](const Node& n) { return Ends{card_pointer(n.card), as_bytes(n.host)}; },
                    [&](auto&&... args) { return m_runtime->memcpyDeviceToHost(args...); });
    }

    pdt::Result<bool> wait_event(EventId event, std::chrono::seconds timeout) override {
        return guarded("rt::IRuntime::waitForEvent", "event " + std::to_string(event),
                       [&] { return m_runtime->waitForEvent(event_id(event), timeout); });
    }

    pdt::Result<bool> wait_stream(StreamId stream, std::chrono::seconds timeout) override {
        return guarded("rt::IRuntime::waitForStream", stream_name(stream),
                       [&] { return m_runtime->waitForStream(stream_id(stream), timeout); });
    }

    pdt::Result<std::vector<CardError>> drain_errors(StreamId stream) override {
        return guarded("rt::IRuntime::retrieveStreamErrors", stream_name(stream), [&] {
            std::vector<CardError> errors;
            for (const auto& e : m_runtime->retrieveStreamErrors(stream_id(stream)))
                errors.push_back(CardError{std::to_string(e.errorCode_), e.getString()});
            return errors;
        });
    }

    pdt::Result<void> abort_stream(StreamId stream, std::chrono::seconds timeout) override {
        const rt::EventId abort = PDT_TRY(guarded("rt::IRuntime::abortStream", stream_name(stream),
                                                  [&] { return m_runtime->abortStream(stream_id(stream)); }));
        const bool done = PDT_TRY(wait_event(our_event(abort), timeout));
        if (!done)
            return pdt::make_error("abort", stream_name(stream), ETIMEDOUT,
                                   "the abort did not complete within " + std::to_string(timeout.count()) + " s");
        return {};
    }

private:
    // A copy's source and destination. Both non-const: rt::MemcpyList::addOp takes a
    // non-const source too (the single-node calls take a const one).
    using Ends = std::pair<std::byte*, std::byte*>;

    // One node: the plain call; more: a MemcpyList, one DMA-list command either way. The
    // barrier is passed every time (the runtime's defaults: H2D false, D2H true). ends(node):
    // the node's source and destination; memcpy: the runtime's call for the direction.
    template <typename EndsOf, typename Memcpy>
    pdt::Result<EventId> copy(const char* call, StreamId stream, std::span<const Node> nodes, bool barrier,
                              const EndsOf& ends, const Memcpy& memcpy) {
        return guarded(call, stream_name(stream), [&] {
            if (nodes.size() == 1) {
                const Ends one = ends(nodes[0]);
                return our_event(memcpy(stream_id(stream), one.first, one.second, nodes[0].bytes, barrier));
            }
            rt::MemcpyList list;
            for (const Node& n : nodes) {
                const Ends node = ends(n);
                list.addOp(node.first, node.second, n.bytes);
            }
            return our_event(memcpy(stream_id(stream), list, barrier));
        });
    }

    static std::byte* as_bytes(uint8_t* p) { return reinterpret_cast<std::byte*>(p); }
    std::string name(int device) const { return "ET-SoC-1 " + std::to_string(device); }
    std::string stream_name(StreamId stream) const { return "ET-SoC-1 stream " + std::to_string(stream); }
    pdt::Result<rt::DeviceId> device_id(int device) const {
        if (device < 0 || device >= device_count())
            return pdt::make_error("open", name(device), ENODEV,
                                   "the runtime sees " + std::to_string(device_count()) + " card(s)");
        return m_devices[static_cast<size_t>(device)];
    }

    std::shared_ptr<dev::IDeviceLayer> m_layer;  // in-process mode: outlives the runtime
    rt::RuntimePtr m_runtime;
    std::vector<rt::DeviceId> m_devices;
    std::vector<DeviceInfo> m_sysfs;
    std::string m_mode;
};

// The runtime's log, one file for the process: each message g3log hands the sink (its text, as
// LogMessage::toString() gives it) is appended and flushed at once, so that a crash loses none.
class RuntimeLogFile {
public:
    explicit RuntimeLogFile(std::FILE* file) : m_file(file) {}
    RuntimeLogFile(const RuntimeLogFile&) = delete;
    RuntimeLogFile& operator=(const RuntimeLogFile&) = delete;
    ~RuntimeLogFile() { std::fclose(m_file); }
    void append(std::string message) {
        std::fputs(message.c_str(), m_file);
        std::fflush(m_file);
    }

private:
    std::FILE* m_file;
};

// hostUtils' LoggerDefault (its ET_VLOG levels) with its stderr sink replaced by the file.
class LoggerToFile : public logging::LoggerDefault {
public:
    explicit LoggerToFile(std::FILE* file) : logging::LoggerDefault(false) {
        logWorker_->removeAllSinks();
        logWorker_->addSink(std::make_unique<RuntimeLogFile>(file), &RuntimeLogFile::append);
        init();
    }
};

// One logger for the process, created before the runtime, as the runtime's own mains do.
pdt::Result<void> start_logging(const std::string& path) {
    static std::unique_ptr<logging::Logger> logger;
    if (logger)
        return {};
    if (path == "-") {
        logger = std::make_unique<logging::LoggerDefault>();
        return {};
    }
    std::FILE* file = std::fopen(path.c_str(), "ae");
    if (file == nullptr)
        return pdt::make_error("open the ET-SoC-1 runtime's log", path, errno,
                               "the runtime's log needs a file this user can write (or - for stderr)");
    logger = std::make_unique<LoggerToFile>(file);
    return {};
}

}  // namespace

bool runtime_built() { return true; }

pdt::Result<std::unique_ptr<Card>> open_runtime_card(const RuntimeOptions& options) {
    PDT_CHECK(start_logging(options.log_path));
    std::shared_ptr<dev::IDeviceLayer> layer;
    rt::RuntimePtr runtime;
    std::vector<DeviceInfo> sysfs;
    std::string mode;
    if (options.socket.empty()) {
        const DeviceNodes nodes = PDT_TRY(preflight(options.dev_dir));
        for (int n : nodes.ops)
            sysfs.push_back(sysfs_info(n, options.sys_dir));
        mode = "in-process, PCIe device layer";
        layer = PDT_TRY(guarded("dev::IDeviceLayer::createPcieDeviceLayer", "/dev/et*_ops",
                                [] { return std::shared_ptr<dev::IDeviceLayer>(dev::IDeviceLayer::createPcieDeviceLayer(true, false)); }));
        // With no device the runtime stops on a fatal check, not an exception: count first.
        const int count = PDT_TRY(guarded("dev::IDeviceLayer::getDevicesCount", "/dev/et*_ops",
                                          [&] { return static_cast<int>(layer->getDevicesCount()); }));
        if (count <= 0)
            return pdt::make_error("open ET-SoC-1 cards", "/dev/et*_ops", ENODEV, "the device layer found no card");
        rt::Options runtime_options;
        runtime_options.checkMemcpyDeviceOperations_ = true;
        runtime_options.checkDeviceApiVersion_ = true;
        runtime = PDT_TRY(guarded("rt::IRuntime::create", "PCIe device layer",
                                  [&] { return rt::IRuntime::create(layer, runtime_options); }));
    } else {
        mode = "daemon " + options.socket;
        runtime = PDT_TRY(guarded("rt::IRuntime::create", options.socket, [&] { return rt::IRuntime::create(options.socket); }));
    }
    auto devices = PDT_TRY(guarded("rt::IRuntime::getDevices", mode, [&] { return runtime->getDevices(); }));
    if (devices.empty())
        return pdt::make_error("open ET-SoC-1 cards", mode, ENODEV, "the runtime sees no card");
    return std::unique_ptr<Card>(
        std::make_unique<RuntimeCard>(std::move(layer), std::move(runtime), std::move(devices), std::move(sysfs), mode));
}

}  // namespace etsoc1
