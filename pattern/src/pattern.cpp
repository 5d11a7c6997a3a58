#include "pattern/pattern.hpp"

#include "pattern/keyed_word.hpp"

#include <algorithm>
#include <cstdio>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pattern {
namespace {

using keyed::mix;

// The hot loops. Cloned for AVX-512, AVX2 and baseline x86-64; the loader picks one.
#if defined(__x86_64__) && !defined(__clang__)
#define PDT_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define PDT_VECTOR_CLONES
#endif

PDT_VECTOR_CLONES
void generate_run(uint32_t* __restrict dst, uint32_t count, uint32_t base, uint32_t k1, uint32_t k2, uint32_t flip) {
    for (uint32_t i = 0; i < count; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
}

#if defined(__x86_64__)
// generate_run with streaming stores (AVX2): 8 words a store once dst is 32-byte aligned.
// The sfence orders the weakly ordered stores before whatever hands the buffer on.
__attribute__((target("avx2"))) void generate_run_streaming(uint32_t* dst, uint32_t count, uint32_t base, uint32_t k1,
                                                            uint32_t k2, uint32_t flip) {
    uint32_t i = 0;
    for (; i < count && (reinterpret_cast<uintptr_t>(dst + i) & 31) != 0; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i key1 = _mm256_set1_epi32(static_cast<int>(k1)), key2 = _mm256_set1_epi32(static_cast<int>(k2));
    const __m256i flips = _mm256_set1_epi32(static_cast<int>(flip));
    const __m256i c1 = _mm256_set1_epi32(static_cast<int>(0x85ebca6bu));
    const __m256i c2 = _mm256_set1_epi32(static_cast<int>(0xc2b2ae35u));
    for (; i + 8 <= count; i += 8) {
        __m256i h = _mm256_xor_si256(_mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(base + i)), lanes), key1);
        h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32(h, 16)), c1);
        h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32(h, 13)), c2);
        h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(_mm256_add_epi32(h, key2), flips));
    }
    for (; i < count; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    _mm_sfence();
}

// The same with AVX-512: 16 words a store once dst is 64-byte aligned. GCC 12's own
// _mm512_srli_epi32 trips -Wmaybe-uninitialized on its undefined pass-through operand (GCC bug
// 105593, fixed in GCC 13): silenced for this function only.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) void generate_run_streaming512(uint32_t* dst, uint32_t count, uint32_t base,
                                                                  uint32_t k1, uint32_t k2, uint32_t flip) {
    uint32_t i = 0;
    for (; i < count && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i key1 = _mm512_set1_epi32(static_cast<int>(k1)), key2 = _mm512_set1_epi32(static_cast<int>(k2));
    const __m512i flips = _mm512_set1_epi32(static_cast<int>(flip));
    const __m512i c1 = _mm512_set1_epi32(static_cast<int>(0x85ebca6bu));
    const __m512i c2 = _mm512_set1_epi32(static_cast<int>(0xc2b2ae35u));
    for (; i + 16 <= count; i += 16) {
        __m512i h = _mm512_xor_si512(_mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base + i)), lanes), key1);
        h = _mm512_mullo_epi32(_mm512_xor_si512(h, _mm512_srli_epi32(h, 16)), c1);
        h = _mm512_mullo_epi32(_mm512_xor_si512(h, _mm512_srli_epi32(h, 13)), c2);
        h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_xor_si512(_mm512_add_epi32(h, key2), flips));
    }
    for (; i < count; ++i)
        dst[i] = (mix((base + i) ^ k1) + k2) ^ flip;
    _mm_sfence();
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// flip: 0 writes the pattern, ~0u its bitwise complement (the poison).
void generate_run_as(Store store, uint32_t* dst, uint32_t count, uint32_t base, uint32_t k1, uint32_t k2,
                     uint32_t flip) {
#if defined(__x86_64__)
    if (store == Store::NonTemporal && __builtin_cpu_supports("avx512f")) {
        generate_run_streaming512(dst, count, base, k1, k2, flip);
        return;
    }
    if (store == Store::NonTemporal && __builtin_cpu_supports("avx2")) {
        generate_run_streaming(dst, count, base, k1, k2, flip);
        return;
    }
#endif
    (void)store;
    generate_run(dst, count, base, k1, k2, flip);
}

// OR of (actual ^ expected) over the run: zero when every word matches.
PDT_VECTOR_CLONES
uint32_t difference_run(const uint32_t* __restrict src, uint32_t count, uint32_t base, uint32_t k1,
                        uint32_t k2) {
    uint32_t diff = 0;
    for (uint32_t i = 0; i < count; ++i)
        diff |= src[i] ^ (mix((base + i) ^ k1) + k2);
    return diff;
}

// Words checked by one fast pass; a failing chunk is rescanned word by word.
constexpr uint32_t CHUNK_WORDS = 4096;

}  // namespace

void Mismatch::merge(const Mismatch& other) {
    if (other.bad_words == 0)
        return;
    if (bad_words == 0 || other.first_bad_word < first_bad_word) {
        first_bad_word = other.first_bad_word;
        expected = other.expected;
        actual = other.actual;
    }
    bad_words += other.bad_words;
}

std::string Mismatch::describe(uint64_t base_word, std::string_view offset_of) const {
    char text[240];
    const auto hex = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    char where[120];
    if (!offset_of.empty())
        std::snprintf(where, sizeof where, "%.*s offset 0x%llx", static_cast<int>(offset_of.size()), offset_of.data(),
                      hex((first_bad_word - base_word) * 4));
    else if (base_word == 0)
        std::snprintf(where, sizeof where, "pattern offset 0x%llx", hex(first_bad_word * 4));
    else
        std::snprintf(where, sizeof where, "pattern offset 0x%llx (0x%llx past 0x%llx)", hex(first_bad_word * 4),
                      hex((first_bad_word - base_word) * 4), hex(base_word * 4));
    std::snprintf(text, sizeof text, "first bad word at %s: expected 0x%08x actual 0x%08x, %llu bad words", where,
                  expected, actual, hex(bad_words));
    return text;
}

Pattern::Pattern(uint64_t stream, uint64_t pass)
    : m_stream(stream), m_pass(pass), m_seed(keyed::seed(stream, pass)) {}

Pattern::SegmentKey Pattern::segment_key(uint32_t segment) const {
    const keyed::SegmentKey key = keyed::segment_key(m_seed, segment);
    return SegmentKey{key.k1, key.k2};
}

uint32_t Pattern::word(uint64_t index) const {
    const SegmentKey key = segment_key(static_cast<uint32_t>(index >> 32));
    return mix(static_cast<uint32_t>(index) ^ key.k1) + key.k2;
}

void Pattern::generate(uint32_t* dst, size_t count, uint64_t first, Store store) const {
    fill(dst, count, first, store, 0);
}

void Pattern::poison(uint32_t* dst, size_t count, uint64_t first, Store store) const {
    fill(dst, count, first, store, ~0u);
}

void Pattern::fill(uint32_t* dst, size_t count, uint64_t first, Store store, uint32_t flip) const {
    while (count > 0) {
        // A run stays inside one 2^32-word segment and fits the 32-bit loop counter.
        const uint64_t to_segment_end = (uint64_t{1} << 32) - static_cast<uint32_t>(first);
        const uint32_t run = static_cast<uint32_t>(std::min<uint64_t>({count, to_segment_end, 0x80000000u}));
        const SegmentKey key = segment_key(static_cast<uint32_t>(first >> 32));
        generate_run_as(store, dst, run, static_cast<uint32_t>(first), key.k1, key.k2, flip);
        dst += run;
        count -= run;
        first += run;
    }
}

Mismatch Pattern::verify(const uint32_t* src, size_t count, uint64_t first) const {
    Mismatch result;
    while (count > 0) {
        const uint64_t to_segment_end = (uint64_t{1} << 32) - static_cast<uint32_t>(first);
        const uint32_t run = static_cast<uint32_t>(std::min<uint64_t>({count, to_segment_end, CHUNK_WORDS}));
        const SegmentKey key = segment_key(static_cast<uint32_t>(first >> 32));
        const uint32_t base = static_cast<uint32_t>(first);
        if (difference_run(src, run, base, key.k1, key.k2) != 0) {
            for (uint32_t i = 0; i < run; ++i) {
                const uint32_t expected = mix((base + i) ^ key.k1) + key.k2;
                if (src[i] != expected)
                    result.merge(Mismatch{1, first + i, expected, src[i]});
            }
        }
        src += run;
        count -= run;
        first += run;
    }
    return result;
}

}  // namespace pattern
