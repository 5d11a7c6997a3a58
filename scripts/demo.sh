#!/usr/bin/env bash
# The main job, on simulated designs: installs what building and running needs (not the tests'
# QEMU, Chromium or Prometheus: scripts/install_deps.sh build), builds (Release, build-release/), then
# soak-tests every looped-back DMA stream pair of simulated TEF1001, XCKU5P_DUAL_QSFP and
# NiteFury stream-loopback designs in parallel (as seed 004's first run did on hardware),
# every received byte checked while running. Prints a rate line per pair every 10 s, the
# totals, a "Test pattern verified" line per pair and Overall PASS (exit 0) or FAIL (exit 1).
# Extra arguments go to the tool, e.g. scripts/demo.sh --duration 60 or --json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh build
build=${BUILD_DIR:-build-release}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j "$(nproc)" --target test_dma_bridge_parallel_streams > /dev/null
echo "\$ test_dma_bridge_parallel_streams --sim_design TEF1001_dma_stream_loopback" \
     "--sim_design XCKU5P_DUAL_QSFP_dma_stream_loopback --sim_design NiteFury_dma_stream_loopback" \
     "--stream_mapping_size 0x1000000 --duration 20 $*"
exec "$build"/software_tests/tools/test_dma_bridge_parallel_streams \
  --sim_design TEF1001_dma_stream_loopback \
  --sim_design XCKU5P_DUAL_QSFP_dma_stream_loopback \
  --sim_design NiteFury_dma_stream_loopback \
  --stream_mapping_size 0x1000000 --duration 20 "$@"
