#include "measure/bar_persistence.hpp"

#include "base/format.hpp"
#include "pattern/keyed_word.hpp"

namespace measure {

uint64_t persistence_value(uint64_t key, uint64_t offset, unsigned width) {
    const uint64_t word = pattern::keyed::splitmix64(pattern::keyed::seed(key, 0) + offset / 8);
    const unsigned shift = static_cast<unsigned>(offset % 8) * 8;
    const uint64_t mask = width >= 8 ? ~0ull : (1ull << (width * 8)) - 1;
    return (word >> shift) & mask;
}

pdt::Result<void> write_persistence_pattern(vfio::Bar& bar, const vfio::BarRegion& region, uint64_t key) {
    const uint64_t end = region.offset + region.size;
    for (uint64_t o = region.offset; o < end; o += region.width)
        PDT_CHECK(bar.write(o, region.width, persistence_value(key, o, region.width)));
    for (uint64_t o = region.offset; o < end; o += region.width) {
        const uint64_t expected = persistence_value(key, o, region.width);
        const uint64_t read = PDT_TRY(bar.read(o, region.width));
        if (read != expected)
            return pdt::make_error("write pattern", "BAR " + std::to_string(region.bar) + " offset " + pdt::hex(o), EIO,
                                   "read back " + pdt::hex(read) + " right after writing " + pdt::hex(expected) +
                                       ": the region is not memory (registers, unclaimed or read-only space)");
    }
    return {};
}

PersistenceComparison compare_persistence_pattern(vfio::Bar& bar, const vfio::BarRegion& region, uint64_t key) {
    PersistenceComparison c;
    const uint64_t end = region.offset + region.size;
    for (uint64_t o = region.offset; o < end; o += region.width) {
        const uint64_t expected = persistence_value(key, o, region.width);
        auto read = bar.read(o, region.width);
        const uint64_t value = read.ok() ? *read : ~expected;
        c.bytes_compared += region.width;
        if (value == expected)
            continue;
        for (unsigned b = 0; b < region.width; ++b)
            c.bytes_differing += ((value ^ expected) >> (8 * b) & 0xff) != 0;
        if (!c.first)
            c.first = PersistenceComparison::Mismatch{o, expected, value};
    }
    return c;
}

std::string PersistenceComparison::describe(unsigned width) const {
    std::string text = pdt::hex(bytes_compared) + " bytes compared, ";
    if (bytes_differing == 0)
        return text + "all kept";
    text += pdt::hex(bytes_differing) + " differ";
    if (first)
        text += "; first at BAR offset " + pdt::hex(first->offset) + ": read " + pdt::hex(first->read) +
                ", expected " + pdt::hex(first->expected) + " (width " + std::to_string(width) + ")";
    return text;
}

}  // namespace measure
