// The QEMU "edu" teaching device (PCI 1234:11e8) over the device seam: identification,
// liveness check, interrupts and its DMA engine between host memory and the device's 4 KiB
// buffer. It is the device the vm tests drive through real kernel VFIO.
//
//   edu::EduDevice edu = PDT_TRY(edu::EduDevice::attach(device));   // checks BAR0 0x00
//   PDT_CHECK(edu.check_liveness(0x12345678));
//   PDT_CHECK(edu.dma_to_edu(region.iova(), 0, 1024, edu::Wait::Poll));
//
// DMA safety (vfio_access/dma_fence.hpp): edu has no way to stop a transfer; from start_dma()
// until DMA_CMD reads START clear, the EduDevice holds a claim on the device's DMA fence, so no
// DMA region of the device is unmapped meanwhile. Destroyed with a transfer still running, it
// waits up to settle_limit for START to clear, then abandons the claim (the regions stay mapped
// until the device closes, and a warning names the edu).
//
// QEMU 7.2 limits honoured here (vfio_userspace.md §7.4): a DMA of 0 bytes or one reaching
// the end of the 4 KiB buffer aborts the whole QEMU process, so 1 <= count and
// offset + count < 4096 are enforced; host addresses must fit edu's 28-bit DMA mask.
#pragma once

#include <chrono>
#include <cstdint>

#include "vfio_access/device.hpp"
#include "vfio_access/dma_fence.hpp"
#include "vfio_access/reset_registers.hpp"

namespace edu {

inline constexpr uint16_t VENDOR_ID = 0x1234;
inline constexpr uint16_t DEVICE_ID = 0x11e8;

// BAR0 registers (QEMU docs/specs/edu.rst).
namespace reg {
inline constexpr uint64_t IDENTIFICATION = 0x00;  // 0xRRrr00ed: major RR, minor rr
inline constexpr uint64_t LIVENESS = 0x04;        // reads back the bitwise NOT of the value written
inline constexpr uint64_t FACTORIAL = 0x08;
inline constexpr uint64_t STATUS = 0x20;
inline constexpr uint64_t IRQ_STATUS = 0x24;
inline constexpr uint64_t IRQ_RAISE = 0x60;
inline constexpr uint64_t IRQ_ACK = 0x64;
inline constexpr uint64_t DMA_SRC = 0x80;
inline constexpr uint64_t DMA_DST = 0x88;
inline constexpr uint64_t DMA_COUNT = 0x90;
inline constexpr uint64_t DMA_CMD = 0x98;
}  // namespace reg

inline constexpr uint32_t IDENTIFICATION_MAGIC = 0xed;       // low byte of IDENTIFICATION
inline constexpr uint32_t IDENTIFICATION_V1_0 = 0x010000ed;  // QEMU's edu v1.0
inline constexpr uint32_t DMA_CMD_START = 0x1;   // reads 1 until the transfer is done
inline constexpr uint32_t DMA_CMD_TO_RAM = 0x2;  // direction: 0 RAM -> edu, 1 edu -> RAM
inline constexpr uint32_t DMA_CMD_IRQ = 0x4;     // raise DMA_IRQ on completion
inline constexpr uint32_t DMA_IRQ = 0x100;
inline constexpr uint32_t STATUS_COMPUTING = 0x01;
inline constexpr uint64_t DMA_BUFFER_ADDRESS = 0x40000;  // device address of the buffer
inline constexpr uint32_t DMA_BUFFER_SIZE = 4096;
// QEMU 7.2 aborts on a transfer touching the buffer's last byte (off-by-one, issue #1254).
inline constexpr uint32_t DMA_MAX_END = DMA_BUFFER_SIZE - 1;
inline constexpr unsigned DMA_MASK_BITS = 28;  // edu's default dma_mask
inline constexpr uint64_t BAR0_SIZE = 1u << 20;

enum class Wait { Poll, Msi };  // how completion is detected
const char* to_string(Wait wait);

enum class DmaDirection { ToEdu, FromEdu };  // RAM -> edu buffer, edu buffer -> RAM

// One transfer between host IOVA and an offset in the edu buffer.
struct DmaRequest {
    DmaDirection direction = DmaDirection::ToEdu;
    uint64_t host_iova = 0;
    uint32_t edu_offset = 0;
    uint32_t count = 0;
};

// EINVAL naming the limit a request breaks, or success.
pdt::Result<void> validate(const DmaRequest& request, const std::string& object);

class EduDevice {
public:
    // Maps BAR0 and checks the identification register's magic byte (0xed). The device must
    // outlive the EduDevice.
    static pdt::Result<EduDevice> attach(vfio::Device& device);
    EduDevice(EduDevice&&) noexcept = default;
    EduDevice& operator=(EduDevice&&) noexcept = default;
    ~EduDevice();
    // How long the destructor waits for a running transfer to end before it keeps its buffers.
    static constexpr std::chrono::milliseconds settle_limit{20};

    vfio::Device& device() const { return *m_device; }
    // "edu 0000:01:00.0", the object of every error.
    const std::string& name() const { return m_name; }
    uint32_t identification() const;
    unsigned major_version() const { return identification() >> 24; }
    unsigned minor_version() const { return (identification() >> 16) & 0xff; }

    // Writes value to LIVENESS and expects ~value back (EIO naming both when not).
    pdt::Result<void> check_liveness(uint32_t value);
    // Factorial of n computed by the device (status bit 0 polled), for a second liveness path.
    pdt::Result<uint32_t> factorial(uint32_t n, std::chrono::milliseconds timeout = std::chrono::seconds(5));

    uint32_t irq_status() const;
    void irq_raise(uint32_t bits);
    void irq_acknowledge(uint32_t bits);
    // Routes the device's interrupt to vector 0's eventfd (one MSI vector).
    pdt::Result<void> enable_msi();
    pdt::Result<void> disable_msi();
    bool msi_enabled() const { return m_msi; }

    // Starts a transfer (after validate()); EBUSY while one is running. irq: raise DMA_IRQ on
    // completion (needs enable_msi() to reach an eventfd).
    pdt::Result<void> start_dma(const DmaRequest& request, bool irq);
    bool dma_busy() const;
    // Waits for the running transfer: Poll reads DMA_CMD until START clears; Msi waits for the
    // eventfd, then checks and acknowledges DMA_IRQ. ETIMEDOUT after timeout.
    pdt::Result<void> wait_dma(Wait wait, std::chrono::milliseconds timeout);
    // start_dma + wait_dma.
    pdt::Result<void> dma(const DmaRequest& request, Wait wait,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));
    pdt::Result<void> dma_to_edu(uint64_t host_iova, uint32_t edu_offset, uint32_t count, Wait wait,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(10));
    pdt::Result<void> dma_from_edu(uint32_t edu_offset, uint64_t host_iova, uint32_t count, Wait wait,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

private:
    EduDevice(vfio::Device& device, vfio::RegisterWindow regs);
    pdt::Result<void> wait_dma_poll(std::chrono::milliseconds timeout);
    pdt::Result<void> wait_dma_msi(std::chrono::milliseconds timeout);

    vfio::Device* m_device;
    vfio::RegisterWindow m_regs;
    std::string m_name;
    bool m_msi = false;
    bool m_dma_irq = false;  // the running transfer raises DMA_IRQ
    vfio::DmaFence::Claim m_claim;  // from start_dma() until START reads back clear
};

// The registers test_dma_descriptor_credits --reset_test reads across VFIO_DEVICE_RESET on an edu
// (BAR 0): Identification, Status, IRQ status and DMA command (read only); Liveness (0x12345678
// written: reads back its NOT), DMA source (0xfeedabbadeadbeef, 8 bytes), destination (0x40000)
// and count (0x1FD). No DMA is started (the command register is not written).
std::vector<vfio::ResetRegister> reset_test_registers();

}  // namespace edu
