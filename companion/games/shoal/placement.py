"""Where a fish card may go in a shoal (rules/shoal.txt, RULINGS.md).

A card is placed with its top-left section at ``at = (x, y)``, whole sections only, never
rotated, always on top. The first card of a shoal lies at ``(0, 0)``. Every later card
must

1. *cover*: lie on at least one section of the shoal (layered, not beside it);
2. *empty over empty*: put none of its empty sections over a visible fish section;
3. *fish join fish*: if it shows fish, have a fish section that covers, or is
   orthogonally next to, a fish section visible before it was placed.

A shoal that shows no fish yet (only possible with a deck that has all-empty cards) has
nothing to join, so rule 3 waits until it does: what a player would expect.
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.engine import BrokenRule, IllegalAction
from companion.games.shoal.deck import POSITIONS, Card
from companion.games.shoal.layout import EMPTY, NEIGHBOURS, Layout, has_fish

START = (0, 0)


def where(at: tuple[int, int]) -> str:
    return f"[{at[0]}, {at[1]}]"


def check(layout: Mapping[tuple[int, int], str], card: Card, at: tuple[int, int],
          whose: str = "the") -> None:
    """Raise :class:`BrokenRule` naming the rule and the section if ``card`` may not
    go at ``at`` on ``layout`` (the shoal's visible sections); ``whose`` names the shoal
    ("Ann's")."""
    if not layout:
        if at != START:
            raise BrokenRule(f"the first card of a shoal goes at {where(START)}, not "
                                f"{where(at)}")
        return
    covers = card.at(*at)
    if not any(c in layout for c in covers):
        spots = ", ".join(where(c) for c in covers)
        raise BrokenRule(f"cards are layered on top of the shoal, not beside it: {card.id} "
                            f"at {where(at)} would cover none of {whose} shoal's sections "
                            f"(it would lie on {spots})")
    for position, (spot, value) in zip(POSITIONS, covers.items(), strict=True):
        below = layout.get(spot)
        if value == EMPTY and below is not None and has_fish(below):
            raise BrokenRule(f"empty space can only cover empty space: {card.id}'s "
                                f"{position} section is empty and would cover the {below} "
                                f"at {where(spot)}")
    fish = {spot: v for spot, v in covers.items() if has_fish(v)}
    if not fish or not any(has_fish(v) for v in layout.values()):
        return
    if not any(_touches_fish(layout, spot) for spot in fish):
        listed = ", ".join(f"{where(s)} {v}" for s, v in fish.items())
        raise BrokenRule(f"fish must join fish, covering one or next to one (not "
                            f"diagonally): none of {card.id}'s fish sections ({listed}) "
                            f"covers or lies next to a visible fish of {whose} shoal")


def _touches_fish(layout: Mapping[tuple[int, int], str], spot: tuple[int, int]) -> bool:
    x, y = spot
    around = [spot, *((x + dx, y + dy) for dx, dy in NEIGHBOURS)]
    return any(c in layout and has_fish(layout[c]) for c in around)


def place(layout: Mapping[tuple[int, int], str], card: Card, at: tuple[int, int]) -> Layout:
    """The visible layout after ``card`` is laid on top at ``at`` (no checks)."""
    return {**layout, **card.at(*at)}


def allowed(layout: Mapping[tuple[int, int], str], card: Card) -> list[tuple[int, int]]:
    """Every offset where ``card`` may go, rows top to bottom."""
    if not layout:
        return [START]
    xs = [x for x, _ in layout]
    ys = [y for _, y in layout]
    out = []
    for y in range(min(ys) - 1, max(ys) + 1):
        for x in range(min(xs) - 1, max(xs) + 1):
            try:
                check(layout, card, (x, y))
            except IllegalAction:
                continue
            out.append((x, y))
    return out
