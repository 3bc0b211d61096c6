"""Correlating boxes with templates (vision.matching): invariant to the light's gain,
offset and tilt, and clipped pixels left out."""

from __future__ import annotations

import cv2
import numpy as np

from vision import matching
from vision.templates import Templates

BOX_MM = (30.0, 24.0)
INSET_MM = 2.0


def _templates(rng: np.random.Generator, n: int = 5) -> Templates:
    ww, wh = matching.window(BOX_MM, INSET_MM)
    q = matching.plane_basis(ww, wh)
    raw = rng.random((n, q.shape[0], 3)).astype(np.float32)
    feats = matching.deplane(raw, q).reshape(n, -1)
    return Templates(tuple(f"t{i}" for i in range(n)), feats, BOX_MM, INSET_MM,
                     np.zeros(n), np.zeros((n, 3)), 0.0)


def _image(rng: np.random.Generator, t: Templates, at: tuple[int, int]) -> np.ndarray:
    """A 1 px/mm image showing template 2 at ``at`` under a bright, tilted light."""
    ww, wh = matching.window(BOX_MM, INSET_MM)
    q = matching.plane_basis(ww, wh)
    img = (0.6 + 0.05 * rng.random((120, 160, 3))).astype(np.float32)
    picture = t.features[2].reshape(-1, 3)
    ys, xs = np.mgrid[0:wh:matching.STEP, 0:ww:matching.STEP]
    x0, y0 = at[0] + round(INSET_MM), at[1] + round(INSET_MM)
    img[y0 + ys.ravel(), x0 + xs.ravel()] = (0.7 + 1.5 * picture
                                             + 0.3 * q[:, 1:2] + 0.2 * q[:, 2:3])
    return img


def test_a_template_under_any_gain_offset_and_tilt_correlates_fully() -> None:
    rng = np.random.default_rng(4)
    t = _templates(rng)
    img = _image(rng, t, (40, 30))
    known = np.ones(img.shape[:2], np.float32)
    ncc, shift = matching.correlations(img, known, np.array([(38.0, 32.0)]), t)
    assert ncc[0].argmax() == 2 and ncc[0, 2] > 0.999
    assert tuple(shift[0]) == (2.0, -2.0)


def test_a_shift_between_the_coarse_steps_is_found_by_the_fine_search() -> None:
    """A box 3 mm right and 1 mm up of where it should be: off the 2 mm steps, so only
    the 1 mm search around the best of them (for the best few templates) finds it."""
    rng = np.random.default_rng(6)
    img = cv2.GaussianBlur(rng.random((120, 160, 3)).astype(np.float32), (0, 0), 2.0)
    ww, wh = matching.window(BOX_MM, INSET_MM)
    q = matching.plane_basis(ww, wh)
    at = np.array([(41.0, 31.0)])
    others = _templates(rng)
    mine = matching.deplane(matching.sample(img, at, BOX_MM, INSET_MM, (0,)), q)
    t = Templates(("mine", *others.labels), np.vstack([mine.reshape(1, -1), others.features]),
                  BOX_MM, INSET_MM, np.zeros(6), np.zeros((6, 3)), 0.0)
    known = np.ones(img.shape[:2], np.float32)
    ncc, shift = matching.correlations(img, known, at - (3.0, -1.0), t)
    assert ncc[0].argmax() == 0 and ncc[0, 0] > 0.999
    assert tuple(shift[0]) == (3.0, -1.0)


def test_a_clipped_sample_is_left_out_not_read_as_bright() -> None:
    """A box with clipped samples is compared over the rest: the template still
    correlates best, and better than when the clipped samples are taken as they are
    (what glare hides still counts against it: the template's whole norm divides)."""
    rng = np.random.default_rng(7)
    t = _templates(rng)
    img = _image(rng, t, (40, 30))
    img[34:40, 44:60] = 1.0  # a clipped streak across the box
    corners = np.array([(40.0, 30.0)])
    known = np.ones(img.shape[:2], np.float32)
    blind = matching._correlate(img, known, corners, t, (0,))
    known[34:40, 44:60] = 0.0
    seen = matching._correlate(img, known, corners, t, (0,))
    assert seen[0].argmax() == 2 and blind[0, 2] < seen[0, 2] < 0.95


def test_the_shifted_windows_are_the_boxes_moved_by_each_shift() -> None:
    """Sampling a box at every shift reads what sampling the box moved by each shift
    reads, in the order dy major, dx minor, off the image too."""
    rng = np.random.default_rng(5)
    img = rng.random((60, 80, 3)).astype(np.float32)
    corners = np.array([(20.0, 15.0), (-6.0, 40.0), (70.0, -3.0)])  # two partly off
    for shifts in (matching.SHIFTS_MM, matching.FINE_MM):
        got = matching.sample(img, corners, BOX_MM, INSET_MM, shifts, outside=0.25)
        moved = np.array([(x + dx, y + dy) for x, y in corners
                          for dy in shifts for dx in shifts])
        want = matching.sample(img, moved, BOX_MM, INSET_MM, (0,), outside=0.25)
        assert got.shape == want.shape and np.array_equal(got, want)
        assert (want == 0.25).any() and (want != 0.25).any()
