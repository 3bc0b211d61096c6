"""The card lattice of a Shoal layout: whole cards, not lone sections.

Every card covers a block of 2 x 2 lattice cells, so a covered cell lies in at least one
fully covered block. When every block through a covered cell but those through a
glared neighbour holds a cell known to be bare mat, the card can only lie over the
glared neighbour: that cell is covered, whatever the glare left of it
(:func:`hidden_cells`). And a glared section rarely spares the rest of its card: an
unsure cell takes the section a sure neighbour's card shows there, when that section
matches nearly as well (:func:`same_card`); a glared cell under a card that the sure
cells place takes that card's section when it matches well enough (:func:`under_placed`).

Shoal templates (:func:`vision.matching.shoal_templates`) are the no-card one, then four
sections per card, row-major, in deck order; the settling relies on that order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

import numpy as np

Cell = tuple[int, int]
Box = tuple[float, float, float, float]
Found = dict[Cell, tuple[str, float, Box]]

SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
AROUND = tuple((di, dj) for dj in (-1, 0, 1) for di in (-1, 0, 1) if (di, dj) != (0, 0))


def block(anchor: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """The four cells of a card whose top-left section is at ``anchor``."""
    i, j = anchor
    return (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)


def blocks_through(cell: Cell) -> list[Cell]:
    """Anchors of the four card places that cover ``cell``."""
    i, j = cell
    return [(i - a, j - b) for b in (0, 1) for a in (0, 1)]


def must_be_covered(cell: Cell, covered: set[Cell], bare: Callable[[Cell], bool]) -> bool:
    """True when some covered neighbour's card can only lie over ``cell``."""
    i, j = cell
    for di, dj in AROUND:
        near = (i + di, j + dj)
        if near not in covered:
            continue
        places = blocks_through(near)
        mine = [a for a in places if cell in block(a)]
        others = [a for a in places if cell not in block(a)]
        if (all(any(bare(c) for c in block(a)) for a in others)
                and any(not any(bare(c) for c in block(a)) for a in mine)):
            return True
    return False


def hidden_cells(covered: Iterable[Cell], glared: Iterable[Cell],
                 bare: Callable[[Cell], bool]) -> list[Cell]:
    """The glared cells that the card lattice says are covered, in the order found
    (each one found counts as covered for the next)."""
    seen = set(covered)
    left = [c for c in glared if c not in seen]
    out: list[Cell] = []
    changed = True
    while changed:
        changed = False
        for cell in list(left):
            if must_be_covered(cell, seen, bare):
                seen.add(cell)
                left.remove(cell)
                out.append(cell)
                changed = True
    return out


UNSURE, SURE, CLOSE_ENOUGH = 0.15, 0.3, (1.2, 1.5)
"""A cell read with confidence under UNSURE takes the value the card of a neighbour read
with at least SURE would show there, when that section is within CLOSE_ENOUGH times the
best distance (the second factor when the neighbour names its card: no other card's
section comes within IDENTITY of it)."""
IDENTITY = 3.0

NEAR = 1.1
"""Templates within this factor of a sure cell's best distance each vote for their card's
place (cards share sections that look alike: any of them may be the one there)."""
PLACED, HIDDEN_CLOSE = 1.25, 2.0
"""A card with votes from at least PLACED sure cells is placed: a cell that glare hid
under it shows its section when that is within HIDDEN_CLOSE times the best distance."""


def _section(t: int) -> tuple[int, Cell]:
    """Card index and place in the card (sx, sy) of section template ``t`` >= 1."""
    card, pos = divmod(t - 1, 4)
    return card, (pos % 2, pos // 2)


def _template(card: int, sx: int, sy: int) -> int:
    return 1 + 4 * card + 2 * sy + sx


def _named(d: np.ndarray, t: int) -> bool:
    """True when template ``t`` matches far better than any other card's sections."""
    card = (t - 1) // 4
    others = np.delete(d[1:], np.s_[4 * card:4 * card + 4])
    return bool(others.size) and float(others.min()) >= IDENTITY * float(d[t])


def places(found: Found, distances: dict[Cell, np.ndarray]) -> dict[int, tuple[Cell, float]]:
    """Where the sure cells say each card lies (its top-left cell) and by how many votes."""
    votes: dict[tuple[int, Cell], float] = defaultdict(float)
    for (i, j), (_, conf, _) in found.items():
        if conf < SURE:
            continue
        d = distances[(i, j)][1:]
        near = np.flatnonzero(d <= NEAR * float(d.min()) + 1e-9) + 1
        for t in near:
            card, (sx, sy) = _section(int(t))
            votes[(card, (i - sx, j - sy))] += 1 / len(near)
    placed: dict[int, tuple[Cell, float]] = {}
    for (card, at), v in sorted(votes.items(), key=lambda kv: -kv[1]):
        if card not in placed:
            placed[card] = (at, v)
    return placed


def under_placed(found: Found, distances: dict[Cell, np.ndarray], labels: tuple[str, ...],
                 hidden: Iterable[Cell]) -> None:
    """A cell glare hid takes the section of the best-matching card that its sure
    neighbours place over it, when one matches nearly as well (in place)."""
    placed = places(found, distances)
    for i, j in hidden:
        box = found[(i, j)][2]
        d = distances[(i, j)]
        best = float(d[1:].min())
        over = [_template(card, i - ai, j - aj) for card, ((ai, aj), v) in placed.items()
                if v >= PLACED - 1e-9 and 0 <= i - ai <= 1 and 0 <= j - aj <= 1]
        if over:
            t = min(over, key=lambda t: float(d[t]))
            if float(d[t]) <= HIDDEN_CLOSE * best:
                found[(i, j)] = (labels[t], 0.0, box)


def same_card(found: Found, distances: dict[Cell, np.ndarray],
              labels: tuple[str, ...]) -> None:
    """Settle unsure cells by their sure neighbours' cards, in place."""
    for (i, j), (label, conf, box) in list(found.items()):
        if conf >= UNSURE:
            continue
        dist = distances[(i, j)]
        best = float(dist.min())
        for di, dj in SIDES:
            near = found.get((i + di, j + dj))
            if near is None or near[1] < SURE:
                continue
            t = int(np.argmin(distances[(i + di, j + dj)]))
            card, pos = divmod(t - 1, 4)
            sx, sy = pos % 2 - di, pos // 2 - dj  # this cell's section on that card
            if t == 0 or not (0 <= sx <= 1 and 0 <= sy <= 1):
                continue
            guess = 1 + 4 * card + 2 * sy + sx
            limit = CLOSE_ENOUGH[_named(distances[(i + di, j + dj)], t)]
            if float(dist[guess]) <= limit * best and labels[guess] != label:
                found[(i, j)] = (labels[guess], UNSURE, box)
                break
