#include "axi_dma/axi_dma.hpp"

#include <cerrno>
#include <thread>
#include <utility>

#include "base/format.hpp"

namespace axi_dma {

namespace {

// Each set bit's PG021 name, in bit order.
struct NamedBit {
    uint32_t bit;
    const char* name;
};
constexpr NamedBit kDmasrBits[] = {
    {dmasr::Halted, "Halted"},       {dmasr::Idle, "Idle"},           {dmasr::SGIncld, "SGIncld"},
    {dmasr::DMAIntErr, "DMAIntErr"}, {dmasr::DMASlvErr, "DMASlvErr"}, {dmasr::DMADecErr, "DMADecErr"},
    {dmasr::SGIntErr, "SGIntErr"},   {dmasr::SGSlvErr, "SGSlvErr"},   {dmasr::SGDecErr, "SGDecErr"},
    {dmasr::IOC_Irq, "IOC_Irq"},     {dmasr::Dly_Irq, "Dly_Irq"},     {dmasr::Err_Irq, "Err_Irq"},
};

// What each error bit means (PG021 DMASR field descriptions, Direct Register Mode).
const char* error_meaning(uint32_t dmasr) {
    if (dmasr & dmasr::DMADecErr)
        return "DMADecErr: the address request points to an invalid address";
    if (dmasr & dmasr::DMASlvErr)
        return "DMASlvErr: the AXI slave answered the memory access with an error";
    if (dmasr & dmasr::DMAIntErr)
        return "DMAIntErr: an error during the memory write, or an incoming packet bigger than the LENGTH register";
    return "Halted with no error bit: the channel stopped before its transfer completed";
}

// Polls `done` (which reads the register) until true or `timeout` passes: false on timeout.
template <typename Done>
bool axi_dma_poll_until(std::chrono::milliseconds timeout, Done&& done) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (unsigned polls = 0;; ++polls) {
        if (done())
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        if (polls > 1000)
            std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

}  // namespace

const char* name(Channel channel) { return channel == Channel::Mm2s ? "MM2S" : "S2MM"; }

std::string describe_dmasr(uint32_t value) {
    std::string names;
    for (const NamedBit& b : kDmasrBits)
        if (value & b.bit)
            names += (names.empty() ? "" : ", ") + std::string(b.name);
    return pdt::format("0x%08x (%s)", value, names.empty() ? "no bit set" : names.c_str());
}

AxiDma::AxiDma(vfio::RegisterWindow registers, Build build, std::string where)
    : m_registers(std::move(registers)), m_build(build), m_where(std::move(where)) {}

uint32_t AxiDma::read(Channel channel, uint64_t offset) const { return m_registers.read32(reg::base(channel) + offset); }

void AxiDma::write(Channel channel, uint64_t offset, uint32_t value) const {
    m_registers.write32(reg::base(channel) + offset, value);
}

std::string AxiDma::object(Channel channel, const char* register_name) const {
    return m_where + " " + name(channel) + "_" + register_name;
}

uint32_t AxiDma::status(Channel channel) const { return read(channel, reg::DMASR); }
uint32_t AxiDma::length(Channel channel) const { return read(channel, reg::LENGTH); }

// PG021 MM2S_DMACR.Reset: "Setting either MM2S_DMACR.Reset = 1 or S2MM_DMACR.Reset = 1 resets the
// entire AXI DMA engine"; the bit reads 1 while the reset is in progress.
pdt::Result<void> AxiDma::reset(std::chrono::milliseconds timeout) const {
    write(Channel::Mm2s, reg::DMACR, read(Channel::Mm2s, reg::DMACR) | dmacr::Reset);
    const bool done = axi_dma_poll_until(timeout, [&] {
        return !(read(Channel::Mm2s, reg::DMACR) & dmacr::Reset) && (status(Channel::Mm2s) & dmasr::Halted) &&
               (status(Channel::S2mm) & dmasr::Halted);
    });
    if (!done)
        return pdt::make_error("reset AXI DMA", object(Channel::Mm2s, "DMACR"), ETIMEDOUT,
                               "DMACR.Reset or DMASR.Halted not as PG021's reset state within " +
                                   std::to_string(timeout.count()) + " ms (MM2S_DMASR " +
                                   describe_dmasr(status(Channel::Mm2s)) + ", S2MM_DMASR " +
                                   describe_dmasr(status(Channel::S2mm)) + ")");
    return {};
}

// PG021 Programming Sequence, Direct Register Mode: 1. DMACR.RS = 1; 2. (interrupts: not used);
// 3. the address (SA or DA, and its MSB); 4. LENGTH, written last, starts the transfer.
pdt::Result<void> AxiDma::start(Channel channel, uint64_t address, uint64_t length) const {
    const char* length_name = channel == Channel::Mm2s ? "MM2S_LENGTH" : "S2MM_LENGTH";
    if (length == 0 || length > m_build.max_transfer() || length % m_build.data_width != 0)
        return pdt::usage_error("start " + std::string(name(channel)) + " transfer", m_where,
                                pdt::format("%s %llu: a transfer is 1..%llu bytes, a multiple of %u", length_name,
                                            static_cast<unsigned long long>(length),
                                            static_cast<unsigned long long>(m_build.max_transfer()), m_build.data_width));
    if (address % m_build.data_width != 0)
        return pdt::usage_error("start " + std::string(name(channel)) + " transfer", m_where,
                                pdt::format("address 0x%llx is not aligned to the %u-byte data width (no unaligned transfers)",
                                            static_cast<unsigned long long>(address), m_build.data_width));
    write(channel, reg::DMACR, read(channel, reg::DMACR) | dmacr::RS);
    write(channel, reg::ADDRESS, static_cast<uint32_t>(address));
    write(channel, reg::ADDRESS_MSB, static_cast<uint32_t>(address >> 32));
    write(channel, reg::LENGTH, static_cast<uint32_t>(length));
    return {};
}

Outcome AxiDma::poll(Channel channel, uint32_t& value) const {
    value = status(channel);
    if (value & dmasr::Idle)
        return Outcome::Idle;
    if (value & (dmasr::Halted | dmasr::kErrors))
        return Outcome::Failed;
    return Outcome::Running;
}

pdt::Error AxiDma::transfer_error(Channel channel, uint32_t value, uint64_t address) const {
    return pdt::make_error(pdt::format("%s transfer at 0x%llx", name(channel), static_cast<unsigned long long>(address)),
                           object(channel, "DMASR"), EIO,
                           "DMASR " + describe_dmasr(value) + ": " + error_meaning(value));
}

pdt::Result<void> AxiDma::wait_idle(Channel channel, std::chrono::milliseconds timeout) const {
    uint32_t value = 0;
    Outcome outcome = Outcome::Running;
    axi_dma_poll_until(timeout, [&] { return (outcome = poll(channel, value)) != Outcome::Running; });
    if (outcome == Outcome::Failed)
        return transfer_error(channel, value, (uint64_t{read(channel, reg::ADDRESS_MSB)} << 32) | read(channel, reg::ADDRESS));
    if (outcome == Outcome::Running)
        return idle_timeout(channel, timeout, value);
    return {};
}

pdt::Error AxiDma::idle_timeout(Channel channel, std::chrono::milliseconds timeout, uint32_t value) const {
    return pdt::make_error("wait for " + std::string(name(channel)) + " transfer", object(channel, "DMASR"), ETIMEDOUT,
                           "DMASR.Idle not set within " + std::to_string(timeout.count()) + " ms (DMASR " +
                               describe_dmasr(value) + ")");
}

// PG021 MM2S_DMACR.RS: "0 = Stop – DMA stops when current (if any) DMA operations are complete";
// the stop is proven by DMASR.Halted = 1.
pdt::Result<void> AxiDma::stop(Channel channel, std::chrono::milliseconds timeout) const {
    write(channel, reg::DMACR, read(channel, reg::DMACR) & ~dmacr::RS);
    uint32_t value = 0;
    if (!axi_dma_poll_until(timeout, [&] { return ((value = status(channel)) & dmasr::Halted) != 0; }))
        return pdt::make_error("stop " + std::string(name(channel)), object(channel, "DMASR"), ETIMEDOUT,
                               "DMASR.Halted not set within " + std::to_string(timeout.count()) +
                                   " ms of clearing DMACR.RS (DMASR " + describe_dmasr(value) +
                                   "): the channel may still be moving data");
    return {};
}

}  // namespace axi_dma
