#include "stream_tools/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unistd.h>

#include "base/option_error.hpp"
#include "base/spellings.hpp"

namespace stream_tools {
pdt::Result<ChannelSelector> parse_channel_selector(const std::string& option, const std::string& text) {
    const auto comma = text.find(',');
    if (comma == std::string::npos)
        return pdt::option_error(option, text, "expected <domain>:<bus>:<dev>.<func>,<channel>");
    auto address = vfio::PciAddress::parse(text.substr(0, comma));
    if (!address.ok())
        return pdt::option_error(option, text, address.error().message());
    const uint64_t channel = PDT_TRY(parse_number(option, text.substr(comma + 1), 0, 3));
    return ChannelSelector{*address, static_cast<unsigned>(channel)};
}

pdt::Result<uint64_t> parse_host_memory_limit(const std::string& text) {
    if (text.empty())
        return default_host_memory_limit();
    return parse_number("host_memory_limit", text, 4096, ~uint64_t{0});
}

uint64_t default_host_memory_limit() {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0)
        return uint64_t{1} << 31;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2;
}

pdt::Result<std::pair<uint64_t, uint64_t>> parse_number_pair(const std::string& option, const std::string& text,
                                                             uint64_t min, uint64_t max) {
    const auto comma = text.find(',');
    const uint64_t h2c = PDT_TRY(parse_number(option, text.substr(0, comma), min, max));
    if (comma == std::string::npos)
        return std::pair{h2c, h2c};
    const uint64_t c2h = PDT_TRY(parse_number(option, text.substr(comma + 1), min, max));
    return std::pair{h2c, c2h};
}

pdt::Result<streams::BufferAllocation> parse_buffer_allocation(const std::string& text) {
    using streams::BufferAllocation;
    static constexpr pdt::Spelling<BufferAllocation> kAllocations[] = {
        {BufferAllocation::Heap, "heap"}, {BufferAllocation::SharedMemory, "shared_memory"},
        {BufferAllocation::HugePages, "huge_pages"}};
    return pdt::parse_spelling("buffer_allocation", text, kAllocations);
}

}  // namespace stream_tools
