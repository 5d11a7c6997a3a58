// STAND-IN, not the vendor's header: the declarations of Esperanto's runtime API (libetrt,
// include/runtime/Types.h) that etsoc1/runtime/runtime_card.cpp uses, written from the API facts
// in shared/reference/et_soc1.md, which track et-platform commit f5e790405 (2025-10-31),
// runtime v0.19.0. Only for compiling the binding in CI (PDT_ETSOC1_STANDIN); nothing links it.
// Where the facts do not fix a type (field widths, MemcpyList::addOp), the nearest plain type is
// declared and the binding converts explicitly, so it compiles against either.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rt {

enum class DeviceId : int {};
enum class StreamId : int {};
enum class EventId : uint16_t {};  // also the device tag: it wraps
enum class KernelId : int {};

struct DeviceProperties {
    uint32_t frequency_ = 0;  // MHz
    uint32_t availableShires_ = 0;
    uint32_t memoryBandwidth_ = 0;  // MB/s
    uint64_t memorySize_ = 0;
    uint32_t cacheLineSize_ = 64;
    uint64_t computeMinionShireMask_ = 0;
};

struct DmaInfo {
    uint64_t maxElementSize_ = 0;
    uint64_t maxElementCount_ = 0;
};

struct Options {
    bool checkMemcpyDeviceOperations_ = true;
    bool checkDeviceApiVersion_ = true;
};
Options getDefaultOptions();

enum class DeviceErrorCode { DmaInvalidAddress, DmaInvalidSize, DmaErrorAborted, KernelLaunchError };

struct StreamError {
    DeviceErrorCode errorCode_ = DeviceErrorCode::DmaInvalidAddress;
    DeviceId device_{};
    std::optional<StreamId> stream_;
    std::optional<uint64_t> cmShireMask_;
    std::string getString() const;
};

enum class CmaCopyType { TO_CMA, FROM_CMA };
using CmaCopyFunction = std::function<void(const std::byte* src, std::byte* dst, size_t size, CmaCopyType type)>;
extern const CmaCopyFunction defaultCmaCopyFunction;

class MemcpyList {
public:
    void addOp(const std::byte* src, std::byte* dst, size_t size);
};

}  // namespace rt
