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
    deplane,
    deplane_weighted,
    known_samples,
    plane_basis,
    sample,
    window,
)

if TYPE_CHECKING:
    from vision.templates import Templates

FINE_FEW = 8
"""Templates matched again at :data:`FINE_MM` in :func:`correlations`: those a cell
correlates with best at :data:`SHIFTS_MM` (a cell is told apart from those only)."""


def _unit(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
          templates: Templates, shifts: tuple[int, ...]) -> np.ndarray:
    """Each box (top-left ``corners_mm``, M x 2) at each shift (as :func:`sample`) as
    templates are compared: each channel's plane removed over its known samples, the
    clipped ones left out, made a unit vector (M*S x D)."""
    box, inset = templates.box_mm, templates.inset_mm
    ww, wh = window(box, inset)
    q = plane_basis(ww, wh)
    samples = sample(small, corners_mm, box, inset, shifts, outside=0.0)
    weight = known_samples(known, corners_mm, box, inset, shifts)
    flat = (deplane(samples, q) if weight is None else deplane_weighted(samples, weight, q)
            ).reshape(len(samples), -1)
    out: np.ndarray = flat / np.maximum(np.sqrt(np.einsum("ij,ij->i", flat, flat)), 1e-9)[:, None]
    return out


def _correlate(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
               templates: Templates, shifts: tuple[int, ...]) -> np.ndarray:
    """Correlation of each box (top-left ``corners_mm``, M x 2) at each shift (as
    :func:`sample`) with each template (M*S x N), over the box's known samples only."""
    out: np.ndarray = product(_unit(small, known, corners_mm, templates, shifts),
                              templates.unit.T)
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
    for the :data:`FINE_FEW` templates that correlate best there (the others keep their
    best of ``shifts``); or, given ``around`` (K x 2 mm, where another window found each
    box), there and then :data:`FINE_MM` around it."""
    k = len(corners_mm)
    corners = np.asarray(corners_mm, float)
    fine = np.array([(dx, dy) for dy in FINE_MM for dx in FINE_MM], float)
    if around is not None:  # there, the middle of the fine shifts: each window sampled once
        corners = corners + around
        near_rows = _unit(small, known, corners, templates, FINE_MM).reshape(k, len(fine), -1)
        ncc = product(near_rows[:, len(fine) // 2], templates.unit.T)
        few = np.argsort(-ncc, 1)[:, :FINE_FEW]  # the best first
        first = np.zeros((k, 2))
    else:
        coarse = np.array([(dx, dy) for dy in shifts for dx in shifts], float)
        cube = _correlate(small, known, corners, templates, shifts).reshape(k, len(coarse), -1)
        best = cube.argmax(1)
        ncc = np.take_along_axis(cube, best[:, None, :], 1)[:, 0, :]
        few = np.argsort(-ncc, 1)[:, :FINE_FEW]
        first = coarse[best[np.arange(k), few[:, 0]]]
        near_rows = _unit(small, known, corners + first, templates, FINE_MM
                          ).reshape(k, len(fine), -1)
    picked = templates.unit[few]  # K x FINE_FEW x D
    near_cube = product(near_rows, picked.transpose(0, 2, 1))  # K x fine x FINE_FEW
    near = near_cube.max(1)
    moved_top = near[:, 0] > ncc[np.arange(k), few[:, 0]]
    shift = first + np.where(moved_top[:, None], fine[near_cube[:, :, 0].argmax(1)], 0.0)
    if around is not None:
        shift = shift + around
    out = ncc.copy()
    np.put_along_axis(out, few, np.maximum(np.take_along_axis(ncc, few, 1), near), 1)
    return out, shift
