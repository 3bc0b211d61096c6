"""Shoal decks: the fish cards and goal cards, read from DESIGN.md's ``deck.json``.

::

    {"section_mm": [44, 31.5],
     "cards": [{"id": "F01", "sections": [["angel", "empty"], ["clown", "clown+puffer"]],
                "image": "F01.png"}, ...],
     "goals": [{"id": "G1", "goals": [goal, goal, goal]}, ...]}

A card is 2 sections wide and 2 high, rows top to bottom; ``image`` (optional) is the
card's straight-on picture, relative to the JSON file. Goal forms are those of
``rules/RULINGS.md`` (each, largest, fewest, total, tallest, widest, connection).
:func:`load_deck` takes ``"default"`` (the shipped deck), a ``deck.json`` file, the
folder that holds one, or an already decoded object; anything wrong raises
:class:`BadDeck` with a message that says which card or goal and what to fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from companion.games.shoal.layout import (
    EMPTY,
    FISH,
    BadLayout,
    Layout,
    check_kind,
    check_section,
    fish_of,
)

GOAL_TYPES = ("each", "largest", "fewest", "total", "tallest", "widest", "connection")
GOALS_PER_CARD = 3
DEFAULT_SECTION_MM = (44.0, 31.5)
POSITIONS = ("top-left", "top-right", "bottom-left", "bottom-right")
_FIELDS = {
    "each": {"what", "points"},
    "largest": {"what", "points"},
    "fewest": {"what", "points"},
    "total": {"what", "thresholds"},
    "tallest": {"points", "what"},
    "widest": {"points", "what"},
    "connection": {"what", "length", "points"},
}
_REQUIRED = {"tallest": {"points"}, "widest": {"points"}}


class BadDeck(ValueError):
    """A deck, card or goal card that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class Card:
    """A fish card: ``sections[row][column]``, two rows of two."""

    id: str
    sections: tuple[tuple[str, str], tuple[str, str]]
    image: Path | None = None
    """The card's picture, resolved next to deck.json (``None`` if the deck has none)."""
    image_name: str | None = None

    def at(self, x: int, y: int) -> Layout:
        """The card's sections by coordinate when its top-left section lies at ``(x, y)``."""
        return {(x + dx, y + dy): self.sections[dy][dx] for dy in (0, 1) for dx in (0, 1)}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "sections": [list(r) for r in self.sections]}
        if self.image_name is not None:
            out["image"] = self.image_name
        return out


@dataclass(frozen=True)
class Goal:
    """One goal of a goal card (forms in RULINGS.md)."""

    type: str
    what: str = FISH
    points: int = 0
    thresholds: tuple[tuple[int, int], ...] = ()
    length: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.type not in ("tallest", "widest") or self.what != FISH:
            out["what"] = self.what
        if self.type == "total":
            out["thresholds"] = [list(t) for t in self.thresholds]
        else:
            out["points"] = self.points
        if self.type == "connection":
            out["length"] = self.length
        return out

    def describe(self) -> str:
        """The goal in table words: ``"largest amount of empty sections: -6"``."""
        w = self.what
        things = ("empty sections" if w == EMPTY else "fish" if w == FISH else f"{w} fish")
        p = f"{self.points:+d}"
        if self.type == "each":
            return f"each {'empty section' if w == EMPTY else w}: {p} per " + (
                "section" if w == EMPTY else "fish")
        if self.type in ("largest", "fewest"):
            return f"{self.type} amount of {things}: {p}"
        if self.type == "total":
            steps = ", ".join(f"{n}+ {pts:+d}" for n, pts in self.thresholds)
            return f"total amount of {things}: {steps}"
        if self.type in ("tallest", "widest"):
            line = "vertical" if self.type == "tallest" else "horizontal"
            held = "" if w == FISH else f" of {things}"
            return f"{self.type} shoal (longest {line} line{held}): {p}"
        holding = "empty" if w == EMPTY else ("fish" if w == FISH else w)
        return f"connection of {self.length}+ {holding} sections: {p} each"


@dataclass(frozen=True)
class GoalCard:
    id: str
    goals: tuple[Goal, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "goals": [g.to_json() for g in self.goals]}


@dataclass(frozen=True)
class Deck:
    """Cards and goal cards by id, in file order; ``kinds`` are the fish the cards show."""

    cards: Mapping[str, Card]
    goals: Mapping[str, GoalCard]
    section_mm: tuple[float, float] = DEFAULT_SECTION_MM
    source: Path | None = None

    @cached_property
    def kinds(self) -> tuple[str, ...]:
        """Every fish kind the cards show, in order of first appearance."""
        return _kinds(self.cards.values())

    def goal_card(self, option: object) -> GoalCard:
        """A goal card from an option: the id of one of the deck's, or an inline card."""
        if isinstance(option, str):
            if option not in self.goals:
                known = ", ".join(self.goals) or "none: give the goal card inline"
                raise BadDeck(f"the deck has no goal card {option!r} (it has {known})")
            return self.goals[option]
        return parse_goal_card(option, self.kinds)

    def to_json(self) -> dict[str, Any]:
        return {"section_mm": list(self.section_mm),
                "cards": [c.to_json() for c in self.cards.values()],
                "goals": [g.to_json() for g in self.goals.values()]}


def load_deck(source: str | Path | Mapping[str, Any] = "default") -> Deck:
    """The deck from ``"default"``, a ``deck.json`` path, its folder, or a decoded object."""
    if isinstance(source, Mapping):
        return parse_deck(source, None)
    if source == "default":
        from importlib import resources  # 2 ms a process that reads a deck file saves
        folder = resources.files(__package__).joinpath("default")
        text = folder.joinpath("deck.json").read_text("utf-8")
        return parse_deck(json.loads(text), Path(str(folder)) / "deck.json")
    path = Path(source)
    if path.is_dir():
        path = path / "deck.json"
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or err
        raise BadDeck(f"cannot read the deck {path}: {reason}") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        raise BadDeck(f"the deck {path} is not JSON: {err}") from None
    return parse_deck(data, path)


def parse_deck(data: object, path: Path | None) -> Deck:
    """Check a decoded ``deck.json``; images are resolved next to ``path``."""
    where = str(path) if path else "the deck"
    if not isinstance(data, Mapping):
        raise BadDeck(f"{where}: a deck is a JSON object with \"cards\" and \"goals\"")
    extra = set(data) - {"section_mm", "cards", "goals"}
    if extra:
        raise BadDeck(f"{where}: unknown field {sorted(extra)[0]!r} (a deck has section_mm, "
                      "cards and goals)")
    section_mm = _section_mm(data.get("section_mm", list(DEFAULT_SECTION_MM)), where)
    raw_cards = data.get("cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise BadDeck(f"{where}: \"cards\" must be a non-empty list of fish cards")
    cards: dict[str, Card] = {}
    for n, raw in enumerate(raw_cards, 1):
        card = parse_card(raw, n, path.parent if path else None)
        if card.id in cards:
            raise BadDeck(f"{where}: two cards are called {card.id!r}")
        cards[card.id] = card
    kinds = _kinds(cards.values())
    raw_goals = data.get("goals", [])
    if not isinstance(raw_goals, list):
        raise BadDeck(f"{where}: \"goals\" must be a list of goal cards")
    goals: dict[str, GoalCard] = {}
    for raw in raw_goals:
        goal_card = parse_goal_card(raw, kinds)
        if goal_card.id in goals:
            raise BadDeck(f"{where}: two goal cards are called {goal_card.id!r}")
        goals[goal_card.id] = goal_card
    return Deck(cards, goals, section_mm, path)


def _kinds(cards: Iterable[Card]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for c in cards for row in c.sections
                               for v in row for k in fish_of(v)))


def parse_card(raw: object, n: int = 1, folder: Path | None = None) -> Card:
    """One fish card; ``n`` (1-based) names it in messages until its id is known."""
    if not isinstance(raw, Mapping):
        raise BadDeck(f"card {n} must be an object with \"id\" and \"sections\"")
    cid = raw.get("id")
    if not isinstance(cid, str) or not cid.strip():
        raise BadDeck(f"card {n} needs an \"id\" (a name such as \"F01\")")
    extra = set(raw) - {"id", "sections", "image"}
    if extra:
        raise BadDeck(f"card {cid}: unknown field {sorted(extra)[0]!r}")
    sections = raw.get("sections")
    if (not isinstance(sections, list) or len(sections) != 2
            or not all(isinstance(r, list) and len(r) == 2 for r in sections)):
        raise BadDeck(f"card {cid} is not 2x2: \"sections\" must be two rows of two "
                      "sections, like [[\"angel\", \"empty\"], [\"clown\", \"clown\"]]")
    try:
        rows = tuple((check_section(r[0]), check_section(r[1])) for r in sections)
    except BadLayout as err:
        raise BadDeck(f"card {cid}: {err}") from None
    image = raw.get("image")
    if image is not None and (not isinstance(image, str) or not image.strip()):
        raise BadDeck(f"card {cid}: \"image\" is a file name next to deck.json")
    path = None if image is None else (folder / image if folder else Path(image))
    return Card(cid, (rows[0], rows[1]), path, image)


def parse_goal_card(raw: object, kinds: tuple[str, ...] | None = None) -> GoalCard:
    """A goal card ``{"id", "goals": [3 goals]}``; ``what`` is checked against ``kinds``."""
    if isinstance(raw, GoalCard):
        return raw
    if not isinstance(raw, Mapping):
        raise BadDeck("a goal card is an object like {\"id\": \"G1\", \"goals\": [...]}")
    gid = raw.get("id", "inline")
    if not isinstance(gid, str) or not gid.strip():
        raise BadDeck("a goal card's \"id\" is a name such as \"G1\"")
    extra = set(raw) - {"id", "goals"}
    if extra:
        raise BadDeck(f"goal card {gid}: unknown field {sorted(extra)[0]!r}")
    goals = raw.get("goals")
    if not isinstance(goals, list) or len(goals) != GOALS_PER_CARD:
        raise BadDeck(f"goal card {gid} must have {GOALS_PER_CARD} goals in \"goals\"")
    return GoalCard(gid, tuple(parse_goal(g, f"goal card {gid}, goal {i}", kinds)
                               for i, g in enumerate(goals, 1)))


def parse_goal(raw: object, where: str = "goal",
               kinds: tuple[str, ...] | None = None) -> Goal:
    """One goal in a form of RULINGS.md."""
    if not isinstance(raw, Mapping):
        raise BadDeck(f"{where}: a goal is an object with a \"type\"")
    kind = raw.get("type")
    if kind not in GOAL_TYPES:
        raise BadDeck(f"{where}: unknown goal type {kind!r} (one of {', '.join(GOAL_TYPES)})")
    allowed = _FIELDS[kind]
    extra = set(raw) - allowed - {"type"}
    if extra:
        raise BadDeck(f"{where}: the {kind} goal has no {sorted(extra)[0]!r} "
                      f"(it takes {', '.join(sorted(allowed))})")
    missing = _REQUIRED.get(kind, allowed) - set(raw)
    if missing:
        raise BadDeck(f"{where}: the {kind} goal needs {sorted(missing)[0]!r}")
    what = _what(raw.get("what", FISH), where, kinds)
    points = _int(raw.get("points", 0), f"{where}: points")
    if kind == "total":
        return Goal(kind, what, 0, _thresholds(raw["thresholds"], where))
    if kind == "connection":
        length = _int(raw["length"], f"{where}: length")
        if length < 1:
            raise BadDeck(f"{where}: a connection's length is at least 1, not {length}")
        return Goal(kind, what, points, (), length)
    return Goal(kind, what, points)


def _what(what: object, where: str, kinds: tuple[str, ...] | None) -> str:
    if what in (FISH, EMPTY):
        return str(what)
    try:
        name = check_kind(what)
    except BadLayout:
        raise BadDeck(f"{where}: \"what\" is a fish kind, \"fish\" or \"empty\", "
                      f"not {what!r}") from None
    if kinds is not None and name not in kinds:
        raise BadDeck(f"{where}: no card shows a {name!r} (the deck's fish: "
                      f"{', '.join(kinds)}, or \"fish\" or \"empty\")")
    return name


def _thresholds(raw: object, where: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(raw, list) or not raw:
        raise BadDeck(f"{where}: thresholds are a list like [[4, 6], [8, 12], [10, -8]]")
    out: list[tuple[int, int]] = []
    for step in raw:
        if not isinstance(step, list) or len(step) != 2:
            raise BadDeck(f"{where}: each threshold is [count, points], not {step!r}")
        at = _int(step[0], f"{where}: a threshold's count")
        if at < 0:
            raise BadDeck(f"{where}: a threshold's count cannot be negative ({at})")
        if out and at <= out[-1][0]:
            raise BadDeck(f"{where}: thresholds must be increasing: {at} comes after "
                          f"{out[-1][0]}")
        out.append((at, _int(step[1], f"{where}: a threshold's points")))
    return tuple(out)


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadDeck(f"{what} must be a whole number, not {value!r}")
    return value


def _section_mm(raw: object, where: str) -> tuple[float, float]:
    if (not isinstance(raw, list) or len(raw) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0
                       for v in raw)):
        raise BadDeck(f"{where}: \"section_mm\" is [width, height] of a section in "
                      f"millimetres, not {raw!r}")
    return float(raw[0]), float(raw[1])
