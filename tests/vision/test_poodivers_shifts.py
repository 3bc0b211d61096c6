"""A Tokyo Poo Divers card off its place: each face is measured where it matches best, its
colour too, not at the one shift of the card's best picture (where a card laid off its
place shows the mat beside it for the other faces)."""

from __future__ import annotations

from collections.abc import Callable

from vision.synth_tables import Table

from .helpers import as_sent, read_grid


def test_cards_off_their_place_are_read_by_each_face_at_its_own_shift(
        user_table: Callable[[str], Table]) -> None:
    """Hard photos of seed 1002 (bright table, blank J1, read as an object) and 1000
    (cream table, object F6, read as a blank) when every face's colour was taken where
    the card's best picture matched (sent as the benchmark sends them: JPEG 92)."""
    for style, seed, layout, cell, value in (("bright", 1002, "lovers", "J1", "blank"),
                                             ("cream", 1000, "cow", "F6", "object")):
        table = user_table(style)
        scene = table.poodivers(seed, "hard", layout)
        assert scene.cells[cell] == value
        reading = read_grid(table, layout, as_sent(scene.photo))
        assert reading.cells[cell] == value, (style, cell, reading.candidates[cell])

