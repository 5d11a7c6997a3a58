// The keyed pattern's hot loops written with AVX2 and AVX-512 intrinsics (private to pattern.cpp).
// GCC's auto-vectorised clones of the plain loops run at half the speed of these on some hosts
// (measured on the lent H100's host: verify 7.8 GB/s a core where the same hash with
// intrinsics, streaming generate, made 18.7 GB/s), which made a D2H stream at line rate need
// more than 7 host cores. Each function takes any alignment (unaligned loads and stores;
// the streaming ones first reach the store width's alignment word by word).
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>

#include "pattern/keyed_word.hpp"

namespace pattern::detail {

using keyed::mix;

// The keyed words of indices base .. base+7: (mix(index ^ k1) + k2), as keyed_word.hpp defines.
__attribute__((target("avx2"), always_inline)) inline __m256i keyed8(uint32_t base, __m256i key1, __m256i key2) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i c1 = _mm256_set1_epi32(static_cast<int>(0x85ebca6bu));
    const __m256i c2 = _mm256_set1_epi32(static_cast<int>(0xc2b2ae35u));
    __m256i h = _mm256_xor_si256(_mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(base)), lanes), key1);
    h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32(h, 16)), c1);
    h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32(h, 13)), c2);
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
    return _mm256_add_epi32(h, key2);
}

// GCC 12's own _mm512_srli_epi32 trips -Wmaybe-uninitialized on its undefined pass-through
// operand (GCC bug 105593, fixed in GCC 13): silenced for the AVX-512 functions only.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"), always_inline)) inline __m512i keyed16(uint32_t base, __m512i key1, __m512i key2) {
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i c1 = _mm512_set1_epi32(static_cast<int>(0x85ebca6bu));
    const __m512i c2 = _mm512_set1_epi32(static_cast<int>(0xc2b2ae35u));
    __m512i h = _mm512_xor_si512(_mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base)), lanes), key1);
    h = _mm512_mullo_epi32(_mm512_xor_si512(h, _mm512_srli_epi32(h, 16)), c1);
    h = _mm512_mullo_epi32(_mm512_xor_si512(h, _mm512_srli_epi32(h, 13)), c2);
    h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
    return _mm512_add_epi32(h, key2);
}

// dst[i] = keyed word ^ flip; streaming (non-temporal) stores once dst is 64-byte aligned.
__attribute__((target("avx512f"), noinline)) inline void generate512(uint32_t* dst, uint32_t count, uint32_t base, uint32_t k1,
                                                           uint32_t k2, uint32_t flip, bool streaming) {
    uint32_t i = 0;
    if (streaming)
        for (; i < count && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0; ++i)
            dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    const __m512i key1 = _mm512_set1_epi32(static_cast<int>(k1)), key2 = _mm512_set1_epi32(static_cast<int>(k2));
    const __m512i flips = _mm512_set1_epi32(static_cast<int>(flip));
    if (streaming)
        for (; i + 16 <= count; i += 16)
            _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_xor_si512(keyed16(base + i, key1, key2), flips));
    else
        for (; i + 16 <= count; i += 16)
            _mm512_storeu_si512(dst + i, _mm512_xor_si512(keyed16(base + i, key1, key2), flips));
    for (; i < count; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    if (streaming)
        _mm_sfence();  // orders the weakly ordered stores before whatever hands the buffer on
}

// OR over the run of (src[i] ^ keyed word): zero when every word matches.
__attribute__((target("avx512f"), noinline)) inline uint32_t difference512(const uint32_t* src, uint32_t count, uint32_t base,
                                                                 uint32_t k1, uint32_t k2) {
    const __m512i key1 = _mm512_set1_epi32(static_cast<int>(k1)), key2 = _mm512_set1_epi32(static_cast<int>(k2));
    __m512i diff = _mm512_setzero_si512();
    uint32_t i = 0;
    for (; i + 16 <= count; i += 16)
        diff = _mm512_or_si512(diff, _mm512_xor_si512(_mm512_loadu_si512(src + i), keyed16(base + i, key1, key2)));
    alignas(64) uint32_t lanes[16];  // not _mm512_reduce_or_epi32: GCC 12's trips -Wuninitialized
    _mm512_store_si512(lanes, diff);
    uint32_t out = 0;
    for (uint32_t lane : lanes)
        out |= lane;
    for (; i < count; ++i)
        out |= src[i] ^ (mix((base + i) ^ k1) + k2);
    return out;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

__attribute__((target("avx2"))) inline void generate256(uint32_t* dst, uint32_t count, uint32_t base, uint32_t k1,
                                                        uint32_t k2, uint32_t flip, bool streaming) {
    uint32_t i = 0;
    if (streaming)
        for (; i < count && (reinterpret_cast<uintptr_t>(dst + i) & 31) != 0; ++i)
            dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    const __m256i key1 = _mm256_set1_epi32(static_cast<int>(k1)), key2 = _mm256_set1_epi32(static_cast<int>(k2));
    const __m256i flips = _mm256_set1_epi32(static_cast<int>(flip));
    if (streaming)
        for (; i + 8 <= count; i += 8)
            _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(keyed8(base + i, key1, key2), flips));
    else
        for (; i + 8 <= count; i += 8)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(keyed8(base + i, key1, key2), flips));
    for (; i < count; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    if (streaming)
        _mm_sfence();
}

__attribute__((target("avx2"))) inline uint32_t difference256(const uint32_t* src, uint32_t count, uint32_t base,
                                                              uint32_t k1, uint32_t k2) {
    const __m256i key1 = _mm256_set1_epi32(static_cast<int>(k1)), key2 = _mm256_set1_epi32(static_cast<int>(k2));
    __m256i diff = _mm256_setzero_si256();
    uint32_t i = 0;
    for (; i + 8 <= count; i += 8)
        diff = _mm256_or_si256(diff, _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)),
                                                      keyed8(base + i, key1, key2)));
    alignas(32) uint32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), diff);
    uint32_t out = 0;
    for (uint32_t lane : lanes)
        out |= lane;
    for (; i < count; ++i)
        out |= src[i] ^ (mix((base + i) ^ k1) + k2);
    return out;
}

}  // namespace pattern::detail
#endif
