"""Undo the table's light: divide the rectified mat by the light falling on it.

The bare mat is the one thing in every photo whose colour is known (one even printed
tone), so the light is measured on it (a smooth surface fitted to the bare mat, then a
local average of the bare mat around every point) and divided out. Afterwards the mat
reads 1.0 in every channel, and a card reads its printed colour over the mat's tone, in
any light: uneven, coloured or shadowed. A glare spot cannot be undone, only ignored.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.mat import PX_PER_MM, MatSpec

TINT, BRIGHTER, DARKER = 0.08, 0.15, 0.45
"""A pixel this much more coloured, brighter or darker than the mat (after flattening) is
not bare mat."""

GLARE = 1.32
"""Nothing printed is brighter than paper (about 1.28 times the mat's tone): above is glare."""

EDGE_MM = 5.0
"""Band along the mat's edges that is never read as a card."""
SATURATED = 245
"""Photo pixels this bright in every channel are blown out: glare."""

_STEP_MM = 4.0
"""Resolution (mm per pixel) at which the light is estimated."""


def marker_mask(spec: MatSpec, shape: tuple[int, int], px_per_mm: float,
                 margin_mm: float) -> np.ndarray:
    """True on the markers and their white quiet zones."""
    out = np.zeros(shape, bool)
    for x0, y0, x1, y1 in spec.marker_boxes_mm(margin_mm):
        out[max(0, round(y0 * px_per_mm)):max(0, round(y1 * px_per_mm)),
            max(0, round(x0 * px_per_mm)):max(0, round(x1 * px_per_mm))] = True
    return out


def _poly_fit(img: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """A quadratic surface per channel through the kept pixels, evaluated everywhere
    (a cubic overshoots in the middle of a big layout, where no bare mat shows)."""
    h, w = keep.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    terms = np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys],
                     -1).reshape(-1, 6)
    sel = keep.reshape(-1)
    coef, *_ = np.linalg.lstsq(terms[sel], img.reshape(-1, 3)[sel], rcond=None)
    out: np.ndarray = (terms @ coef).reshape(h, w, 3)
    return out


def flatten(rectified: np.ndarray, spec: MatSpec,
            px_per_mm: float = PX_PER_MM) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rectified mat with its light divided out (float32, mat = 1.0), the mask of
    pixels that are not bare mat (bool; markers and glare excluded), and the glare."""
    h, w = rectified.shape[:2]
    scale = 1 / (_STEP_MM * px_per_mm)
    small = cv2.resize(rectified, (max(8, round(w * scale)), max(8, round(h * scale))),
                       interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
    sh, sw = small.shape[:2]
    markers = marker_mask(spec, (sh, sw), 1 / _STEP_MM, spec.marker_mm / 6 + 2)
    band = np.zeros((sh, sw), bool)
    edge = max(2, round(24 / _STEP_MM))
    band[:edge], band[-edge:], band[:, :edge], band[:, -edge:] = True, True, True, True
    keep = band & ~markers
    light = _poly_fit(small, keep)
    for _ in range(3):
        ratio = small / np.maximum(light, 1.0)
        ratio /= np.median(ratio[keep], axis=0)
        # bare mat is grey under any light: in shadow darker, but no more coloured
        level = ratio.mean(-1, keepdims=True)
        tint = np.abs(ratio / np.maximum(level, 1e-3) - 1.0).max(-1)
        keep = (tint < 0.06) & (level[..., 0] > 0.3) & (level[..., 0] < 1.5) & ~markers
        # pale cards look like mat too; the bare mat is what joins the mat's edges
        _, labels = cv2.connectedComponents(keep.astype(np.uint8), connectivity=4)
        keep &= np.isin(labels, np.unique(labels[band & keep]))
        if keep.sum() < 50:
            break
        light = _poly_fit(small, keep)
    # A shadow is sharper than the surface: lean a little towards the bare mat nearby
    # (only a little: under a big layout that stretches an edge's shadow over the cards;
    # what is left, matching absorbs as a gain, vision.matching.GAIN).
    sigma = 20 / _STEP_MM
    weight = cv2.GaussianBlur(keep.astype(np.float32), (0, 0), sigma)
    local = cv2.GaussianBlur(small * keep[:, :, None], (0, 0), sigma)
    light = (local + 0.15 * light) / (weight[:, :, None] + 0.15)
    light_full = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    flat = (rectified.astype(np.float32) + 1.0) / np.maximum(light_full, 1.0)
    # per-channel work with OpenCV: numpy's reductions over an axis of 3 are slow
    b, g, r = cv2.split(flat)
    level = (b + g + r) / 3
    tint = cv2.max(cv2.max(cv2.absdiff(b, level), cv2.absdiff(g, level)),
                   cv2.absdiff(r, level)) / np.maximum(level, 1e-3)
    top = cv2.max(cv2.max(b, g), r)
    dark = cv2.min(cv2.min(*cv2.split(rectified)[:2]), cv2.split(rectified)[2])
    quiet = marker_mask(spec, (h, w), px_per_mm, spec.marker_mm / 6 + 2)
    core = cv2.morphologyEx(((dark >= SATURATED) & ~quiet).astype(np.uint8), cv2.MORPH_OPEN,
                            np.ones((5, 5), np.uint8))
    # around a blown-out spot the glare fades over about as far again as the spot is
    # wide, still brighter than the mat (and tinted against the light's colour, as white
    # light added after the light was divided out): count that rim as glare too
    _, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    glare = np.zeros((h, w), bool)
    for i in range(1, len(stats)):
        x, y, bw, bh, area = stats[i]
        grow = round(max(2 * px_per_mm, 1.2 * np.sqrt(area / np.pi) + 3 * px_per_mm))
        x0, y0 = max(x - grow, 0), max(y - grow, 0)
        x1, y1 = min(x + bw + grow, w), min(y + bh + grow, h)
        spot = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        glare[y0:y1, x0:x1] |= cv2.dilate(spot, kernel).astype(bool)
    glare |= top > GLARE
    # a card differs from the mat in colour, or clearly in brightness (a shadow the
    # light estimate missed darkens the mat, so darker must be much darker)
    mask = ((tint > TINT) | (level > 1.0 + BRIGHTER) | (level < 1.0 - DARKER)) & ~glare
    mask &= ~quiet
    edge = round(EDGE_MM * px_per_mm)  # the table shows there when the mat is bent
    mask[:edge], mask[-edge:], mask[:, :edge], mask[:, -edge:] = False, False, False, False
    # drop specks of noise, keep a card's printed frame (1 mm is 2 px)
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN,
                            np.ones((2, 2), np.uint8)).astype(bool)
    return flat, mask, glare
