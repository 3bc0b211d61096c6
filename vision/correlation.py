"""Shoal's comparison of cells with the deck's sections: normalised correlation.

Each channel's best plane (offset and tilt: a veil's brightening over the cell) is removed
from the cell over its known samples (clipped ones left out, :func:`vision.matching.known_samples`)
and what is left is compared as a unit vector with each template's, all channels together,
every cell at every shift in one matrix product: plain normalised correlation, with no
damping (unlike :func:`vision.matching.distances`), so a faint pattern counts as much as a
strong one. Sampling, planes and templates are :mod:`vision.matching`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.blas import product
from vision.matching import (
    FINE_MM,
    SHIFTS_MM,
    known_samples,
    plane_basis,
    sample,
    window,
)
from vision.planes import deplane, deplane_weighted

if TYPE_CHECKING:
    from vision.templates import Templates

def _deplaned(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
              templates: Templates, shifts: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Each box (top-left ``corners_mm``, M x 2) at each shift (as :func:`sample`) as
    templates are compared: each channel's plane removed over its known samples, the
    clipped ones left out (M*S x D), and one over its length (M*S): its products with
    the unit templates, times that, are its correlations (the products are scaled, not
    the boxes, which hold several times as many numbers)."""
    box, inset = templates.box_mm, templates.inset_mm
    ww, wh = window(box, inset)
    q = plane_basis(ww, wh)
    samples = sample(small, corners_mm, box, inset, shifts, outside=0.0)
    weight = known_samples(known, corners_mm, box, inset, shifts)
    flat = (deplane(samples, q) if weight is None else deplane_weighted(samples, weight, q)
            ).reshape(len(samples), -1)
    scale: np.ndarray = 1.0 / np.maximum(np.sqrt(np.einsum("ij,ij->i", flat, flat)), 1e-9)
    return flat, scale


def _correlate(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
              templates: Templates, shifts: tuple[int, ...]) -> np.ndarray:
    """Correlation of each box (top-left ``corners_mm``, M x 2) at each shift (as
    :func:`sample`) with each template (M*S x N), over the box's known samples only."""
    flat, scale = _deplaned(small, known, corners_mm, templates, shifts)
    out: np.ndarray = product(flat, templates.unit.T)
    out *= scale[:, None]
    return out


def correlations(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
                 templates: Templates, around: np.ndarray | None = None,
                 shifts: tuple[int, ...] = SHIFTS_MM) -> tuple[np.ndarray, np.ndarray]:
    """Every box (top-left ``corners_mm``, K x 2) against every template: the
    correlation (-1..1) at each template's best shift (K x N), and the shift (dx, dy mm)
    of the best template (K x 2).

    Each channel's best plane (gain, offset and tilt of the light) is removed over the
    known samples of the box (``known`` < 0.5: clipped, left out), and what is left is
    compared as one unit vector with the template's:
    plain normalised correlation, with no damping, so a faint pattern counts as much as a
    strong one. A zero template (the bare mat's) correlates 0 with everything. Shifts:
    ``shifts`` (:data:`SHIFTS_MM`) first, then :data:`FINE_MM` around the best of those
    (the best template's); or, given ``around`` (K x 2 mm, where another window found
    each box), :data:`FINE_MM` around it. Every template is compared at the fine shifts:
    a deck holds many sections alike (two clownfish and two sardines drawn in the same
    places), and one compared only at the coarse shifts would lose to lookalikes that
    were compared at the fine ones, the card's own section among them."""
    k, n = len(corners_mm), len(templates.unit)
    rows = np.arange(k)
    corners = np.asarray(corners_mm, float)
    fine = np.array([(dx, dy) for dy in FINE_MM for dx in FINE_MM], float)
    if around is None:
        coarse = np.array([(dx, dy) for dy in shifts for dx in shifts], float)
        cube = _correlate(small, known, corners, templates, shifts).reshape(k, len(coarse), -1)
        best = cube.argmax(1)
        ncc = np.take_along_axis(cube, best[:, None, :], 1)[:, 0, :]
        start = coarse[best]  # each template's best coarse shift (K x N x 2)
        around = start[rows, ncc.argmax(1)]
    else:  # nothing but the fine shifts about it
        ncc = np.full((k, n), -np.inf, np.float32)
        start = np.broadcast_to(around[:, None, :], (k, n, 2))
    near_cube = _correlate(small, known, corners + around, templates, FINE_MM
                          ).reshape(k, len(fine), n)
    near = near_cube.max(1)
    out: np.ndarray = np.maximum(ncc, near)
    top = out.argmax(1)  # the best template's shift, where it correlated best
    moved = around + fine[near_cube[rows, :, top].argmax(1)]
    shift = np.where((near[rows, top] >= ncc[rows, top])[:, None], moved, start[rows, top])
    return out, shift
