#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks one rendered image as read back from the broker (scripts/test-addon-image.sh):
  image_check.py FILE png|jpeg WIDTH HEIGHT PALETTE
PNG: the signature, IHDR's width and height, and a full decode (test/browser/png_stats.py's
zlib decoder, standard library only); an e-ink palette's image holds only its inks, a color one
more than a handful of colors. JPEG: SOI … EOI, one baseline SOF0 frame of that size, 3
components. Prints one line describing the image; exits 1 naming what is wrong."""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "browser"))
from png_stats import decode  # noqa: E402

INKS = {
    "bw": {b"\x00\x00\x00", b"\xff\xff\xff"},
    "bwr": {b"\x00\x00\x00", b"\xff\xff\xff", b"\xff\x00\x00"},
    "bwy": {b"\x00\x00\x00", b"\xff\xff\xff", b"\xff\xff\x00"},
}


def fail(message):
    print(message)
    sys.exit(1)


def check_png(path, data, width, height, palette):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        fail(f"{path}: not a PNG (starts {data[:16].hex()})")
    if not data.endswith(b"\x00\x00\x00\x00IEND\xaeB`\x82"):
        fail(f"{path}: does not end with the IEND chunk (anything after it, or cut short)")
    ihdr = struct.unpack(">II", data[16:24])
    if ihdr != (width, height):
        fail(f"{path}: IHDR says {ihdr[0]}x{ihdr[1]}, configured {width}x{height}")
    w, h, channels, rows = decode(path)
    if (w, h) != (width, height) or len(rows) != height or any(len(r) != width * channels for r in rows):
        fail(f"{path}: decoded to {w}x{h} with {len(rows)} rows")
    colors = set()
    for row in rows:
        for x in range(0, len(row), channels):
            colors.add(bytes(row[x:x + 3]))
    if palette in INKS:
        if not colors <= INKS[palette]:
            fail(f"{path}: {len(colors)} colors, not only the {palette} inks")
    elif len(colors) < 8:
        fail(f"{path}: only {len(colors)} colors: a blank image?")
    return f"PNG {w}x{h}, IHDR {ihdr[0]}x{ihdr[1]}, decoded, {len(colors)} distinct colors, {len(data)} bytes"


def check_jpeg(path, data, width, height):
    if data[:2] != b"\xff\xd8" or data[-2:] != b"\xff\xd9":
        fail(f"{path}: not a whole JPEG (SOI/EOI missing)")
    pos, frames = 2, []
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            fail(f"{path}: no marker at byte {pos}")
        marker = data[pos + 1]
        if marker == 0xDA:  # start of scan: the entropy-coded data follows
            break
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            precision, h, w, components = struct.unpack(">BHHB", data[pos + 4:pos + 10])
            frames.append((marker, w, h, components))
        pos += 2 + length
    if frames != [(0xC0, width, height, 3)]:
        fail(f"{path}: frames {frames}, expected one baseline SOF0 {width}x{height} with 3 components")
    return f"JPEG baseline {width}x{height}, 3 components, {len(data)} bytes"


def main():
    path, fmt, width, height, palette = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    data = open(path, "rb").read()
    if not data:
        fail(f"{path}: empty")
    print(check_png(path, data, width, height, palette) if fmt == "png" else check_jpeg(path, data, width, height))


if __name__ == "__main__":
    main()
