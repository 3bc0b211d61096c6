"""Tokyo Poo Divers layouts: which grid cells hold a card.

A layout is a list of row strings, ``#`` a card and ``.`` a gap; the named ones ship in
``layouts.json`` (the rulebook's card counts; every shape but ``square`` is a
reconstruction, pictured in ``docs/poodivers-layouts.md``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from companion.engine import BadSetup
from companion.grid import BadRows, Cell, parse_rows

MIN_CARDS, MAX_CARDS = 60, 70


@cache
def named() -> dict[str, tuple[str, ...]]:
    """The named layouts: square, donut, mascot, lovers, cow, shithead."""
    text = resources.files(__package__).joinpath("layouts.json").read_text("utf-8")
    return {k: tuple(v) for k, v in json.loads(text).items() if not k.startswith("_")}


def rows_of(layout: object) -> tuple[str, ...]:
    """Check a layout option (a name or row strings) and return its rows."""
    if isinstance(layout, str):
        if layout not in named():
            raise BadSetup(f"unknown layout {layout!r}: choose one of "
                           f"{', '.join(named())}, or give the rows as strings")
        return named()[layout]
    if not isinstance(layout, list):
        raise BadSetup("a layout is a name such as \"square\" or a list of row strings "
                       "(\"#\" a card, \".\" a gap)")
    try:
        count = len(parse_rows(layout, "layout", "#", "\"#\" for a card"))
    except BadRows as err:
        raise BadSetup(str(err)) from None
    if not MIN_CARDS <= count <= MAX_CARDS:
        raise BadSetup(f"the layout has {count} cards; the rules ask for {MIN_CARDS} to "
                       f"{MAX_CARDS} (the deck has 70)")
    return tuple(layout)


def card_cells(rows: tuple[str, ...]) -> tuple[Cell, ...]:
    """The card cells, row by row from the top-left."""
    return tuple(parse_rows(rows, "layout", "#", "\"#\" for a card"))
