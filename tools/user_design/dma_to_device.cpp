// dma_to_device (dma_ip_drivers' name): a file, or standard input, to a card's memory by DMA from
// user space through vfio-pci, with no kernel module: the memory-mapped engines of an XDMA design
// or the memory-mapped queues of a QDMA design (adapters/design_memory.hpp), a --sim_design
// design or a --device. --verify reads the card's range back and compares it with the file,
// naming the first differing byte; before the copy the range gets the complement of the file, so
// that a copy that moved nothing cannot verify. Exit status: 0 copied (and verified), 1 a device
// failed, a file could not be read or the read-back differs, 2 usage error.
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

std::string verify_line(const std::optional<Difference>& differs, uint64_t bytes, uint64_t address,
                        uint64_t file_offset) {
    if (!differs)
        return "Verify: PASS: the " + std::to_string(bytes) + " bytes read back from card address " + pdt::hex(address) +
               " match the file\n";
    return "Verify: FAIL: first difference at offset " + pdt::hex(differs->offset) + " (file byte " +
           pdt::hex(file_offset + differs->offset) + ", card address " + pdt::hex(address + differs->offset) +
           "): read " + pdt::format("0x%02x", differs->found) + ", expected " + pdt::format("0x%02x", differs->expected) +
           "; " + std::to_string(differs->differing_bytes) + " of " + std::to_string(bytes) + " bytes differ\n";
}

std::string verify_json(const std::optional<Difference>& differs, uint64_t address) {
    if (!differs)
        return ", \"verify\": {\"result\": \"pass\"}";
    return ", \"verify\": {\"result\": \"fail\", \"offset\": " + std::to_string(differs->offset) +
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
    if (request.verify)
        if (auto decoy = user_design::write_decoy(endpoint, *data, range, request.timeout); !decoy.ok())
            return user_design_tool::fail(decoy.error());
    // The IP's counts cover the copy alone: armed after the decoy, read before the check.
    const bool counted = endpoint.start_ip_counts();
    auto times = user_design::copy_to_card(endpoint, *data, range, request.count, request.timeout);
    if (!times)
        return user_design_tool::fail(times.error());
    const uint64_t address = memory.memory_base + range.offset;
    const user_design_tool::CopyReport report{"dma_to_device", "to", data->name(), request.file_offset,
                                              address, *times,
                                              counted ? endpoint.ip_counts() : std::vector<std::string>{}};
    std::optional<Difference> differs;
    if (request.verify) {
        auto compared = user_design::compare_card(endpoint, *data, range, request.timeout);
        if (!compared)
            return user_design_tool::fail(compared.error());
        differs = *compared;
    }
    if (request.json) {
        std::cout << "{" << user_design_tool::copy_json_fields(memory, report)
                  << (request.verify ? verify_json(differs, address) : "") << "}\n";
    } else {
        user_design_tool::print_copy(std::cout, memory, report, request.verbose);
        if (request.verify)
            std::cout << verify_line(differs, range.bytes, address, request.file_offset);
    }
    return differs ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    return user_design_tool::card_tool_main(argc, argv, kSummary, add_to_device_file_options, parse_to_device_request,
                                            send_file);
}
