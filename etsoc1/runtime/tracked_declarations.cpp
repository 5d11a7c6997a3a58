// The declarations of Esperanto's runtime that runtime_card.cpp uses, each checked at compile
// time against what et-platform commit f5e790405 declares (esperanto-tools-libs v0.19.0,
// devicelayer v4.1.0, common-sw's hostUtils): the exact type of every function (its parameters,
// its const, its class), of every field and handle, and the value of every constant. Compiled
// wherever the binding is: against etsoc1/standin/ in CI (target etsoc1_runtime_standin, and the
// unit test etsoc1_standin_declarations), and against the real headers when /opt/et has them. So
// a stand-in that declares one of these differently fails to compile here, naming it, and so
// does a runtime that moved away from the tracked version. scripts/check_etsoc1_standin.py checks
// that every vendor name the binding uses is checked here.
//
// What this cannot check: the values of default arguments (only that the binding passes every
// one it relies on: barrier, alignment, timeouts) and declarations the binding does not use.
#include <device-layer/IDeviceLayer.h>
#include <g3log/logworker.hpp>
#include <hostUtils/logging/Logger.h>
#include <runtime/IRuntime.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace etsoc1_tracked {

template <typename A, typename B>
inline constexpr bool same = std::is_same_v<A, B>;

// Handles: strong enums over these integers (rt::EventId is the device's 16-bit tag).
static_assert(std::is_enum_v<rt::EventId> && same<std::underlying_type_t<rt::EventId>, uint16_t>, "rt::EventId");
static_assert(std::is_enum_v<rt::StreamId> && same<std::underlying_type_t<rt::StreamId>, int>, "rt::StreamId");
static_assert(std::is_enum_v<rt::DeviceId> && same<std::underlying_type_t<rt::DeviceId>, int>, "rt::DeviceId");
static_assert(same<rt::RuntimePtr, std::unique_ptr<rt::IRuntime>>, "rt::RuntimePtr");

// Options: two flags, no initializers; the defaults come from a constexpr function.
static_assert(same<decltype(rt::Options::checkMemcpyDeviceOperations_), bool>, "rt::Options::checkMemcpyDeviceOperations_");
static_assert(same<decltype(rt::Options::checkDeviceApiVersion_), bool>, "rt::Options::checkDeviceApiVersion_");
static_assert(rt::getDefaultOptions().checkMemcpyDeviceOperations_ && rt::getDefaultOptions().checkDeviceApiVersion_,
              "rt::getDefaultOptions");
static_assert(same<decltype(rt::kCacheLineSize), const unsigned>, "rt::kCacheLineSize");
static_assert(rt::kCacheLineSize == 64U, "rt::kCacheLineSize");

// Fields the binding reads.
static_assert(same<decltype(rt::DeviceProperties::frequency_), uint32_t>, "rt::DeviceProperties::frequency_");
static_assert(same<decltype(rt::DeviceProperties::memorySize_), uint64_t>, "rt::DeviceProperties::memorySize_");
static_assert(same<decltype(rt::DmaInfo::maxElementSize_), uint64_t>, "rt::DmaInfo::maxElementSize_");
static_assert(same<decltype(rt::DmaInfo::maxElementCount_), uint64_t>, "rt::DmaInfo::maxElementCount_");
static_assert(same<decltype(rt::StreamError::errorCode_), rt::DeviceErrorCode>, "rt::StreamError::errorCode_");
static_assert(same<decltype(&rt::StreamError::getString), std::string (rt::StreamError::*)() const>,
              "rt::StreamError::getString");
static_assert(same<decltype(std::to_string(rt::DeviceErrorCode{})), std::string>, "std::to_string(rt::DeviceErrorCode)");
static_assert(static_cast<int>(rt::DeviceErrorCode::DmaErrorAborted) == 21 &&
                  static_cast<int>(rt::DeviceErrorCode::DmaInvalidAddress) == 22 &&
                  static_cast<int>(rt::DeviceErrorCode::DmaInvalidSize) == 23 &&
                  static_cast<int>(rt::DeviceErrorCode::Unknown) == 62,
              "rt::DeviceErrorCode");

// A DMA list: both ends of an operation non-const, the source too.
static_assert(same<decltype(&rt::MemcpyList::addOp), void (rt::MemcpyList::*)(std::byte*, std::byte*, size_t)>,
              "rt::MemcpyList::addOp");
static_assert(same<rt::CmaCopyFunction, std::function<void(const std::byte*, std::byte*, size_t, rt::CmaCopyType)>>,
              "rt::CmaCopyFunction");

// rt::IRuntime: the runtime's calls.
static_assert(same<decltype(&rt::IRuntime::getDevices), std::vector<rt::DeviceId> (rt::IRuntime::*)()>, "rt::IRuntime::getDevices");
static_assert(same<decltype(&rt::IRuntime::getDeviceProperties), rt::DeviceProperties (rt::IRuntime::*)(rt::DeviceId) const>,
              "rt::IRuntime::getDeviceProperties");
static_assert(same<decltype(&rt::IRuntime::getDmaInfo), rt::DmaInfo (rt::IRuntime::*)(rt::DeviceId) const>, "rt::IRuntime::getDmaInfo");
static_assert(same<decltype(&rt::IRuntime::mallocDevice), std::byte* (rt::IRuntime::*)(rt::DeviceId, size_t, uint32_t)>,
              "rt::IRuntime::mallocDevice");
static_assert(same<decltype(&rt::IRuntime::freeDevice), void (rt::IRuntime::*)(rt::DeviceId, std::byte*)>, "rt::IRuntime::freeDevice");
static_assert(same<decltype(&rt::IRuntime::createStream), rt::StreamId (rt::IRuntime::*)(rt::DeviceId)>, "rt::IRuntime::createStream");
static_assert(same<decltype(&rt::IRuntime::destroyStream), void (rt::IRuntime::*)(rt::StreamId)>, "rt::IRuntime::destroyStream");
static_assert(same<decltype(&rt::IRuntime::waitForEvent), bool (rt::IRuntime::*)(rt::EventId, std::chrono::seconds)>,
              "rt::IRuntime::waitForEvent");
static_assert(same<decltype(&rt::IRuntime::waitForStream), bool (rt::IRuntime::*)(rt::StreamId, std::chrono::seconds)>,
              "rt::IRuntime::waitForStream");
static_assert(same<decltype(&rt::IRuntime::retrieveStreamErrors), std::vector<rt::StreamError> (rt::IRuntime::*)(rt::StreamId)>,
              "rt::IRuntime::retrieveStreamErrors");
static_assert(same<decltype(&rt::IRuntime::abortStream), rt::EventId (rt::IRuntime::*)(rt::StreamId)>, "rt::IRuntime::abortStream");

// Overloaded calls: each overload named by its exact type (a cast that no overload matches does
// not compile). The copies: one range each way, and a list each way.
using HostToCard = rt::EventId (rt::IRuntime::*)(rt::StreamId, const std::byte*, std::byte*, size_t, bool, const rt::CmaCopyFunction&);
using ListCopy = rt::EventId (rt::IRuntime::*)(rt::StreamId, rt::MemcpyList, bool, const rt::CmaCopyFunction&);
[[maybe_unused]] constexpr auto memcpyHostToDevice_range = static_cast<HostToCard>(&rt::IRuntime::memcpyHostToDevice);
[[maybe_unused]] constexpr auto memcpyDeviceToHost_range = static_cast<HostToCard>(&rt::IRuntime::memcpyDeviceToHost);
[[maybe_unused]] constexpr auto memcpyHostToDevice_list = static_cast<ListCopy>(&rt::IRuntime::memcpyHostToDevice);
[[maybe_unused]] constexpr auto memcpyDeviceToHost_list = static_cast<ListCopy>(&rt::IRuntime::memcpyDeviceToHost);
// Creation: in-process on a device layer, or a client of the daemon's socket.
[[maybe_unused]] constexpr auto create_in_process =
    static_cast<rt::RuntimePtr (*)(std::shared_ptr<dev::IDeviceLayer> const&, rt::Options)>(&rt::IRuntime::create);
[[maybe_unused]] constexpr auto create_daemon_client =
    static_cast<rt::RuntimePtr (*)(const std::string&)>(&rt::IRuntime::create);

// dev::IDeviceLayer: the PCIe factory, and the device count of its synchronous half.
static_assert(same<decltype(&dev::IDeviceLayer::createPcieDeviceLayer), std::unique_ptr<dev::IDeviceLayer> (*)(bool, bool)>,
              "dev::IDeviceLayer::createPcieDeviceLayer");
static_assert(same<decltype(&dev::IDeviceLayer::getDevicesCount), int (dev::IDeviceSync::*)() const>,
              "dev::IDeviceLayer::getDevicesCount");
static_assert(std::is_base_of_v<dev::IDeviceSync, dev::IDeviceLayer> && std::has_virtual_destructor_v<dev::IDeviceLayer>,
              "dev::IDeviceLayer");

// logging::LoggerDefault: constructed with no argument (it then initializes g3log), explicit.
static_assert(std::is_constructible_v<logging::LoggerDefault, bool> && !std::is_convertible_v<bool, logging::LoggerDefault>,
              "logging::LoggerDefault");
static_assert(std::is_base_of_v<logging::Logger, logging::LoggerDefault>, "logging::LoggerDefault");
// logging::Logger: its g3log worker is the protected logWorker_, which init() makes g3log's.
struct LoggerSeen : logging::LoggerDefault {
    static_assert(same<decltype(logWorker_), std::unique_ptr<g3::LogWorker>>, "logging::Logger::logWorker_");
};
static_assert(same<decltype(&logging::Logger::init), void (logging::Logger::*)()>, "logging::Logger::init");

// g3log (v1.1-408-g38dbddc): a sink is an object and its member taking each message as text.
struct TextSink {
    void append(std::string);
};
static_assert(same<decltype(&g3::LogWorker::removeAllSinks), void (g3::LogWorker::*)()>, "g3::LogWorker::removeAllSinks");
using AppendText = void (TextSink::*)(std::string);
static_assert(same<decltype(&g3::LogWorker::addSink<TextSink, AppendText>),
                   std::unique_ptr<g3::SinkHandle<TextSink>> (g3::LogWorker::*)(std::unique_ptr<TextSink>, AppendText)>,
              "g3::LogWorker::addSink");

}  // namespace etsoc1_tracked
