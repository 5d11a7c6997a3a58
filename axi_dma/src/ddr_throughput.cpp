#include "axi_dma/ddr_throughput.hpp"

#include <algorithm>
#include <cerrno>

#include "base/format.hpp"
#include "pattern/pattern.hpp"

namespace axi_dma {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One channel's progress through the memory in fpga_sio's measurement.
struct DirectionState {
    Channel channel = Channel::Mm2s;
    FpgaSioDirection* result = nullptr;
    uint64_t remaining = 0;
    uint64_t address = 0;
    uint64_t length = 0;
    bool active = false;
    Clock::time_point first_start, transfer_start;
    bool finished() const { return !result->tested || remaining == 0 || result->failed; }
};

// fpga_sio's step of one channel: start its next transfer, or poll the one in progress.
pdt::Result<void> step_direction(const AxiDma& dma, DirectionState& d, uint64_t memory_size,
                                 std::chrono::milliseconds timeout) {
    if (!d.active) {
        if (d.remaining == memory_size)
            d.first_start = Clock::now();
        d.length = std::min(d.remaining, dma.build().max_transfer());
        PDT_CHECK(dma.start(d.channel, d.address, d.length));
        d.active = true;
        d.transfer_start = Clock::now();
        return {};
    }
    uint32_t dmasr = 0;
    switch (dma.poll(d.channel, dmasr)) {
    case Outcome::Idle:
        d.address += d.length;
        d.remaining -= d.length;
        d.active = false;
        if (d.remaining == 0)
            d.result->timing.pass_seconds.push_back(seconds_since(d.first_start));
        return {};
    case Outcome::Failed:
        d.result->failed = true;
        d.result->dmasr = dmasr;
        d.result->address = d.address;
        return {};
    case Outcome::Running:
        if (Clock::now() - d.transfer_start > timeout)
            return dma.idle_timeout(d.channel, timeout, dmasr);
        return {};
    }
    return {};
}

// Writes `words` to the card memory at `address` through the host's window, 8 bytes at a time.
void write_words(const vfio::RegisterWindow& memory, uint64_t address, const std::vector<uint32_t>& words) {
    for (size_t i = 0; i + 1 < words.size(); i += 2)
        memory.write64(address + 4 * i, uint64_t{words[i]} | uint64_t{words[i + 1]} << 32);
}

std::vector<uint32_t> read_words(const vfio::RegisterWindow& memory, uint64_t address, uint64_t bytes) {
    std::vector<uint32_t> words(bytes / 4);
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
        const uint64_t value = memory.read64(address + 4 * i);
        words[i] = static_cast<uint32_t>(value);
        words[i + 1] = static_cast<uint32_t>(value >> 32);
    }
    return words;
}

// One chunk of a verified pass: pattern at `source`, decoy at `destination`, S2MM and MM2S
// together, both Idle, S2MM_LENGTH the chunk, the destination read back and checked.
pdt::Result<void> verified_chunk(const AxiDma& dma, const vfio::RegisterWindow& memory, const pattern::Pattern& key,
                                 uint64_t source, uint64_t destination, uint64_t offset, uint64_t length,
                                 std::chrono::milliseconds timeout, double& mm2s_seconds, double& s2mm_seconds) {
    std::vector<uint32_t> words(length / 4);
    key.generate(words.data(), words.size(), offset / 4);
    write_words(memory, source + offset, words);
    key.poison(words.data(), words.size(), offset / 4);
    write_words(memory, destination + offset, words);
    const Clock::time_point start = Clock::now();
    PDT_CHECK(dma.start(Channel::S2mm, destination + offset, length));
    PDT_CHECK(dma.start(Channel::Mm2s, source + offset, length));
    PDT_CHECK(dma.wait_idle(Channel::Mm2s, timeout));
    mm2s_seconds += seconds_since(start);
    PDT_CHECK(dma.wait_idle(Channel::S2mm, timeout));
    s2mm_seconds += seconds_since(start);
    const uint32_t received = dma.length(Channel::S2mm);
    const std::string where = pdt::format("S2MM transfer of 0x%llx bytes to 0x%llx", static_cast<unsigned long long>(length),
                                          static_cast<unsigned long long>(destination + offset));
    if (received != length)
        return pdt::make_error("verify", where + " (S2MM_LENGTH)", EIO,
                               pdt::format("S2MM_LENGTH reads %u bytes received, not the %llu MM2S sent", received,
                                           static_cast<unsigned long long>(length)));
    const pattern::Mismatch mismatch = key.verify(read_words(memory, destination + offset, length).data(), words.size(),
                                                  offset / 4);
    if (!mismatch.ok())
        return pdt::make_error("verify", where + " (read back through the host's window)", EIO,
                               mismatch.describe(offset / 4, "chunk") +
                                   " (a word still the decoy's was not moved)");
    return {};
}

// One pass of the verified measurement: half the memory from `source` to `destination`.
pdt::Result<void> verified_pass(const AxiDma& dma, const vfio::RegisterWindow& memory, uint64_t source,
                                uint64_t destination, uint64_t half, unsigned pass, std::chrono::milliseconds timeout,
                                VerifiedRun& run) {
    const pattern::Pattern key(0x41584944 /* "AXID" */, pass);
    const uint64_t chunk = std::min(half, dma.build().max_transfer());
    double mm2s_seconds = 0, s2mm_seconds = 0;
    for (uint64_t offset = 0; offset < half; offset += chunk) {
        const uint64_t length = std::min(chunk, half - offset);
        PDT_CHECK(verified_chunk(dma, memory, key, source, destination, offset, length, timeout, mm2s_seconds,
                                 s2mm_seconds));
        run.bytes_verified += length;
    }
    run.mm2s.pass_seconds.push_back(mm2s_seconds);
    run.s2mm.pass_seconds.push_back(s2mm_seconds);
    return {};
}

void rate_line(std::string& text, const char* name, uint64_t bytes, double seconds) {
    text += pdt::format("  %s = %0.6f (Mbytes/sec)\n", name, static_cast<double>(bytes) / seconds / 1e6);
}

}  // namespace

std::string timing_lines(const char* direction, const Timing& timing) {
    std::string text = pdt::format("%s timing for %zu transfers of %llu bytes:\n", direction, timing.pass_seconds.size(),
                                   static_cast<unsigned long long>(timing.bytes_per_pass));
    const auto& s = timing.pass_seconds;
    if (s.empty() || timing.bytes_per_pass == 0)
        return text;
    double total = 0;
    for (double seconds : s)
        total += seconds;
    // The longest pass is the lowest rate and the shortest the highest (fpga_sio's Min and Max).
    if (s.size() > 1)
        rate_line(text, " Min", timing.bytes_per_pass, *std::max_element(s.begin(), s.end()));
    rate_line(text, "Mean", timing.bytes_per_pass, total / static_cast<double>(s.size()));
    if (s.size() > 1)
        rate_line(text, " Max", timing.bytes_per_pass, *std::min_element(s.begin(), s.end()));
    return text;
}

std::string fpga_sio_lines(const FpgaSioRun& run) {
    std::string text;
    for (const auto& [label, d] : {std::pair{"MM2S", &run.mm2s}, std::pair{"S2MM", &run.s2mm}}) {
        text += pdt::format("Direction %s : ", label);
        if (!d->tested)
            text += "Not tested\n";
        else if (d->failed)
            text += pdt::format("DMA failed with DMASR=0x%08x at start_address=0x%llx\n", d->dmasr,
                                static_cast<unsigned long long>(d->address));
        else
            text += timing_lines(label, d->timing);
    }
    return text + "\n";
}

pdt::Result<FpgaSioRun> run_fpga_sio(const AxiDma& dma, uint64_t memory_size, bool mm2s, bool s2mm,
                                     std::chrono::milliseconds timeout) {
    FpgaSioRun run;
    run.mm2s.tested = mm2s;
    run.s2mm.tested = s2mm;
    PDT_CHECK(dma.reset(timeout));
    DirectionState states[2];
    states[0].result = &run.mm2s;
    states[1].channel = Channel::S2mm;
    states[1].result = &run.s2mm;
    for (DirectionState& d : states) {
        d.remaining = memory_size;
        d.result->timing.bytes_per_pass = memory_size;
    }
    while (!states[0].finished() || !states[1].finished())
        for (DirectionState& d : states)
            if (!d.finished())
                PDT_CHECK(step_direction(dma, d, memory_size, timeout));
    for (const DirectionState& d : states)
        if (d.result->tested)
            PDT_CHECK(dma.stop(d.channel, timeout));
    return run;
}

VerifiedRun run_verified(const AxiDma& dma, const vfio::RegisterWindow& memory, uint64_t memory_size,
                         std::chrono::milliseconds timeout) {
    VerifiedRun run;
    const uint64_t half = memory_size / 2;
    run.mm2s.bytes_per_pass = run.s2mm.bytes_per_pass = half;
    pdt::Result<void> done = dma.reset(timeout);
    if (done)
        done = verified_pass(dma, memory, 0, half, half, 1, timeout, run);
    if (done)
        done = verified_pass(dma, memory, half, 0, half, 2, timeout, run);
    // Both channels stopped, the stop proven by DMASR.Halted, whatever came before.
    for (Channel channel : {Channel::Mm2s, Channel::S2mm}) {
        pdt::Result<void> stopped = dma.stop(channel, timeout);
        if (done && !stopped)
            done = std::move(stopped);
    }
    if (!done)
        run.failure = done.error();
    return run;
}

}  // namespace axi_dma
