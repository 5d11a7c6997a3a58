// Big-endian reads from a file's bytes that name the byte offset when they would run past the
// end (the one error every field and packet of a bitstream can meet).
#pragma once

#include <cerrno>
#include <cstdint>
#include <span>
#include <string>

#include "base/format.hpp"
#include "base/result.hpp"

namespace bitstream::detail {

inline pdt::Error corrupt(size_t offset, std::string hint) {
    return pdt::make_error("parse bitstream", "byte offset " + pdt::hex(offset), EINVAL, std::move(hint));
}

// Configuration words are big-endian (UG470 "Bitstream Composition": the Sync word's bytes are
// AA 99 55 66 in the file).
inline uint32_t word_at(std::span<const uint8_t> data, size_t at) {
    return (uint32_t{data[at]} << 24) | (uint32_t{data[at + 1]} << 16) | (uint32_t{data[at + 2]} << 8) | data[at + 3];
}

class Reader {
public:
    Reader(std::span<const uint8_t> data, size_t base) : m_data(data), m_base(base) {}

    size_t at() const { return m_at; }
    size_t offset() const { return m_base + m_at; }  // in the file
    size_t left() const { return m_data.size() - m_at; }
    bool has(size_t count) const { return count <= left(); }

    // `count` bytes as an unsigned big-endian number (count <= 4), or an error naming `what`.
    pdt::Result<uint32_t> number(size_t count, const std::string& what) {
        if (!has(count))
            return corrupt(offset(), what + " needs " + std::to_string(count) + " bytes, " + std::to_string(left()) +
                                         " left in the file");
        uint32_t value = 0;
        for (size_t i = 0; i < count; ++i)
            value = (value << 8) | m_data[m_at + i];
        m_at += count;
        return value;
    }
    std::span<const uint8_t> take(size_t count) {
        auto part = m_data.subspan(m_at, count);
        m_at += count;
        return part;
    }
    void skip_to(size_t at) { m_at = at; }

private:
    std::span<const uint8_t> m_data;
    size_t m_base;
    size_t m_at = 0;
};

}  // namespace bitstream::detail
