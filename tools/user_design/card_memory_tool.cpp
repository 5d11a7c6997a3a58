#include "card_memory_tool.hpp"

#include <iostream>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/numbers.hpp"
#include "cli/option_names.hpp"
#include "tool_support/bar_tool_usage.hpp"

namespace po = boost::program_options;

namespace user_design_tool {
namespace {

// A rate in dma_ip_drivers' unit, MB/s (10^6 bytes a second), from bytes and nanoseconds.
std::string megabytes_per_second(double bytes_per_second) { return pdt::format("%.2f", bytes_per_second / 1e6); }

std::string seconds_text(std::chrono::nanoseconds t) {
    return pdt::format("%lld.%09lld", static_cast<long long>(t.count() / 1000000000),
                       static_cast<long long>(t.count() % 1000000000));
}

// "0000:01:00.0 TEF1001_dma_ddr3 (xdma)".
std::string memory_name(const adapters::DesignMemory& memory) {
    return memory.endpoint->info().name + " (" + memory.adapter + ")";
}

}  // namespace

void add_card_options(po::options_description& options, CardToolOptions& o) {
    options.add_options()(
        "address,a", po::value(&o.address),
        "the card address of the first byte, as the design's card memory counts it (default: its first byte)")(
        "size,s", po::value(&o.size), "bytes of one transfer (4096, 64MiB, 0x1000)")(
        "count,c", po::value(&o.count), "transfers, one after another (default 1)")(
        "verbose,v", po::bool_switch(&o.verbose), "print the time of each transfer");
    cli::add_transfer_timeout_option(options, o.transfer_timeout);
    cli::add_lock_timeout_option(options, o.lock_timeout);
    cli::add_no_iommu_option(options, o.no_iommu);
    cli::add_json_option(options, o.json, cli::JsonForm::Document);
}

std::optional<std::string> parse_card_request(const CardToolOptions& o, bool size_required, CardRequest& request) {
    if (auto unnamed = tool_support::unnamed_device_error(o))
        return unnamed;
    if (o.devices.size() + o.sim_designs.size() > 1)
        return std::string("one card at a time: give one --device or one --sim_design");
    if (size_required && o.size.empty())
        return std::string("--size is required");
    auto address = pdt::parse_number("address", o.address.empty() ? "0" : o.address, 0, UINT64_MAX);
    auto count = pdt::parse_number("count", o.count, 1, 1000000);
    auto timeout = cli::parse_transfer_timeout(o.transfer_timeout);
    if (auto error = tool_support::first_error(address, count, timeout))
        return error;
    if (!o.size.empty()) {
        auto size = pdt::parse_size(o.size);
        if (!size.ok() || *size == 0)
            return "parse option --size \"" + o.size + "\": " + (size.ok() ? "a transfer moves at least one byte" : size.error().hint);
        request.size = *size;
    }
    if (!o.address.empty())
        request.address = *address;
    request.count = static_cast<unsigned>(*count);
    request.timeout = *timeout;
    request.file = o.file;
    request.json = o.json;
    request.verbose = o.verbose;
    request.no_iommu = o.no_iommu;
    return std::nullopt;
}

pdt::Result<CardTarget> open_card_range(tool_support::CheckedUsage checked, const CardRequest& request,
                                        uint64_t bytes) {
    checked.selection.no_iommu = request.no_iommu;
    auto memory = adapters::open_design_memory(std::make_unique<designs::Registry>(std::move(checked.registry)),
                                               checked.selection);
    if (!memory)
        return memory.error();
    auto range = user_design::card_range(memory->endpoint->info(), memory->memory_base,
                                         request.address.value_or(memory->memory_base), bytes);
    if (!range)
        return range.error();
    return CardTarget{std::move(*memory), *range};
}

void print_copy(std::ostream& out, const adapters::DesignMemory& memory, const CopyReport& r, bool verbose) {
    const std::string to_card = r.direction == "to" ? "from " + r.file + " (offset " + pdt::hex(r.file_offset) + ") to card address " + pdt::hex(r.address)
                                                    : "from card address " + pdt::hex(r.address) + " to " + r.file;
    out << r.tool << " " << memory_name(memory) << ": " << r.times.bytes << " bytes " << to_card << ", "
        << r.times.repetitions.size() << (r.times.repetitions.size() == 1 ? " transfer" : " transfers") << "\n";
    if (verbose)
        for (size_t i = 0; i < r.times.repetitions.size(); ++i)
            out << "#" << i << ": " << seconds_text(r.times.repetitions[i]) << " s, " << r.times.bytes << " bytes\n";
    const auto average = r.times.total() / static_cast<long long>(r.times.repetitions.size());
    out << "Average: " << r.times.bytes << " bytes in " << seconds_text(average) << " s per transfer, "
        << megabytes_per_second(r.times.bytes_per_second()) << " MB/s (10^6 bytes a second; " << r.times.bytes
        << " x " << r.times.repetitions.size() << " bytes in " << seconds_text(r.times.total()) << " s)\n";
    for (const std::string& line : r.ip_counts)
        out << "IP: " << line << "\n";
}

std::string copy_json_fields(const adapters::DesignMemory& memory, const CopyReport& r) {
    std::string seconds;
    for (std::chrono::nanoseconds t : r.times.repetitions)
        seconds += (seconds.empty() ? "" : ", ") + seconds_text(t);
    return "\"tool\": " + pdt::json_quote(r.tool) + ", \"card\": " + pdt::json_quote(memory.endpoint->info().name) +
           ", \"adapter\": " + pdt::json_quote(memory.adapter) + ", \"file\": " + pdt::json_quote(r.file) +
           ", \"file_offset\": " + std::to_string(r.file_offset) + ", \"address\": " + std::to_string(r.address) +
           ", \"bytes\": " + std::to_string(r.times.bytes) + ", \"count\": " + std::to_string(r.times.repetitions.size()) +
           ", \"seconds\": [" + seconds + "], \"total_seconds\": " + seconds_text(r.times.total()) +
           ", \"bytes_per_second\": " + pdt::format("%.0f", r.times.bytes_per_second()) +
           ", \"ip_counts\": " + pdt::json_list(r.ip_counts);
}

int fail(const pdt::Error& error) {
    std::cerr << "Error: " << cli::name_options(error).message() << "\n";
    return error.usage ? 2 : 1;
}

}  // namespace user_design_tool
