// The keyed bytes the QDMA driver's tests move (a byte function of the key and the place) and
// their check, for the tests against the in-test QDMA and against sim's QDMA model alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qdma_test {

inline void keyed(uint8_t* p, size_t n, uint32_t key) {
    for (size_t i = 0; i < n; ++i)
        p[i] = static_cast<uint8_t>((key * 2654435761u + i * 40503u) >> 11);
}

// Bytes of `got` that differ from the keyed pattern; every byte is checked.
inline size_t mismatches(const uint8_t* got, size_t n, uint32_t key) {
    std::vector<uint8_t> want(n);
    keyed(want.data(), n, key);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        bad += got[i] != want[i];
    return bad;
}

}  // namespace qdma_test
