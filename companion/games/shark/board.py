"""Board geometry: which cells exist, which area each belongs to, the area die.

A board is rows of characters, one a cell: an area digit (``1``..``9``), ``S`` a shark
area, ``.`` no cell; and the faces of its area die. Cells are named like a spreadsheet
(``A1`` top-left, :class:`companion.grid.Cell`). The named boards ship as data files
next to this module: ``classic.json`` (1987/1991 edition: six zones of 5 x 4) and
``kbg2022.json`` (a *reconstruction* of the 2022 board: four quarters around a 4 x 4
shark area; edit the file if your board differs). An inline board is the same object:

    {"rows": ["111112222S", ...], "area_die": ["1", "2", "3", "4", "S", "S"]}

The die face ``S`` means "any shark-area cell".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from companion.engine import BadSetup
from companion.grid import BadRows, Cell, parse_rows

NAMED = ("classic", "kbg2022")
SHARK = "S"
AREA_CHARACTERS = "123456789S"


@dataclass(frozen=True)
class Board:
    """A checked board: its rows, area die, and the geometry derived from them."""

    name: str
    rows: tuple[str, ...]
    area_die: tuple[str, ...]
    areas: Mapping[Cell, str]                    # cell -> area character, row by row
    neighbours: Mapping[Cell, tuple[Cell, ...]]  # cell -> orthogonal cells on the board
    own: Mapping[Cell, Cell]                     # cell -> the board's object for it

    def cells_of(self, area: str) -> list[Cell]:
        """The cells of an area (``"3"``) or of every shark area (``"S"``), row by row."""
        return [cell for cell, a in self.areas.items() if a == area]

    def cell(self, cell: Cell) -> Cell:
        """The board's own object for ``cell`` (one of its cells): looking it up in a
        mapping of cells then finds it by identity, the fast way."""
        return self.own[cell]

    def describe(self, area: str) -> str:
        """``"area 3"`` or ``"the shark area"``, for messages."""
        return "the shark area" if area == SHARK else f"area {area}"


@cache
def named(name: str) -> Board:
    """One of the boards shipped with the companion (``classic``, ``kbg2022``)."""
    text = resources.files(__package__).joinpath(f"{name}.json").read_text("utf-8")
    data = json.loads(text)
    return build(name, data["rows"], data["area_die"])


def load(option: object) -> Board:
    """Check the ``board`` option (a name or an inline board object) and build it."""
    if option is None:
        option = "classic"
    if isinstance(option, str):
        if option not in NAMED:
            raise BadSetup(f"unknown board {option!r}: choose {' or '.join(NAMED)}, or give "
                           "a board object with \"rows\" and \"area_die\"")
        return named(option)
    if not isinstance(option, dict):
        raise BadSetup("\"board\" is \"classic\", \"kbg2022\" or an object with \"rows\" "
                       "and \"area_die\"")
    extra = set(option) - {"rows", "area_die", "name"}
    if extra:
        raise BadSetup(f"a board object has \"rows\" and \"area_die\", not {sorted(extra)[0]!r}")
    name = option.get("name", "custom")
    if not isinstance(name, str):
        raise BadSetup("a board's \"name\" is a string")
    return build(name, option.get("rows"), option.get("area_die"))


def build(name: str, rows: object, area_die: object) -> Board:
    """A board from its rows and area die faces; :class:`BadSetup` says what is wrong."""
    try:
        cells = parse_rows(rows, "board", AREA_CHARACTERS,
                           "an area digit 1-9 or \"S\" for a shark area")
    except BadRows as err:
        raise BadSetup(str(err)) from None
    assert isinstance(rows, list)
    areas = cells
    if not areas:
        raise BadSetup("the board has no cells")
    if (not isinstance(area_die, list) or not area_die
            or not all(isinstance(f, str | int) and not isinstance(f, bool) for f in area_die)):
        raise BadSetup("\"area_die\" is the list of the area die's faces, such as "
                       "[\"1\", \"2\", \"3\", \"4\", \"S\", \"S\"]")
    faces = tuple(str(f) for f in area_die)
    present = set(areas.values())
    for face in faces:
        if face not in present:
            where = "no shark-area cell (S)" if face == SHARK else f"no cell of area {face}"
            raise BadSetup(f"the area die has a face {face!r} but the board has {where}")
    # The board's own Cell objects everywhere, so that looking one up finds it by identity.
    own = {cell: cell for cell in areas}
    neighbours = {cell: tuple(own[n] for n in cell.neighbours() if n in own) for cell in areas}
    return Board(name, tuple(rows), faces, areas, neighbours, own)
