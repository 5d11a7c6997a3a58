// The card-memory tests of test_dma_bridge, each on one H2C x C2H channel pair:
//   memory_fixed_buffers       card memory in buffers <= max_buffer_size; per pass, buffer by
//                              buffer: fill, write, read back, verify (host: one buffer each way)
//   memory_variable_transfers  the same with transfer_length transfers spanning descriptors, a
//                              window of whole transfers (>= max_buffer_size) at a time
//                              (H2C and C2H lengths differ: write the window, then read it back)
//   memory_host_chunks         write all card memory chunk by chunk, then read all back
//   memory_addressing          distinct values at power-of-two offsets, written all, then
//                              read all: finds address bits the card memory does not decode
//                              (8-byte words, or as wide as the Alignments register needs)
// Every pass uses a pattern keyed by the pass, so data left from an earlier pass (a write
// that never landed) fails; fpga_sio's fill-once pattern cannot see that.
#pragma once

#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pattern/pattern.hpp"
#include "pattern/worker_pool.hpp"
#include "stream_test/driver.hpp"
#include "stream_tools/card_dma.hpp"

namespace stream_tools {

struct MemoryTestOptions {
    uint64_t memory_base = 0;   // card address of the window tested
    uint64_t memory_size = 0;   // bytes
    uint64_t max_buffer_size = 0x8000000;
    uint64_t transfer_length = 0x10000000;
    uint64_t c2h_transfer_length = 0;  // 0: as transfer_length; else C2H reads back in these
    unsigned host_buffer_divisor = 4;
    uint64_t min_words = uint64_t{1} << 32;  // repeat passes until this many words went round
    vfio::BufferKind buffer_kind = vfio::BufferKind::Anonymous;
    unsigned dma_mask_bits = 64;  // --a32: 32
    pattern::WorkerPool* pool = nullptr;  // --verify_threads: shares generate / verify
    std::chrono::milliseconds timeout{cli::kDefaultTransferTimeout};
};

// A test's result: PASS with the bytes read back and verified, or the first failure
// ("H2C|C2H failure : <message>").
struct MemoryTestResult {
    bool passed = false;
    std::string failure;
    uint64_t bytes_verified = 0;
};

// Host buffer bytes a test allocates at once for options (0 for unknown names).
uint64_t memory_test_host_bytes(const std::string& test, const MemoryTestOptions& options);
// Card memory bytes a test writes (what a simulated card holds in host memory afterwards, at
// most: its 64 KiB pages written).
uint64_t memory_test_card_bytes(const std::string& test, const MemoryTestOptions& options);

// Each prints its "Testing ..." lines, timing blocks and TEST PASS / TEST FAIL to out.
MemoryTestResult memory_fixed_buffers(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                      std::FILE* out);
MemoryTestResult memory_variable_transfers(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                           std::FILE* out);
MemoryTestResult memory_host_chunks(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                    std::FILE* out);
MemoryTestResult memory_addressing(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                   std::FILE* out);

// The offsets memory_addressing writes: 0 and every power of two from word_bytes whose word
// ends within size.
std::vector<uint64_t> alias_offsets(uint64_t size, uint64_t word_bytes = 8);
// The word memory_addressing writes at each offset: 8 bytes, or the channels' Alignments
// length granularity / address alignment when larger (a power of two).
uint64_t addressing_word_bytes(const CardDma::Alignment& h2c, const CardDma::Alignment& c2h);
uint64_t addressing_word_bytes(const xdma::ChannelInfo& h2c, const xdma::ChannelInfo& c2h);
// Compares what was read at each offset with what was written; names the undecoded address
// bit when an offset reads the value written at another.
std::optional<std::string> analyse_aliasing(const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& written,
                                            const std::vector<uint64_t>& read);
// The same for words of word_bytes (a multiple of 8) at each offset, in order.
std::optional<std::string> analyse_aliasing(const std::vector<uint64_t>& offsets, const uint8_t* written,
                                            const uint8_t* read, uint64_t word_bytes);

}  // namespace stream_tools
