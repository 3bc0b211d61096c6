"""A glare halo on a blank: the Tokyo Poo Divers reader calls a card an object only once
a halo of added light on it is allowed for."""

from __future__ import annotations

from collections.abc import Callable

from companion.games.poodivers.layout import rows_of
from vision import mat, poodivers
from vision.decks import load_faces
from vision.synth_tables import Table


def test_a_blank_beside_a_glare_spot_is_a_blank(user_table: Callable[[str], Table]) -> None:
    """The cream table's medium photo of seed 1002: a glare spot, unclipped, lies just off
    blank J1 (dark, low-contrast faces). What the plane leaves of J1 is the spot's smooth
    halo, which no face shows; with the halo taken off, J1 is the blank it is."""
    table = user_table("cream")
    scene = table.poodivers(1002, "medium", "lovers")
    assert scene.cells["J1"] == "blank"
    reader = poodivers.PooDiversReader(load_faces(table.faces), mat.load(table.mat),
                                       rows_of("lovers"))
    reading = reader.read(scene.photo)
    assert reading.cells == scene.cells, {c: (v, reading.cells[c]) for c, v in
                                          scene.cells.items() if reading.cells[c] != v}
