"""A glare halo on a blank: the Tokyo Poo Divers reader calls a card an object only once
a halo of added light on it is allowed for."""

from __future__ import annotations

from collections.abc import Callable

from vision.synth_tables import Table

from .helpers import misread, read_grid


def test_a_blank_beside_a_glare_spot_is_a_blank(user_table: Callable[[str], Table]) -> None:
    """The cream table's medium photo of seed 1002: a glare spot, unclipped, lies just off
    blank J1 (dark, low-contrast faces). What the plane leaves of J1 is the spot's smooth
    halo, which no face shows; with the halo taken off, J1 is the blank it is."""
    table = user_table("cream")
    scene = table.poodivers(1002, "medium", "lovers")
    assert scene.cells["J1"] == "blank"
    reading = read_grid(table, "lovers", scene.photo)
    assert reading.cells == scene.cells, misread(scene.cells, reading.cells)
