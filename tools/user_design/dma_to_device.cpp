// dma_to_device (dma_ip_drivers' name): a file, or standard input, to a card's memory by DMA from
// user space through vfio-pci, with no kernel module: the memory-mapped engines of an XDMA design
// or the memory-mapped queues of a QDMA design (adapters/design_memory.hpp), a --sim_design
// design or a --device. --verify checks every transfer alone: before each, the range gets the
// complement of the file and is read back to prove it took it; after each, it is read back and
// compared with the file, naming the first differing byte. So a copy that moved nothing, or a
// device that stops moving after some transfers, cannot verify. Exit status: 0 copied (and
// verified), 1 a device failed, a file could not be read or a read-back differs, 2 usage error.
#include <iostream>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "card_memory_tool.hpp"
#include "user_design/file_data.hpp"

namespace po = boost::program_options;

namespace {

using user_design::Difference;

struct ToDeviceOptions : user_design_tool::CardToolOptions {
    std::string file_offset = "0";
    bool verify = false;
};

// What --help says the tool does.
constexpr const char* kSummary =
    "Copies a file (or standard input) to the card memory of an XDMA or QDMA design by DMA, with no "
    "kernel module (--size: default the rest of the file after --offset).";

void add_to_device_file_options(po::options_description& desc, ToDeviceOptions& o) {
    desc.add_options()("file,f", po::value(&o.file), "the file to send; - reads standard input (required)")(
        "offset,o", po::value(&o.file_offset), "bytes of the file skipped before the first byte sent (default 0)")(
        "verify", po::bool_switch(&o.verify),
        "read the card's range back and compare it with the file (the range holds the file's complement "
        "before the copy)");
}

struct ToDeviceRequest : user_design_tool::CardRequest {
    uint64_t file_offset = 0;  // --offset
    bool verify = false;
};

std::optional<std::string> parse_to_device_request(const ToDeviceOptions& o, ToDeviceRequest& request) {
    auto error = user_design_tool::parse_card_request(o, false, request);
    if (!error && o.file.empty())
        error = "--file is required (- reads standard input)";
    auto file_offset = pdt::parse_number("offset", o.file_offset, 0, UINT64_MAX);
    if (!error && !file_offset)
        error = file_offset.error().message();
    if (error)
        return error;
    request.file_offset = *file_offset;
    request.verify = o.verify;
    return std::nullopt;
}

// How --verify ended: every transfer checked, or the first check that failed (of the decoy before a
// copy, or of the copy).
struct Checked {
    std::optional<Difference> differs;
    bool decoy = false;      // the difference is the decoy's: the card did not take it
    unsigned transfers = 0;  // checked and passed
};

std::string verify_line(const Checked& checked, uint64_t bytes, uint64_t address, uint64_t file_offset) {
    const std::optional<Difference>& differs = checked.differs;
    if (!differs)
        return "Verify: PASS: the " + std::to_string(bytes) + " bytes read back from card address " + pdt::hex(address) +
               " match the file" +
               (checked.transfers > 1 ? " after each of the " + std::to_string(checked.transfers) + " transfers" : "") +
               "\n";
    return std::string("Verify: FAIL: ") +
           (checked.decoy ? "the card did not take the decoy written before the copy (the file's complement, so that "
                            "a copy that moves nothing cannot verify): "
                          : "") +
           "first difference at offset " + pdt::hex(differs->offset) + " (file byte " +
           pdt::hex(file_offset + differs->offset) + ", card address " + pdt::hex(address + differs->offset) +
           "): read " + pdt::format("0x%02x", differs->found) + ", expected " + pdt::format("0x%02x", differs->expected) +
           "; " + std::to_string(differs->differing_bytes) + " of " + std::to_string(bytes) + " bytes differ\n";
}

std::string verify_json(const Checked& checked, uint64_t address) {
    const std::optional<Difference>& differs = checked.differs;
    if (!differs)
        return ", \"verify\": {\"result\": \"pass\", \"transfers\": " + std::to_string(checked.transfers) + "}";
    return ", \"verify\": {\"result\": \"fail\", \"stage\": " + std::string(checked.decoy ? "\"decoy\"" : "\"copy\"") +
           ", \"offset\": " + std::to_string(differs->offset) +
           ", \"card_address\": " + std::to_string(address + differs->offset) + ", \"expected\": " +
           std::to_string(differs->expected) + ", \"found\": " + std::to_string(differs->found) +
           ", \"differing_bytes\": " + std::to_string(differs->differing_bytes) + "}";
}

// The copy (and its check) of the checked command line; the exit status.
int send_file(tool_support::CheckedUsage checked, const ToDeviceRequest& request) {
    // The file first: one that is missing or shorter than --size leaves the card untouched.
    auto data = user_design::FileData::open(request.file, request.file_offset, request.size);
    if (!data)
        return user_design_tool::fail(data.error());
    auto card = user_design_tool::open_card_range(std::move(checked), request, data->size());
    if (!card)
        return user_design_tool::fail(card.error());
    const adapters::DesignMemory& memory = card->memory;
    const user_design::CardRange& range = card->range;
    streams::CopyEndpoint& endpoint = *memory.endpoint;
    const uint64_t address = memory.memory_base + range.offset;
    user_design_tool::CopyReport report{"dma_to_device", "to", data->name(), request.file_offset, address,
                                        {range.bytes, {}}, {}};
    // With --verify each transfer is checked alone: the range takes the file's complement (read back
    // to prove it) before the copy and is read back after it, so that a device that moves nothing,
    // or stops moving after some transfers, fails. The IP's counts cover the copies alone (armed
    // after the decoy, read before the check): with --verify, the last transfer's.
    Checked verified;
    const unsigned rounds = request.verify ? request.count : 1;
    for (unsigned round = 0; round < rounds && !verified.differs; ++round) {
        if (request.verify) {
            auto decoy = user_design::write_decoy(endpoint, *data, range, request.timeout);
            if (!decoy)
                return user_design_tool::fail(decoy.error());
            if ((verified.decoy = decoy->has_value()))
                verified.differs = *decoy;
        }
        if (verified.differs)
            break;
        const bool counted = endpoint.start_ip_counts();
        auto times = user_design::copy_to_card(endpoint, *data, range, request.verify ? 1 : request.count, request.timeout);
        if (!times)
            return user_design_tool::fail(times.error());
        report.times.repetitions.insert(report.times.repetitions.end(), times->repetitions.begin(), times->repetitions.end());
        if (counted)
            report.ip_counts = endpoint.ip_counts();
        if (request.verify) {
            auto compared = user_design::compare_card(endpoint, *data, range, request.timeout);
            if (!compared)
                return user_design_tool::fail(compared.error());
            verified.differs = *compared;
            verified.transfers += verified.differs ? 0 : 1;
        }
    }
    const bool copied = !report.times.repetitions.empty();  // none when the first decoy was not taken
    if (request.json) {
        std::cout << "{" << (copied ? user_design_tool::copy_json_fields(memory, report) : "\"tool\": \"dma_to_device\"")
                  << (request.verify ? verify_json(verified, address) : "") << "}\n";
    } else {
        if (copied)
            user_design_tool::print_copy(std::cout, memory, report, request.verbose);
        if (request.verify)
            std::cout << verify_line(verified, range.bytes, address, request.file_offset);
    }
    return verified.differs ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    return user_design_tool::card_tool_main(argc, argv, kSummary, add_to_device_file_options, parse_to_device_request,
                                            send_file);
}
