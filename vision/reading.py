"""What a reader saw: cells, confidences, and where each cell is on the mat."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import VisionError
from vision.mat import MatView


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

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "cells": self.cells,
                "confidence": {k: round(v, 3) for k, v in self.confidence.items()},
                "ms": self.ms}

    def overlay(self, photo: np.ndarray) -> np.ndarray:
        """The photo with every recognised cell outlined (green sure, red unsure) and named."""
        out = photo.copy()
        if self.view is None:
            return out
        mat = self.view.spec
        outline = self.view.to_photo(np.array([[0, 0], [mat.size_mm[0], 0],
                                               [*mat.size_mm], [0, mat.size_mm[1]]]))
        cv2.polylines(out, [outline.round().astype(np.int32)], True, (255, 160, 0), 2,
                      cv2.LINE_AA)
        font = max(0.35, photo.shape[1] / 3200)
        for cell, (x, y, w, h) in self.boxes_mm.items():
            quad = self.view.to_photo(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]))
            conf = self.confidence.get(cell, 0.0)
            colour = (0, 200, 0) if conf >= 0.3 else (0, 160, 255) if conf >= 0.1 else (0, 0, 255)
            cv2.polylines(out, [quad.round().astype(np.int32)], True, colour, 2, cv2.LINE_AA)
            label = self.cells.get(cell, "")
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
