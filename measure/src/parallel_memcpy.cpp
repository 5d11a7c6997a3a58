#include "measure/parallel_memcpy.hpp"

#include <algorithm>
#include <cstring>

namespace measure {

ParallelMemcpy::ParallelMemcpy(unsigned threads) : m_pool(std::max(threads, 1u) - 1) {}

void ParallelMemcpy::copy(uint8_t* to, const uint8_t* from, uint64_t bytes) {
    const unsigned pieces = threads();
    if (pieces == 1 || bytes < (256u << 10)) {  // below 256 KiB the hand-over costs more than it saves
        std::memcpy(to, from, bytes);
        return;
    }
    // Piece `index` of the copy, cut at 64-byte boundaries. bytes / pieces rounds up before the
    // 64, so the pieces cover every byte (rounded down, 8 pieces of 1 MiB + 7 bytes would leave
    // the last 7 uncopied).
    const uint64_t share = ((bytes + pieces - 1) / pieces + 63) / 64 * 64;
    m_pool.parallel_for(pieces, [&](size_t index) {
        const uint64_t begin = std::min(bytes, share * index), end = std::min(bytes, begin + share);
        if (end > begin)
            std::memcpy(to + begin, from + begin, end - begin);
    });
}

}  // namespace measure
