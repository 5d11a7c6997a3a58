// Test patterns for DMA soak tests: seekable, keyed per stream and per pass, vectorisable.
//
// Word g (a 32-bit word index into a stream) of the pattern keyed (stream, pass) is
//     w(g) = mix(lo32(g) ^ k1) + k2,   (k1, k2) = key(stream, pass, hi32(g))
// where mix is a bijection of 32-bit values (the MurmurHash3 finaliser). So:
//   - any block can be generated or checked on its own from its word index (seekable), so
//     many threads can share one buffer and a stream can be checked at any offset;
//   - within 2^32 words no value repeats, and a block from another offset, another stream or
//     another pass does not match (a stale, dropped, duplicated, reordered or misrouted
//     buffer fails, not only a bit flip);
//   - the inner loops are plain 32-bit arithmetic the compiler vectorises (AVX2 / AVX-512).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pattern {

// The result of checking a block: how many words differ and where the first one is.
struct Mismatch {
    uint64_t bad_words = 0;
    uint64_t first_bad_word = 0;  // word index in the stream (the index passed to verify + i)
    uint32_t expected = 0;
    uint32_t actual = 0;

    bool ok() const { return bad_words == 0; }
    // Adds `other` (a later block) to this one, keeping the earliest first mismatch.
    void merge(const Mismatch& other);
    // "first bad word at <where>: expected 0x<e> actual 0x<a>, <n> bad words", where <where>
    // names the one offset it gives:
    //   offset_of given: "<offset_of> offset 0x<(first_bad_word - base_word) * 4>"
    //     (describe(rx_word, "buffer"): "buffer offset 0x40");
    //   otherwise the pattern offset, first_bad_word * 4 (the index passed to verify, in
    //   bytes): "pattern offset 0x<o>", and with a base_word "pattern offset 0x<o> (0x<r> past
    //   0x<base_word * 4>)".
    std::string describe(uint64_t base_word = 0, std::string_view offset_of = {}) const;
};

// How generate writes: through the caches, or with non-temporal (streaming) stores that go
// to memory without reading the lines first or leaving them dirty in a core's cache. A buffer
// a device reads by DMA right after wants the latter: reading lines another core holds
// modified is slow, and those lines evict what the verifier needs.
enum class Store { Cached, NonTemporal };

class Pattern {
public:
    Pattern() : Pattern(0, 0) {}
    Pattern(uint64_t stream, uint64_t pass);

    uint64_t stream() const { return m_stream; }
    uint64_t pass() const { return m_pass; }

    // Word `index` of the pattern.
    uint32_t word(uint64_t index) const;
    // Writes words [first, first + count) to dst.
    void generate(uint32_t* dst, size_t count, uint64_t first, Store store = Store::Cached) const;
    // Writes the bitwise complement of words [first, first + count): a poison in which every
    // word differs from the pattern there, so a destination a copy did not fill fails.
    void poison(uint32_t* dst, size_t count, uint64_t first, Store store = Store::Cached) const;
    // Checks src against words [first, first + count); counts every bad word.
    Mismatch verify(const uint32_t* src, size_t count, uint64_t first) const;

private:
    struct SegmentKey {
        uint32_t k1;
        uint32_t k2;
    };
    SegmentKey segment_key(uint32_t segment) const;
    void fill(uint32_t* dst, size_t count, uint64_t first, Store store, uint32_t flip) const;

    uint64_t m_stream;
    uint64_t m_pass;
    uint64_t m_seed;
};

}  // namespace pattern
