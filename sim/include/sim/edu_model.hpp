// A register-level model of QEMU's edu device (v1.0) behind the simulated device seam, for
// tests of the edu adapter (edu/) without a guest. It keeps QEMU 7.2's quirks observable: a DMA
// QEMU 7.2 would abort on is counted (qemu72_aborts), addresses are masked to 28 bits, a
// transfer runs on a timer `dma_delay` after the command (edu's is 100 ms), blocked DMA is
// ignored by the device (the IOMMU model logs the fault).
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "sim/sim_device.hpp"
#include "streams/lie.hpp"

namespace sim {

struct EduModelOptions {
    uint32_t identification = 0x010000ed;
    bool broken_liveness = false;  // LIVENESS reads back the value instead of its NOT
    std::chrono::microseconds dma_delay{2000};  // from the command write to the transfer
    bool dma_hangs = false;        // the transfer never runs
    bool irq_without_status = false;  // completion MSI sent without setting DMA_IRQ
    streams::Lie lie{};            // a test-only lie (streams/lie.hpp): transfers counted from 1 over both
                                   // directions; completes_early lands the tail at the next command
};

class EduModel : public RegisterBlock {
public:
    EduModel(SimDevice& device, EduModelOptions options) : m_device(device), m_options(options) {}
    ~EduModel() override { stop(); }
    // Cancels a pending transfer and joins the timer (before the device goes away).
    void stop();
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;

    std::array<uint8_t, 4096>& buffer() { return m_buffer; }  // touch only while no transfer runs
    unsigned qemu72_aborts() const;
    unsigned transfers() const;

private:
    // The bytes completes_early holds back: where they go, and what they are.
    struct Tail {
        bool to_ram = false;
        uint64_t host = 0;    // to_ram: the host address
        uint64_t offset = 0;  // !to_ram: the offset in m_buffer
        std::vector<uint8_t> bytes;
    };
    void timer(std::stop_token stop);
    void run_dma();  // with m_mutex held
    // The bytes of this transfer that move before it completes (the lie's choice); with m_mutex held.
    uint64_t bytes_moved_now(uint64_t count) const;
    void hold_back_tail(bool to_ram, uint64_t host, uint64_t offset, uint64_t moved);  // with m_mutex held
    void land_tail();  // with m_mutex held
    void raise(uint32_t bits);

    SimDevice& m_device;
    EduModelOptions m_options;
    std::array<uint8_t, 4096> m_buffer{};
    uint32_t m_liveness = 0, m_factorial = 0, m_irq_status = 0;
    uint64_t m_src = 0, m_dst = 0, m_count = 0, m_cmd = 0;
    unsigned m_qemu72_aborts = 0, m_transfers = 0;
    std::optional<Tail> m_tail;  // completes_early: held back until the next command
    mutable std::mutex m_mutex;
    std::condition_variable_any m_cancel;
    std::jthread m_timer;  // the running transfer's delay; stop() cancels it and joins
};

struct SimEdu {
    SimEdu() = default;
    SimEdu(SimEdu&&) = default;
    SimEdu& operator=(SimEdu&& other) noexcept;
    ~SimEdu();
    std::unique_ptr<SimDevice> device;
    std::shared_ptr<EduModel> model;
};

// A simulated edu at `address` (IOVA range 0x10000..2^48-1, one MSI vector).
SimEdu make_sim_edu(const vfio::PciAddress& address, EduModelOptions options = {});

}  // namespace sim
