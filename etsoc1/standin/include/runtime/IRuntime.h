// STAND-IN, not the vendor's header (see Types.h here): the methods of rt::IRuntime that the
// binding calls, with the signatures and default arguments of et-platform f5e790405
// (esperanto-tools-libs v0.19.0, include/runtime/IRuntime.h). Upstream the public methods are
// non-virtual and wrap private do* virtuals; callers see the same calls. Like upstream, this
// header only forward-declares dev::IDeviceLayer.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/Types.h"

namespace dev {
class IDeviceLayer;
}

namespace rt {

class IRuntime {
public:
    std::vector<DeviceId> getDevices();
    DeviceProperties getDeviceProperties(DeviceId device) const;

    std::byte* mallocDevice(DeviceId device, size_t size, uint32_t alignment = kCacheLineSize);
    void freeDevice(DeviceId device, std::byte* buffer);

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

    EventId abortCommand(EventId commandId, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
    EventId abortStream(StreamId streamId);

    DmaInfo getDmaInfo(DeviceId deviceId) const;

    virtual ~IRuntime();
    IRuntime();

    static RuntimePtr create(std::shared_ptr<dev::IDeviceLayer> const& deviceLayer,
                             Options options = getDefaultOptions());
    static RuntimePtr create(const std::string& socketPath);
};

}  // namespace rt
