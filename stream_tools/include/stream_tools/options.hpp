// Option values shared by the stream tools, parsed strictly: fpga_sio's spellings, numbers in
// C notation (0x.. hex, 0.. octal, else decimal, as strtoul base 0 reads them), no junk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/numbers.hpp"
#include "base/result.hpp"
#include "streams/stream_device.hpp"
#include "tool_support/switch_routes.hpp"
#include "vfio_access/pci_address.hpp"

namespace stream_tools {

// The base's number parsers (base/numbers.hpp), by the names the stream tools use.
using pdt::parse_number;
using pdt::parse_seconds;

// "<bdf>,<channel>" (--stream_device, --h2c_stream_device, --c2h_stream_device).
struct ChannelSelector {
    vfio::PciAddress address;
    unsigned channel = 0;
};
pdt::Result<ChannelSelector> parse_channel_selector(const std::string& option, const std::string& text);

// --device_routing (tool_support/switch_routes.hpp), by the names the stream tools use.
using tool_support::DeviceRouting;
using tool_support::parse_device_routing;
using tool_support::SwitchRoute;

// --host_memory_limit: "" is default_host_memory_limit(), else a number of bytes >= 4096.
pdt::Result<uint64_t> parse_host_memory_limit(const std::string& text);
// Half of this machine's physical memory.
uint64_t default_host_memory_limit();
// "<h2c>[,<c2h>]" (test_dma_bridge's --stream_mapping_size, --stream_num_descriptors,
// --transfer_length): one value for both directions, or one each.
pdt::Result<std::pair<uint64_t, uint64_t>> parse_number_pair(const std::string& option, const std::string& text,
                                                             uint64_t min, uint64_t max);

// --buffer_allocation heap|shared_memory|huge_pages.
pdt::Result<streams::BufferAllocation> parse_buffer_allocation(const std::string& text);

}  // namespace stream_tools
