"""A card torn between two fixed faces is sought again with every picture at every 1 mm
shift: :func:`vision.matching.match` seeks its fine shifts around the best picture's
coarse shift only, so a closed back washed out by a veil, whose faint ring lies between
two coarse shifts, lost to the plain blank that lay nearer there."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision import poodivers, templates
from vision.decks import Faces
from vision.images import load as read_image
from vision.mat import PX_PER_MM
from vision.matching import FEATURE_PX_PER_MM, prepare
from vision.synth_tables import Table

from .helpers import as_sent, read_grid


@pytest.mark.parametrize(("style", "seed", "layout", "cells"), [
    # the benchmark's hard photos of seed 3 (made after the changes before were measured):
    # closed backs along the veiled left edge, read as blanks at 0.43-0.72
    ("project", 3001, "donut", ("A3", "A5")),
    ("bright", 3001, "donut", ("A4",)),
])
def test_a_veiled_closed_back_between_two_shifts_is_closed(
        user_table: Callable[[str], Table], style: str, seed: int, layout: str,
        cells: tuple[str, ...]) -> None:
    table = user_table(style)
    scene = table.poodivers(seed, "hard", layout)
    reading = read_grid(table, layout, as_sent(scene.photo))
    for cell in cells:
        assert scene.cells[cell] == "closed"
        odds = reading.candidates[cell]
        # project's A3 is a near tie with the blank (0.4748 and 0.4738 on x86_64; on
        # aarch64 the blank wins by 0.0003): asked about either way, closed as likely
        assert reading.cells[cell] == "closed" or cell in reading.unsure(), (cell, odds)
        assert odds["closed"] >= max(odds.values()) - 0.01, (cell, odds)


def test_every_picture_is_found_at_its_own_shift(faces: Faces) -> None:
    """A closed back drawn 3 mm right and 1 mm down of its place (between two coarse
    shifts): at that shift its own picture lies as near as a clean copy, and the shift
    found is the one it was drawn at."""
    pictures = templates.poo_templates(faces)
    labels = list(pictures.labels)
    closed = labels.index("closed")
    cw, ch = faces.card_mm
    size = (round(3 * cw * PX_PER_MM), round(3 * ch * PX_PER_MM))
    mat = np.full((size[1], size[0], 3), 0.8, np.float32)
    card = cv2.resize(read_image(faces.faces["closed"][0]),
                      (round(cw * PX_PER_MM), round(ch * PX_PER_MM)),
                      interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    x, y = round((cw + 3) * PX_PER_MM), round((ch + 1) * PX_PER_MM)
    mat[y:y + card.shape[0], x:x + card.shape[1]] = card
    small = prepare(mat, PX_PER_MM)
    known = np.ones(small.shape[:2], np.float32)
    corner = np.array([[cw, ch]]) * FEATURE_PX_PER_MM
    found, where, _ = poodivers.everywhere(small, known, corner, pictures, 1 / 255,
                                           np.full(3, 0.8, np.float32))
    assert found[0, closed] < 0.05
    assert tuple(where[0, closed]) == (3.0, 1.0)
    assert found[0, labels.index("sleeper")] > 0.3
