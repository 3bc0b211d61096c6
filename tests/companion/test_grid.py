"""Grid cells as values and row strings shared by Shark's boards and the Tokyo Poo Divers
layouts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine import BadSetup
from companion.games.poodivers.layout import card_cells, rows_of
from companion.games.shark.board import build
from companion.grid import BadRows, Cell, parse_rows


@given(col=st.integers(0, 25), row=st.integers(0, 98))
def test_a_cell_is_its_name(col: int, row: int) -> None:
    cell = Cell(col, row)
    assert Cell.parse(str(cell)) == cell
    assert Cell.parse(str(cell).lower()) == cell


@pytest.mark.parametrize("name", ["", "A0", "AA1", "1A", "A100", None, 4, "C 4"])
def test_a_bad_cell_name_says_how_cells_are_named(name: object) -> None:
    with pytest.raises(ValueError, match="a cell is named like"):
        Cell.parse(name)


def test_rows_give_their_cells_row_by_row() -> None:
    assert parse_rows(["#.", ".#"], "layout", "#", "a card") == {Cell(0, 0): "#",
                                                                  Cell(1, 1): "#"}


@pytest.mark.parametrize(("rows", "message"), [
    (["###", "##"], "row 2 has 2 cells and row 1 has 3"),
    (["##x"], "row 1 has 'x'"),
    ([], "is a list of row strings"),
    (["#" * 27], "is 1 to 26 cells wide"),
])
def test_board_and_layout_refuse_the_same_rows_the_same_way(rows: list[str],
                                                            message: str) -> None:
    with pytest.raises(BadRows, match=message):
        parse_rows(rows, "grid", "#", "a card")
    board_rows = [r.replace("#", "1") for r in rows]
    with pytest.raises(BadSetup, match=f"board {message}|a board {message}"):
        build("custom", board_rows, ["1"])
    with pytest.raises(BadSetup, match=f"layout {message}|a layout {message}"):
        rows_of(rows)


def test_layout_cells_are_named_from_the_top_left() -> None:
    rows = rows_of("donut")
    cells = card_cells(rows)
    assert cells[0] == Cell(rows[0].index("#"), 0) and len(cells) == 68
