"""Shoal layouts: what a shoal shows, section by section.

A :data:`Layout` maps ``(x, y)`` (x to the right, y down, in card sections) to the
*section value* visible there: ``"empty"``, or the fish it shows as kind names joined by
``+`` in the card's printed order, repeats included (``"angel"``, ``"angel+angel"``,
``"clown+puffer"``). Coordinates with no card are absent.

Three text forms:

- the layout text of DESIGN.md (:func:`parse_text` / :func:`render_text`)::

      legend: a=angel b=angel+puffer e=empty
      ab.
      eab

- ``{"x,y": value}`` cells, as in the engine's view and the vision output
  (:func:`to_cells` / :func:`from_cells`);
- an ASCII picture for people (:func:`ascii_art`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Layout = dict[tuple[int, int], str]
"""Visible section value by ``(x, y)``."""

EMPTY = "empty"
FISH = "fish"
NO_CARD = "."
_KIND = re.compile(r"[a-z][a-z0-9_-]*")
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class BadLayout(ValueError):
    """A layout text or section value that cannot be read; the message says where."""


def check_kind(kind: object) -> str:
    """A fish kind name: lower-case letters, digits, ``-`` or ``_``; not ``empty``/``fish``."""
    if not isinstance(kind, str) or not _KIND.fullmatch(kind) or kind in (EMPTY, FISH):
        raise BadLayout(f"{kind!r} is not a fish kind name (lower-case words like "
                        "\"angel\"; \"empty\" and \"fish\" are reserved)")
    return kind


def check_section(value: object) -> str:
    """A section value: ``"empty"`` or fish kinds joined by ``+``."""
    if value == EMPTY:
        return EMPTY
    if not isinstance(value, str) or not value:
        raise BadLayout(f"a section is \"empty\" or fish like \"angel+puffer\", "
                        f"not {value!r}")
    for kind in value.split("+"):
        try:
            check_kind(kind)
        except BadLayout:
            raise BadLayout(f"a section is \"empty\" or fish like \"angel+puffer\", "
                            f"not {value!r}") from None
    return value


def fish_of(value: str) -> list[str]:
    """The fish a section shows, one entry per fish: ``"angel+angel"`` → two angels."""
    return [] if value == EMPTY else value.split("+")


def foreign_fish(layout: Mapping[tuple[int, int], str], kinds: Sequence[str]
                 ) -> tuple[tuple[int, int], str] | None:
    """The first section (by x, then y) showing a fish that is none of ``kinds``, and
    that fish; ``None`` when every fish is one of them."""
    for at, value in sorted(layout.items()):
        unknown = [k for k in fish_of(value) if k not in kinds]
        if unknown:
            return at, unknown[0]
    return None


def has_fish(value: str) -> bool:
    return value != EMPTY


def holds(value: str, what: str) -> bool:
    """Whether a section holds ``what``: a kind, ``"fish"`` (any) or ``"empty"``."""
    if what == EMPTY:
        return value == EMPTY
    if what == FISH:
        return value != EMPTY
    return what in fish_of(value)


def count(layout: Mapping[tuple[int, int], str], what: str) -> int:
    """Visible fish of a kind, all visible fish (``"fish"``), or empty sections."""
    if what == EMPTY:
        return sum(1 for v in layout.values() if v == EMPTY)
    if what == FISH:
        return sum(len(fish_of(v)) for v in layout.values())
    return sum(fish_of(v).count(what) for v in layout.values())


def groups(coords: Iterable[tuple[int, int]]) -> list[set[tuple[int, int]]]:
    """Orthogonally connected groups of the given coordinates."""
    left = set(coords)
    out = []
    while left:
        start = left.pop()
        group, todo = {start}, [start]
        while todo:
            x, y = todo.pop()
            for dx, dy in NEIGHBOURS:
                n = (x + dx, y + dy)
                if n in left:
                    left.remove(n)
                    group.add(n)
                    todo.append(n)
        out.append(group)
    return out


def is_connected(layout: Mapping[tuple[int, int], str]) -> bool:
    """Whether every section touches the rest orthogonally (one piece)."""
    return len(groups(layout)) <= 1


def normalise(layout: Mapping[tuple[int, int], str]) -> Layout:
    """The same layout shifted so the smallest x and the smallest y are 0."""
    if not layout:
        return {}
    x0 = min(x for x, _ in layout)
    y0 = min(y for _, y in layout)
    return {(x - x0, y - y0): v for (x, y), v in layout.items()}


def bounds(layout: Mapping[tuple[int, int], str]) -> tuple[int, int, int, int]:
    """``(x_min, y_min, x_max, y_max)``, inclusive; the layout must not be empty."""
    xs = [x for x, _ in layout]
    ys = [y for _, y in layout]
    return min(xs), min(ys), max(xs), max(ys)


# Cells --------------------------------------------------------------------------


def to_cells(layout: Mapping[tuple[int, int], str]) -> dict[str, str]:
    """``{"x,y": value}``, rows top to bottom, left to right."""
    return {f"{x},{y}": layout[x, y] for x, y in sorted(layout, key=lambda c: (c[1], c[0]))}


def from_cells(cells: object) -> Layout:
    """A layout from ``{"x,y": value}`` cells (the view's and the vision output's form)."""
    if not isinstance(cells, Mapping):
        raise BadLayout("cells are a JSON object like {\"0,0\": \"angel\"}")
    out: Layout = {}
    for key, value in cells.items():
        m = re.fullmatch(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*", str(key))
        if not m:
            raise BadLayout(f"a cell is named \"x,y\" (like \"2,1\"), not {key!r}")
        out[int(m.group(1)), int(m.group(2))] = check_section(value)
    return out


# Layout text --------------------------------------------------------------------


def parse_text(text: str, source: str = "the layout") -> Layout:
    """Read DESIGN.md's layout text: a ``legend:`` line, then one line per row of sections.

    >>> parse_text("legend: a=angel e=empty\\nae\\n.a")
    {(0, 0): 'angel', (1, 0): 'empty', (1, 1): 'angel'}

    ``.`` (or a space) is where no card lies; x counts characters from the left, y rows
    from the first row line.
    """
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or not lines[0].strip().startswith("legend:"):
        raise BadLayout(f"{source}: the first line must be the legend, like "
                        "\"legend: a=angel b=angel+puffer e=empty\"")
    legend = parse_legend(lines[0].strip()[len("legend:"):], source)
    while lines and not lines[-1].strip():
        lines.pop()
    layout: Layout = {}
    for y, line in enumerate(lines[1:]):
        for x, char in enumerate(line.rstrip()):
            if char in (NO_CARD, " "):
                continue
            if char not in legend:
                raise BadLayout(f"{source}: row {y + 1}, column {x + 1}: {char!r} is not in "
                                f"the legend ({' '.join(legend)}; '.' for no card)")
            layout[x, y] = legend[char]
    if not layout:
        raise BadLayout(f"{source}: the layout shows no card")
    return layout


def parse_legend(text: str, source: str = "the layout") -> dict[str, str]:
    """``"a=angel e=empty"`` → ``{"a": "angel", "e": "empty"}``."""
    legend: dict[str, str] = {}
    for entry in text.split():
        char, eq, value = entry.partition("=")
        if not eq or len(char) != 1 or char == NO_CARD:
            raise BadLayout(f"{source}: legend entries are one character, '=', a section "
                            f"value (like a=angel+puffer), not {entry!r}")
        if char in legend:
            raise BadLayout(f"{source}: the legend gives {char!r} twice")
        try:
            legend[char] = check_section(value)
        except BadLayout as err:
            raise BadLayout(f"{source}: legend {char!r}: {err}") from None
    if not legend:
        raise BadLayout(f"{source}: the legend is empty")
    return legend


def legend_for(values: Iterable[str]) -> dict[str, str]:
    """A character for each section value: its first letter where free, ``e`` for empty."""
    taken: dict[str, str] = {}
    spare = string.ascii_lowercase + string.ascii_uppercase + string.digits + "*#@%&"
    for value in sorted(set(values), key=lambda v: (v != EMPTY, v)):
        fish = fish_of(value)
        first = fish[0][0] if fish else "e"
        wanted = first if len(fish) <= 1 else first.upper()
        char = wanted if wanted not in taken else next(c for c in spare if c not in taken)
        taken[char] = value
    return taken


def render_text(layout: Mapping[tuple[int, int], str]) -> str:
    """The layout text of a (normalised) layout; :func:`parse_text` reads it back."""
    flat = normalise(layout)
    legend = legend_for(flat.values())
    char_of = {v: c for c, v in legend.items()}
    lines = ["legend: " + " ".join(f"{c}={v}" for c, v in legend.items())]
    if flat:
        _, _, x_max, y_max = bounds(flat)
        for y in range(y_max + 1):
            lines.append("".join(char_of[flat[x, y]] if (x, y) in flat else NO_CARD
                                 for x in range(x_max + 1)).rstrip(NO_CARD))
    return "\n".join(lines) + "\n"


def short(value: str) -> str:
    """A section value for the ASCII picture: ``-`` for empty, repeats as ``*n``.

    >>> short("clown+sardine+sardine")
    'clown+sardine*2'
    """
    if value == EMPTY:
        return "-"
    runs: list[list[Any]] = []
    for kind in fish_of(value):
        if runs and runs[-1][0] == kind:
            runs[-1][1] += 1
        else:
            runs.append([kind, 1])
    return "+".join(k if n == 1 else f"{k}*{n}" for k, n in runs)


def ascii_art(layout: Mapping[tuple[int, int], str]) -> str:
    """A picture for people: x across, y down, one column per section, ``-`` for an empty
    section, ``.`` where no card lies::

           0       1
        0  angel   -
        1  .       clown+puffer*2
    """
    if not layout:
        return "(no cards)\n"
    x0, y0, x1, y1 = bounds(layout)
    label = {c: short(v) for c, v in layout.items()}
    width = max(len(s) for s in label.values()) + 2
    head = max(len(str(y0)), len(str(y1))) + 2
    lines = [" " * head + "".join(f"{x:<{width}}" for x in range(x0, x1 + 1)).rstrip()]
    for y in range(y0, y1 + 1):
        row = "".join(f"{label.get((x, y), NO_CARD):<{width}}" for x in range(x0, x1 + 1))
        lines.append(f"{y:<{head}}" + row.rstrip())
    return "\n".join(lines) + "\n"
