"""A card clipped anywhere is read by its colour's free fit, and is as sure as that fit
says: the fit with the gain held to what light gives (``poo_veil.bounded_misfit``)
takes a card's mean colour for its colour, and a clipped channel's mean leans away from
the clip. The Blender set's photo 16 (linen table): the warm lamp clips the blanks'
red; read right, the held fit alone would have them asked about (0.04-0.80). Each is as
sure as its free fit's odds (its first candidate), 0.94-1.0 as sent."""

from __future__ import annotations

from vision import lighting

from .helpers import blender_grid


def test_blanks_clipped_in_red_are_read_without_a_question() -> None:
    shot, reader, photo = blender_grid("photos/16.jpg")
    assert (photo[:, :, 2] >= lighting.CLIP).mean() > 0.1  # the warm lamp clips red
    reading = reader.read(photo)
    unsure = set(reading.unsure())
    blanks = ("C5", "E2", "E7", "G8", "I5", "I8")
    for cell in blanks:
        assert shot["cells"][cell] == reading.cells[cell] == "blank", (cell,
                                                                       reading.candidates[cell])
    for cell in blanks:  # not capped by the held fit
        assert reading.confidence[cell] == reading.candidates[cell]["blank"], cell
    # what it reads wrong it still asks about
    wrong = [c for c, v in shot["cells"].items() if reading.cells[c] != v]
    assert not [c for c in wrong if c not in unsure], (wrong, sorted(unsure))
