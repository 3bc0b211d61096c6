"""A closer look at a Shoal cell whose own match and its card disagree.

The reader compares cells with sections at 1 px/mm, blurred 1 mm and sampled every 2 mm
(:mod:`vision.matching`): that copes with a blurred photo and a card lying a little off,
but it blurs away what tells lookalike sections apart. A deck draws the two fish of a
pair in the same places whatever the fish; a clownfish's spots and a sardine's stripes,
and their colours under a tungsten lamp, differ by less than that blur keeps. Where the
peel's card and the cell's own match name different values (:data:`vision.shoal.DISAGREE`),
the two sections are compared again at the rectified photo's own 2 px/mm
(:data:`PX_PER_MM`), blurred half as much and sampled at every pixel, inside the window
clear of the neighbours' edges (:data:`vision.templates.SECTION_INSETS_MM`), at each
shift up to :data:`REACH_MM` from where the cell matched best; the better of the two is
shown. Only for those cells: over every cell and every near section (at 1 px/mm) it cost
some 4 ms a read and, used to rank the sections the peel chooses from, read more layouts
wrong than right (docs/vision.md).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.blas import product
from vision.matching import plane_basis
from vision.planes import deplane

PX_PER_MM = 2.0
"""The closer look's resolution: the rectified photo's own (:data:`vision.mat.PX_PER_MM`).
At the first look's 1 px/mm a clownfish's spots and a sardine's stripes, a millimetre
or two apart, are one blur (docs/vision.md, "The closer look at the photo's own
resolution")."""

SHARP_BLUR_MM = 0.5
"""Blur of the closer look (the first look's is :data:`vision.matching.BLUR_MM`)."""
REACH_MM = 2
"""The closer look searches each cell this far (whole mm, each way) from its shift: a
lookalike matched best a little off the card's own section."""


def unit_windows(windows: np.ndarray) -> np.ndarray:
    """Windows (M x h x w x c) with each channel's best plane removed (offset and tilt
    of the light), flattened and made unit vectors (M x h*w*c)."""
    m, h, w, c = windows.shape
    flat = deplane(windows.reshape(m, h * w, c), plane_basis(w, h, 1)).reshape(m, -1)
    out: np.ndarray = flat / np.maximum(np.linalg.norm(flat, axis=1), 1e-9)[:, None]
    return out


def resampled(rectified: np.ndarray, px_per_mm: float) -> np.ndarray:
    """A rectified image (at ``px_per_mm``) at :data:`PX_PER_MM`: itself when it is."""
    scale = PX_PER_MM / px_per_mm
    if scale == 1.0:
        return rectified
    out: np.ndarray = cv2.resize(rectified, None, fx=scale, fy=scale,
                                 interpolation=cv2.INTER_AREA)
    return out


def _blurred(image: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """``image[y0:y1, x0:x1]`` blurred :data:`SHARP_BLUR_MM` as the whole image would be:
    the blur's reach of its neighbours taken in (OpenCV's kernel for float images
    reaches four sigmas), the image's own edges as they are."""
    sigma = SHARP_BLUR_MM * PX_PER_MM
    m = math.ceil(4 * sigma)
    ya, xa = max(0, y0 - m), max(0, x0 - m)
    part = cv2.GaussianBlur(image[ya:y1 + m, xa:x1 + m], (0, 0), sigma)
    out: np.ndarray = part[y0 - ya:y1 - ya, x0 - xa:x1 - xa]
    return out


def window_size(box_mm: tuple[float, float], inset_mm: float) -> tuple[int, int]:
    """Rows and columns (pixels at :data:`PX_PER_MM`) of a section's window ``inset_mm``
    in."""
    s = PX_PER_MM
    return round((box_mm[1] - 2 * inset_mm) * s), round((box_mm[0] - 2 * inset_mm) * s)


def closer_best(photo: np.ndarray, known: np.ndarray, corner_mm: np.ndarray,
                shift_mm: np.ndarray, box_mm: tuple[float, float], inset_mm: float,
                templates: np.ndarray, which: list[int]) -> int | None:
    """Of the sections ``which``, the one that matches the cell (top-left ``corner_mm``,
    matched best at ``shift_mm``) best at the closer look; ``None`` when its window is
    clipped or off the photo. ``photo`` (float) and ``known`` (1 where no channel is
    clipped) are at :data:`PX_PER_MM` (:func:`resampled`), not blurred: only the cell's
    window is, and a clipped pixel counts where under half of the blurred ``known`` is."""
    wh, ww = window_size(box_mm, inset_mm)
    reach = round(REACH_MM * PX_PER_MM)
    x0, y0 = np.round((corner_mm + shift_mm + inset_mm) * PX_PER_MM).astype(int) - reach
    y1, x1 = y0 + wh + 2 * reach, x0 + ww + 2 * reach
    if x0 < 0 or y0 < 0 or x1 > photo.shape[1] or y1 > photo.shape[0] or (
            _blurred(known, x0, y0, x1, y1) < 0.5).any():
        return None
    views = np.lib.stride_tricks.sliding_window_view(_blurred(photo, x0, y0, x1, y1),
                                                     (wh, ww), axis=(0, 1))
    windows = unit_windows(views.reshape(-1, 3, wh, ww).transpose(0, 2, 3, 1))
    look = product(windows, templates[which].T).max(0)
    return which[int(look.argmax())]
