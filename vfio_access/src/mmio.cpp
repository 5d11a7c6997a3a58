#include "vfio_access/mmio.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace vfio {
namespace {

bool valid_width(unsigned width) { return width == 1 || width == 2 || width == 4 || width == 8; }

std::string bar_object(unsigned index, uint64_t offset, unsigned width) {
    char text[80];
    std::snprintf(text, sizeof text, "BAR %u offset 0x%llx width %u", index,
                  static_cast<unsigned long long>(offset), width);
    return text;
}

}  // namespace

pdt::Result<RegisterWindow> Bar::window(uint64_t offset, uint64_t size, Access64 mode) const {
    if (size == 0 || offset > this->size() || size > this->size() - offset) {
        char text[96];
        std::snprintf(text, sizeof text, "BAR %u window 0x%llx+0x%llx", m_index,
                      static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size));
        char hint[64];
        std::snprintf(hint, sizeof hint, "BAR size is 0x%llx", static_cast<unsigned long long>(this->size()));
        return pdt::make_error("map register window", text, ERANGE, hint);
    }
    return RegisterWindow(this, m_backend, offset, size, mode);
}

pdt::Result<uint64_t> Bar::read(uint64_t offset, unsigned width) const {
    if (!valid_width(width) || offset % width != 0 || offset > size() || width > size() - offset)
        return pdt::make_error("read", bar_object(m_index, offset, width), ERANGE, "outside the BAR or misaligned");
    return m_backend->read(offset, width);
}

pdt::Result<void> Bar::write(uint64_t offset, unsigned width, uint64_t value) const {
    if (!valid_width(width) || offset % width != 0 || offset > size() || width > size() - offset)
        return pdt::make_error("write", bar_object(m_index, offset, width), ERANGE, "outside the BAR or misaligned");
    m_backend->write(offset, width, value);
    return {};
}

bool RegisterWindow::contains(uint64_t offset, unsigned width) const {
    return m_backend && valid_width(width) && offset % width == 0 && offset <= m_size && width <= m_size - offset;
}

void RegisterWindow::verify_access(uint64_t offset, unsigned width) const {
    if (contains(offset, width))
        return;
    std::fprintf(stderr, "VERIFY failed: register access %s outside window 0x%llx+0x%llx or misaligned\n",
                 bar_object(bar_index(), m_base + offset, width).c_str(),
                 static_cast<unsigned long long>(m_base), static_cast<unsigned long long>(m_size));
    std::abort();
}

uint64_t RegisterWindow::access_read(uint64_t offset, unsigned width) const {
    verify_access(offset, width);
    return m_backend->read(m_base + offset, width);
}

void RegisterWindow::access_write(uint64_t offset, unsigned width, uint64_t value) const {
    verify_access(offset, width);
    m_backend->write(m_base + offset, width, value);
}

uint64_t RegisterWindow::read64(uint64_t offset) const {
    if (m_mode == Access64::Native)
        return access_read(offset, 8);
    verify_access(offset, 8);
    const uint64_t low = access_read(offset, 4);
    const uint64_t high = access_read(offset + 4, 4);
    return low | (high << 32);
}

void RegisterWindow::write64(uint64_t offset, uint64_t value) const {
    if (m_mode == Access64::Native)
        return access_write(offset, 8, value);
    verify_access(offset, 8);
    access_write(offset, 4, value & 0xffffffffu);
    access_write(offset + 4, 4, value >> 32);
}

}  // namespace vfio
