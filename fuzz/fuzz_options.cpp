// Option value parsers of the stream tools (stream_tools/src/options.cpp) and of the
// DMA mode options (dma_bridge xdma_ip.cpp). The first byte picks the parser, the rest is the
// value. Properties: every error names its option; values respect the bounds asked for.
#include "dma_bridge/xdma_ip.hpp"
#include "fuzz_support.hpp"
#include "stream_tools/options.hpp"

namespace {

template <typename T>
void expect_names(const pdt::Result<T>& result, const std::string& option) {
    if (!result)
        PDT_FUZZ_CHECK(result.error().message().find(option) != std::string::npos);
}

// A DMA mode option: a refusal names `option`; a value it takes reads back as itself.
template <typename T>
void expect_round_trip(const pdt::Result<T>& result, const std::string& value, const std::string& option) {
    expect_names(result, option);
    if (result)
        PDT_FUZZ_CHECK(value == xdma::to_string(*result));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    const std::string value = pdt_fuzz::text(data + 1, size - 1);
    switch (data[0] % 9) {
    case 0: {
        const auto n = stream_tools::parse_number("--count", value, 1, 1000000);
        expect_names(n, "--count");
        if (n)
            PDT_FUZZ_CHECK(*n >= 1 && *n <= 1000000);
        break;
    }
    case 1: {
        const auto s = stream_tools::parse_seconds("--duration", value);
        expect_names(s, "--duration");
        if (s)
            PDT_FUZZ_CHECK(*s > 0);
        break;
    }
    case 2: {
        const auto c = stream_tools::parse_channel_selector("--stream_device", value);
        expect_names(c, "--stream_device");
        break;
    }
    case 3: {
        const auto r = stream_tools::parse_device_routing("--device_routing", value);
        expect_names(r, "--device_routing");
        break;
    }
    case 4: {
        if (value.empty())
            break;  // "" reads the machine's memory size: not a parse
        const auto m = stream_tools::parse_host_memory_limit(value);
        if (m)
            PDT_FUZZ_CHECK(*m >= 4096);
        break;
    }
    case 5: {
        const auto p = stream_tools::parse_number_pair("--transfer_length", value, 1, 1u << 28);
        expect_names(p, "--transfer_length");
        if (p)
            PDT_FUZZ_CHECK(p->first >= 1 && p->first <= (1u << 28) && p->second >= 1 && p->second <= (1u << 28));
        break;
    }
    case 6:
        (void)stream_tools::parse_buffer_allocation(value);
        break;
    case 7:
        expect_round_trip(pdt::parse_spelling("engine_mode", value, xdma::kEngineModeSpellings), value, "engine_mode");
        break;
    case 8:
        expect_round_trip(pdt::parse_spelling("completion", value, xdma::kCompletionSpellings), value, "completion");
        break;
    }
    return 0;
}
