"""Layout text, cells and the ASCII picture."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.shoal.layout import (
    BadLayout,
    Layout,
    ascii_art,
    check_section,
    count,
    from_cells,
    normalise,
    parse_text,
    render_text,
    to_cells,
)

TEXT = """legend: a=angel b=angel+puffer e=empty
ab.
eab
"""


def test_parse_the_design_example() -> None:
    assert parse_text(TEXT) == {
        (0, 0): "angel", (1, 0): "angel+puffer",
        (0, 1): "empty", (1, 1): "angel", (2, 1): "angel+puffer",
    }


def test_dots_and_spaces_are_no_card_and_blank_lines_around_are_ignored() -> None:
    text = "\n\nlegend: a=angel\n.a\n a\n\n"
    assert parse_text(text) == {(1, 0): "angel", (1, 1): "angel"}


@pytest.mark.parametrize(("text", "message"), [
    ("ab\n", "the first line must be the legend"),
    ("", "the first line must be the legend"),
    ("legend:\nab\n", "the legend is empty"),
    ("legend: a=angel\nab\n", r"row 1, column 2: 'b' is not in the legend"),
    ("legend: a=angel a=clown\na\n", "the legend gives 'a' twice"),
    ("legend: ab=angel\na\n", "legend entries are one character"),
    ("legend: .=angel\na\n", "legend entries are one character"),
    ("legend: a=Angel\na\n", "legend 'a': a section is \"empty\" or fish"),
    ("legend: a=angel+\na\n", "a section is \"empty\" or fish"),
    ("legend: a=fish\na\n", "a section is \"empty\" or fish"),
    ("legend: a=angel\n...\n", "the layout shows no card"),
])
def test_bad_layout_text(text: str, message: str) -> None:
    with pytest.raises(BadLayout, match=message):
        parse_text(text, "ann.txt")


def test_section_values() -> None:
    assert check_section("clown+puffer") == "clown+puffer"
    assert check_section("empty") == "empty"
    for bad in ("", "angel++puffer", "empty+angel", 3, None, "Angel"):
        with pytest.raises(BadLayout):
            check_section(bad)


def test_counts_fish_repeats_and_empty_sections() -> None:
    layout = parse_text("legend: a=angel+angel c=clown+angel e=empty\nace\ne")
    assert count(layout, "fish") == 4
    assert count(layout, "angel") == 3
    assert count(layout, "clown") == 1
    assert count(layout, "empty") == 2


def test_cells_round_trip() -> None:
    layout = parse_text(TEXT)
    cells = to_cells(layout)
    assert list(cells) == ["0,0", "1,0", "0,1", "1,1", "2,1"]
    assert from_cells(cells) == layout
    assert from_cells({"-1, 2": "empty"}) == {(-1, 2): "empty"}
    with pytest.raises(BadLayout, match="a cell is named \"x,y\""):
        from_cells({"A1": "angel"})


def test_ascii_art_shows_every_section() -> None:
    layout = {(-1, 0): "angel", (0, 0): "empty", (0, 1): "sardine+sardine+sardine"}
    art = ascii_art(layout)
    lines = art.splitlines()
    assert lines[0].split() == ["-1", "0"]
    assert lines[1].split() == ["0", "angel", "-"]
    assert lines[2].split() == ["1", ".", "sardine*3"]
    assert ascii_art({}) == "(no cards)\n"


section = st.sampled_from(["empty", "angel", "angel+angel", "clown+puffer", "tang",
                           "sardine+sardine+sardine", "puffer+angel"])
layouts = st.dictionaries(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), section,
                          min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(layouts)
def test_layout_text_round_trips(layout: Layout) -> None:
    text = render_text(layout)
    assert text.startswith("legend: ")
    assert parse_text(text) == normalise(layout)
