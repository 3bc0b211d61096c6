"""Where a card's edge must show in a photo: along a section's outer sides (those on
the card's outline) that face bare mat.

A plain section and bare mat beside cards look alike in pattern: the edges of the cards
around a bare cell fall where a plain section's frame would. What a bare cell lacks is
the card's own outline on its other sides. An edge shows as a step (card and mat of
different colours) or a line (a printed frame, a shadow, a light rim): either way the
colour changes sharply across it, and this measures how sharply, on the rectified photo.
"""

from __future__ import annotations

import numpy as np

from vision.mat import PX_PER_MM
from vision.peel import Cell

ACROSS = 1 / 3
"""How far either side of a side's place its edge is looked for, as a share of the
section across it: cards lie off the lattice by more than a match's shift seeks, and a
plain section matches a little off its place as well as on it."""
STEP_MM = 1.5
"""Colours this far either side of a point are compared for an edge there."""
ALONG = (0.2, 0.8)
"""The stretch of a side looked at (shares of its length): clear of the corners, where
other cards' edges cross it."""

LEAST = 3
"""Sides of each kind (card edges, none) a photo must show to say what an edge is."""

SIDES: dict[str, Cell] = {"top": (0, -1), "bottom": (0, 1), "left": (-1, 0), "right": (1, 0)}
OUTER: tuple[tuple[str, str], ...] = (("top", "left"), ("top", "right"),
                                      ("bottom", "left"), ("bottom", "right"))
"""A card's outer sides at each of its sections, in the deck's row-major order."""


def strength(rectified: np.ndarray, corner_mm: np.ndarray, size_mm: tuple[float, float],
             side: str) -> float:
    """How sharply the colour changes across ``side`` of the box with top-left
    ``corner_mm`` (rectified mm) and ``size_mm``: the largest colour difference (paper
    white units, over the three channels) between points :data:`STEP_MM` either side of
    a line parallel to the side, within :data:`ACROSS` of it, averaged along it."""
    image, (x0, y0), (w, h) = rectified, corner_mm, size_mm
    if side in ("left", "right"):  # looked at as the top or bottom of the image turned
        image, (x0, y0), (w, h) = rectified.transpose(1, 0, 2), (y0, x0), (h, w)
    s = PX_PER_MM
    at = y0 if side in ("top", "left") else y0 + h
    lo, hi = round((x0 + ALONG[0] * w) * s), round((x0 + ALONG[1] * w) * s)
    ya, yb = round((at - ACROSS * h) * s), round((at + ACROSS * h) * s)
    if ya < 0 or yb > image.shape[0] or lo < 0 or hi > image.shape[1]:
        return float("nan")
    profile = image[ya:yb, lo:hi].mean(1)
    d = round(STEP_MM * s)
    step = profile[2 * d:] - profile[:-2 * d]
    return float(np.sqrt((step * step).sum(-1)).max())


def outlined(found: dict[Cell, int], cells: list[Cell], corners_mm: np.ndarray,
             size_mm: tuple[float, float], rectified: np.ndarray, plain: np.ndarray
             ) -> dict[Cell, int]:
    """``found`` (cell -> section column 4n + q, as :func:`vision.peel.peel`) less the
    plain sections (``plain``, per column) that show no card edge on any of their outer
    sides facing bare mat (a cell not found: one of ``cells``, or beyond them, towards
    the mat's edge, where no card is read either; ``corners_mm``: each cell's top-left
    where it matched best, rectified mm). None left out when the photo has fewer than
    :data:`LEAST` sides of either kind to compare.

    What an edge is in this photo is measured in it: the outer sides of sections with
    fish facing bare mat are card edges, the sides between two bare cells are none. A
    side shows an edge when it is nearer the first than the second, on a scale of
    ratios (their geometric mean: how sharp an edge is scales with the light)."""
    index = {c: k for k, c in enumerate(cells)}

    def facing_bare(c: Cell, sides: tuple[str, ...]) -> list[float]:
        out = []
        for side in sides:
            dx, dy = SIDES[side]
            n = (c[0] + dx, c[1] + dy)
            if n not in found:  # bare, or beyond the cells read (the mat's edge): no card
                out.append(strength(rectified, corners_mm[index[c]], size_mm, side))
        return [v for v in out if not np.isnan(v)]

    card = [v for c, col in found.items() if not plain[col]
            for v in facing_bare(c, OUTER[col % 4])]
    none = [v for c in cells if c not in found for v in facing_bare(c, ("right", "bottom"))]
    if len(card) < LEAST or len(none) < LEAST:
        return found
    edge = float(np.sqrt(max(float(np.median(card)), 1e-6) * max(float(np.median(none)), 1e-6)))
    out = {}
    for c, col in found.items():
        sides = facing_bare(c, OUTER[col % 4]) if plain[col] else []
        if not sides or max(sides) > edge:
            out[c] = col
    return out
