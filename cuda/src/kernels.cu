#include "kernels.hpp"

#include "pattern/keyed_word.hpp"

namespace cuda_stream::detail {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;  // grid-stride: enough to fill an H100/H200, bounded launch cost

unsigned blocks_for(uint64_t words) {
    const uint64_t blocks = (words + kThreads - 1) / kThreads;
    return static_cast<unsigned>(blocks < kMaxBlocks ? (blocks == 0 ? 1 : blocks) : kMaxBlocks);
}

// Words of one keyed pattern by stream index, the segment's keys computed once per segment.
class KeyedWords {
public:
    __device__ KeyedWords(uint64_t seed, uint64_t first_word)
        : m_seed(seed), m_segment(static_cast<uint32_t>(first_word >> 32)),
          m_key(pattern::keyed::segment_key(seed, m_segment)) {}
    __device__ uint32_t operator()(uint64_t index) {
        if (static_cast<uint32_t>(index >> 32) != m_segment) {
            m_segment = static_cast<uint32_t>(index >> 32);
            m_key = pattern::keyed::segment_key(m_seed, m_segment);
        }
        return pattern::keyed::word(m_key, static_cast<uint32_t>(index));
    }

private:
    uint64_t m_seed;
    uint32_t m_segment;
    pattern::keyed::SegmentKey m_key;
};

__global__ void check_kernel(const uint32_t* data, uint64_t words, uint64_t seed, uint64_t first_word,
                             CheckResult* result) {
    KeyedWords expected(seed, first_word);
    const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
    for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < words; i += stride) {
        const uint64_t index = first_word + i;
        if (data[i] != expected(index)) {
            atomicAdd(&result->bad_words, 1ull);
            atomicMin(&result->first_bad_word, static_cast<unsigned long long>(index));
        }
    }
}

// After check_kernel: the expected and actual values of the first bad word, for the message.
__global__ void record_first_kernel(const uint32_t* data, uint64_t seed, uint64_t first_word, CheckResult* result) {
    if (result->bad_words == 0)
        return;
    const uint64_t index = result->first_bad_word;
    result->actual = data[index - first_word];
    result->expected = pattern::keyed::word(seed, index);
}

__global__ void generate_kernel(uint32_t* data, uint64_t words, uint64_t seed, uint64_t first_word) {
    KeyedWords pattern_words(seed, first_word);
    const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
    for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < words; i += stride)
        data[i] = pattern_words(first_word + i);
}

__global__ void corrupt_kernel(uint8_t* data, uint64_t offset) { data[offset] ^= 1u; }

__global__ void empty_kernel() {}

}  // namespace

cudaError_t launch_check(const uint32_t* data, uint64_t words, uint64_t stream, uint64_t pass, uint64_t first_word,
                         CheckResult* result, cudaStream_t cuda_stream) {
    const uint64_t seed = pattern::keyed::seed(stream, pass);
    check_kernel<<<blocks_for(words), kThreads, 0, cuda_stream>>>(data, words, seed, first_word, result);
    record_first_kernel<<<1, 1, 0, cuda_stream>>>(data, seed, first_word, result);
    return cudaGetLastError();
}

cudaError_t launch_generate(uint32_t* data, uint64_t words, uint64_t stream, uint64_t pass, uint64_t first_word,
                            cudaStream_t cuda_stream) {
    generate_kernel<<<blocks_for(words), kThreads, 0, cuda_stream>>>(data, words, pattern::keyed::seed(stream, pass),
                                                                     first_word);
    return cudaGetLastError();
}

cudaError_t launch_corrupt(uint8_t* data, uint64_t offset, cudaStream_t cuda_stream) {
    corrupt_kernel<<<1, 1, 0, cuda_stream>>>(data, offset);
    return cudaGetLastError();
}

cudaError_t launch_empty(unsigned count, cudaStream_t cuda_stream) {
    for (unsigned i = 0; i < count; ++i) {
        empty_kernel<<<1, 1, 0, cuda_stream>>>();
        if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess)
            return error;
    }
    return cudaSuccess;
}

}  // namespace cuda_stream::detail
