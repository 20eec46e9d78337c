#!/usr/bin/env python3
"""Writes the big messages of bench/big/big.sdp (byte mode, no message header) into DIR.

usage: gen.py DIR

  f32-16m.bin  Samples, 16,777,216 floats (i * 0.25)             67,108,868 B
  f32-1m.bin   Samples, 1,048,576 floats (the view's O(1) check)   4,194,308 B
  u8-64m.bin   Blob, 67,108,864 bytes ((i * 31 + 7) mod 256)      67,108,868 B
  u8-1m.bin    Blob, 1,048,576 bytes                               1,048,580 B
  str-1m.bin   Names, 1,048,576 ASCII strings of 44-76 bytes (60 on average)

Files that already exist with the right size are kept (the bytes are deterministic).
"""
import os
import struct
import sys
from array import array

MI = 1 << 20


def f32(n):
    a = array("f", (i * 0.25 for i in range(n)))
    if sys.byteorder != "little":
        a.byteswap()
    return struct.pack("<I", n) + a.tobytes()


def u8(n):
    pattern = bytes((i * 31 + 7) & 255 for i in range(256))
    return struct.pack("<I", n) + (pattern * (n // 256 + 1))[:n]


def strings(n):
    text = bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1)) + b"0123456789_-"
    text = text * 3
    parts = [struct.pack("<I", n)]
    for i in range(n):
        k = 44 + (i * 7) % 33
        at = (i * 13) % 64
        parts.append(struct.pack("<I", k) + text[at : at + k])
    return b"".join(parts)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    str_size = 4 + sum(4 + 44 + (i * 7) % 33 for i in range(MI))
    for name, make, n, size in [
        ("f32-16m.bin", f32, 16 * MI, 4 + 64 * MI),
        ("f32-1m.bin", f32, MI, 4 + 4 * MI),
        ("u8-64m.bin", u8, 64 * MI, 4 + 64 * MI),
        ("u8-1m.bin", u8, MI, 4 + MI),
        ("str-1m.bin", strings, MI, str_size),
    ]:
        path = os.path.join(out, name)
        if os.path.exists(path) and os.path.getsize(path) == size:
            continue
        data = make(n)
        assert len(data) == size, name
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
