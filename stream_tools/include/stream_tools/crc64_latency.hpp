// The body of crc64_stream_latency: on every CRC64 stream design (dma_bridge.stream_function
// "crc64"), per enabled route, the round-trip latency of one H2C packet and its 8-byte CRC64
// result, for packet lengths from the tdata width doubling up to max_packet_bytes, as fpga_sio's
// tool measures it: one descriptor each way, the C2H one queued first, the time from queueing
// to both completions. Each sample's CRC is checked against the CRC-64 of the packet (64-bit
// LCG words, continuing from one packet length to the next); the first sample of a length is
// not counted (cold caches). Percentiles are nearest-rank on the sorted samples.
#pragma once

#include <chrono>
#include <cstdio>
#include <vector>

#include "streams/stream_device.hpp"

namespace stream_tools {

struct LatencyOptions {
    uint64_t max_packet_bytes = 1024 * 1024;  // fpga_sio's largest
    uint64_t samples = 100000;                // fpga_sio's count per length
    std::chrono::milliseconds timeout{60000};
    bool json = false;
};

inline constexpr double kLatencyPercentiles[] = {50.0, 75.0, 99.0, 99.999};

// Nearest rank: the smallest sample with at least p % of the samples at or below it.
double percentile(const std::vector<double>& sorted, double p);

// Prints fpga_sio's lines (or JSON Lines); returns the exit status: 0 when every sample of
// every length on every CRC64 route was verified, 1 on a failure or when nothing was tested.
int run_crc64_latency(const std::vector<streams::StreamDevice*>& devices, const LatencyOptions& options, std::FILE* out);

}  // namespace stream_tools
