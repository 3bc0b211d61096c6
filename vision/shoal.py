"""Read a finished Shoal layout from a photo of it on the mat.

1. Find the mat (:mod:`vision.mat`) and divide out the light (:mod:`vision.lighting`).
2. Find the section lattice: cards lie on a grid of sections, so the right grid is the
   one whose cells are each either covered or bare, never half-covered. Its pitch is
   the deck's ``section_mm``; only its phase is searched.
3. Match every covered lattice cell against the section templates of the deck
   (:mod:`vision.matching`), allowing a few millimetres of slack for careless hands and
   leaving out the pixels under glare.
4. Read whole cards (:mod:`vision.cards`): a glared cell that a neighbour's card must
   cover is a section, not missing, and an unsure cell takes the section that the card
   its sure neighbours place over it shows there, when that matches nearly as well.

Cells are ``"x,y"``, x right and y down, shifted so that the smallest x and y among the
sections found are 0.
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from vision import cards, lighting, matching
from vision.cards import Box, Cell, Found
from vision.decks import Deck
from vision.errors import VisionError
from vision.mat import PX_PER_MM, MatSpec, detect
from vision.reading import Reading

MIN_COVER = 0.3
"""A lattice cell at least this much covered by something is matched."""


def lattice_phase(mask: np.ndarray, pitch_px: tuple[float, float],
                  step: int = 2) -> tuple[float, float]:
    """The grid offset (px) whose cells are most cleanly either covered or bare."""
    pw, ph = pitch_px
    h, w = mask.shape
    integral = cv2.integral(mask.astype(np.uint8)).astype(np.float64)
    ox = np.arange(0, pw, step)
    oy = np.arange(0, ph, step)
    kx = np.arange(-1, int(w / pw) + 2)
    ky = np.arange(-1, int(h / ph) + 2)
    xs = np.clip(np.round(ox[:, None] + pw * kx[None, :]), 0, w).astype(int)
    ys = np.clip(np.round(oy[:, None] + ph * ky[None, :]), 0, h).astype(int)
    a = integral[ys[:, None, :, None], xs[None, :, None, :]]
    sums = a[..., 1:, 1:] - a[..., :-1, 1:] - a[..., 1:, :-1] + a[..., :-1, :-1]
    cover = sums / (pw * ph)
    cost = np.minimum(cover, 1 - cover).sum((-1, -2))
    iy, ix = np.unravel_index(int(cost.argmin()), cost.shape)
    return float(ox[ix]), float(oy[iy])


def read(photo: np.ndarray, deck: Deck, mat: MatSpec,
         templates: matching.Templates | None = None) -> Reading:
    """Read the shoal in ``photo``; :class:`VisionError` if the mat is not found."""
    start = time.perf_counter()
    templates = templates or matching.shoal_templates(deck)
    view = detect(mat, photo)
    flat, mask, glare_mask = lighting.flatten(view.rectified, mat)
    sw, sh = deck.section_mm
    pw, ph = sw * PX_PER_MM, sh * PX_PER_MM
    ox, oy = lattice_phase(mask, (pw, ph))
    small = matching.prepare(flat, PX_PER_MM)
    glare_small = matching.glare_map(glare_mask, PX_PER_MM)
    integral = cv2.integral(mask.astype(np.uint8))
    glare = cv2.integral(glare_mask.astype(np.uint8))
    markers = cv2.integral(lighting.marker_mask(mat, mask.shape, PX_PER_MM,
                                                mat.marker_mm / 6).astype(np.uint8))
    h, w = mask.shape
    cover: dict[tuple[int, int], tuple[float, float]] = {}
    for j in range(-1, int(h / ph) + 1):
        for i in range(-1, int(w / pw) + 1):
            x0, y0 = ox + i * pw, oy + j * ph
            xa, ya = int(np.clip(round(x0), 0, w)), int(np.clip(round(y0), 0, h))
            xb, yb = int(np.clip(round(x0 + pw), 0, w)), int(np.clip(round(y0 + ph), 0, h))
            blind = (glare[yb, xb] - glare[ya, xb] - glare[yb, xa] + glare[ya, xa])
            covered = (integral[yb, xb] - integral[ya, xb] - integral[yb, xa]
                       + integral[ya, xa]) / max(pw * ph - blind, pw * ph / 4)
            on_marker = (markers[yb, xb] - markers[ya, xb] - markers[yb, xa]
                         + markers[ya, xa]) / (pw * ph)
            if on_marker < 0.15:  # no card lies on a marker
                cover[(i, j)] = (covered, blind / (pw * ph))

    def match(cell: Cell) -> tuple[np.ndarray, Box]:
        """Template distances at a lattice cell, and the box where it matched best."""
        x_mm, y_mm = (ox + cell[0] * pw) / PX_PER_MM, (oy + cell[1] * ph) / PX_PER_MM
        patches = matching.features_at(small, x_mm, y_mm, (sw, sh), templates.inset_mm)
        blind_px = matching.features_at(glare_small, x_mm, y_mm, (sw, sh), templates.inset_mm,
                                        outside=0.0)
        dist, shift = matching.distances(patches, templates, glare=blind_px)
        k = int(shift[int(np.argmin(dist))])
        n = len(matching.SHIFTS_MM)
        return dist, (x_mm + matching.SHIFTS_MM[k % n], y_mm + matching.SHIFTS_MM[k // n],
                      sw, sh)

    found: Found = {}
    distances: dict[Cell, np.ndarray] = {}
    for (i, j), (covered, blind) in cover.items():
        # glare must not make a card vanish from a shoal: a cell half under glare, next to
        # cards, is matched on what the glare leaves (a cell under more is found by the
        # card lattice below)
        beside = any(cover.get(c, (0.0, 0.0))[0] >= MIN_COVER
                     for c in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)))
        if covered < MIN_COVER and not (0.3 < blind < 0.6 and beside):
            continue
        dist, box = match((i, j))
        label, conf, _ = matching.decide(dist, templates.labels)
        if label != matching.NO_CARD:
            found[(i, j)] = (label, conf * (1 - blind), box)
            distances[(i, j)] = dist

    def bare(cell: Cell) -> bool:
        return cell not in found and cover.get(cell, (0.0, 0.0))[1] < GLARED

    glared = [c for c, (_, blind) in cover.items() if blind >= GLARED]
    hidden = cards.hidden_cells(found, glared, bare)
    for cell in hidden:
        dist, box = match(cell)
        t = 1 + int(np.argmin(dist[1:]))  # covered: a section, never the bare mat
        found[cell] = (templates.labels[t], 0.0, box)
        distances[cell] = dist
    cards.same_card(found, distances, templates.labels)
    cards.under_placed(found, distances, templates.labels,  # those not settled yet
                       [c for c in glared if c in found and found[c][1] < cards.UNSURE])
    if not found:
        raise VisionError("no cards found on the mat: are the cards on the mat, face up, "
                          "and is this the right deck?")
    x_min = min(i for i, _ in found)
    y_min = min(j for _, j in found)
    reading = Reading("shoal", {}, {}, view=view)
    for (i, j), (label, conf, box) in sorted(found.items(), key=lambda kv: (kv[0][1],
                                                                          kv[0][0])):
        name = f"{i - x_min},{j - y_min}"
        reading.cells[name] = label
        reading.confidence[name] = conf
        reading.boxes_mm[name] = box
    reading.ms = round((time.perf_counter() - start) * 1000)
    return reading


GLARED = 0.05
"""A cell this much under the glare mask may hide a card's section (vision.cards)."""


def layout_of(reading: Reading) -> dict[tuple[int, int], str]:
    """The reading as a layout: (x, y) -> section value."""
    out = {}
    for name, value in reading.cells.items():
        x, y = name.split(",")
        out[(int(x), int(y))] = value
    return out
