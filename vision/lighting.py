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

FOREGROUND = 0.12
"""A pixel this far from the mat's tone (in any channel, after flattening) is not bare mat."""

GLARE = 1.32
"""Nothing printed is brighter than paper (about 1.28 times the mat's tone): above is glare."""

SATURATED = 245
"""Photo pixels this bright in every channel are blown out: glare."""

_STEP_MM = 2.0
"""Resolution (mm per pixel) at which the light is estimated."""


def _marker_mask(spec: MatSpec, shape: tuple[int, int], px_per_mm: float,
                 margin_mm: float) -> np.ndarray:
    """True on the markers and their white quiet zones."""
    out = np.zeros(shape, bool)
    for x0, y0, x1, y1 in spec.marker_boxes_mm(margin_mm):
        out[max(0, round(y0 * px_per_mm)):max(0, round(y1 * px_per_mm)),
            max(0, round(x0 * px_per_mm)):max(0, round(x1 * px_per_mm))] = True
    return out


def _poly_fit(img: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """A cubic surface per channel through the kept pixels, evaluated everywhere."""
    h, w = keep.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    terms = np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys,
                      xs**3, xs * xs * ys, xs * ys * ys, ys**3], -1).reshape(-1, 10)
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
    markers = _marker_mask(spec, (sh, sw), 1 / _STEP_MM, spec.marker_mm / 6 + 2)
    band = np.zeros((sh, sw), bool)
    edge = max(2, round(25 / _STEP_MM))
    band[:edge], band[-edge:], band[:, :edge], band[:, -edge:] = True, True, True, True
    keep = band & ~markers
    light = _poly_fit(small, keep)
    for _ in range(3):
        ratio = small / np.maximum(light, 1.0)
        dev = np.abs(ratio - np.median(ratio[keep], axis=0)).max(-1)
        keep = (dev < 0.1) & ~markers
        if keep.sum() < 50:
            break
        light = _poly_fit(small, keep)
    # Shadows are sharper than a cubic: average the bare mat near each point, falling
    # back on the fitted surface where no bare mat is close.
    sigma = 12 / _STEP_MM
    weight = cv2.GaussianBlur(keep.astype(np.float32), (0, 0), sigma)
    local = cv2.GaussianBlur(small * keep[:, :, None], (0, 0), sigma)
    eps = 0.02
    light = (local + eps * light) / (weight[:, :, None] + eps)
    light_full = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    flat = (rectified.astype(np.float32) + 1.0) / np.maximum(light_full, 1.0)
    glare = (flat.max(-1) > GLARE) | (rectified.min(-1) >= SATURATED)
    glare = cv2.dilate(cv2.morphologyEx(glare.astype(np.uint8), cv2.MORPH_OPEN,
                                        np.ones((3, 3), np.uint8)),
                       np.ones((9, 9), np.uint8)).astype(bool)
    mask = (np.abs(flat - 1.0).max(-1) > FOREGROUND) & ~glare
    mask &= ~_marker_mask(spec, (h, w), px_per_mm, spec.marker_mm / 6 + 2)
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN,
                            np.ones((3, 3), np.uint8)).astype(bool)
    return flat, mask, glare
