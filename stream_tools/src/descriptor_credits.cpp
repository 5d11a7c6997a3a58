#include "stream_tools/descriptor_credits.hpp"

#include <cinttypes>
#include <cstring>

#include "cli/device_options.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_credit_register_check.hpp"
#include "pattern/pattern.hpp"
#include "stream_tools/card_dma.hpp"
#include "stream_tools/stream_tools.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace stream_tools {
namespace {


}  // namespace

pdt::Result<void> require_descriptor_credits(vfio::Device& device, unsigned dma_bar, const xdma::IpOptions& stated) {
    const std::string object = device.identity().address.to_string();
    if (stated.descriptor_credits) {
        if (*stated.descriptor_credits)
            return {};
        return pdt::make_error("test descriptor credits", object, ENOTSUP,
                               "cannot test descriptor credits: the design data states the XDMA IP has none");
    }
    const vfio::RegisterWindow regs = PDT_TRY(xdma::dma_registers(device, dma_bar));
    PDT_CHECK(xdma::check_engine_blocks(regs, xdma::Direction::H2C, 0));
    const xdma::ProbedIp probed = PDT_TRY(xdma::probe_ip(regs, xdma::Direction::H2C, 0));
    if (probed.descriptor_credits)
        return {};
    return pdt::make_error("test descriptor credits", object, ENOTSUP,
                           "cannot test descriptor credits: the XDMA IP has none (H2C 0 Descriptor Credit Mode "
                           "Enable, 0x6020, reads back 0)");
}

pdt::Result<void> credit_register_test(vfio::Device& device, unsigned dma_bar) {
    return xdma::check_descriptor_credit_register(PDT_TRY(xdma::dma_registers(device, dma_bar)));
}

pdt::Result<void> submit_pattern_message(streams::StreamChannel& h2c, const pattern::Pattern& pat, uint64_t message,
                                         uint64_t bytes, uint64_t& word) {
    const size_t index = message % h2c.buffer_count();
    pat.generate(reinterpret_cast<uint32_t*>(h2c.buffer(index)), bytes / 4, word);
    PDT_CHECK(h2c.submit(index, bytes, true));
    word += bytes / 4;
    return {};
}

namespace {

constexpr uint64_t kGuardGap = 64;  // host guard bytes after each C2H page
uint8_t guard_byte(uint64_t i) { return static_cast<uint8_t>(0xA5 ^ i); }

// Memory-mapped designs: pages round-tripped through rings of 1023 descriptors; the C2H side
// starts holding the inverse of the pattern, so a page never written cannot pass.
pdt::Result<uint64_t> memory_credits(identify::IdentifiedDesign& design, const CreditsOptions& options,
                                     std::FILE* out) {
    const uint64_t pages = std::min<uint64_t>(design.dma_bridge->memory_size / kCreditPage, 3 * kCreditRing);
    if (pages == 0)
        return pdt::usage_error("test descriptor credits", design.identity.address.to_string(),
                                "card memory smaller than one 4 KiB page: nothing to verify");
    std::fprintf(out, "Testing %" PRIu64 " bytes of card memory, using rings with %u descriptors, and a total of %" PRIu64
                      " descriptors\n",
                 pages * kCreditPage, kCreditRing, pages);
    XdmaCardDma::Options dma_options;
    dma_options.dma_bar = design.dma_bridge->bar;
    dma_options.ring_descriptors = kCreditRing;
    dma_options.timeout = options.timeout;
    dma_options.ip = adapters::ip_options(design);
    dma_options.modes = options.modes;
    dma_options.modes.mode = xdma::EngineModeRequest::Credits;
    dma_options.dma_mask_bits = options.dma_mask_bits;
    XdmaCardDma dma = PDT_TRY(XdmaCardDma::open(*design.device, dma_options));
    // Each C2H page is followed by a guard gap of host bytes the engine must not write: an
    // engine that writes past the end of a page changes it (the next page would hide it).
    const uint64_t bytes = pages * kCreditPage, stride = kCreditPage + kGuardGap;
    auto h2c = PDT_TRY(vfio::DmaRegion::allocate(
        *design.device, bytes, {vfio::DmaAccess::DeviceRead, vfio::BufferKind::Anonymous, options.dma_mask_bits}));
    auto c2h = PDT_TRY(vfio::DmaRegion::allocate(
        *design.device, pages * stride, {vfio::DmaAccess::DeviceWrite, vfio::BufferKind::Anonymous, options.dma_mask_bits}));
    const pattern::Pattern pat(3, 0);
    pat.generate(reinterpret_cast<uint32_t*>(h2c.data()), bytes / 4, 0);
    for (uint64_t p = 0; p < pages; ++p)
        for (uint64_t i = 0; i < stride; ++i)
            c2h.data()[p * stride + i] = i < kCreditPage ? static_cast<uint8_t>(~h2c.data()[p * kCreditPage + i]) : guard_byte(i);
    std::vector<Chunk> write, read;
    for (uint64_t p = 0; p < pages; ++p) {
        write.push_back(Chunk{p * kCreditPage, design.dma_bridge->memory_base + p * kCreditPage, kCreditPage});
        read.push_back(Chunk{p * stride, design.dma_bridge->memory_base + p * kCreditPage, kCreditPage});
    }
    auto done = dma.write(h2c, write);
    if (done.ok())
        done = dma.read(c2h, read);
    (void)dma.stop();
    PDT_CHECK(std::move(done));
    for (uint64_t p = 0; p < pages; ++p) {
        const uint8_t* page = c2h.data() + p * stride;
        for (uint64_t i = kCreditPage; i < stride; ++i)
            if (page[i] != guard_byte(i))
                return pdt::make_error("verify card memory", design.identity.address.to_string(), EIO,
                                       "guard band: host byte " + std::to_string(i - kCreditPage) + " after the C2H page " +
                                           std::to_string(p) + " changed (overrun)");
        const pattern::Mismatch m = pat.verify(reinterpret_cast<const uint32_t*>(page), kCreditPage / 4, p * kCreditPage / 4);
        if (!m.ok())
            return pdt::make_error("verify card memory", design.identity.address.to_string(), EIO,
                                   m.describe());
    }
    return bytes;
}

// Stream designs: growing messages through one loopback route.
pdt::Result<uint64_t> stream_credits(adapters::XdmaStreamDevice& device, const streams::LoopRoute& route, int64_t options_timeout,
                                  std::FILE* out) {
    const uint64_t first_words = kCreditPage / 4 - 1, messages = 3 * kCreditRing;
    const uint64_t longest = (first_words + messages - 1) * 4;
    auto h2c = PDT_TRY(device.open_channel(streams::Direction::H2C, route.h2c, streams::ChannelBuffers{16, (longest + 63) & ~63ull}));
    auto c2h = PDT_TRY(device.open_channel(streams::Direction::C2H, route.c2h, streams::ChannelBuffers{kCreditRing, kCreditPage}));
    for (size_t i = 0; i < kCreditRing; ++i)
        PDT_CHECK(c2h->submit(i, kCreditPage, false));
    const pattern::Pattern pat(4, 0);
    uint64_t sent = 0, h2c_queued = 0, h2c_done = 0, word = 0, descriptors = 0;
    uint64_t message = 0, in_message = 0;  // receive position: message index, bytes into it
    uint64_t rx_word = 0;
    const auto length_of = [&](uint64_t m) { return (first_words + m) * 4; };
    while (message < messages) {
        if (stop_requested())  // Ctrl-C or SIGTERM: the channels stop (proven) as they close
            return stopped_early(c2h->name());
        while (sent < messages && h2c_queued - h2c_done < h2c->buffer_count()) {
            PDT_CHECK(submit_pattern_message(*h2c, pat, sent, length_of(sent), word));
            ++sent, ++h2c_queued;
        }
        if (h2c_done < h2c_queued && PDT_TRY(h2c->poll()))
            ++h2c_done;
        auto piece = PDT_TRY(streams::wait_loopback(*h2c, *c2h, std::chrono::milliseconds(options_timeout)));
        ++descriptors;
        const uint64_t expected = std::min(kCreditPage, length_of(message) - in_message);
        const bool eop = in_message + expected == length_of(message);
        const std::string where = "message " + std::to_string(message) + " byte " + std::to_string(in_message);
        if (piece.length != expected || piece.end_of_packet != eop)
            return pdt::make_error("receive", c2h->name(), EIO,
                                   where + ": length " + std::to_string(piece.length) + " EOP " +
                                       std::to_string(piece.end_of_packet) + ", expected length " +
                                       std::to_string(expected) + " EOP " + std::to_string(eop));
        const pattern::Mismatch m =
            pat.verify(reinterpret_cast<const uint32_t*>(c2h->buffer(piece.buffer)), piece.length / 4, rx_word);
        if (!m.ok())
            return pdt::make_error("receive", c2h->name(), EIO, where + ": " + m.describe(rx_word));
        rx_word += piece.length / 4;
        in_message += piece.length;
        if (eop)
            ++message, in_message = 0;
        PDT_CHECK(c2h->submit(piece.buffer, kCreditPage, false));
    }
    (void)h2c->stop();
    (void)c2h->stop();
    std::fprintf(out, "Successfully sent %" PRIu64 " messages from Ch%u->%u with a total of %" PRIu64
                      " 32-bit words in %" PRIu64 " descriptors\n",
                 messages, route.h2c, route.c2h, rx_word, descriptors);
    return rx_word * 4;
}

}  // namespace

namespace {

ChannelResult credits_result(const identify::IdentifiedDesign& design) {
    ChannelResult result;
    result.device = design.identity.address.to_string();
    result.design = design.design->name;
    result.test = "descriptor_credits";
    return result;
}

ChannelResult failed(ChannelResult result, const pdt::Error& error) {
    result.failure = error.message();
    return result;
}

ChannelResult with_outcome(ChannelResult result, const pdt::Result<uint64_t>& outcome) {
    if (outcome.ok())
        result.bytes_verified = *outcome;
    else
        result.failure = outcome.error().message();
    return result;
}

// One route, as the design's card function needs: loopback messages, CRC64 messages, or the
// fixed-data sink and source (descriptor_credits_crc64_fixed_data.cpp).
pdt::Result<uint64_t> route_credits(adapters::XdmaStreamDevice& device, const streams::LoopRoute& route, const CreditsOptions& options,
                                    std::FILE* out) {
    switch (device.card_function()) {
    case streams::CardFunction::Crc64: return crc64_stream_credits(device, route, options.timeout, out);
    case streams::CardFunction::FixedData: return fixed_data_stream_credits(device, route, options.timeout, out);
    case streams::CardFunction::Loopback: break;
    case streams::CardFunction::Generated:
        return pdt::usage_error("descriptor credits", device.address().to_string(),
                                "card-generated data is not a function of an XDMA stream design");
    }
    return stream_credits(device, route, options.timeout.count(), out);
}

// Every result of one design: the register test's failure, the memory rings, or each route.
std::vector<ChannelResult> test_design(identify::IdentifiedDesign& design, const CreditsOptions& options,
                                       std::FILE* out) {
    ChannelResult base = credits_result(design);
    const unsigned h2c = design.dma_bridge->num_h2c(), c2h = design.dma_bridge->num_c2h();
    if (h2c == 0 || c2h == 0) {
        ChannelResult result = base;
        result.failure = "num_h2c_channels=" + std::to_string(h2c) + " num_c2h_channels=" + std::to_string(c2h) +
                         ": no H2C x C2H channel pair to test";
        return {result};
    }
    if (auto credits = require_descriptor_credits(*design.device, design.dma_bridge->bar, adapters::ip_options(design));
        !credits.ok())
        return {failed(base, credits.error())};
    if (auto registers = credit_register_test(*design.device, design.dma_bridge->bar); !registers.ok())
        return {failed(base, registers.error())};
    const auto modes = adapters::describe_engine_modes(design, {xdma::EngineModeRequest::Credits, options.modes.completion});
    if (!modes.ok())
        return {failed(base, cli::name_xdma_mode_options(modes.error()))};
    std::fprintf(out, "%s\n", modes->line.c_str());
    base.engines = modes->choice;
    if (design.dma_bridge->mode == designs::DmaMode::MemoryMapped) {
        ChannelResult result = base;
        result.h2c = result.c2h = 0;
        if (auto bm = design.device->enable_bus_master(); !bm.ok())
            return {failed(result, bm.error())};
        return {with_outcome(result, memory_credits(design, options, out))};
    }
    adapters::OpenOptions open;
    open.routing = options.routing;
    open.timeout = options.timeout;
    open.dma_mask_bits = options.dma_mask_bits;
    open.modes = options.modes;
    open.modes.mode = xdma::EngineModeRequest::Credits;
    auto device = adapters::make_xdma_stream_device(std::move(design), open);
    if (!device.ok())
        return {failed(base, device.error())};
    if ((*device)->routes().empty()) {
        ChannelResult result = base;
        result.failure = "no loopback route from an H2C to a C2H channel: the credit rings have nothing they can verify";
        return {result};
    }
    std::vector<ChannelResult> results;
    for (const streams::LoopRoute& route : (*device)->routes()) {
        if (stop_requested())
            break;
        ChannelResult result = base;
        result.h2c = route.h2c;
        result.c2h = route.c2h;
        results.push_back(with_outcome(result, route_credits(**device, route, options, out)));
    }
    return results;
}

}  // namespace

int run_descriptor_credits(std::vector<identify::IdentifiedDesign>& designs, const CreditsOptions& options,
                           std::FILE* out) {
    const VerdictOutput verdict{options.json ? stderr : out, options.json ? out : nullptr};
    std::vector<ChannelResult> results;
    (void)stop_on_sigint();  // Ctrl-C or SIGTERM: the rings stop, with proof, and the run fails naming it
    for (identify::IdentifiedDesign& design : designs) {
        if (!design.dma_bridge || !design.device || stop_requested())
            continue;
        const std::string bdf = design.identity.address.to_string();
        std::fprintf(verdict.text, "Testing %s design PCI device %s\n", design.design->text_name().c_str(), bdf.c_str());
        bool passed = true;
        for (const ChannelResult& result : test_design(design, options, verdict.text)) {
            if (result.failure)
                std::fprintf(verdict.text, "%s %s\n", bdf.c_str(), result.failure->c_str());
            passed = passed && !result.failure && result.bytes_verified > 0;
            results.push_back(result);
        }
        std::fprintf(verdict.text, "Test: %s\n", passed ? "PASS" : "FAIL");
        std::fflush(verdict.text);
    }
    if (results.empty())
        return report_nothing_tested("No design with a DMA bridge was tested", verdict);
    return report_verdict(results, verdict);
}

}  // namespace stream_tools
