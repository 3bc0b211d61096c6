"""The light's measurements (vision.lighting) against what they are defined as: paper white
is the median, over markers, of the median over each marker's white code cells of the
unclipped pixels at the cell's centre, each over the light there."""

from __future__ import annotations

import cv2
import numpy as np

from vision import lighting, mat


def _paper_white_by_hand(rectified: np.ndarray, light: np.ndarray, spec: mat.MatSpec,
                         px_per_mm: float) -> np.ndarray | None:
    """The definition, cell by cell."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    n = dictionary.markerSize + 2
    side = spec.marker_mm / n
    h = max(1, round(side * px_per_mm / 4))
    ox, oy = spec.origin_mm
    ratios = []
    for k in spec.markers:
        code = cv2.aruco.generateImageMarker(dictionary, k, n) > 127
        x0, y0 = spec.marker_corners_mm(k)[0]
        whites = []
        for r, c in zip(*np.nonzero(code), strict=True):
            ya = round((y0 + (r + 0.5) * side - oy) * px_per_mm) - h
            xa = round((x0 + (c + 0.5) * side - ox) * px_per_mm) - h
            if ya < 0 or xa < 0 or ya + 2 * h > rectified.shape[0] \
                    or xa + 2 * h > rectified.shape[1]:
                continue
            patch = rectified[ya:ya + 2 * h, xa:xa + 2 * h].reshape(-1, 3).astype(np.float32)
            lit = light[ya:ya + 2 * h, xa:xa + 2 * h].reshape(-1, 3)
            ok = patch.max(1) < lighting.CLIP
            if ok.any():
                whites.append(np.median((patch[ok] + 1) / np.maximum(lit[ok], 1.0), 0))
        if whites:
            ratios.append(np.median(whites, 0))
    return None if not ratios else np.median(ratios, 0).astype(np.float32)


def test_paper_white_is_the_median_of_the_white_cells_unclipped_pixels() -> None:
    spec = mat.MatSpec("DICT_4X4_50", 30.0, {7: (40.0, 30.0), 18: (300.0, 45.0),
                                              29: (290.0, 230.0), 40: (20.0, 235.0)},
                       (320.0, 260.0))
    ppm = 2.0
    rng = np.random.default_rng(5)
    clean = mat.render(spec, ppm).astype(np.float32)
    # uneven light, noise, and a blown-out patch over part of marker 7's code: some of
    # its cells keep an odd or an even number of unclipped pixels, some none
    light = np.dstack([np.linspace(150, 240, clean.shape[1], dtype=np.float32)[None, :]
                       * np.ones((clean.shape[0], 1), np.float32)] * 3)
    light *= np.array([1.0, 0.93, 0.85], np.float32)
    photo = clean / 255 * light + rng.normal(0, 6, clean.shape)
    photo[45:95, 60:97] = 255
    photo[50:53, 97:99] = 255
    rectified = np.clip(photo, 0, 255).astype(np.uint8)
    got = lighting.paper_white(rectified, light, spec, ppm)
    want = _paper_white_by_hand(rectified, light, spec, ppm)
    assert got is not None and want is not None
    assert np.array_equal(got, want)
    # marker 40 half off the image: its cells outside are left out, the rest count
    cut = rectified[:, 40:]
    lit = light[:, 40:]
    shifted = mat.MatSpec(spec.dictionary, spec.marker_mm, spec.markers, spec.size_mm,
                          origin_mm=(20.0, 0.0))
    got, want = (lighting.paper_white(cut, lit, shifted, ppm),
                 _paper_white_by_hand(cut, lit, shifted, ppm))
    assert got is not None and want is not None
    assert np.array_equal(got, want)


def test_paper_white_is_none_when_every_white_cell_is_clipped() -> None:
    spec = mat.standard("A4")
    rectified = np.full((420, 594, 3), 255, np.uint8)
    assert lighting.paper_white(rectified, np.full(rectified.shape, 200, np.float32),
                                spec, 2.0) is None


def test_median_where_is_numpys_median_of_the_kept_samples() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(1, 0.2, (40, 16, 3)).astype(np.float32)
    ok = rng.random((40, 16)) < 0.6
    ok[0], ok[1], ok[2] = True, False, False
    ok[2, 5] = True  # one sample
    got = lighting._median_where(values, ok)
    for k in range(len(values)):
        if ok[k].any():
            assert np.array_equal(got[k], np.median(values[k][ok[k]], 0)), k
        else:
            assert np.isnan(got[k]).all()


def test_clipped_and_every_channel_at_the_top_are_the_definitions() -> None:
    """Every mix of channels at the sensor's top, and values just under it: ``at_top`` is 0
    where no channel is at :data:`lighting.CLIP` or above, 255 only where all are, and
    ``clipped`` is "any channel", as comparing each channel says."""
    rng = np.random.default_rng(3)
    photo = rng.integers(lighting.CLIP - 3, 256, (64, 80, 3)).astype(np.uint8)
    for k, mix in enumerate(np.ndindex(2, 2, 2)):  # each channel under or at the top
        photo[k, :8] = [lighting.CLIP - 1 + v for v in mix]
    top = photo >= lighting.CLIP
    counted = lighting.at_top(lighting.channels_at_top(photo))
    assert np.array_equal(counted > 0, top.any(2))
    assert np.array_equal(counted == 255, top.all(2))
    assert np.array_equal(lighting.clipped(photo), top.any(2))
    assert top.any(2).any() and not top.any(2).all() and top.all(2).any()
