#!/usr/bin/env python3
"""A stand-in for test_dma_bridge_parallel_streams that misbehaves as FAKE_MODE says, to test
scripts/soak.py's judgement: good (right verdicts), blind (passes with a fault injected), vague
(fails a fault without naming it), zero (passes with no bytes verified), leak (RSS grows)."""
import os
import sys
import time

MESSAGES = {
    "data_bit_flip": "transfer 2: data error in buffer 3 at buffer offset 0x40, stream offset 0x1040: "
                   "expected 0x00000001 actual 0x00000003, 1 bad words",
    "drop_packet": None, "duplicate_packet": None, "reorder_packet": None,
    "short_c2h_length": "transfer 1: C2H completion length 4092 EOP 1, expected length 4096",
    "engine_stall": "timeout: no H2C completion for 0.500 secs",
    "engine_hang": "timeout: no H2C completion for 0.500 secs\n0000:36:00.0 H2C 0 still busy after stop",
    "descriptor_read_error": "wait: H2C 0 0000:36:00.0: Input/output error",
    "bad_magic": "wait: C2H 0 0000:36:00.0: Input/output error",
}
mode = os.environ.get("FAKE_MODE", "good")
fault = os.environ.get("PDT_SIM_FAULT", "").split("@")[0]
seconds = float(sys.argv[sys.argv.index("--duration") + 1])
hoard = []
end = time.monotonic() + min(seconds, 3)
while time.monotonic() < end:
    if mode == "leak":
        hoard.append(bytearray(os.urandom(1 << 20)))
    time.sleep(0.05)
if fault and mode not in ("blind",):
    message = MESSAGES[fault] or MESSAGES["data_bit_flip"]
    print("0000:36:00.0 0 -> 1 Test FAILED: 0000:36:00.0 C2H 1 " + (message if mode != "vague" else "it broke"))
    print("0000:36:00.0 1 -> 0 Test pattern verified in 1024 words (4096 bytes)\nOverall FAIL")
    sys.exit(1)
for pair in ("0 -> 1", "1 -> 0"):
    if mode == "zero":
        print(f"0000:36:00.0 {pair} No completed transfers")
    else:
        print(f"0000:36:00.0 {pair} Test pattern verified in 262144 words (1048576 bytes)")
print("Overall PASS")
sys.exit(0)
