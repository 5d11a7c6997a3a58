#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ from real data in the repository: the lspci captures of
pcie_tools/tests/fixtures/, the design files of designs/data/, and hand-written option values.
Run from the repository root; the output is checked in (keep it small)."""
import os
import re
import struct

FIX = "pcie_tools/tests/fixtures"
OUT = "fuzz/corpus"


def put(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def spaces(path):
    """Yields (bdf, bytes) per device of an lspci -x/-xxx/-xxxx capture."""
    bdf, data = None, bytearray()
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^([0-9a-f]{2,6}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] ", line)
        if m:
            if bdf and data:
                yield bdf, bytes(data)
            bdf, data = line.split()[0], bytearray()
            continue
        m = re.match(r"^([0-9a-f]{2,3}): ((?:[0-9a-f]{2} ?){1,16})$", line.rstrip())
        if bdf and m:
            off = int(m.group(1), 16)
            row = bytes(int(x, 16) for x in m.group(2).split())
            data[off:off + len(row)] = row
    if bdf and data:
        yield bdf, bytes(data)


lspci = ["qemu_device_01_00_0.lspci", "qemu_rootport_00_01_0.lspci", "qemu_e1000e_04_00_0.lspci",
         "h200_idle.lspci", "host_virtio_devices.lspci"]
for name in lspci:
    put("fuzz_lspci_dump", name, open(os.path.join(FIX, name), "rb").read())
# A bridge and the device below it, so the parent walk and the link path run.
put("fuzz_lspci_dump", "rootport_and_device.lspci",
    open(os.path.join(FIX, "qemu_rootport_00_01_0.lspci"), "rb").read() + b"\n" +
    open(os.path.join(FIX, "qemu_device_01_00_0.lspci"), "rb").read())

for name in lspci:
    for i, (bdf, data) in enumerate(spaces(os.path.join(FIX, name))):
        if i >= 3:
            break
        selector = {64: 0, 256: 1}.get(len(data), 2) | (4 if i == 0 else 0)  # bit 2: JSON too
        put("fuzz_config_space", f"{name.split('.')[0]}_{i}.bin", bytes([selector]) + data)

for name in sorted(os.listdir("designs/data")):
    put("fuzz_design_data", name, open(os.path.join("designs/data", name), "rb").read())

for i, text in enumerate(["0000:15:00.0", "15:00.0", "ffff:ff:1f.7", "0000:00:20.0", "10ee", "0x10EE", "0000:0a:00.8"]):
    put("fuzz_pci_address", f"seed_{i}", text)

options = [(0, "0x100"), (0, "0777"), (0, "42"), (1, "0.5"), (1, "20"), (2, "0000:15:00.0,1"),
           (3, "0000:15:00.0,0:1,1:0"), (3, "0000:15:00.0"), (4, "0x100000"), (5, "0x1000,0x2000"), (5, "64"),
           (6, "huge_pages"), (7, "stop_list"), (8, "poll_writeback"), (8, "interrupt")]
for i, (sel, text) in enumerate(options):
    put("fuzz_options", f"seed_{i}", bytes([sel]) + text.encode())

# poll writeback word, C2H stream record (magic|EOP, length), capacity, known count, status,
# next, count, descriptor (control, nxt_adj, magic, length, src, dst, nxt).
def xdma(wb, magic_status, length, capacity, known, status, nxt, count):
    desc = struct.pack("<BBHIQQQ", 0x13, 5, 0xAD4B, 4096, 0x1000, 0x2000, 0x3000)
    return struct.pack("<IIIIQIHH", wb, magic_status, length, capacity, known, status, nxt, count) + desc

put("fuzz_xdma_writeback", "ok", xdma(5, 0x52B40001, 4096, 4096, 3, 0x1, 0, 64))
put("fuzz_xdma_writeback", "wrap", xdma(0x00000002, 0x52B40000, 100, 4096, 0xFFFFFE, 0x8000_0000, 120, 200))
put("fuzz_xdma_writeback", "error", xdma(0x80000007, 0x12340001, 8192, 4096, 1 << 40, 0x00F80010, 127, 128))

# --metrics URLs (selector 0) and grouping keys, job NUL instance (selector 1).
push = [(0, "http://127.0.0.1:9091"), (0, "http://pushgateway.lab:9091/prefix/"), (0, "http://[::1]:9091/pg"),
        (0, "https://gw:9091"), (0, "http://user@gw:80/a%2Fb?x#y"), (1, "test_dma_bridge\0lab1:0000:15:00.0"),
        (1, "a/b\0/var/tmp"), (1, "..\0")]
for i, (sel, text) in enumerate(push):
    put("fuzz_push_url", f"seed_{i}", bytes([sel]) + text.encode())

# SFDP spaces (JESD216): the header, parameter headers and a Basic Flash Parameter Table of 9
# DWORDs (JESD216) and of 16 with a 4-byte Address Instruction Table (JESD216B), and no SFDP.
def sfdp(tables):
    out = bytearray(struct.pack("<IBBBB", 0x50444653, 6, 1, len(tables) - 1, 0xFF))
    pointer, body = 0x30, {}
    for ident, dwords in tables:
        out += struct.pack("<BBBB", ident & 0xFF, 0, 1, len(dwords)) + struct.pack("<I", pointer | (ident >> 8) << 24)
        body[pointer] = struct.pack(f"<{len(dwords)}I", *dwords)
        pointer = (pointer + 4 * len(dwords) + 15) & ~15
    for at, data in body.items():
        out += b"\xff" * (at - len(out)) + data
    return bytes(out)

bfpt9 = [0xFFF120E5, 0x07FFFFFF, 0x6B08EB44, 0x3B08BB08, 0xFFFFFFEE, 0xFFFF0000, 0xFFFF0000, 0xD810200C, 0]
bfpt16 = [0xFFF320E5, 0x3FFFFFFF, 0x6B08EB46, 0xBB043B08, 0xFFFFFFEE, 0xFFFF0000, 0xFFFF0000, 0x520F200C,
          0x0000D810, 0, 0x81 | 8 << 4, 0, 0, 1 << 3, 0, 1 << 29 | 1 << 25]
put("fuzz_sfdp", "jesd216_9_dwords", sfdp([(0xFF00, bfpt9)]))
put("fuzz_sfdp", "jesd216b_16_dwords_4bait", sfdp([(0xFF00, bfpt16), (0xFF84, [0x0E41, 0xFFDC5C21])]))
put("fuzz_sfdp", "no_sfdp", b"\xff" * 64)


# Xilinx bitstreams (UG470 chapter 5): a small synthetic .bit (header, dummy words, bus width
# detection, Sync, packets, FDRI frames, CRC, DESYNC), its .bin, and compressed, encrypted and
# two-SLR variants. fuzz_bitstream_packets: first byte the data's offset / 4, then the data.
def bitstream_words(idcode, compressed=False, encrypted=False, frames=10):
    w = [0xFFFFFFFF] * 8 + [0x000000BB, 0x11220044, 0xFFFFFFFF, 0xFFFFFFFF, 0xAA995566, 0x20000000,
                            0x30008001, 0x00000007, 0x20000000, 0x30012001, 0x02003FE5, 0x30018001, idcode]
    if encrypted:
        w += [0x3000C001, 0x40, 0x3000A001, 0x40, 0x30016004, 1, 2, 3, 4]
    w += [0x30002001, 0, 0x30008001, 1, 0x20000000, 0x30004000, 0x50000000 | frames] + list(range(frames))
    if compressed:
        w += [0x30008001, 2, 0x30002001, 0x100, 0x30014002, 0, 0]
    w += [0x30000001, 0x5A5A1234, 0x30008001, 5, 0x30008001, 0x0D, 0x20000000, 0x20000000]
    return b"".join(struct.pack(">I", x) for x in w)


def bit_file(data, part, design="top;UserID=0XFFFFFFFF;Version=2023.2"):
    def field(key, text):
        text = text.encode() + b"\0"
        return key.encode() + struct.pack(">H", len(text)) + text
    return (struct.pack(">H", 9) + bytes([0x0F, 0xF0] * 4 + [0]) + struct.pack(">H", 1) + field("a", design) +
            field("b", part) + field("c", "2026/12/04") + field("d", "17:30:00") + b"e" + struct.pack(">I", len(data)) + data)


plain = bitstream_words(0x03636093)
put("fuzz_bitstream_header", "xc7a200t.bit", bit_file(plain, "7a200tfbg484"))
put("fuzz_bitstream_header", "xcku5p_compressed.bit",
    bit_file(bitstream_words(0x04A62093, compressed=True), "xcku5p-ffvb676-2-e", "top;COMPRESS=TRUE;Version=2023.2"))
put("fuzz_bitstream_header", "xc7k160t.bin", bitstream_words(0x0364C093))
put("fuzz_bitstream_header", "truncated.bit", bit_file(plain, "7a200tfbg484")[:90])
put("fuzz_bitstream_packets", "xc7a200t.bin", bytes([0x19]) + plain)
put("fuzz_bitstream_packets", "encrypted.bin", bytes([0]) + bitstream_words(0x04B37093, encrypted=True))
put("fuzz_bitstream_packets", "compressed.bin", bytes([0]) + bitstream_words(0x04B31093, compressed=True))
put("fuzz_bitstream_packets", "two_slrs.bin", bytes([0]) + plain + bitstream_words(0x04B37093)[48:])
