"""Images for the readers' fault tests: random pictures encoded, and decompression
bombs (tiny files whose headers claim a huge picture)."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np


def encoded(suffix: str, w: int, h: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(suffix, img)
    assert ok
    return buf.tobytes()


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body)))


def png_bomb(side: int = 20000) -> bytes:
    """A real, complete 1-bit PNG of side x side black pixels: some 20 kB on disk,
    ``side`` ² x 3 bytes once decoded to colour (1.2 GB for 20000)."""
    row = b"\x00" * (1 + (side + 7) // 8)
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", body)
            + png_chunk(b"IEND", b""))


def jpeg_bomb() -> bytes:
    """A small JPEG whose frame header claims 20000 x 20000."""
    data = bytearray(encoded(".jpg", 16, 16))
    i = data.index(b"\xff\xc0")
    data[i + 5:i + 9] = struct.pack(">HH", 20000, 20000)
    return bytes(data)


def bmp_bomb() -> bytes:
    data = bytearray(encoded(".bmp", 4, 4))
    data[18:26] = struct.pack("<ii", 20000, -20000)  # top-down rows: a negative height
    return bytes(data)


def webp_bomb() -> bytes:
    vp8x = b"VP8X" + struct.pack("<I", 10) + b"\x00" * 4 + (19999).to_bytes(3, "little") * 2
    return b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x


def tiff_bomb() -> bytes:
    entries = [(256, 4, 1, 20000), (257, 4, 1, 20000)]
    ifd = struct.pack("<H", len(entries)) + b"".join(
        struct.pack("<HHII", *e) for e in entries) + b"\x00" * 4
    return b"II*\x00" + struct.pack("<I", 8) + ifd
