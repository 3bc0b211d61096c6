"""A Tokyo Poo Divers card off its place: each face is measured where it matches best, its
colour too, not at the one shift of the card's best picture (where a card laid off its
place shows the mat beside it for the other faces)."""

from __future__ import annotations

from collections.abc import Callable

from vision.synth_tables import Table

from .helpers import as_sent, read_grid


def test_cards_off_their_place_are_read_by_each_face_at_its_own_shift(
        user_table: Callable[[str], Table]) -> None:
    """The bright table's hard photo of seed 1002: blank J1, laid off its place, read as
    an object (0.58 against 0.42) when every face's colour was taken where the card's best
    picture matched (sent as the benchmark sends it: JPEG 92)."""
    table = user_table("bright")
    scene = table.poodivers(1002, "hard", "lovers")
    assert scene.cells["J1"] == "blank"
    reading = read_grid(table, "lovers", as_sent(scene.photo))
    assert reading.cells["J1"] == "blank", reading.candidates["J1"]
