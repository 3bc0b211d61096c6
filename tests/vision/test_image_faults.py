"""Bad images into the readers: random bytes, files cut short, 1 x 1 pixels and
decompression bombs (refused from the header, before anything is decoded)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.images import bmp_bomb, encoded, jpeg_bomb, png_bomb, tiff_bomb, webp_bomb
from vision import images
from vision.errors import VisionError

SUFFIXES = (".png", ".jpg", ".bmp", ".webp", ".tiff")


@pytest.fixture
def no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if OpenCV is asked to decode anything."""
    def refuse(*args: Any) -> None:
        raise AssertionError("the image was handed to the decoder")
    monkeypatch.setattr(cv2, "imdecode", refuse)
    monkeypatch.setattr(cv2, "imread", refuse)


@pytest.mark.parametrize("bomb", [png_bomb, jpeg_bomb, bmp_bomb, webp_bomb, tiff_bomb])
def test_a_decompression_bomb_is_refused_before_decoding(
        bomb: Callable[[], bytes], no_decoding: None) -> None:
    data = bomb()
    assert len(data) < 100_000  # tiny on disk ...
    with pytest.raises(VisionError) as err:
        images.decode(data, "bomb")
    # ... refused by its size, with what to do
    assert "bomb is 20000 x 20000 pixels (400 Mpx)" in str(err.value)
    assert "scale the photo down" in str(err.value)


def test_the_png_bomb_is_a_real_image() -> None:
    """The same PNG, smaller, decodes: the bomb test refuses a genuine image."""
    small = png_bomb(64)
    assert images.header_size(small) == ("PNG", 64, 64)
    img = images.decode(small, "small")
    assert img.shape == (64, 64, 3) and not img.any()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SUFFIXES), st.integers(1, 300), st.integers(1, 300))
def test_the_header_size_agrees_with_opencv(suffix: str, w: int, h: int) -> None:
    data = encoded(suffix, w, h)
    kind, hw, hh = images.header_size(data)
    assert (hw, hh) == (w, h), kind
    assert images.decode(data, "photo").shape[:2] == (h, w)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_one_pixel_images_decode(suffix: str) -> None:
    assert images.decode(encoded(suffix, 1, 1), "dot").shape == (1, 1, 3)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_are_a_clear_error(data: bytes) -> None:
    try:
        img = images.decode(data, "noise.jpg")
    except VisionError as err:
        assert "noise.jpg" in str(err)
    else:  # astronomically unlikely, but a valid image is no error
        assert img.ndim == 3


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([".jpg", ".png"]), st.floats(0.0, 0.999))
def test_a_photo_cut_short_is_a_clear_error(suffix: str, keep: float) -> None:
    data = encoded(suffix, 120, 90, seed=3)
    refused = r"photo\S* is (empty|cut short|not an image|a damaged)"
    with pytest.raises(VisionError, match=refused):
        images.decode(data[:int(len(data) * keep)], "photo" + suffix)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUFFIXES), st.integers(0, 10_000), st.binary(min_size=1, max_size=8))
def test_a_spoilt_byte_anywhere_is_decoded_or_refused(suffix: str, at: int,
                                                      junk: bytes) -> None:
    data = bytearray(encoded(suffix, 40, 30, seed=5))
    at %= len(data)
    data[at:at + len(junk)] = junk
    try:
        img = images.decode(bytes(data), "photo")
    except VisionError as err:
        assert str(err).startswith("photo ")
    else:
        assert img.ndim == 3 and img.shape[0] * img.shape[1] <= images.MAX_PIXELS


def test_missing_and_empty_files(tmp_path: Any) -> None:
    with pytest.raises(VisionError, match=r"no image at .*gone\.jpg \(was it moved or deleted"):
        images.load(tmp_path / "gone.jpg")
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(VisionError, match=r"empty\.jpg is empty"):
        images.load(tmp_path / "empty.jpg")


@pytest.mark.parametrize(("suffix", "w", "h", "read_as"), [
    (".jpg", 4032, 3024, (2016, 1512)),   # a phone's 12 Mpx: half
    (".png", 4032, 3024, (2016, 1512)),   # (OpenCV shrinks what libjpeg cannot)
    (".jpg", 8160, 6120, (2040, 1530)),   # 50 Mpx: a quarter
    (".jpg", 3200, 2400, (1600, 1200)),   # half leaves 1600 px
    (".jpg", 3198, 2400, (3198, 2400)),   # half would leave 1599: whole
    (".jpg", 1024, 768, (1024, 768)),
])
def test_a_photo_larger_than_a_reader_needs_is_decoded_smaller(
        suffix: str, w: int, h: int, read_as: tuple[int, int]) -> None:
    """A photo of the table is decoded by the largest of 2, 4 and 8 that leaves 1600 px
    on its long side, the same picture (as the whole one shrunk), and only a photo."""
    y, x = np.mgrid[0:h // 32, 0:w // 32]
    coarse = np.dstack([x * 255 // (w // 32), y * 255 // (h // 32), (x + y) % 2 * 255])
    picture = cv2.resize(coarse.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    data = cv2.imencode(suffix, picture)[1].tobytes()
    photo = images.decode_photo(data, "the photo")
    assert photo.shape == (read_as[1], read_as[0], 3)
    shrunk = cv2.resize(picture, read_as, interpolation=cv2.INTER_AREA)
    assert np.abs(photo.astype(int) - shrunk).mean() < 3
    assert images.decode(data, "a card picture").shape == (h, w, 3)
