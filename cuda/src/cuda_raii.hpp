// RAII owners of CUDA objects and the error conversion (private to cuda_stream).
#pragma once

#include <cuda_runtime_api.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>

#include "base/result.hpp"
#include "cuda_stream/cuda_stream.hpp"

namespace cuda_stream::detail {

// "<operation>: <object>: <CUDA error name>: <text>" as a pdt::Error (code EIO).
inline pdt::Error cuda_error(std::string operation, std::string object, cudaError_t error) {
    return pdt::make_error(std::move(operation), std::move(object), EIO,
                           std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error));
}

#define PDT_CUDA(call, operation, object)                                   \
    do {                                                                    \
        const cudaError_t pdt_cuda_error_ = (call);                         \
        if (pdt_cuda_error_ != cudaSuccess)                                 \
            return ::cuda_stream::detail::cuda_error(operation, object, pdt_cuda_error_); \
    } while (0)

// Host memory the copy engines read or write: pinned (cudaHostAlloc) or pageable (aligned_alloc).
class HostBuffer {
public:
    static pdt::Result<HostBuffer> allocate(uint64_t size, HostMemory memory, const std::string& object) {
        HostBuffer buffer;
        if (memory == HostMemory::Pinned) {
            void* p = nullptr;
            PDT_CUDA(cudaHostAlloc(&p, size, cudaHostAllocPortable), "cudaHostAlloc", object);
            buffer.m_data = Owner(static_cast<uint8_t*>(p), [](uint8_t* q) { cudaFreeHost(q); });
        } else {
            void* p = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
            if (p == nullptr)
                return pdt::make_error("allocate pageable host buffer", object, ENOMEM);
            buffer.m_data = Owner(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
        }
        return buffer;
    }
    uint8_t* data() const { return m_data.get(); }

private:
    using Owner = std::unique_ptr<uint8_t, void (*)(uint8_t*)>;
    Owner m_data{nullptr, [](uint8_t*) {}};
};

class DeviceBuffer {
public:
    static pdt::Result<DeviceBuffer> allocate(uint64_t size, const std::string& object) {
        void* p = nullptr;
        PDT_CUDA(cudaMalloc(&p, size), "cudaMalloc", object);
        DeviceBuffer buffer;
        buffer.m_data.reset(static_cast<uint8_t*>(p));
        return buffer;
    }
    uint8_t* data() const { return m_data.get(); }

private:
    struct Free {
        void operator()(uint8_t* p) const { cudaFree(p); }
    };
    std::unique_ptr<uint8_t, Free> m_data;
};

// A CUDA stream or event: created with its flags, destroyed with its owner.
template <typename Raw, cudaError_t (*kCreate)(Raw*, unsigned), unsigned kFlags, cudaError_t (*kDestroy)(Raw),
          const char* kOperation>
class Handle {
public:
    static pdt::Result<Handle> create(const std::string& object) {
        Raw raw = nullptr;
        PDT_CUDA(kCreate(&raw, kFlags), kOperation, object);
        Handle handle;
        handle.m_raw.reset(raw);
        return handle;
    }
    Raw get() const { return m_raw.get(); }

private:
    struct Destroy {
        void operator()(Raw raw) const { kDestroy(raw); }
    };
    std::unique_ptr<std::remove_pointer_t<Raw>, Destroy> m_raw;
};

inline constexpr char kStreamCreate[] = "cudaStreamCreate";
inline constexpr char kEventCreate[] = "cudaEventCreate";
using Stream = Handle<cudaStream_t, cudaStreamCreateWithFlags, cudaStreamNonBlocking, cudaStreamDestroy, kStreamCreate>;
using Event = Handle<cudaEvent_t, cudaEventCreateWithFlags, cudaEventDisableTiming, cudaEventDestroy, kEventCreate>;

}  // namespace cuda_stream::detail
