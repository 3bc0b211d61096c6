"""Where the Shoal section lattice lies, from the straight edges of every card in the photo.

Every card lies a whole number of sections from every other (a card covers sections of
the one under it exactly), so every card's outline and every card's print lie at the
same places modulo the section, give or take how askew a hand put the card down. Summed
modulo the section, the straight edges of the photo pile up as the deck's own cards'
edges do (their outlines, and their print: a line of sand, fish drawn in the same place
in every section), shifted to where the lattice lies. The whole-card search
(:meth:`vision.shoal.ShoalReader.top_card`) finds one card, precisely, but under glare
or on busy art its best match can lie half a section off every card; the lattice the
edges of all the cards agree on says which of its matches is a card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.lighting import EDGE_MM
from vision.mat import PX_PER_MM, MatSpec

STEP_MM = 2.0
"""Resolution (mm a pixel, and mm a bin of the sums) at which edges are summed."""
STRAIGHT = 2.0
"""An edge counts for the lattice's columns when it changes across more than this many
times as much as along (within about 27 degrees of upright), and for its rows likewise:
cards lie within a few degrees of square to the mat."""
ASKEW_MM = 1.5
"""How far (standard deviation, mm) a card put down by hand lies from its lattice place,
its edge's shadow with it: the deck's edges are spread so before they are compared."""
PLACED_MM = 3 * ASKEW_MM
"""A card lies within this of the lattice its cards' edges fit (or a quarter section,
if less): a whole-card match further off lies between cards."""


def edge_sums(grey: np.ndarray, blind: Sequence[tuple[slice, slice]] = ()
              ) -> tuple[np.ndarray, np.ndarray]:
    """How much straight edge each column (upright edges) and each row (level edges)
    of ``grey`` (one pixel a :data:`STEP_MM`) holds, the ``blind`` areas left out."""
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0))
    gy = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    for area in blind:
        gx[area] = gy[area] = 0
    upright = np.where(gx > STRAIGHT * gy, gx, 0)
    level = np.where(gy > STRAIGHT * gx, gy, 0)
    return upright.sum(0), level.sum(1)


def deck_edges(cards: np.ndarray, section_mm: tuple[float, float]
               ) -> tuple[np.ndarray, np.ndarray]:
    """What the lattice's edges look like folded modulo the section, each way (2 x bins:
    the deck's print, an outline at the lattice's line), spread by :data:`ASKEW_MM`: from
    the deck's card pictures (N x h x w, grey, a pixel a :data:`STEP_MM`, whole)."""
    sums = [edge_sums(np.ascontiguousarray(card, np.float32)) for card in cards]
    out = []
    for axis, period in enumerate(section_mm):
        folded = fold(np.sum([s[axis] for s in sums], axis=0), period)
        outline = np.zeros(len(folded))
        outline[[0, -1]] = 1.0  # an edge at 0 mm shows in the pixels either side of it
        out.append(np.stack([_spread(folded, period), _spread(outline, period)]))
    return out[0], out[1]


@dataclass(frozen=True)
class Lattice:
    """Where the lattice's lines lie, and how well the photo's edges fit it there and
    elsewhere."""

    origin: tuple[float, float]
    """Modulo the section (mm from the rectified image's top-left, ``0 <= x < width``)."""
    section_mm: tuple[float, float]
    unexplained: tuple[np.ndarray, np.ndarray]
    """Each way, at every shift (a bin of about :data:`STEP_MM` from 0), the share of the
    folded edges' variance the deck's edges and outlines placed there leave unexplained."""

    def worse(self, x_mm: float, y_mm: float) -> float:
        """How much worse (a ratio, 1 or more) the edges fit a lattice through a card
        placed at (``x_mm``, ``y_mm``) than this one: each way's unexplained share within
        :func:`placed` of it over its least, multiplied."""
        out = 1.0
        for place, period, share in zip((x_mm, y_mm), self.section_mm, self.unexplained,
                                        strict=True):
            off = off_lattice(np.arange(len(share)) * period / len(share), place, period)
            near = (off <= placed(period)) | (off == off.min())  # a bin wider than that
            out *= float(share[near].min() / max(float(share.min()), 1e-12))
        return out


def placed(period_mm: float) -> float:
    """How far (mm) a card lies from the lattice at most: :data:`PLACED_MM`, or a quarter
    section if less."""
    return min(period_mm / 4, PLACED_MM)


def fit(grey: np.ndarray, mat: MatSpec, section_mm: tuple[float, float],
        deck: tuple[np.ndarray, np.ndarray]) -> Lattice:
    """Where the lattice's lines lie modulo the section: where the photo's straight edges
    (``grey``, the rectified mat at :data:`vision.mat.PX_PER_MM`), folded modulo the
    section, fit the deck's (``deck``, :func:`deck_edges`) and the cards' outlines best.
    The markers and the mat's edge band count for nothing (their edges are the mat's)."""
    small = cv2.resize(grey, None, fx=1 / (STEP_MM * PX_PER_MM), fy=1 / (STEP_MM * PX_PER_MM),
                       interpolation=cv2.INTER_AREA)
    h, w = small.shape
    edge = int(np.ceil(EDGE_MM / STEP_MM))
    blind = [np.s_[:edge, :], np.s_[h - edge:, :], np.s_[:, :edge], np.s_[:, w - edge:]]
    ox, oy = mat.origin_mm
    for x0, y0, x1, y1 in mat.marker_boxes_mm(EDGE_MM):
        ya, yb = int((y0 - oy) / STEP_MM), int(np.ceil((y1 - oy) / STEP_MM))
        xa, xb = int((x0 - ox) / STEP_MM), int(np.ceil((x1 - ox) / STEP_MM))
        blind.append(np.s_[max(0, ya):max(0, yb), max(0, xa):max(0, xb)])
    columns, rows = edge_sums(small, blind)
    (x, across), (y, down) = (_fit(fold(sums, period), model, period) for sums, model, period
                              in zip((columns, rows), deck, section_mm, strict=True))
    return Lattice((x, y), section_mm, (across, down))


def fold(sums: np.ndarray, period_mm: float) -> np.ndarray:
    """``sums`` (one a :data:`STEP_MM`, the first about the first pixel's middle) summed
    modulo ``period_mm``, in bins of about :data:`STEP_MM`."""
    bins = max(1, round(period_mm / STEP_MM))
    at = ((np.arange(len(sums)) + 0.5) * STEP_MM % period_mm) / period_mm * bins
    out: np.ndarray = np.bincount(np.minimum(at.astype(int), bins - 1), sums, bins)
    return out


def _spread(profile: np.ndarray, period_mm: float) -> np.ndarray:
    """``profile`` (folded) spread round its period by :data:`ASKEW_MM`."""
    bins = len(profile)
    d = np.arange(bins) - bins // 2
    kernel = np.exp(-0.5 * (d * period_mm / bins / ASKEW_MM) ** 2)
    out: np.ndarray = np.real(np.fft.ifft(np.fft.fft(profile)
                                          * np.fft.fft(np.roll(kernel / kernel.sum(),
                                                               -(bins // 2)))))
    return out


def _fit(photo: np.ndarray, model: np.ndarray, period_mm: float
         ) -> tuple[float, np.ndarray]:
    """The shift (mm) at which the ``model``'s parts (:func:`deck_edges`), scaled and
    offset (least squares, no scale below 0), fit the photo's folded edges best, and the
    share of their variance left unexplained at every shift (a bin each).

    Shifting the parts round the period changes none of their products with each other,
    so every shift shares one set of normal equations; a fit with a scale below 0 is
    replaced by the best without that part (the best of those that keep every scale at
    0 or above is the constrained least squares fit)."""
    bins = len(photo)
    parts = np.concatenate([model, np.ones((1, bins))])
    # each part shifted by every s against the photo: parts x shifts
    shifted = parts[:, (np.arange(bins)[None, :] - np.arange(bins)[:, None]) % bins]
    moments = shifted @ photo
    gram = parts @ parts.T
    best = np.full(bins, np.inf)
    for use in ([0, 1, 2], [0, 2], [1, 2], [2]):
        coef = np.linalg.lstsq(gram[np.ix_(use, use)], moments[use], rcond=None)[0]
        residual = float(photo @ photo) - (coef * moments[use]).sum(0)
        feasible = (coef[:-1] >= 0).all(0)
        best = np.where(feasible & (residual < best), residual, best)
    at = int(np.argmin(best))
    # between bins: the parabola through the best and its two neighbours
    before, after = best[at - 1], best[(at + 1) % bins]
    curve = before - 2 * best[at] + after
    step = 0.5 * (before - after) / curve if np.isfinite(curve) and curve > 0 else 0.0
    variance = max(float(bins * photo.var()), 1e-12)  # what the offset alone leaves
    return float((at + step) * period_mm / bins % period_mm), best / variance


def off_lattice(place_mm: np.ndarray, origin_mm: float, period_mm: float) -> np.ndarray:
    """How far each place lies from the nearest lattice line (mm, either way)."""
    out: np.ndarray = np.abs((place_mm - origin_mm + period_mm / 2) % period_mm
                             - period_mm / 2)
    return out
