"""Cells of square grids, named like a spreadsheet: column letter, row number.

``A1`` is the top-left cell; columns ``A``..``Z``, rows from 1. Shared by every game
played on a grid (Shark's board, the Tokyo Poo Divers layout).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_CELL = re.compile(r"([A-Z])([1-9][0-9]?)")

DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, -1), "NE": (1, -1), "E": (1, 0), "SE": (1, 1),
    "S": (0, 1), "SW": (-1, 1), "W": (-1, 0), "NW": (-1, -1),
}
"""The eight compass directions as (column step, row step); north is up (row 1)."""

ORTHOGONAL = ("N", "E", "S", "W")
MAX_COLUMNS, MAX_ROWS = 26, 99


class BadRows(ValueError):
    """Row strings that are not a grid; the message says which row and what to fix."""


@dataclass(frozen=True, order=True)
class Cell:
    """A grid cell by 0-based column and row; ``str(cell)`` is its name."""

    col: int
    row: int

    @classmethod
    def parse(cls, name: object) -> Cell:
        """``Cell.parse("C4") == Cell(2, 3)``; raises ``ValueError`` for anything else."""
        if not isinstance(name, str):
            raise ValueError(f"a cell is named like \"C4\", not {name!r}")
        m = _CELL.fullmatch(name.strip().upper())
        if not m:
            raise ValueError(f"a cell is named like \"C4\" (column letter, row number), "
                             f"not {name!r}")
        return cls(ord(m.group(1)) - ord("A"), int(m.group(2)) - 1)

    def __str__(self) -> str:
        return f"{chr(ord('A') + self.col)}{self.row + 1}"

    def step(self, direction: str, n: int = 1) -> Cell:
        dc, dr = DIRECTIONS[direction]
        return Cell(self.col + dc * n, self.row + dr * n)

    def neighbours(self, directions: tuple[str, ...] = ORTHOGONAL) -> list[Cell]:
        return [self.step(d) for d in directions]


def run(cells: Mapping[Cell, str], start: Cell, direction: str, value: str) -> list[Cell]:
    """The cells after ``start`` along ``direction`` that hold ``value``, up to the first
    one that does not (Tokyo Poo Divers' star runs of open objects)."""
    out = []
    cell = start.step(direction)
    while cells.get(cell) == value:
        out.append(cell)
        cell = cell.step(direction)
    return out


def parse_rows(rows: object, what: str, allowed: str, meaning: str) -> dict[Cell, str]:
    """Check row strings (one character a cell, ``.`` no cell) and return the cells.

    ``what`` names the grid in messages ("board", "layout"); ``allowed`` are the cell
    characters besides ``.``, ``meaning`` says what they stand for. Shared by Shark's
    boards and the Tokyo Poo Divers layouts; raises :class:`BadRows`.
    """
    if not isinstance(rows, list | tuple) or not rows or not all(isinstance(r, str)
                                                                 for r in rows):
        raise BadRows(f"a {what} is a list of row strings, one character a cell: "
                      f"{meaning}, \".\" no cell")
    width = len(rows[0])
    for number, row in enumerate(rows, 1):
        if len(row) != width:
            raise BadRows(f"{what} row {number} has {len(row)} cells and row 1 has {width}: "
                          "every row must be as long as the first (use \".\" for no cell)")
        unknown = sorted(set(row) - set(allowed) - {"."})
        if unknown:
            raise BadRows(f"{what} row {number} has {unknown[0]!r}: a cell is {meaning}, "
                          "or \".\" for no cell")
    if width == 0 or width > MAX_COLUMNS or len(rows) > MAX_ROWS:
        raise BadRows(f"a {what} is 1 to {MAX_COLUMNS} cells wide and at most {MAX_ROWS} "
                      f"high, not {width} x {len(rows)}")
    return {Cell(c, r): ch for r, row in enumerate(rows) for c, ch in enumerate(row)
            if ch != "."}
