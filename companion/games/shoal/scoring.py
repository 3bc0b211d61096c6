"""Shoal scoring: visible fish plus the goal card's three goals.

:func:`score` is shared by the rules engine, ``companion score shoal`` and the camera::

    score({"Ann": layout_a, "Ben": layout_b}, goal_card)
    → {"Ann": {"total": 27, "fish": 37,
               "breakdown": [{"goal": "each puffer: +2 each", "points": 4, ...}, ...]}, ...}

Every visible fish is worth 1. The count of ``what`` (RULINGS.md) is: for a kind, its
visible fish; for ``"fish"``, all visible fish; for ``"empty"``, the visible empty
sections. Comparative goals (largest, fewest, tallest, widest) go to every player tied
for the best count; largest, tallest and widest need a count of at least 1 (a shoal with
none of the thing is not the largest of it), fewest goes to the lowest count even if 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.shoal.deck import Goal, GoalCard, parse_goal_card
from companion.games.shoal.layout import FISH, count, groups, holds

Layouts = Mapping[str, Mapping[tuple[int, int], str]]


def longest_line(layout: Mapping[tuple[int, int], str], what: str, vertical: bool) -> int:
    """The longest unbroken vertical (or horizontal) run of sections holding ``what``."""
    cells = {c for c, v in layout.items() if holds(v, what)}
    step = (0, 1) if vertical else (1, 0)
    best = 0
    for x, y in cells:
        if (x - step[0], y - step[1]) in cells:
            continue  # not the start of a run
        n = 1
        while (x + n * step[0], y + n * step[1]) in cells:
            n += 1
        best = max(best, n)
    return best


def connections(layout: Mapping[tuple[int, int], str], what: str, length: int) -> int:
    """Orthogonally connected groups of at least ``length`` sections each holding ``what``."""
    cells = [c for c, v in layout.items() if holds(v, what)]
    return sum(1 for g in groups(cells) if len(g) >= length)


def measure(layout: Mapping[tuple[int, int], str], goal: Goal) -> int:
    """The number a goal looks at for one shoal (a count, a line length, or groups)."""
    if goal.type == "tallest":
        return longest_line(layout, goal.what, vertical=True)
    if goal.type == "widest":
        return longest_line(layout, goal.what, vertical=False)
    if goal.type == "connection":
        return connections(layout, goal.what, goal.length)
    return count(layout, goal.what)


def goal_points(goal: Goal, mine: int, everyone: list[int]) -> int:
    """What one goal is worth to a player whose measure is ``mine`` among ``everyone``."""
    if goal.type in ("each", "connection"):
        return goal.points * mine
    if goal.type == "total":
        reached = [pts for at, pts in goal.thresholds if mine >= at]
        return reached[-1] if reached else 0
    if goal.type == "fewest":
        return goal.points if mine == min(everyone) else 0
    return goal.points if mine == max(everyone) and mine > 0 else 0


def score(layouts_by_player: Layouts,
          goal_card: GoalCard | Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each player's ``total``, visible ``fish`` and per-goal ``breakdown``.

    ``goal_card`` is a :class:`GoalCard` or its JSON form (checked, raising ``BadDeck``).
    A breakdown entry: ``goal`` (the goal in words), ``points``, and ``type``, ``what``,
    ``count`` (the number the goal looked at) for displays that want them.
    """
    card = parse_goal_card(goal_card)
    measures = [{p: measure(layout, goal) for p, layout in layouts_by_player.items()}
                for goal in card.goals]
    out: dict[str, dict[str, Any]] = {}
    for player, layout in layouts_by_player.items():
        fish = count(layout, FISH)
        breakdown: list[dict[str, Any]] = []
        total = fish
        for goal, by_player in zip(card.goals, measures, strict=True):
            mine = by_player[player]
            points = goal_points(goal, mine, list(by_player.values()))
            total += points
            breakdown.append({"goal": goal.describe(), "points": points, "type": goal.type,
                              "what": goal.what, "count": mine})
        out[player] = {"total": total, "fish": fish, "breakdown": breakdown}
    return out
