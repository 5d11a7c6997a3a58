// STAND-IN, not the vendor's header: the declarations of Esperanto's runtime API (libetrt,
// include/runtime/Types.h) that etsoc1/runtime/runtime_card.cpp uses, declared as et-platform
// commit f5e790405 (2025-10-31, esperanto-tools-libs v0.19.0) declares them: same names, same
// types, same signatures, same constants (read from that commit's header; no vendor code or
// comment is reproduced). Only for compiling the binding in CI (PDT_ETSOC1_STANDIN); nothing
// links it. etsoc1/standin/tracked_declarations.cpp checks each declaration the binding uses
// against the values of that commit, and scripts/check_etsoc1_standin.py checks that every
// vendor name the binding uses is among them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hostUtils/debug/StackException.h"

namespace rt {

enum class EventId : uint16_t {};  // also the device's tag: it wraps
enum class StreamId : int {};
enum class DeviceId : int {};
enum class KernelId : int {};

// No member initializers upstream: a default-initialized Options holds indeterminate flags.
struct Options {
    bool checkMemcpyDeviceOperations_;
    bool checkDeviceApiVersion_;
};
constexpr auto getDefaultOptions() { return Options{true, true}; }

using RuntimePtr = std::unique_ptr<class IRuntime>;

class Exception : public dbg::StackException {
    using dbg::StackException::StackException;
};

// Both ends non-const upstream, the source too (F30: the stand-in once declared it const).
struct MemcpyList {
    void addOp(std::byte* src, std::byte* dst, size_t size) { operations_.push_back(Op{src, dst, size}); }
    struct Op {
        std::byte* src_;
        std::byte* dst_;
        size_t size_;
    };
    std::vector<Op> operations_;
};

// The error codes in their upstream order (the values are positions).
enum class DeviceErrorCode {
    KernelLaunchUnexpectedError, KernelLaunchException, KernelLaunchShiresNotReady, KernelLaunchHostAborted,
    KernelLaunchInvalidAddress, KernelLaunchTimeoutHang, KernelLaunchInvalidArgsPayloadSize,
    KernelLaunchCmIfaceMulticastFailed, KernelLaunchCmIfaceUnicastFailed, KernelLaunchSpIfaceResetFailed,
    KernelLaunchCwMinionsBootFailed, KernelLaunchInvalidArgsInvalidShireMask, KernelLaunchResponseUserError,
    KernelAbortError, KernelAbortInvalidTagId, KernelAbortTimeoutHang, KernelAbortHostAborted,
    AbortUnexpectedError, AbortInvalidTagId,
    DmaUnexpectedError, DmaHostAborted, DmaErrorAborted, DmaInvalidAddress, DmaInvalidSize,
    DmaCmIfaceMulticastFailed, DmaDriverDataConfigFailed, DmaDriverLinkConfigFailed, DmaDriverChanStartFailed,
    DmaDriverAbortFailed,
    TraceConfigUnexpectedError, TraceConfigBadShireMask, TraceConfigBadThreadMask, TraceConfigBadEventMask,
    TraceConfigBadFilterMask, TraceConfigHostAborted, TraceConfigCmFailed, TraceConfigMmFailed,
    TraceConfigInvalidConfig,
    TraceControlUnexpectedError, TraceControlBadRtType, TraceControlBadControlMask,
    TraceControlComputeMinionRtCtrlError, TraceControlMasterMinionRtCtrlError, TraceControlHostAborted,
    TraceControlCmIfaceMulticastFailed,
    ApiCompatibilityUnexpectedError, ApiCompatibilityIncompatibleMajor, ApiCompatibilityIncompatibleMinor,
    ApiCompatibilityIncompatiblePatch, ApiCompatibilityBadFirmwareType, ApiCompatibilityHostAborted,
    FirmwareVersionUnexpectedError, FirmwareVersionBadFwType, FirmwareVersionNotAvailable,
    FirmwareVersionHostAborted,
    EchoHostAborted,
    CmResetUnexpectedError, CmResetInvalidShireMask, CmResetFailed,
    ErrorTypeUnsupportedCommand, ErrorTypeCmSmodeRtException, ErrorTypeCmSmodeRtHang,
    Unknown
};

struct StreamError {
    explicit StreamError(DeviceErrorCode errorCode, DeviceId device = DeviceId{-1});
    StreamError() = default;
    std::string getString() const;
    DeviceErrorCode errorCode_ = DeviceErrorCode::Unknown;
    DeviceId device_;
    std::optional<StreamId> stream_;
    std::optional<uint64_t> cmShireMask_;
    // (upstream also holds optional per-hart error contexts; the binding reads none)
};

constexpr auto kCacheLineSize = 64U;

// The fields the binding reads, with their upstream types (upstream has many more, and two
// enums, declared between and after them).
struct DeviceProperties {
    uint32_t frequency_;  // MHz
    uint32_t availableShires_;
    uint32_t memoryBandwidth_;  // MB/s
    uint64_t memorySize_;
};

struct DmaInfo {
    uint64_t maxElementSize_;
    uint64_t maxElementCount_;
};

enum class CmaCopyType { TO_CMA, FROM_CMA };
using CmaCopyFunction = std::function<void(const std::byte* src, std::byte* dst, size_t size, CmaCopyType type)>;
// Upstream a constexpr lambda (a plain copy), converted to CmaCopyFunction where it is a default.
static constexpr auto defaultCmaCopyFunction = [](const std::byte* src, std::byte* dst, size_t size, CmaCopyType) {
    for (size_t i = 0; i < size; ++i)
        dst[i] = src[i];
};

}  // namespace rt

namespace std {
string to_string(rt::DeviceErrorCode);  // the code's name, "DmaInvalidAddress"
}
