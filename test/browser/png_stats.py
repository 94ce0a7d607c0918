#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Prints {"width", "height", "distinct_colors", "dominant_fraction"} of an 8-bit RGB or RGBA PNG
# (what Chromium's --screenshot writes), decoded with the standard library only (zlib), so the
# browser tests can tell a drawn page from a blank one.
import json
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8 or color_type not in (2, 6) or interlace != 0:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, color type {color_type}, interlace {interlace})")
    channels = 3 if color_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main():
    width, height, channels, rows = decode(sys.argv[1])
    counts = {}
    for line in rows:
        for x in range(0, len(line), channels):
            pixel = line[x:x + 3]
            counts[pixel] = counts.get(pixel, 0) + 1
    dominant = max(counts.values())
    print(json.dumps({
        "width": width,
        "height": height,
        "distinct_colors": len(counts),
        "dominant_fraction": round(dominant / (width * height), 4),
    }))


if __name__ == "__main__":
    main()
