"""What a reader saw: cells, confidences, unsure cells, and where each cell is on the mat.

The JSON is the vision contract's ``{game, cells, confidence, ms}`` plus ``unsure``: the
cells read with less confidence than :data:`vision.calibration.UNSURE`, each with the
values it could be (the value read first, with their probability) and its box, in mat
millimetres and in pixels of the rectified photo (``Reading.view.rectified``; see
:meth:`Reading.crop`), for a player to check before the score is taken::

    "unsure": [{"cell": "3,1", "candidates": [{"value": "angel", "p": 0.62},
                {"value": "clown", "p": 0.35}], "box_mm": [x, y, w, h],
                "box_px": [x, y, w, h]}]

A Shoal cell read as bare mat that glare may hide a card on is unsure too: it is not in
``cells``, and its candidates include ``no-card``. Cells beside the layout that glare
hides altogether are ``hidden`` (names, with boxes for the overlay), and ``retake`` then
says so in a sentence for the players (``null`` when nothing is hidden)::

    "hidden": ["-1,2", "0,3"], "retake": "Glare hides 2 cells beside the layout ..."

``values`` lists every value a cell can be read as (the deck's sections and ``no-card``,
or the faces), so a player can give an unsure cell's value when none of its candidates
is what the card shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision import threads
from vision.errors import VisionError
from vision.mat import MatView
from vision.templates import NO_CARD


@dataclass
class Reading:
    """One photo read: the vision contract's object plus the cells' boxes for overlays."""

    game: str
    cells: dict[str, str]
    confidence: dict[str, float]
    ms: int = 0
    boxes_mm: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    """Cell -> (x, y, w, h) on the mat in millimetres, where it was matched."""
    view: MatView | None = field(default=None, repr=False)
    candidates: dict[str, dict[str, float]] = field(default_factory=dict)
    """Cell -> the values it could be and their probability, the value read first, then
    the likeliest. The value read is the likeliest, unless Tokyo Poo Divers' deck has
    no room for that one (:func:`vision.poo_odds.within_deck`): then it is less likely
    than the next, and asked about."""
    veil: dict[str, float] = field(default_factory=dict)
    """Cell -> how much a glare veil brightens it (paper-white units; 0 when none).
    Filled by the Shoal reader only."""
    doubtful: dict[str, dict[str, float]] = field(default_factory=dict)
    """Cells read as bare mat that may be under a card (Shoal, glare): the values they
    could be, ``no-card`` among them, most likely first. Not in ``cells``; unsure."""
    values: list[str] = field(default_factory=list)
    """Every value a cell can be read as: what a player may pick for an unsure cell."""
    hidden: list[str] = field(default_factory=list)
    """Cells beside the layout that glare hides (Shoal, :func:`vision.peel.hidden`): a
    card there would not be read. Not in ``cells``; if a card lies there, the photo is worth
    taking again (on an overexposed mat the bare paper clips too, with no card hidden)."""

    def retake(self) -> str | None:
        """What to tell the players when glare hides cells beside the layout."""
        if not self.hidden:
            return None
        n = len(self.hidden)
        names = ", ".join(self.hidden[:4]) + (f" and {n - 4} more" if n > 4 else "")
        return (f"Glare hides {n} cell{'' if n == 1 else 's'} beside the layout ({names}; "
                "outlined in magenta on the photo): a card lying there would not be read. "
                "If one does, move the lamp or tilt the camera, then take the photo again.")

    def unsure(self) -> list[str]:
        """The cells read with less confidence than :data:`vision.calibration.UNSURE`,
        then the doubtful ones (read as bare mat, maybe under a card)."""
        from vision.calibration import UNSURE

        return [c for c, v in self.confidence.items() if v < UNSURE] + list(self.doubtful)

    def box_px(self, cell: str) -> tuple[int, int, int, int]:
        """A cell's box (x, y, w, h) in pixels of the rectified photo."""
        x, y, w, h = self.boxes_mm[cell]
        if self.view is None:
            return round(x), round(y), round(w), round(h)
        x0, y0 = self.view.mm_to_px(x, y)
        s = self.view.px_per_mm
        return round(x0), round(y0), round(w * s), round(h * s)

    def crop(self, cell: str, margin_mm: float = 3.0) -> np.ndarray:
        """The cell as the camera saw it, straightened (BGR), with a little around it."""
        if self.view is None:
            raise VisionError("this reading has no photo to crop")
        x, y, w, h = self.box_px(cell)
        m = round(margin_mm * self.view.px_per_mm)
        img = self.view.rectified
        return img[max(0, y - m):y + h + m, max(0, x - m):x + w + m].copy()

    def to_json(self) -> dict[str, Any]:
        unsure = []
        for cell in self.unsure():
            read = self.cells.get(cell, NO_CARD)
            options = (self.doubtful.get(cell) or self.candidates.get(cell)
                       or {read: self.confidence[cell]})
            likely = [v for v, p in options.items() if p >= 0.01][:4]
            if read in options and read not in likely:  # what was read is always offered
                likely = [*likely[:3], read]
            entry: dict[str, Any] = {
                "cell": cell,
                "candidates": [{"value": v, "p": round(options[v], 3)} for v in likely]}
            if cell in self.boxes_mm:
                entry["box_mm"] = [round(v, 1) for v in self.boxes_mm[cell]]
                entry["box_px"] = list(self.box_px(cell))
            unsure.append(entry)
        return {"game": self.game, "cells": self.cells,
                "confidence": {k: round(v, 3) for k, v in self.confidence.items()},
                "ms": self.ms, "unsure": unsure, "values": self.values, "hidden": self.hidden,
                "retake": self.retake()}

    def overlay(self, photo: np.ndarray) -> np.ndarray:
        """The photo with every recognised cell outlined (green sure, orange or red unsure,
        magenta hidden by glare) and named."""
        out = photo.copy()
        if self.view is None:
            return out
        mat = self.view.spec
        (x0, y0), (w, h) = mat.origin_mm, mat.size_mm
        outline = self.view.to_photo(np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h],
                                               [x0, y0 + h]]))
        cv2.polylines(out, [outline.round().astype(np.int32)], True, (255, 160, 0), 2,
                      cv2.LINE_AA)
        font = max(0.35, photo.shape[1] / 3200)
        for cell, (x, y, w, h) in self.boxes_mm.items():
            quad = self.view.to_photo(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]))
            conf = self.confidence.get(cell, 0.0)
            colour = ((255, 0, 255) if cell in self.hidden else (0, 200, 0) if conf >= 0.9
                      else (0, 160, 255) if conf >= 0.5 else (0, 0, 255))
            cv2.polylines(out, [quad.round().astype(np.int32)], True, colour, 2, cv2.LINE_AA)
            label = self.cells.get(cell) or ("no card?" if cell in self.doubtful else
                                             "glare" if cell in self.hidden else "")
            text = "\n".join([cell, *label.split("+")])
            cx, cy = quad.mean(0)
            for i, line in enumerate(text.split("\n")):
                org = (round(cx - 20), round(cy - 10 + i * 16 * font / 0.5))
                cv2.putText(out, line, org, cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), 3,
                            cv2.LINE_AA)
                cv2.putText(out, line, org, cv2.FONT_HERSHEY_SIMPLEX, font, (255, 255, 255),
                            1, cv2.LINE_AA)
        return out

    def write_overlay(self, photo: np.ndarray, path: Path) -> None:
        if not cv2.imwrite(str(path), self.overlay(photo)):
            raise VisionError(f"could not write the overlay to {path} (use a .png or .jpg name)")


def timed(read: Callable[[np.ndarray], Reading], photo: np.ndarray) -> Reading:
    """``read(photo)`` on one thread, with the time it took in ``ms``."""
    threads.one_thread()
    threads.keep_freed_memory()
    start = time.perf_counter()
    reading = read(photo)
    reading.ms = round((time.perf_counter() - start) * 1000)
    return reading
