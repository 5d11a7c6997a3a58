// The subcommands of pcie_link_measure as library functions, each on a CopyEndpoint&. Every
// one verifies what it timed (the pattern written and read back); a failed check is an error
// (EIO, "data check") and the caller reports no rate for it. `bytes_verified` grows by the
// bytes compared.
#pragma once

#include <vector>

#include "measure/copying.hpp"
#include "measure/progress.hpp"
#include "measure/results.hpp"

namespace measure {

struct SweepSettings {
    uint64_t min_bytes = 4096, max_bytes = 256ull << 20;  // doubling
    unsigned repeats = 5;
    unsigned iterations = 0;  // copies per size per run; 0: 64 MiB worth, 5 to 50
    bool staged = true;       // also the staged path (memcpy through a bounce buffer)
    uint64_t staged_chunk = 0;  // the staged pipeline's chunk (a multiple of 64); 0: from the measured curve
    unsigned staged_depth = 0;  // its bounce slots; 0: 4, within the endpoint's copies in flight
    unsigned staged_threads = 0;  // threads sharing its host copies; 0: default_staged_threads()
    // After each run, a host memcpy (the reference, A) beside the run's copies (B): when the
    // reference's runs spread by more than this, (max - min) / median, the host was disturbed
    // and the sweep says its rates are not the device's (F20).
    double disturbed_bound = 0.10;
};
// Sizes above the endpoint's card window (info().card_memory_bytes, its limit) are left out with
// a warning; when none fits, the window's size is measured instead, with a warning.
pdt::Result<SweepResult> run_sweep(CopyEndpoint& endpoint, const SweepSettings& settings,
                                   const CommonSettings& common, Progress& progress, uint64_t& bytes_verified,
                                   std::vector<std::string>& warnings);
// The sizes, rates and staged model of a sweep from its points (used by run_sweep; public for tests).
void summarise_sweep(SweepResult& sweep);
// Bytes per second of memcpy between two host buffers, the median of `runs`.
double measure_memcpy_gbps(uint8_t* to, const uint8_t* from, uint64_t bytes, unsigned runs);

struct LatencySettings {
    uint64_t bytes = 4096;
    unsigned samples = 200;   // per direction and mode
    double max_gap_us = 1000; // idle gap drawn uniformly from [0, max_gap_us]
};
// A copy size above the endpoint's card window is clamped to the window, with a warning.
pdt::Result<LatencyResult> run_latency(CopyEndpoint& endpoint, const LatencySettings& settings,
                                       const CommonSettings& common, Progress& progress, uint64_t& bytes_verified,
                                       std::vector<std::string>& warnings);

struct AccessSettings {
    Direction direction = Direction::H2C;
    std::vector<uint64_t> sizes;    // empty: 64 B to 2 KiB by powers of two, and one byte either side
    std::vector<uint64_t> offsets;  // a point per offset; empty: one point, transfer i at offset (41 i) mod 64
    std::vector<uint64_t> windows;  // empty: 4 KiB to 64 MiB, doubling
    std::vector<std::string> patterns = {"sequential", "random"};
    std::vector<std::string> caches = {"warm", "cold"};
    std::vector<HostMemory> memories = {HostMemory::Registered, HostMemory::RegisteredHugePages};
    unsigned transfers = 256;  // per point, timed in 8 batches: the median batch's rate; every
                               // transfer's bytes checked (a card region each: transfers x size fit the card)
};
std::vector<uint64_t> default_access_sizes();
pdt::Result<AccessResult> run_access(CopyEndpoint& endpoint, const AccessSettings& settings,
                                     const CommonSettings& common, Progress& progress, uint64_t& bytes_verified,
                                     std::vector<std::string>& warnings);

struct InflightSettings {
    std::vector<uint64_t> sizes = {1ull << 20, 4ull << 20, 16ull << 20, 64ull << 20};
    unsigned repeats = 5;
    unsigned tries = 3;  // per way per run: the run's figure is their median
};
pdt::Result<InflightResult> run_inflight(CopyEndpoint& endpoint, const InflightSettings& settings,
                                         const CommonSettings& common, Progress& progress, uint64_t& bytes_verified,
                                         std::vector<std::string>& warnings);

struct BidirSettings {
    uint64_t bytes = 64ull << 20;
    unsigned repeats = 5, copies = 4;  // copies per direction per repeat; a run's rate is its median copy's
};
pdt::Result<BidirResult> run_bidir(CopyEndpoint& endpoint, const BidirSettings& settings,
                                   const CommonSettings& common, Progress& progress, uint64_t& bytes_verified);

struct LaunchSettings {
    unsigned samples = 50, queued = 100, repeats = 5;
    unsigned tries = 3;  // queued batches per run: the run's figure is their median
};
// ENOTSUP when the endpoint runs no code on the card (the caller reports SKIPPED).
pdt::Result<LaunchResult> run_launch(CopyEndpoint& endpoint, const LaunchSettings& settings,
                                     const CommonSettings& common, Progress& progress, uint64_t& bytes_verified);

}  // namespace measure
