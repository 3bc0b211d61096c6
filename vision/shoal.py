"""Read a finished Shoal layout from a photo of it on the mat.

1. Find the mat (:mod:`vision.mat`) and divide out the light (:mod:`vision.lighting`).
2. Find the section lattice: cards lie on a grid of sections, so the right grid is the
   one whose cells are each either covered or bare, never half-covered. Its pitch is
   the deck's ``section_mm``; only its phase is searched.
3. Match every covered lattice cell against the section templates of the deck, all at
   once (:mod:`vision.matching`: invariant to gain and offset), allowing a few
   millimetres of slack for careless hands and leaving out clipped pixels. A cell is
   bare mat when little of it differs from the mat's measured colour, or when nothing
   but the photo's noise is left of it once its light is taken away.
4. Read whole cards (:mod:`vision.cards`): a glared cell that a neighbour's card must
   cover is a section, not missing, and an unsure cell takes the section that the card
   its sure neighbours place over it shows there, when that matches nearly as well.

Confidences come from the deck's own margins and the photo (:mod:`vision.calibration`).
Build a :class:`ShoalReader` once per deck and mat and read many photos with it.

Cells are ``"x,y"``, x right and y down, shifted so that the smallest x and y among the
sections found are 0.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from vision import calibration, cards, lighting, matching, threads
from vision.cards import Box, Cell, Found
from vision.decks import Deck, load_deck
from vision.errors import VisionError
from vision.mat import PX_PER_MM, MatSpec, detect, mat_of
from vision.reading import Reading

MIN_COVER = 0.3
"""A lattice cell at least this much covered by something is matched."""
SURELY = 0.5
"""... and one at least this much covered is a card, never the bare mat."""
GLARED = 0.05
"""A cell this much under glare may hide a card's section (vision.cards)."""


def lattice_phase(mask: np.ndarray, pitch_px: tuple[float, float], step: int = 2,
                  unknown: np.ndarray | None = None) -> tuple[float, float]:
    """The grid offset (px) whose cells are most cleanly either covered or bare (over
    what is known of each cell: ``unknown`` pixels count for neither)."""
    pw, ph = pitch_px
    h, w = mask.shape
    ox = np.arange(0, pw, step)
    oy = np.arange(0, ph, step)
    kx = np.arange(-1, int(w / pw) + 2)
    ky = np.arange(-1, int(h / ph) + 2)
    xs = np.clip(np.round(ox[:, None] + pw * kx[None, :]), 0, w).astype(int)
    ys = np.clip(np.round(oy[:, None] + ph * ky[None, :]), 0, h).astype(int)

    def sums(img: np.ndarray) -> np.ndarray:
        integral = cv2.integral(img.astype(np.uint8)).astype(np.float64)
        a = integral[ys[:, None, :, None], xs[None, :, None, :]]
        out: np.ndarray = a[..., 1:, 1:] - a[..., :-1, 1:] - a[..., 1:, :-1] + a[..., :-1, :-1]
        return out

    known = pw * ph - (sums(unknown) if unknown is not None else 0.0)
    cover = sums(mask) / np.maximum(known, 1.0)
    cost = (np.minimum(cover, 1 - cover) * known / (pw * ph)).sum((-1, -2))
    iy, ix = np.unravel_index(int(cost.argmin()), cost.shape)
    return float(ox[ix]), float(oy[iy])


class ShoalReader:
    """Reads Shoal layouts of one deck on one mat; build once, read many photos."""

    def __init__(self, deck: Deck, mat: MatSpec) -> None:
        self.deck = deck
        self.mat = mat
        self.templates = matching.shoal_templates(deck)
        self.margins = calibration.margins(self.templates, frozenset({matching.NO_CARD}))

    @classmethod
    def from_files(cls, deck: Path | str | None, mat: Path | None) -> ShoalReader:
        """The reader of a deck.json (or folder; the shipped deck when ``None``) and a
        mat.json (the project's A3 mat when ``None``)."""
        return cls(load_deck(deck if deck is not None else "default"), mat_of(mat))

    def read(self, photo: np.ndarray) -> Reading:
        """Read the shoal in ``photo``; :class:`VisionError` if the mat is not found."""
        threads.one_thread()
        start = time.perf_counter()
        reading = self._read(photo)
        reading.ms = round((time.perf_counter() - start) * 1000)
        return reading

    def _read(self, photo: np.ndarray) -> Reading:
        mat, templates = self.mat, self.templates
        view = detect(mat, photo)
        light = lighting.flatten(view.rectified, mat)
        mask, glare_mask = light.mask, light.glare
        sw, sh = self.deck.section_mm
        pw, ph = sw * PX_PER_MM, sh * PX_PER_MM
        ox, oy = lattice_phase(mask, (pw, ph), unknown=light.unknown)
        small = matching.prepare(light.flat, PX_PER_MM)
        known = matching.prepare((~light.unknown).astype(np.float32), PX_PER_MM)
        bare = matching.prepare(light.bare.astype(np.float32), PX_PER_MM) > 0.99
        noise = matching.noise_floor(small, bare)
        colour_noise = matching.colour_floor(small, bare)
        integral = cv2.integral(mask.astype(np.uint8))
        glare = cv2.integral(glare_mask.astype(np.uint8))
        markers = cv2.integral(lighting.marker_mask(mat, mask.shape, PX_PER_MM,
                                                    mat.marker_mm / 6).astype(np.uint8))
        h, w = mask.shape

        def box_sum(table: np.ndarray, xa: int, ya: int, xb: int, yb: int) -> float:
            return float(table[yb, xb] - table[ya, xb] - table[yb, xa] + table[ya, xa])

        cover: dict[Cell, tuple[float, float]] = {}
        for j in range(-1, int(h / ph) + 1):
            for i in range(-1, int(w / pw) + 1):
                x0, y0 = ox + i * pw, oy + j * ph
                xa, ya = int(np.clip(round(x0), 0, w)), int(np.clip(round(y0), 0, h))
                xb, yb = int(np.clip(round(x0 + pw), 0, w)), int(np.clip(round(y0 + ph), 0, h))
                blind = box_sum(glare, xa, ya, xb, yb)
                covered = box_sum(integral, xa, ya, xb, yb) / max(pw * ph - blind, pw * ph / 4)
                inside = (xb - xa) * (yb - ya) / (pw * ph)  # cards lie on the mat
                if box_sum(markers, xa, ya, xb, yb) / (pw * ph) < 0.15 and inside > 0.75:
                    cover[(i, j)] = (covered, blind / (pw * ph))

        def beside(i: int, j: int) -> bool:
            return any(cover.get(c, (0.0, 0.0))[0] >= MIN_COVER
                       for c in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)))

        # glare must not make a card vanish from a shoal: a cell partly under glare, next
        # to cards, is matched on what the glare leaves
        todo = [c for c, (covered, blind) in cover.items()
                if covered >= MIN_COVER or (blind >= GLARED and beside(*c))]
        glared = [c for c, (_, blind) in cover.items() if blind >= GLARED]
        dist, shifts = self._match(todo + [c for c in glared if c not in todo], small, known,
                                   (noise, colour_noise), (ox, oy), (pw, ph), light.mat)
        found: Found = {}
        distances: dict[Cell, np.ndarray] = {}
        for cell in todo:
            d = dist[cell]
            if cover[cell][0] >= SURELY:  # mostly not the mat's colour: a card lies there
                d = d.copy()
                d[0] = np.inf
            label, conf, _ = matching.margin(d, templates.labels)
            if label != matching.NO_CARD:
                found[cell] = (label, conf * (1 - cover[cell][1]), self._box(cell, shifts[cell],
                                                                             (ox, oy)))
                distances[cell] = d

        def is_bare(cell: Cell) -> bool:
            return cell not in found and cover.get(cell, (0.0, 0.0))[1] < GLARED

        for cell in cards.hidden_cells(found, glared, is_bare):
            d = dist[cell]
            t = 1 + int(np.argmin(d[1:]))  # covered: a section, never the bare mat
            found[cell] = (templates.labels[t], 0.0, self._box(cell, shifts[cell], (ox, oy)))
            distances[cell] = d
        cards.same_card(found, distances, templates.labels)
        cards.under_placed(found, distances, templates.labels,  # those not settled yet
                           [c for c in glared if c in found and found[c][1] < cards.UNSURE])
        if not found:
            raise VisionError("no cards found on the mat: are the cards on the mat, face up, "
                              "and is this the right deck?")
        density = calibration.photo_density(np.stack([distances[c] for c in found]),
                                            self.margins.worn)
        ox_mm, oy_mm = mat.origin_mm
        veils = matching.veil(small, np.array([(b[0] - ox_mm, b[1] - oy_mm)
                                               for _, _, b in found.values()]), templates,
                              np.array([int(np.argmin(distances[c][1:])) + 1 for c in found]))
        veil_of = dict(zip(found, veils, strict=True))
        x_min = min(i for i, _ in found)
        y_min = min(j for _, j in found)
        reading = Reading("shoal", {}, {}, view=view)
        for (i, j), (label, _, box) in sorted(found.items(), key=lambda kv: (kv[0][1],
                                                                           kv[0][0])):
            name = f"{i - x_min},{j - y_min}"
            options = calibration.posterior(distances[(i, j)], templates.labels, density)
            options.pop(matching.NO_CARD, None)  # the lattice says a card lies there
            total = sum(options.values()) or 1.0
            options = {k: v / total for k, v in options.items()}
            reading.cells[name] = label
            reading.confidence[name] = options.get(label, 0.0)
            reading.candidates[name] = options
            reading.boxes_mm[name] = box
            reading.veil[name] = max(0.0, float(veil_of[(i, j)]))
        return reading

    def _match(self, cells: list[Cell], small: np.ndarray, known: np.ndarray,
               noise: tuple[float, float],
               origin: tuple[float, float], pitch: tuple[float, float], mat: np.ndarray
               ) -> tuple[dict[Cell, np.ndarray], dict[Cell, tuple[float, float]]]:
        """Template distances of every cell at its best shift, and that shift."""
        if not cells:
            return {}, {}
        corners = np.array([((origin[0] + i * pitch[0]) / PX_PER_MM,
                             (origin[1] + j * pitch[1]) / PX_PER_MM) for i, j in cells])
        dist, shift = matching.match(small, known, corners, self.templates, noise[0], mat,
                                     noise[1])
        return ({c: dist[k] for k, c in enumerate(cells)},
                {c: (float(shift[k, 0]), float(shift[k, 1])) for k, c in enumerate(cells)})

    def _box(self, cell: Cell, shift: tuple[float, float], origin: tuple[float, float]) -> Box:
        """Where a cell matched best, in mat millimetres (x, y, w, h)."""
        sw, sh = self.deck.section_mm
        dx, dy = shift
        x_mm = (origin[0] + cell[0] * sw * PX_PER_MM) / PX_PER_MM + dx
        y_mm = (origin[1] + cell[1] * sh * PX_PER_MM) / PX_PER_MM + dy
        ox, oy = self.mat.origin_mm
        return ox + x_mm, oy + y_mm, sw, sh


def read(photo: np.ndarray, deck: Deck, mat: MatSpec) -> Reading:
    """Read one photo (builds a reader: for many photos, keep a :class:`ShoalReader`)."""
    return ShoalReader(deck, mat).read(photo)


def layout_of(reading: Reading) -> dict[tuple[int, int], str]:
    """The reading as a layout: (x, y) -> section value."""
    out = {}
    for name, value in reading.cells.items():
        x, y = name.split(",")
        out[(int(x), int(y))] = value
    return out
