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


def run(cells: Mapping[str, str], start: str, direction: str, value: str) -> list[str]:
    """The cells after ``start`` along ``direction`` that hold ``value``, up to the first
    one that does not (Tokyo Poo Divers' star runs of open objects)."""
    out = []
    cell = Cell.parse(start).step(direction)
    while cells.get(str(cell)) == value:
        out.append(str(cell))
        cell = cell.step(direction)
    return out
