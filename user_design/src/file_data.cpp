#include "user_design/file_data.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/format.hpp"

namespace user_design {
namespace {

// read(2) until `bytes` came or the end; the bytes that came, or the errno.
pdt::Result<uint64_t> read_fully(int fd, uint8_t* to, uint64_t bytes, const std::string& name) {
    uint64_t got = 0;
    while (got < bytes) {
        const ssize_t n = ::read(fd, to + got, bytes - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return pdt::make_error("read", name, errno);
        if (n == 0)
            break;
        got += static_cast<uint64_t>(n);
    }
    return got;
}

pdt::Error shorter_than_asked(const std::string& name, uint64_t offset, uint64_t available, uint64_t bytes) {
    return pdt::make_error("read", name, ERANGE,
                           "shorter than the " + std::to_string(bytes) + " bytes asked from offset " + pdt::hex(offset) +
                               ": it holds " + std::to_string(available) + " bytes there");
}

// Standard input's region: `offset` bytes skipped, then `bytes` (0: up to its end) held.
pdt::Result<void> hold_standard_input(uint64_t offset, uint64_t bytes, std::vector<uint8_t>& held) {
    const std::string name = "standard input";
    std::vector<uint8_t> skip(1 << 16);
    for (uint64_t skipped = 0; skipped < offset;) {
        const uint64_t n = PDT_TRY(read_fully(STDIN_FILENO, skip.data(), std::min<uint64_t>(skip.size(), offset - skipped), name));
        if (n == 0)
            return shorter_than_asked(name, offset, 0, bytes);
        skipped += n;
    }
    if (bytes > 0) {
        held.resize(bytes);
        const uint64_t got = PDT_TRY(read_fully(STDIN_FILENO, held.data(), bytes, name));
        if (got < bytes)
            return shorter_than_asked(name, offset, got, bytes);
        return {};
    }
    for (;;) {
        const size_t at = held.size();
        held.resize(at + (1 << 20));
        const uint64_t got = PDT_TRY(read_fully(STDIN_FILENO, held.data() + at, 1 << 20, name));
        held.resize(at + got);
        if (got < (1 << 20))
            return {};
    }
}

}  // namespace

pdt::Result<FileData> FileData::open(const std::string& path, uint64_t offset, uint64_t bytes) {
    FileData data;
    if (path == kStandardStream) {
        data.m_name = "standard input";
        data.m_offset = offset;
        PDT_CHECK(hold_standard_input(offset, bytes, data.m_held));
        data.m_size = data.m_held.size();
    } else {
        data.m_name = path;
        data.m_file.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!data.m_file.valid())
            return pdt::make_error("open", path, errno, "the file to copy to the card must be readable");
        struct stat info {};
        if (::fstat(data.m_file.get(), &info) != 0)
            return pdt::make_error("stat", path, errno);
        if (!S_ISREG(info.st_mode))
            return pdt::make_error("open", path, EINVAL, "not a regular file (give - to read standard input)");
        const uint64_t size = static_cast<uint64_t>(info.st_size);
        const uint64_t available = offset <= size ? size - offset : 0;
        if (offset > size || bytes > available)
            return shorter_than_asked(path, offset, available, bytes);
        data.m_offset = offset;
        data.m_size = bytes > 0 ? bytes : available;
    }
    if (data.m_size == 0)
        return pdt::make_error("read", data.m_name, EINVAL,
                               "no byte to copy from offset " + pdt::hex(offset) + ": a copy moves at least one byte");
    return data;
}

pdt::Result<void> FileData::read(uint64_t at, uint64_t bytes, uint8_t* to) const {
    if (at > m_size || bytes > m_size - at)
        return pdt::make_error("read", m_name, ERANGE,
                               "bytes [" + pdt::hex(at) + ", " + pdt::hex(at + bytes) + ") are past the region of " +
                                   std::to_string(m_size) + " bytes");
    if (!m_file.valid()) {
        std::copy(m_held.begin() + static_cast<std::ptrdiff_t>(at),
                  m_held.begin() + static_cast<std::ptrdiff_t>(at + bytes), to);
        return {};
    }
    for (uint64_t got = 0; got < bytes;) {
        const ssize_t n = ::pread(m_file.get(), to + got, bytes - got, static_cast<off_t>(m_offset + at + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return pdt::make_error("read", m_name, errno);
        if (n == 0)
            return pdt::make_error("read", m_name, EIO, "the file became shorter while it was copied");
        got += static_cast<uint64_t>(n);
    }
    return {};
}

pdt::Result<FileSink> FileSink::open(const std::string& path) {
    FileSink sink;
    if (path == kStandardStream) {
        sink.m_name = "standard output";
        return sink;
    }
    sink.m_name = path;
    sink.m_file.reset(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!sink.m_file.valid())
        return pdt::make_error("open", path, errno, "the file the card's bytes go to must be writable");
    return sink;
}

pdt::Result<void> FileSink::write(const uint8_t* from, uint64_t bytes) {
    const int fd = m_file.valid() ? m_file.get() : STDOUT_FILENO;
    for (uint64_t put = 0; put < bytes;) {
        const ssize_t n = ::write(fd, from + put, bytes - put);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return pdt::make_error("write", m_name, errno);
        put += static_cast<uint64_t>(n);
    }
    return {};
}

}  // namespace user_design
