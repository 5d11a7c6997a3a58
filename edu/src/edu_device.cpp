#include "edu/edu_device.hpp"
#include "base/format.hpp"

#include <cstdio>
#include <thread>

namespace edu {

namespace {

using pdt::hex;  // "0x1f" (base/format.hpp)

}  // namespace

const char* to_string(Wait wait) { return wait == Wait::Poll ? "poll" : "MSI"; }

pdt::Result<void> validate(const DmaRequest& request, const std::string& object) {
    const char* what = request.direction == DmaDirection::ToEdu ? "DMA to edu" : "DMA from edu";
    if (request.count == 0)
        return pdt::make_error(what, object, EINVAL, "count 0: QEMU 7.2's edu aborts the VM on an empty transfer");
    if (request.edu_offset >= DMA_BUFFER_SIZE || request.count > DMA_MAX_END - request.edu_offset)
        return pdt::make_error(what, object, EINVAL,
                               "edu buffer offset " + hex(request.edu_offset) + " + count " +
                                   std::to_string(request.count) + " must be at most " +
                                   std::to_string(DMA_MAX_END) +
                                   " (QEMU 7.2's edu aborts the VM at the end of its 4096-byte buffer)");
    const uint64_t mask = (uint64_t{1} << DMA_MASK_BITS) - 1;
    if (request.host_iova > mask || request.count - 1 > mask - request.host_iova)
        return pdt::make_error(what, object, EINVAL,
                               "host IOVA " + hex(request.host_iova) + " + " + std::to_string(request.count) +
                                   " bytes exceeds edu's 28-bit DMA mask " + hex(mask));
    return {};
}

EduDevice::EduDevice(vfio::Device& device, vfio::RegisterWindow regs)
    : m_device(&device), m_regs(regs), m_name("edu " + device.identity().address.to_string()) {}

pdt::Result<EduDevice> EduDevice::attach(vfio::Device& device) {
    vfio::Bar* bar0 = PDT_TRY(device.bar(0));
    vfio::RegisterWindow regs = PDT_TRY(bar0->window(0, reg::DMA_CMD + 8));
    EduDevice edu(device, regs);
    const uint32_t id = edu.identification();
    if ((id & 0xffff) != IDENTIFICATION_MAGIC)
        return pdt::make_error("identify edu", edu.name() + " BAR0 IDENTIFICATION", ENODEV,
                               "read " + hex(id) + ", an edu device reads 0xRRrr00ed (" +
                                   hex(IDENTIFICATION_V1_0) + " for v1.0)");
    return edu;
}

uint32_t EduDevice::identification() const { return m_regs.read32(reg::IDENTIFICATION); }

pdt::Result<void> EduDevice::check_liveness(uint32_t value) {
    m_regs.write32(reg::LIVENESS, value);
    const uint32_t got = m_regs.read32(reg::LIVENESS);
    if (got != static_cast<uint32_t>(~value))
        return pdt::make_error("liveness check", m_name + " BAR0 LIVENESS", EIO,
                               "wrote " + hex(value) + ", read " + hex(got) + ", expected " +
                                   hex(static_cast<uint32_t>(~value)));
    return {};
}

pdt::Result<uint32_t> EduDevice::factorial(uint32_t n, std::chrono::milliseconds timeout) {
    m_regs.write32(reg::FACTORIAL, n);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_regs.read32(reg::STATUS) & STATUS_COMPUTING) {
        if (std::chrono::steady_clock::now() > deadline)
            return pdt::make_error("factorial", m_name + " BAR0 STATUS", ETIMEDOUT,
                                   "still computing after " + std::to_string(timeout.count()) + " ms");
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return m_regs.read32(reg::FACTORIAL);
}

uint32_t EduDevice::irq_status() const { return m_regs.read32(reg::IRQ_STATUS); }
void EduDevice::irq_raise(uint32_t bits) { m_regs.write32(reg::IRQ_RAISE, bits); }
void EduDevice::irq_acknowledge(uint32_t bits) { m_regs.write32(reg::IRQ_ACK, bits); }

pdt::Result<void> EduDevice::enable_msi() {
    const vfio::IrqInfo info = PDT_TRY(m_device->irq_info(vfio::IrqIndex::Msi));
    if (info.count < 1)
        return pdt::make_error("enable MSI", m_name, ENOTSUP, "the device reports no MSI vector");
    PDT_CHECK(m_device->irq_enable(vfio::IrqIndex::Msi, 1));
    m_msi = true;
    return {};
}

pdt::Result<void> EduDevice::disable_msi() {
    if (!m_msi)
        return {};
    m_msi = false;
    return m_device->irq_disable(vfio::IrqIndex::Msi);
}

bool EduDevice::dma_busy() const { return (m_regs.read32(reg::DMA_CMD) & DMA_CMD_START) != 0; }

pdt::Result<void> EduDevice::start_dma(const DmaRequest& request, bool irq) {
    PDT_CHECK(validate(request, m_name));
    if (dma_busy())
        return pdt::make_error("start DMA", m_name + " BAR0 DMA_CMD", EBUSY,
                               "a transfer is still running; edu ignores new commands until it ends");
    if (irq && !m_msi)
        return pdt::make_error("start DMA", m_name, EINVAL, "completion interrupt asked for without enable_msi()");
    const uint64_t edu_address = DMA_BUFFER_ADDRESS + request.edu_offset;
    const bool to_ram = request.direction == DmaDirection::FromEdu;
    m_regs.write64(reg::DMA_SRC, to_ram ? edu_address : request.host_iova);
    m_regs.write64(reg::DMA_DST, to_ram ? request.host_iova : edu_address);
    m_regs.write64(reg::DMA_COUNT, request.count);
    m_dma_irq = irq;
    if (!m_claim.held())
        m_claim = m_device->dma_fence().claim(m_name);
    m_regs.write64(reg::DMA_CMD, DMA_CMD_START | (to_ram ? DMA_CMD_TO_RAM : 0) | (irq ? DMA_CMD_IRQ : 0));
    return {};
}

pdt::Result<void> EduDevice::wait_dma(Wait wait, std::chrono::milliseconds timeout) {
    if (wait == Wait::Msi && !m_dma_irq)
        return pdt::make_error("wait for DMA", m_name, EINVAL, "the transfer was started without its interrupt");
    return wait == Wait::Poll ? wait_dma_poll(timeout) : wait_dma_msi(timeout);
}

pdt::Result<void> EduDevice::wait_dma_poll(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (dma_busy()) {
        if (std::chrono::steady_clock::now() > deadline)
            return pdt::make_error("wait for DMA", m_name + " BAR0 DMA_CMD", ETIMEDOUT,
                                   "START still set after " + std::to_string(timeout.count()) + " ms");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    m_claim.proven();  // START reads back clear: the transfer ended
    if (m_dma_irq && (irq_status() & DMA_IRQ))
        irq_acknowledge(DMA_IRQ);
    return {};
}

pdt::Result<void> EduDevice::wait_dma_msi(std::chrono::milliseconds timeout) {
    auto waited = m_device->irq_wait(0, timeout);
    if (!waited) {
        pdt::Error error = std::move(waited).error();
        error.operation = "wait for DMA interrupt";
        error.object = m_name + " MSI vector 0";
        if (error.code == ETIMEDOUT)
            error.hint = "no MSI within " + std::to_string(timeout.count()) + " ms; DMA_CMD " +
                         hex(m_regs.read32(reg::DMA_CMD)) + ", IRQ status " + hex(irq_status());
        return error;
    }
    const uint32_t status = irq_status();
    if (!(status & DMA_IRQ))
        return pdt::make_error("wait for DMA interrupt", m_name + " BAR0 IRQ_STATUS", EIO,
                               "MSI came but IRQ status is " + hex(status) + ", without DMA_IRQ " + hex(DMA_IRQ));
    irq_acknowledge(DMA_IRQ);
    if (dma_busy())
        return pdt::make_error("wait for DMA interrupt", m_name + " BAR0 DMA_CMD", EIO,
                               "DMA_IRQ raised while START is still set");
    m_claim.proven();  // START reads back clear: the transfer ended
    return {};
}

EduDevice::~EduDevice() {
    if (!m_claim.held())
        return;
    const auto deadline = std::chrono::steady_clock::now() + settle_limit;
    while (dma_busy() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (dma_busy())
        m_claim.abandon("DMA_CMD still reads START " + std::to_string(settle_limit.count()) +
                        " ms after the wait for the transfer ended (edu cannot stop a transfer)");
    else
        m_claim.proven();
}

pdt::Result<void> EduDevice::dma(const DmaRequest& request, Wait wait, std::chrono::milliseconds timeout) {
    PDT_CHECK(start_dma(request, wait == Wait::Msi));
    return wait_dma(wait, timeout);
}

pdt::Result<void> EduDevice::dma_to_edu(uint64_t host_iova, uint32_t edu_offset, uint32_t count, Wait wait,
                                        std::chrono::milliseconds timeout) {
    return dma({DmaDirection::ToEdu, host_iova, edu_offset, count}, wait, timeout);
}

pdt::Result<void> EduDevice::dma_from_edu(uint32_t edu_offset, uint64_t host_iova, uint32_t count, Wait wait,
                                          std::chrono::milliseconds timeout) {
    return dma({DmaDirection::FromEdu, host_iova, edu_offset, count}, wait, timeout);
}

std::vector<vfio::ResetRegister> reset_test_registers() {
    return {
        {"edu Identification (0x00)", 0, reg::IDENTIFICATION, 4, std::nullopt},
        {"edu Status (0x20)", 0, reg::STATUS, 4, std::nullopt},
        {"edu Interrupt status (0x24)", 0, reg::IRQ_STATUS, 4, std::nullopt},
        {"edu Liveness (0x04)", 0, reg::LIVENESS, 4, 0x12345678},
        {"edu DMA source (0x80)", 0, reg::DMA_SRC, 8, 0xfeedabbadeadbeefull},
        {"edu DMA destination (0x88)", 0, reg::DMA_DST, 8, DMA_BUFFER_ADDRESS},
        {"edu DMA count (0x90)", 0, reg::DMA_COUNT, 8, 0x1FD},
        {"edu DMA command (0x98)", 0, reg::DMA_CMD, 8, std::nullopt},
    };
}

}  // namespace edu
