"""Photos in: size an image from its header, and refuse one too large *before* decoding.

A 20000 x 20000 PNG of one colour is a few kilobytes on disk and 1.2 GB once decoded: a
Pi would stall or be killed. :func:`decode` reads the width and height from the file's
header (JPEG, PNG, BMP, WebP, TIFF), refuses more than :data:`MAX_PIXELS`, refuses a
file cut short, and only then lets OpenCV decode it. Every refusal is a
:class:`~vision.errors.VisionError` saying what to do.

A photo of the table (:func:`decode_photo`) larger than it needs to be is decoded at a
half, a quarter or an eighth of its size (libjpeg scales a JPEG while it decodes it, and
far faster than it decodes it whole), as long as :data:`PHOTO_PX` remain on its long side:
a phone's 12 Mpx photo is read as 2016 x 1512, in two thirds of the time.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionError

MAX_PIXELS = 64_000_000  # a 12 Mpx Pi HQ camera or a 50 Mpx phone photo fits
MAX_BYTES = 100_000_000
FORMATS = "JPEG, PNG, BMP, WebP or TIFF"
PHOTO_PX = 1600
"""The long side a photo of the table keeps at least: the synthetic photos the readers
are measured on are 1600 px wide, the Blender ones 1024 px."""
REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
           8: cv2.IMREAD_REDUCED_COLOR_8}
# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic ...)
SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def header_size(data: bytes) -> tuple[str, int, int]:
    """``(format, width, height)`` read from the header alone; :class:`VisionError` for a
    format not listed in :data:`FORMATS` or a header that is cut short or makes no sense."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n"):
            if data[12:16] != b"IHDR":
                raise VisionError("a PNG without its header chunk")
            w, h = struct.unpack(">II", data[16:24])
            kind = "PNG"
        elif data.startswith(b"\xff\xd8"):
            kind, (w, h) = "JPEG", _jpeg_size(data)
        elif data.startswith(b"BM"):
            (dib,) = struct.unpack("<I", data[14:18])
            if dib == 12:
                w, h = struct.unpack("<HH", data[18:22])
            else:
                w, h = struct.unpack("<ii", data[18:26])
            kind, w, h = "BMP", abs(w), abs(h)
        elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            kind, (w, h) = "WebP", _webp_size(data)
        elif data[:4] in (b"II*\x00", b"MM\x00*"):
            kind, (w, h) = "TIFF", _tiff_size(data)
        else:
            raise VisionError(f"not a {FORMATS} image")
    except (struct.error, IndexError):
        raise VisionError("the image header is cut short") from None
    if w <= 0 or h <= 0:
        raise VisionError(f"the {kind} header gives no size ({w} x {h})")
    return kind, w, h


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while True:
        while data[i] != 0xFF:  # stray bytes between segments: skip them, as libjpeg does
            i += 1
        while data[i] == 0xFF:  # fill bytes
            i += 1
        marker = data[i]
        i += 1
        if marker == 0xD8 or 0xD0 <= marker <= 0xD7 or marker == 0x01:
            continue
        if marker in (0xD9, 0xDA):
            raise VisionError("a JPEG without its frame header")
        (length,) = struct.unpack(">H", data[i:i + 2])
        if marker in SOF:
            h, w = struct.unpack(">HH", data[i + 3:i + 7])
            return w, h
        i += length


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        if len(data) < 30:
            raise IndexError
        return w, h
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        if len(data) < 25:
            raise IndexError
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    raise VisionError("a WebP of a kind OpenCV does not read")


def _tiff_size(data: bytes) -> tuple[int, int]:
    end = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(end + "I", data[4:8])
    (count,) = struct.unpack(end + "H", data[ifd:ifd + 2])
    size: dict[int, int] = {}
    for n in range(count):
        tag, kind, _, value = struct.unpack(end + "HHI4s", data[ifd + 2 + 12 * n:
                                                              ifd + 14 + 12 * n])
        if tag in (256, 257):
            size[tag] = struct.unpack(end + ("H" if kind == 3 else "I"),
                                      value[:2] if kind == 3 else value)[0]
    if 256 not in size or 257 not in size:
        raise VisionError("a TIFF without its width and height")
    return size[256], size[257]


def _cut_short(kind: str, data: bytes) -> bool:
    """Whether the file lacks its end (a photo copied or uploaded only in part)."""
    if kind == "PNG":
        return b"IEND" not in data[-64:]
    if kind == "JPEG":
        return b"\xff\xd9" not in data[-4096:]
    return False


def decode(data: bytes, name: str, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The image in ``data`` (``name`` is for messages), checked before it is decoded."""
    kind, _, _ = _checked(data, name)
    return _decoded(data, name, kind, flags)


def decode_photo(data: bytes, name: str) -> np.ndarray:
    """A photo of the table in ``data``, checked as :func:`decode` does, decoded no larger
    than it needs to be: by the largest of 2, 4 and 8 that leaves its long side
    :data:`PHOTO_PX` or more."""
    kind, w, h = _checked(data, name)
    scale = max(f for f in REDUCED if max(w, h) // f >= PHOTO_PX or f == 1)
    return _decoded(data, name, kind, REDUCED[scale])


def _checked(data: bytes, name: str) -> tuple[str, int, int]:
    """``(format, width, height)`` of an image that may be decoded; :class:`VisionError`
    saying what to do for one that may not."""
    if not data:
        raise VisionError(f"{name} is empty: take the photo again")
    if len(data) > MAX_BYTES:
        raise VisionError(f"{name} is {len(data) / 1e6:.0f} MB: a photo of the table "
                          f"needs at most {MAX_BYTES / 1e6:.0f} MB (save it as a JPEG)")
    try:
        kind, w, h = header_size(data)
    except VisionError as err:
        raise VisionError(f"{name} is not an image OpenCV can read ({err}): use a "
                          f"{FORMATS} photo") from None
    if w * h > MAX_PIXELS:
        raise VisionError(f"{name} is {w} x {h} pixels ({w * h / 1e6:.0f} Mpx), more than "
                          f"the {MAX_PIXELS / 1e6:.0f} Mpx the companion decodes: scale "
                          "the photo down (about 4000 x 3000 is plenty)")
    if _cut_short(kind, data):
        raise VisionError(f"{name} is cut short (the end of the {kind} is missing): copy "
                          "or upload the photo again")
    return kind, w, h


def _decoded(data: bytes, name: str, kind: str, flags: int) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if img is None:
        raise VisionError(f"{name} is a damaged {kind} that OpenCV cannot decode: take the "
                          "photo again")
    return img


def load(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The image file at ``path``, checked before it is decoded (see :func:`decode`)."""
    return decode(_read(path), str(path), flags)


def load_photo(path: str | Path) -> np.ndarray:
    """The photo of the table at ``path``, as :func:`decode_photo` decodes it."""
    return decode_photo(_read(path), str(path))


def _read(path: str | Path) -> bytes:
    path = Path(path)
    try:
        with path.open("rb") as f:
            return f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise VisionError(f"no image at {path} (was it moved or deleted?)") from None
    except OSError as err:
        raise VisionError(f"cannot read {path}: {err.strerror or err}") from None
