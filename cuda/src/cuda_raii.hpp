// RAII owners of CUDA objects and the error conversion (private to cuda_stream).
#pragma once

#include <cuda_runtime_api.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "cuda_stream/cuda_stream.hpp"
#include "vfio_access/result.hpp"

namespace cuda_stream::detail {

// "<operation>: <object>: <CUDA error name>: <text>" as a vfio::Error (code EIO).
inline vfio::Error cuda_error(std::string operation, std::string object, cudaError_t error) {
    return vfio::make_error(std::move(operation), std::move(object), EIO,
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
    static vfio::Result<HostBuffer> allocate(uint64_t size, HostMemory memory, const std::string& object) {
        HostBuffer buffer;
        if (memory == HostMemory::Pinned) {
            void* p = nullptr;
            PDT_CUDA(cudaHostAlloc(&p, size, cudaHostAllocPortable), "cudaHostAlloc", object);
            buffer.m_data = Owner(static_cast<uint8_t*>(p), [](uint8_t* q) { cudaFreeHost(q); });
        } else {
            void* p = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
            if (p == nullptr)
                return vfio::make_error("allocate pageable host buffer", object, ENOMEM);
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
    static vfio::Result<DeviceBuffer> allocate(uint64_t size, const std::string& object) {
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

class Stream {
public:
    static vfio::Result<Stream> create(const std::string& object) {
        cudaStream_t s = nullptr;
        PDT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate", object);
        Stream stream;
        stream.m_stream.reset(s);
        return stream;
    }
    cudaStream_t get() const { return m_stream.get(); }

private:
    struct Destroy {
        void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
    };
    std::unique_ptr<CUstream_st, Destroy> m_stream;
};

class Event {
public:
    static vfio::Result<Event> create(const std::string& object) {
        cudaEvent_t e = nullptr;
        PDT_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate", object);
        Event event;
        event.m_event.reset(e);
        return event;
    }
    cudaEvent_t get() const { return m_event.get(); }

private:
    struct Destroy {
        void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
    };
    std::unique_ptr<CUevent_st, Destroy> m_event;
};

}  // namespace cuda_stream::detail
