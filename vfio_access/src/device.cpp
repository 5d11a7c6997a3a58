#include "vfio_access/device.hpp"

#include <poll.h>
#include <unistd.h>

#include <cstdio>

#include "base/spellings.hpp"

namespace vfio {

std::string DeviceIdentity::description() const {
    char text[64];
    std::snprintf(text, sizeof text, "device %s (%04x:%04x)", address.to_string().c_str(), vendor_id, device_id);
    return text;
}

namespace {
constexpr pdt::Spelling<IrqIndex> kIrqIndexNames[] = {{IrqIndex::Intx, "INTx"}, {IrqIndex::Msi, "MSI"},
                                                      {IrqIndex::Msix, "MSI-X"}, {IrqIndex::Err, "ERR"},
                                                      {IrqIndex::Req, "REQ"}};
}  // namespace

const char* to_string(IrqIndex index) { return pdt::spelling(index, kIrqIndexNames); }

pdt::Result<uint8_t> Device::config_read8(uint32_t offset) {
    uint8_t value = 0;
    PDT_CHECK(config_read(offset, &value, 1));
    return value;
}

pdt::Result<uint16_t> Device::config_read16(uint32_t offset) {
    uint16_t value = 0;
    PDT_CHECK(config_read(offset, &value, 2));
    return value;
}

pdt::Result<uint32_t> Device::config_read32(uint32_t offset) {
    uint32_t value = 0;
    PDT_CHECK(config_read(offset, &value, 4));
    return value;
}

pdt::Result<void> Device::config_write16(uint32_t offset, uint16_t value) { return config_write(offset, &value, 2); }

pdt::Result<bool> Device::enable_bus_master() {
    const uint16_t command = PDT_TRY(config_read16(cfg::COMMAND));
    if (command & cfg::COMMAND_MASTER)
        return false;
    PDT_CHECK(config_write16(cfg::COMMAND, static_cast<uint16_t>(command | cfg::COMMAND_MASTER)));
    const uint16_t readback = PDT_TRY(config_read16(cfg::COMMAND));
    if (!(readback & cfg::COMMAND_MASTER))
        return pdt::make_error("enable bus master", identity().address.to_string(), EIO,
                          "Command register did not keep the Bus Master bit");
    return true;
}

pdt::Result<uint64_t> Device::irq_wait(unsigned vector, std::chrono::milliseconds timeout) {
    const int fd = PDT_TRY(irq_eventfd(vector));
    pollfd pfd{fd, POLLIN, 0};
    int rc;
    do {
        rc = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
    } while (rc < 0 && errno == EINTR);
    const std::string object = identity().address.to_string() + " vector " + std::to_string(vector);
    if (rc < 0)
        return pdt::errno_error("poll interrupt eventfd", object);
    if (rc == 0)
        return pdt::make_error("wait for interrupt", object, ETIMEDOUT,
                          "no interrupt within " + std::to_string(timeout.count()) + " ms");
    uint64_t count = 0;
    if (::read(fd, &count, sizeof count) != static_cast<ssize_t>(sizeof count))
        return pdt::errno_error("read interrupt eventfd", object);
    return count;
}

pdt::Result<uint64_t> Device::irq_poll(unsigned vector) {
    auto waited = irq_wait(vector, std::chrono::milliseconds(0));
    if (!waited && waited.error().code == ETIMEDOUT)
        return uint64_t{0};
    return waited;
}

}  // namespace vfio
