// dma_from_device (dma_ip_drivers' name): a range of a card's memory to a file, or standard
// output, by DMA from user space through vfio-pci, with no kernel module: the memory-mapped
// engines of an XDMA design or the memory-mapped queues of a QDMA design
// (adapters/design_memory.hpp), a --sim_design design or a --device. Each transfer lands in a
// host buffer filled with 0xa5 first. With --file - the report goes to standard error. Exit
// status: 0 copied, 1 a device failed or the file could not be written, 2 usage error.
#include <iostream>

#include "card_memory_tool.hpp"
#include "user_design/file_data.hpp"

namespace po = boost::program_options;

namespace {

// What --help says the tool does.
constexpr const char* kSummary =
    "Copies --size bytes of the card memory of an XDMA or QDMA design to a file (or standard "
    "output) by DMA, with no kernel module; with --count, each transfer's bytes are appended.";

void add_from_device_file_option(po::options_description& desc, user_design_tool::CardToolOptions& o) {
    desc.add_options()("file,f", po::value(&o.file),
                       "the file the card's bytes go to, created or truncated; - writes standard output (required)");
}

std::optional<std::string> parse_from_device_request(const user_design_tool::CardToolOptions& o,
                                                     user_design_tool::CardRequest& request) {
    auto error = user_design_tool::parse_card_request(o, true, request);
    if (!error && o.file.empty())
        error = "--file is required (- writes standard output)";
    return error;
}

// The copy of the checked command line; the exit status.
int receive_file(tool_support::CheckedUsage checked, const user_design_tool::CardRequest& request) {
    auto card = user_design_tool::open_card_range(std::move(checked), request, request.size);
    if (!card)
        return user_design_tool::fail(card.error());
    const adapters::DesignMemory& memory = card->memory;
    // The file only once the range is known to be on the card: a refused range truncates nothing.
    auto sink = user_design::FileSink::open(request.file);
    if (!sink)
        return user_design_tool::fail(sink.error());
    const bool counted = memory.endpoint->start_ip_counts();
    auto times = user_design::copy_from_card(*memory.endpoint, *sink, card->range, request.count, request.timeout);
    if (!times)
        return user_design_tool::fail(times.error());
    const uint64_t address = memory.memory_base + card->range.offset;
    const user_design_tool::CopyReport report{"dma_from_device", "from", sink->name(), 0, address, *times,
                                              counted ? memory.endpoint->ip_counts() : std::vector<std::string>{}};
    std::ostream& out = request.file == user_design::kStandardStream ? std::cerr : std::cout;
    if (request.json)
        out << "{" << user_design_tool::copy_json_fields(memory, report) << "}\n";
    else
        user_design_tool::print_copy(out, memory, report, request.verbose);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return user_design_tool::card_tool_main(argc, argv, kSummary, add_from_device_file_option, parse_from_device_request,
                                            receive_file);
}
