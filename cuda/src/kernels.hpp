// The adapter's GPU kernels (kernels.cu), launched on a CUDA stream (private to cuda_stream).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace cuda_stream::detail {

// What the check kernel found; in mapped pinned host memory, read once the copy's event fired.
struct CheckResult {
    unsigned long long bad_words;
    unsigned long long first_bad_word;  // stream word index; ~0 when none
    uint32_t expected;
    uint32_t actual;
};

// Checks words [first_word, first_word + words) of the keyed pattern (stream, pass) in data.
cudaError_t launch_check(const uint32_t* data, uint64_t words, uint64_t stream, uint64_t pass,
                         uint64_t first_word, CheckResult* result, cudaStream_t cuda_stream);
// Writes those words into data.
cudaError_t launch_generate(uint32_t* data, uint64_t words, uint64_t stream, uint64_t pass, uint64_t first_word,
                            cudaStream_t cuda_stream);
// Inverts the low bit of data[offset] (the test-only corruption).
cudaError_t launch_corrupt(uint8_t* data, uint64_t offset, cudaStream_t cuda_stream);
// Queues `count` launches of an empty kernel <<<1,1>>> (the launch-overhead probe of the link
// measurement suite).
cudaError_t launch_empty(unsigned count, cudaStream_t cuda_stream);

}  // namespace cuda_stream::detail
