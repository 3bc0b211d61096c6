"""Read a Tokyo Poo Divers layout from a photo: which cards are closed, blank, sleeper or
an object.

The layout (a named one or row strings) says which grid cells hold a card. The grid is
found from the cards themselves: the outermost cards fix the grid's box, and the known
number of rows and columns its pitch. Each card is matched against the faces file's
images (all cards at once, invariant to gain and offset: :mod:`vision.matching`); a card
that looks like none of the closed, blank or sleeper faces is an object, so object
drawings missing from faces.json are still read as objects. How unlike is "none" is
learned from the faces file itself and the photo (:func:`object_margin`), never written
in. Build a :class:`PooDiversReader` once per faces file, mat and layout.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.grid import Cell
from vision import calibration, lighting, matching, templates
from vision.decks import Faces, load_faces
from vision.errors import VisionError
from vision.mat import PX_PER_MM, MatSpec, detect, mat_of
from vision.reading import Reading, timed

FIXED = ("closed", "blank", "sleeper")
"""The faces every card shows one of, unless it shows an object."""


def grid_box(mask: np.ndarray, card_px: tuple[float, float]) -> tuple[int, int, int, int]:
    """Box (x0, y0, x1, y1) in pixels around the card-sized blobs on the mat."""
    joined = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    # a pale card may show only its printed frame: fill it in
    contours, _ = cv2.findContours(joined, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(joined, contours, -1, 1, cv2.FILLED)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    min_area = 0.5 * card_px[0] * card_px[1]
    keep = [i for i in range(1, count) if stats[i][cv2.CC_STAT_AREA] >= min_area]
    if not keep:
        raise VisionError("no cards found on the mat: are the cards on the mat and the "
                          "faces file the right one?")
    cards = np.isin(labels, keep)
    # a column or row of the layout holds at least most of a card's side of card pixels
    cols = np.flatnonzero(cards.sum(0) >= 0.6 * card_px[1])
    rows = np.flatnonzero(cards.sum(1) >= 0.6 * card_px[0])
    if not len(cols) or not len(rows):
        raise VisionError("no cards found on the mat: are the cards on the mat and the "
                          "faces file the right one?")
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def refine_grid(mask: np.ndarray, rows: tuple[str, ...], card_px: tuple[float, float],
                start: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """Grid origin and pitch (x0, y0, pitch_x, pitch_y, px) that put the most card pixels
    inside the layout's card cells, searched near ``start``."""
    integral = cv2.integral(mask.astype(np.uint8)).astype(np.float64)
    h, w = mask.shape
    # card cells count for the grid, gaps and the ring around the layout against it
    cells = np.array([(c, r) for r in range(-1, len(rows) + 1)
                      for c in range(-1, len(rows[0]) + 1)], float)
    sign = np.array([1.0 if 0 <= r < len(rows) and 0 <= c < len(rows[0])
                     and rows[int(r)][int(c)] == "#" else -1.0 for c, r in cells])
    cw, ch = card_px
    x0, y0, px, py = start
    # cards lie a little apart: start from a plausible pitch whatever the box said
    px, py = float(np.clip(px, cw, 1.2 * cw)), float(np.clip(py, ch, 1.2 * ch))
    # wide searches first: a stray bright blob (unsaturated glare) can stretch the box
    rounds = [(100, 2.0, 4.0, 0.5), (100, 2.0, 4.0, 0.5), (4, 0.5, 0.75, 0.125)]
    for span_mm, step_mm, pitch_span, pitch_step in rounds:
        span, step = span_mm * PX_PER_MM, step_mm * PX_PER_MM
        for axis in (0, 1):
            o = (x0, y0)[axis] + np.arange(-span, span + 0.01, step)
            p = (px, py)[axis] + np.arange(-pitch_span, pitch_span + 0.01,
                                           pitch_step) * PX_PER_MM
            oo, pp = (v.reshape(-1, 1) for v in np.meshgrid(o, p))
            size = (cw, ch)[axis]
            lo = oo + cells[None, :, axis] * pp + 0.05 * size
            hi = lo + 0.9 * size
            other = (y0, x0)[axis] + cells[:, 1 - axis] * (py, px)[axis]
            olo = np.broadcast_to(other + 0.05 * (ch, cw)[axis], lo.shape)
            ohi = olo + 0.9 * (ch, cw)[axis]
            a0 = np.clip(np.round(lo), 0, (w, h)[axis]).astype(int)
            a1 = np.clip(np.round(hi), 0, (w, h)[axis]).astype(int)
            b0 = np.clip(np.round(olo), 0, (h, w)[axis]).astype(int)
            b1 = np.clip(np.round(ohi), 0, (h, w)[axis]).astype(int)
            xa, xb, ya, yb = (a0, a1, b0, b1) if axis == 0 else (b0, b1, a0, a1)
            score = (integral[yb, xb] - integral[ya, xb] - integral[yb, xa]
                     + integral[ya, xa]) @ sign
            # ties (a grid that fits equally well a little further) go to the nearest
            start_o, start_p = (x0, px) if axis == 0 else (y0, py)
            score -= 1e-3 * (np.abs(oo - start_o) + np.abs(pp - start_p)).ravel()
            k = int(score.argmax())
            if axis == 0:
                x0, px = float(oo[k, 0]), float(pp[k, 0])
            else:
                y0, py = float(oo[k, 0]), float(pp[k, 0])
    return x0, y0, px, py


def object_margin(templates: templates.Templates, margins: calibration.Margins,
                  photo_true: float) -> float:
    """The distance beyond which a card is none of the fixed faces: an object. The
    geometric mean of how far a true match lies (the faces' worn distance, or the
    photo's own when worse) and how near the object images come to the fixed faces
    (without object images: how near the fixed faces come to each other)."""
    labels = np.array(templates.labels)
    fixed = np.isin(labels, FIXED)
    true = max(margins.worn, photo_true)
    d = calibration.cross(templates)
    if fixed.all():  # no object images: as unlike as the fixed faces are to each other
        apart = labels[:, None] != labels[None, :]
        return float(np.sqrt(true * max(float(d[apart].min()), true)))
    return float(np.sqrt(true * max(float(d[np.ix_(fixed, ~fixed)].min()), true)))


class PooDiversReader:
    """Reads Tokyo Poo Divers layouts of one faces file, mat and layout."""

    def __init__(self, faces: Faces, mat: MatSpec, rows: tuple[str, ...]) -> None:
        self.faces = faces
        self.mat = mat
        self.rows = rows
        self.templates = templates.poo_templates(faces)
        self.margins = calibration.margins(self.templates, frozenset({"object"}))

    @classmethod
    def from_files(cls, faces: Path, mat: Path | None, rows: tuple[str, ...]
                   ) -> PooDiversReader:
        return cls(load_faces(faces), mat_of(mat), rows)

    def read(self, photo: np.ndarray) -> Reading:
        """Read every card cell of the layout ("#" card, "." gap) in ``photo``."""
        return timed(self._read, photo)

    def _read(self, photo: np.ndarray) -> Reading:
        rows, templates, faces, mat = self.rows, self.templates, self.faces, self.mat
        view = detect(mat, photo)
        light = lighting.flatten(view.rectified, mat)
        mask = light.mask
        cw, ch = faces.card_mm
        x0, y0, x1, y1 = (v / PX_PER_MM
                          for v in grid_box(mask, (cw * PX_PER_MM, ch * PX_PER_MM)))
        ncols, nrows = len(rows[0]), len(rows)
        pitch_x = (x1 - x0 - cw) / (ncols - 1) if ncols > 1 else cw
        pitch_y = (y1 - y0 - ch) / (nrows - 1) if nrows > 1 else ch
        if not (0.8 * cw < pitch_x < 1.6 * cw and 0.8 * ch < pitch_y < 1.6 * ch):
            raise VisionError(
                f"the cards on the mat span {x1 - x0:.0f} x {y1 - y0:.0f} mm, which does not "
                f"fit a layout of {ncols} x {nrows} cards of {cw:g} x {ch:g} mm: is it the "
                "right layout, and nothing else on the mat?")
        grid = refine_grid(mask, rows, (cw * PX_PER_MM, ch * PX_PER_MM),
                           (x0 * PX_PER_MM, y0 * PX_PER_MM, pitch_x * PX_PER_MM,
                            pitch_y * PX_PER_MM))
        x0, y0, pitch_x, pitch_y = (v / PX_PER_MM for v in grid)
        small = matching.prepare(light.flat, PX_PER_MM)
        known = matching.prepare((~light.unknown).astype(np.float32), PX_PER_MM)
        bare = matching.prepare(light.bare.astype(np.float32), PX_PER_MM) > 0.99
        noise = matching.noise_floor(small, bare)
        colour_noise = matching.colour_floor(small, bare)
        cells = [(c, r) for r, row in enumerate(rows) for c, mark in enumerate(row)
                 if mark == "#"]
        corners = np.array([(x0 + c * pitch_x, y0 + r * pitch_y) for c, r in cells])
        dist, shift = matching.match(small, known, corners, templates, noise, light.mat,
                                     colour_noise)
        labels = np.array(templates.labels)
        fixed = np.isin(labels, FIXED)
        best_fixed = dist[:, fixed].min(1)
        density = calibration.photo_density(dist, self.margins.worn)
        unlike = object_margin(templates, self.margins, float(np.exp(density[0])))
        veils = matching.veil(small, corners + shift, templates, dist.argmin(1))
        reading = Reading("poodivers", {}, {}, view=view)
        for k, (c, r) in enumerate(cells):
            options = calibration.posterior(dist[k], templates.labels, density,
                                            {"object": unlike})
            label = next(iter(options))
            if label != "object" and best_fixed[k] > unlike:
                label = "object"  # like none of the fixed faces: an object
            name = str(Cell(c, r))
            dx, dy = shift[k]
            reading.cells[name] = label
            reading.confidence[name] = options.get(label, 0.0)
            reading.veil[name] = max(0.0, float(veils[k]))
            reading.candidates[name] = options
            ox, oy = mat.origin_mm
            reading.boxes_mm[name] = (ox + x0 + c * pitch_x + dx, oy + y0 + r * pitch_y + dy,
                                      cw, ch)
        return reading


def read(photo: np.ndarray, faces: Faces, rows: tuple[str, ...], mat: MatSpec) -> Reading:
    """Read one photo (builds a reader: for many photos, keep a :class:`PooDiversReader`)."""
    return PooDiversReader(faces, mat, rows).read(photo)
