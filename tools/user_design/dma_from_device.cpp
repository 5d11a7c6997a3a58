// dma_from_device (dma_ip_drivers' name): a range of a card's memory to a file, or standard
// output, by DMA from user space through vfio-pci, with no kernel module: the memory-mapped
// engines of an XDMA design or the memory-mapped queues of a QDMA design
// (adapters/design_memory.hpp), a --sim_design design or a --device. Each transfer lands in a
// host buffer filled with 0xa5 first. With --file - the report goes to standard error. Exit
// status: 0 copied, 1 a device failed or the file could not be written, 2 usage error.
#include <cstdio>
#include <iostream>

#include "card_memory_tool.hpp"
#include "cli/command_line.hpp"
#include "user_design/file_data.hpp"

namespace po = boost::program_options;

namespace {

std::optional<int> parse_from_device_options(int argc, char** argv, user_design_tool::CardToolOptions& o) {
    po::options_description desc("Options");
    cli::add_help_and_version(desc);
    desc.add_options()("file,f", po::value(&o.file),
                       "the file the card's bytes go to, created or truncated; - writes standard output (required)");
    user_design_tool::add_card_options(desc, o);
    return cli::parse_fpga_sio_command_line(
        argc, argv, desc,
        "Copies --size bytes of the card memory of an XDMA or QDMA design to a file (or standard output) by DMA, "
        "with no kernel module; with --count, each transfer's bytes are appended.");
}

// The copy of the checked command line; the exit status.
int receive_file(const user_design_tool::CardToolOptions& o, const user_design_tool::CardRequest& request,
                 tool_support::CheckedUsage checked) {
    auto memory = user_design_tool::open_card_memory(std::move(checked), o.no_iommu);
    if (!memory)
        return user_design_tool::fail(memory.error());
    auto range = user_design_tool::requested_range(*memory, request, request.size);
    if (!range)
        return user_design_tool::fail(range.error());
    // The file only once the range is known to be on the card: a refused range truncates nothing.
    auto sink = user_design::FileSink::open(o.file);
    if (!sink)
        return user_design_tool::fail(sink.error());
    auto times = user_design::copy_from_card(*memory->endpoint, *sink, *range, request.count, request.timeout);
    if (!times)
        return user_design_tool::fail(times.error());
    const uint64_t address = memory->memory_base + range->offset;
    const user_design_tool::CopyReport report{"dma_from_device", "from", sink->name(), 0, address, *times};
    std::ostream& out = o.file == user_design::kStandardStream ? std::cerr : std::cout;
    if (o.json)
        out << "{" << user_design_tool::copy_json_fields(*memory, report) << "}\n";
    else
        user_design_tool::print_copy(out, *memory, report, o.verbose);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    user_design_tool::CardToolOptions o;
    if (auto status = parse_from_device_options(argc, argv, o))
        return *status;
    user_design_tool::CardRequest request;
    auto error = user_design_tool::parse_card_request(o, true, request);
    if (!error && o.file.empty())
        error = "--file is required (- writes standard output)";
    auto checked = tool_support::checked_usage(error, o, o.lock_timeout);
    if (!checked)
        return 2;
    return receive_file(o, request, std::move(*checked));
}
