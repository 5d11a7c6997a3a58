// The bodies of test_dma_bridge_parallel_streams and test_dma_bridge_independent_streams,
// written against streams::StreamDevice so the mains only parse options and pick a bus.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "stream_test/driver.hpp"
#include "stream_tools/options.hpp"
#include "streams/stream_device.hpp"
#include "tool_support/board_health.hpp"

namespace stream_tools {

// Watches something while the streams run (on the kernel bus: the link of each device and its
// port, stream_tools/link_watch.hpp). Started just before the first transfer, stopped once
// every channel has drained; its lines print (text mode) before "Overall test statistics:".
class LoadWatcher {
public:
    virtual ~LoadWatcher() = default;
    virtual void start() = 0;
    virtual std::vector<std::string> stop() = 0;
};

struct StreamRunOptions {
    size_t num_descriptors = 64;           // --stream_num_descriptors
    uint64_t mapping_size = 0x40000000;    // --stream_mapping_size, bytes per direction per channel
    streams::BufferAllocation allocation = streams::BufferAllocation::Heap;
    unsigned verify_threads = 0;           // pattern worker threads besides the channel threads
    bool json = false;
    uint64_t host_memory_limit = 0;        // --host_memory_limit: host buffer bytes at most (0: none)
    unsigned dma_mask_bits = 64;           // --a32: 32
    uint32_t qdma_ring_entries = 0;        // --qdma_ring_entries (QDMA stream queues; 0: as the buffers need)
    stream_test::Options test;             // timeouts, report interval, duration, stop flag
    LoadWatcher* watcher = nullptr;        // null: nothing watched (simulated bus)
    // The designs' sensors beside each rate line, --max_temperature and --metrics; null: none.
    tool_support::BoardHealth* health = nullptr;
    std::string sysfs_root = "/sys";       // the devices' NUMA node (tests pass another; empty: not placed)
};

// Every enabled route of every device (or those --stream_device selects) as a loopback pair.
// Prints fpga_sio's lines (or JSON Lines) to out; returns the exit code (0 PASS, 1 FAIL).
int run_parallel_streams(const std::vector<streams::StreamDevice*>& devices, const std::vector<ChannelSelector>& selectors,
                         const StreamRunOptions& options, std::FILE* out);

// Every H2C and C2H channel as an independent stream (or those selected). Each C2H channel
// is verified against the H2C channel routed to it when that channel is under test.
int run_independent_streams(const std::vector<streams::StreamDevice*>& devices, const std::vector<ChannelSelector>& h2c,
                            const std::vector<ChannelSelector>& c2h, const StreamRunOptions& options,
                            std::FILE* out);

// SIGINT or SIGTERM sets the returned flag (first Ctrl-C: stop, drain, report: the engines stop
// and are proven stopped before their buffers go); a second one kills.
const std::atomic<bool>* stop_on_sigint();
// A second reason to stop: `tripped` (the board health's trip, --max_temperature) once set.
void stop_on_trip(const std::atomic<bool>* tripped);
// Whether either is set; test_dma_bridge's memory-mapped copies (CardDma), the credit rings and
// crc64_stream_latency's samples end with stopped_early(object) once it is, so that their
// engines are stopped on the usual error path. Its message names which stop it was.
bool stop_requested();
pdt::Error stopped_early(const std::string& object);

}  // namespace stream_tools
