#!/usr/bin/env bash
# Soak test on simulated designs: clean stretches of parallel streams, faulted stretches with an
# XDMA model fault injected (PDT_SIM_FAULT), RSS sampled; see scripts/soak.py --help.
# The hour recorded in docs/soak.md (50 min of stretches, then one 10 min process), from a
# RelWithDebInfo build without sanitizers:
#   nice -n 10 scripts/soak.sh --duration 3000 --long_run 600 --log soak.log
exec python3 "$(dirname "$0")/soak.py" "$@"
