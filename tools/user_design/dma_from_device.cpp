// dma_from_device (dma_ip_drivers' name): a range of a card's memory to a file, or standard
// output, by DMA from user space through vfio-pci, with no kernel module: the memory-mapped
// engines of an XDMA design or the memory-mapped queues of a QDMA design
// (adapters/design_memory.hpp), a --sim_design design or a --device. Each transfer lands in a
// host buffer filled with 0xa5 first. --verify reads each chunk a second time into a buffer
// holding the complement of what the first read brought: a byte that differs was not moved, and
// the copy stops before its chunk reaches the file. With --file - the report goes to standard
// error. Exit status: 0 copied (and verified), 1 a device failed, the file could not be written
// or a second read differs, 2 usage error.
#include <iostream>

#include "base/format.hpp"
#include "card_memory_tool.hpp"
#include "user_design/file_data.hpp"

namespace po = boost::program_options;

namespace {

// What --help says the tool does.
constexpr const char* kSummary =
    "Copies --size bytes of the card memory of an XDMA or QDMA design to a file (or standard "
    "output) by DMA, with no kernel module; with --count, each transfer's bytes are appended.";

struct FromDeviceOptions : user_design_tool::CardToolOptions {
    bool verify = false;
};

struct FromDeviceRequest : user_design_tool::CardRequest {
    bool verify = false;
};

void add_from_device_file_option(po::options_description& desc, FromDeviceOptions& o) {
    desc.add_options()("file,f", po::value(&o.file),
                       "the file the card's bytes go to, created or truncated; - writes standard output (required)")(
        "verify", po::bool_switch(&o.verify),
        "read each chunk again into a buffer holding the complement of the first read's bytes, and fail on a "
        "byte that differs (a byte the device did not move)");
}

std::optional<std::string> parse_from_device_request(const FromDeviceOptions& o, FromDeviceRequest& request) {
    auto error = user_design_tool::parse_card_request(o, true, request);
    if (!error && o.file.empty())
        error = "--file is required (- writes standard output)";
    request.verify = o.verify;
    return error;
}

std::string verify_line(const std::optional<user_design::Difference>& unmoved, uint64_t bytes, uint64_t address) {
    if (!unmoved)
        return "Verify: PASS: each of the " + std::to_string(bytes) + " bytes from card address " + pdt::hex(address) +
               " came back the same when read again into a buffer holding its complement\n";
    return "Verify: FAIL: a second read differs at offset " + pdt::hex(unmoved->offset) + " (card address " +
           pdt::hex(address + unmoved->offset) + "): first read " + pdt::format("0x%02x", unmoved->expected) +
           ", second read " + pdt::format("0x%02x", unmoved->found) + "; " + std::to_string(unmoved->differing_bytes) +
           " bytes of that chunk differ: the device did not move them; the file holds only the chunks before it\n";
}

std::string verify_json(const std::optional<user_design::Difference>& unmoved) {
    if (!unmoved)
        return ", \"verify\": {\"result\": \"pass\"}";
    return ", \"verify\": {\"result\": \"fail\", \"offset\": " + std::to_string(unmoved->offset) +
           ", \"first_read\": " + std::to_string(unmoved->expected) + ", \"second_read\": " +
           std::to_string(unmoved->found) + ", \"differing_bytes\": " + std::to_string(unmoved->differing_bytes) + "}";
}

// The copy of the checked command line; the exit status.
int receive_file(tool_support::CheckedUsage checked, const FromDeviceRequest& request) {
    auto card = user_design_tool::open_card_range(std::move(checked), request, request.size);
    if (!card)
        return user_design_tool::fail(card.error());
    const adapters::DesignMemory& memory = card->memory;
    // The file only once the range is known to be on the card: a refused range truncates nothing.
    auto sink = user_design::FileSink::open(request.file);
    if (!sink)
        return user_design_tool::fail(sink.error());
    // The IP's counts would take in --verify's second reads with the copy's: only without it.
    const bool counted = !request.verify && memory.endpoint->start_ip_counts();
    std::optional<user_design::Difference> unmoved;
    auto times = user_design::copy_from_card(*memory.endpoint, *sink, card->range, request.count, request.timeout,
                                             request.verify ? &unmoved : nullptr);
    if (!times)
        return user_design_tool::fail(times.error());
    const uint64_t address = memory.memory_base + card->range.offset;
    const user_design_tool::CopyReport report{"dma_from_device", "from", sink->name(), 0, address, *times,
                                              counted ? memory.endpoint->ip_counts() : std::vector<std::string>{}};
    const bool copied = !times->repetitions.empty();  // none when the first repetition failed its check
    std::ostream& out = request.file == user_design::kStandardStream ? std::cerr : std::cout;
    if (request.json) {
        out << "{" << (copied ? user_design_tool::copy_json_fields(memory, report) : "\"tool\": \"dma_from_device\"")
            << (request.verify ? verify_json(unmoved) : "") << "}\n";
    } else {
        if (copied)
            user_design_tool::print_copy(out, memory, report, request.verbose);
        if (request.verify)
            out << verify_line(unmoved, card->range.bytes, address);
    }
    return unmoved ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    return user_design_tool::card_tool_main(argc, argv, kSummary, add_from_device_file_option, parse_from_device_request,
                                            receive_file);
}
