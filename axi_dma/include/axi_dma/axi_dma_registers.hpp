// The AXI DMA (PG021 v7.1) registers of Direct Register Mode (Simple DMA, C_INCLUDE_SG = 0), named
// as PG021's Register Space section names them. The MM2S channel's registers start at 0x00, the
// S2MM channel's at 0x30, each laid out alike (PG021 Table "Direct Register Mode Register
// Address Map"): MM2S_DMACR 0x00, MM2S_DMASR 0x04, MM2S_SA 0x18, MM2S_SA_MSB 0x1C, MM2S_LENGTH
// 0x28; S2MM_DMACR 0x30, S2MM_DMASR 0x34, S2MM_DA 0x48, S2MM_DA_MSB 0x4C, S2MM_LENGTH 0x58.
#pragma once

#include <cstdint>
#include <string>

namespace axi_dma {

// The two channels: MM2S reads the memory map into M_AXIS_MM2S, S2MM writes S_AXIS_S2MM to it.
enum class Channel { Mm2s, S2mm };
const char* name(Channel channel);  // "MM2S", "S2MM"

namespace reg {
inline constexpr uint64_t kMm2sBase = 0x00;
inline constexpr uint64_t kS2mmBase = 0x30;
inline uint64_t base(Channel channel) { return channel == Channel::Mm2s ? kMm2sBase : kS2mmBase; }
// Within a channel's registers.
inline constexpr uint64_t DMACR = 0x00;
inline constexpr uint64_t DMASR = 0x04;
inline constexpr uint64_t ADDRESS = 0x18;      // MM2S_SA / S2MM_DA
inline constexpr uint64_t ADDRESS_MSB = 0x1C;  // MM2S_SA_MSB / S2MM_DA_MSB
inline constexpr uint64_t LENGTH = 0x28;       // MM2S_LENGTH / S2MM_LENGTH
}  // namespace reg

// DMACR (PG021 MM2S_DMACR / S2MM_DMACR).
namespace dmacr {
inline constexpr uint32_t RS = 1u << 0;     // Run/Stop
inline constexpr uint32_t Reset = 1u << 2;  // soft reset of the whole core, both channels
}  // namespace dmacr

// DMASR (PG021 MM2S_DMASR / S2MM_DMASR).
namespace dmasr {
inline constexpr uint32_t Halted = 1u << 0;
inline constexpr uint32_t Idle = 1u << 1;
inline constexpr uint32_t SGIncld = 1u << 3;
inline constexpr uint32_t DMAIntErr = 1u << 4;
inline constexpr uint32_t DMASlvErr = 1u << 5;
inline constexpr uint32_t DMADecErr = 1u << 6;
inline constexpr uint32_t SGIntErr = 1u << 8;
inline constexpr uint32_t SGSlvErr = 1u << 9;
inline constexpr uint32_t SGDecErr = 1u << 10;
inline constexpr uint32_t IOC_Irq = 1u << 12;
inline constexpr uint32_t Dly_Irq = 1u << 13;
inline constexpr uint32_t Err_Irq = 1u << 14;
inline constexpr uint32_t kErrors = DMAIntErr | DMASlvErr | DMADecErr | SGIntErr | SGSlvErr | SGDecErr;
}  // namespace dmasr

// The DMASR value by its set bits' names: "0x00005011 (Halted, DMAIntErr, IOC_Irq, Err_Irq)".
std::string describe_dmasr(uint32_t value);

}  // namespace axi_dma
