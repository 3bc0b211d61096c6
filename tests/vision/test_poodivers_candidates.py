"""A Tokyo Poo Divers card's candidates and its value are one decision: the value read is
the first candidate, and the candidates' odds are those of the distances it is read by."""

from __future__ import annotations

from collections.abc import Callable

from vision.synth_tables import Table

from .helpers import read_grid


def test_the_value_read_is_the_first_candidate(user_table: Callable[[str], Table]) -> None:
    """The bright table's easy photo of seed 2000: three blanks (B6, A7, B8), read right as
    blanks, were offered to the player with "object" first (the average of the colour
    fit held to what light gives, which had them objects, and the free one). Clipped in
    places, they are read by the free fit and are now as sure as it says (the held fit
    takes a clipped card's leaning means for its colour): not asked about at all."""
    table = user_table("bright")
    scene = table.poodivers(2000, "easy", "cow")
    reading = read_grid(table, "cow", scene.photo)
    assert all(scene.cells[c] == "blank" for c in ("B6", "A7", "B8"))
    assert {c: reading.cells[c] for c in ("B6", "A7", "B8")} == {c: "blank"
                                                                for c in ("B6", "A7", "B8")}
    for cell, value in reading.cells.items():
        first, odds = next(iter(reading.candidates[cell].items()))
        assert first == value, (cell, reading.candidates[cell])
        assert odds == max(reading.candidates[cell].values())
        assert reading.confidence[cell] <= odds + 1e-9
    unsure = {u["cell"]: u for u in reading.to_json()["unsure"]}
    assert unsure and not {"B6", "A7", "B8"} & set(unsure)
    assert all(u["candidates"][0]["value"] == reading.cells[c] for c, u in unsure.items())


def test_a_reading_lists_every_value_a_player_may_give(
        user_table: Callable[[str], Table]) -> None:
    """``values``: what a player may pick for an unsure card when none of its candidates
    is right: the four things a card can be read as, every candidate among them."""
    table = user_table("bright")
    reading = read_grid(table, "cow", table.poodivers(2000, "easy", "cow").photo)
    out = reading.to_json()
    assert sorted(out["values"]) == ["blank", "closed", "object", "sleeper"]
    offered = {c["value"] for u in out["unsure"] for c in u["candidates"]}
    assert set(reading.cells.values()) | offered <= set(out["values"])
