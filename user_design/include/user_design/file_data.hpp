// The host side of a user's copy to or from card memory: the bytes of a file (or of standard
// input) that go to the card, and the file (or standard output) that the card's bytes go to.
//
//   const user_design::FileData data = PDT_TRY(user_design::FileData::open("image.bin", 0, 0));
//   PDT_CHECK(data.read(0, chunk_bytes, buffer));
//
// A regular file is read where it lies (pread), as often as asked (a repeated copy, a
// verification); standard input, which can be read once, is held in memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/unique_fd.hpp"

namespace user_design {

// "-": standard input (FileData) or standard output (FileSink).
inline constexpr const char* kStandardStream = "-";

class FileData {
public:
    // `bytes` of the file at `path` from byte `offset` on; `bytes` 0: all that follows the offset
    // (standard input: up to its end). Errors name the file: it cannot be opened (its errno), it
    // is not a regular file or a pipe (EINVAL), or it holds fewer bytes after `offset` than asked
    // (ERANGE, "shorter than ..."); a region of no byte is EINVAL.
    static pdt::Result<FileData> open(const std::string& path, uint64_t offset, uint64_t bytes);

    const std::string& name() const { return m_name; }  // the path, or "standard input"
    uint64_t size() const { return m_size; }            // the bytes of the region
    // Bytes [at, at + bytes) of the region into `to`; EIO when the file changed under us (shorter).
    pdt::Result<void> read(uint64_t at, uint64_t bytes, uint8_t* to) const;

private:
    FileData() = default;
    std::string m_name;
    vfio::UniqueFd m_file;    // a regular file; none for standard input
    uint64_t m_offset = 0;    // where the region starts in the file
    uint64_t m_size = 0;
    std::vector<uint8_t> m_held;  // standard input's region
};

class FileSink {
public:
    // The file at `path`, created or truncated (mode 0644), or standard output for "-".
    static pdt::Result<FileSink> open(const std::string& path);

    const std::string& name() const { return m_name; }  // the path, or "standard output"
    // Appends `bytes` from `from`; errors name the file and carry errno.
    pdt::Result<void> write(const uint8_t* from, uint64_t bytes);

private:
    FileSink() = default;
    std::string m_name;
    vfio::UniqueFd m_file;  // the file; none for standard output
};

}  // namespace user_design
