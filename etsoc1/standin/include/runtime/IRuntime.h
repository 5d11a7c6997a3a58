// STAND-IN, not the vendor's header (see Types.h here): rt::IRuntime's methods that the binding
// calls, with the signatures of shared/reference/et_soc1.md section 4 (runtime v0.19.0). The real
// class wraps private do* virtuals in public non-virtual methods; callers see the same calls.
#pragma once

#include <memory>

#include "device-layer/IDeviceLayer.h"
#include "runtime/Types.h"

namespace rt {

class IRuntime;
using RuntimePtr = std::unique_ptr<IRuntime>;

class IRuntime {
public:
    virtual ~IRuntime();

    static RuntimePtr create(std::shared_ptr<dev::IDeviceLayer> const& deviceLayer, Options options = getDefaultOptions());
    static RuntimePtr create(const std::string& socketPath);

    std::vector<DeviceId> getDevices();
    DeviceProperties getDeviceProperties(DeviceId device) const;
    DmaInfo getDmaInfo(DeviceId device) const;

    std::byte* mallocDevice(DeviceId device, size_t size, uint32_t alignment = 64);
    void freeDevice(DeviceId device, std::byte* d_ptr);

    StreamId createStream(DeviceId device);
    void destroyStream(StreamId stream);

    EventId memcpyHostToDevice(StreamId stream, const std::byte* h_src, std::byte* d_dst, size_t size,
                               bool barrier = false, const CmaCopyFunction& cmaCopyFunction = defaultCmaCopyFunction);
    EventId memcpyDeviceToHost(StreamId stream, const std::byte* d_src, std::byte* h_dst, size_t size,
                               bool barrier = true, const CmaCopyFunction& cmaCopyFunction = defaultCmaCopyFunction);
    EventId memcpyHostToDevice(StreamId stream, MemcpyList memcpyList, bool barrier = false,
                               const CmaCopyFunction& cmaCopyFunction = defaultCmaCopyFunction);
    EventId memcpyDeviceToHost(StreamId stream, MemcpyList memcpyList, bool barrier = true,
                               const CmaCopyFunction& cmaCopyFunction = defaultCmaCopyFunction);

    bool waitForEvent(EventId event, std::chrono::seconds timeout = std::chrono::hours(24));
    bool waitForStream(StreamId stream, std::chrono::seconds timeout = std::chrono::hours(24));
    std::vector<StreamError> retrieveStreamErrors(StreamId stream);
    EventId abortStream(StreamId stream);
};

}  // namespace rt
