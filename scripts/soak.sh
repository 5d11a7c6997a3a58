#!/usr/bin/env bash
# Soak test on simulated designs: clean stretches of parallel streams, faulted stretches with an
# XDMA model fault injected (PDT_SIM_FAULT), RSS sampled; see scripts/soak.py --help.
# The hour recorded in docs/soak.md:
#   nice -n 10 scripts/soak.sh --duration 3000 --long_run 600 --tool build/software_tests/tools/test_dma_bridge_parallel_streams
exec python3 "$(dirname "$0")/soak.py" "$@"
