"""A card whose colour fits a face only at more contrast than light gives is not that
face: the bright table's objects drawn faintly on the back's brown look like blanks by
their pattern, and a free colour fit stretches the blank's faint cream tint to brown."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision import poo_veil, poodivers
from vision.decks import load_faces
from vision.synth_tables import Table
from vision.templates import poo_templates

from .helpers import misread, read_grid


def test_a_brown_card_fits_a_blank_only_at_more_contrast_than_light_gives(
        user_table: Callable[[str], Table]) -> None:
    faces = load_faces(user_table("bright").faces)
    templates = poo_templates(faces)
    blank = templates.labels.index("blank")
    brown = np.array([[0.17, 0.44, 0.49]], np.float32)  # BGR, paper-white units
    free = poodivers.matching.colour_misfit(brown, templates, np.ones(3, np.float32))
    held = poo_veil.bounded_misfit(brown, templates, np.ones(3, np.float32), 1.2)
    assert free[0, blank] < 0.002  # the blank's tint stretched five times fits it
    assert held[0, blank] > 0.04   # at the contrast light gives it does not


def test_faint_objects_on_the_backs_colour_are_objects(
        user_table: Callable[[str], Table]) -> None:
    """The bright table's easy photo of seed 2000: objects B2, D6 and C9 are faint line
    drawings on brown; their pattern is a blank's, their colour is not (at any contrast
    light gives), and nothing on them is clipped."""
    table = user_table("bright")
    scene = table.poodivers(2000, "easy", "cow")
    assert all(scene.cells[c] == "object" for c in ("B2", "D6", "C9"))
    reading = read_grid(table, "cow", scene.photo)
    assert reading.cells == scene.cells, misread(scene.cells, reading.cells)
    assert len(reading.unsure()) <= 16  # asking about a quarter of the layout is no reading


def test_a_blank_clipped_in_places_is_read_by_the_free_fit(
        user_table: Callable[[str], Table]) -> None:
    """The off-white table's easy photo of seed 1002: blank H7 is clipped in blue here and
    there (its mean is not), so its colour is known only as "at least this bright" and
    the bounded fit does not apply: it is the blank it is."""
    table = user_table("offwhite")
    scene = table.poodivers(1002, "easy", "lovers")
    assert scene.cells["H7"] == "blank"
    reading = read_grid(table, "lovers", scene.photo)
    assert reading.cells == scene.cells, misread(scene.cells, reading.cells)
