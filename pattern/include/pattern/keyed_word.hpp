// The keyed pattern's word function, in one place for the host (pattern.cpp) and for GPU
// kernels (cuda/): an adapter that checks or generates data on its card computes exactly the
// words pattern::Pattern does. See pattern.hpp for the definition and its properties.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PDT_HOST_DEVICE __host__ __device__
#else
#define PDT_HOST_DEVICE
#endif

namespace pattern::keyed {

// SplitMix64 (Steele, Lea, Flood 2014): derives well-spread keys from small integers.
PDT_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// MurmurHash3 32-bit finaliser: a bijection on 32-bit values with full avalanche.
PDT_HOST_DEVICE inline uint32_t mix(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// The seed of the pattern keyed (stream, pass).
PDT_HOST_DEVICE inline uint64_t seed(uint64_t stream, uint64_t pass) {
    return splitmix64(splitmix64(stream) ^ (pass * 0xd1b54a32d192ed03ull));
}

// The keys of one 2^32-word segment.
struct SegmentKey {
    uint32_t k1;
    uint32_t k2;
};
PDT_HOST_DEVICE inline SegmentKey segment_key(uint64_t seed, uint32_t segment) {
    const uint64_t key = splitmix64(seed + segment);
    return SegmentKey{static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32) | 1u};
}

// Word `low` of a segment whose keys are `key`.
PDT_HOST_DEVICE inline uint32_t word(SegmentKey key, uint32_t low) { return mix(low ^ key.k1) + key.k2; }

// Word `index` of the pattern with `seed`.
PDT_HOST_DEVICE inline uint32_t word(uint64_t seed, uint64_t index) {
    return word(segment_key(seed, static_cast<uint32_t>(index >> 32)), static_cast<uint32_t>(index));
}

}  // namespace pattern::keyed
