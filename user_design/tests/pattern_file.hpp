// The tests' large files: a pattern in which no 8-byte word repeats and none is zero, written a
// block at a time (64 MiB in well under a second), and a file's bytes read back whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

namespace user_design_test {

// `bytes` (a multiple of 1 MiB) of the pattern at `path`.
inline void write_pattern_file(const std::filesystem::path& path, uint64_t bytes) {
    std::vector<uint64_t> block((1 << 20) / 8);
    std::ofstream out(path, std::ios::binary);
    for (uint64_t word = 0; word < bytes / 8; word += block.size()) {
        for (size_t i = 0; i < block.size(); ++i)
            block[i] = (word + i + 1) * 0x9e3779b97f4a7c15ull;
        out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 8));
    }
}

inline std::vector<char> file_bytes(const std::filesystem::path& path) {
    std::vector<char> bytes(std::filesystem::file_size(path));
    std::ifstream(path, std::ios::binary).read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
}

}  // namespace user_design_test
