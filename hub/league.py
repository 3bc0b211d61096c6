"""The league across every finished game the hub has seen, at every table.

The rules (also shown on the hub's page and in ``GET /api/league``) are in :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

RULES = [
    "Only finished games count. A game's winners are the players (or Dr. Shark teams) "
    "tied for the best score, as the game's own rules end it.",
    "Players are the same person when their names are the same, at any table.",
    "A Dr. Shark team counts for each of its members: each plays the game, and shares "
    "the team's win and points.",
    "Per game: a win counts 1 for every winner, also when tied (a shared win); points "
    "are the final scores added up, in the game's own unit.",
    "Places per game: more wins first, then more outright (unshared) wins, then more "
    "points, then fewer games played. Players equal on all four share the place.",
    "Overall: the wins of every game added up; places by wins, then outright wins, then "
    "fewer games played (points are not added across games: dollars and clue points "
    "are different things). Equal players share the place.",
]


@dataclass
class Line:
    player: str
    played: int = 0
    wins: int = 0
    shared: int = 0
    points: int = 0

    @property
    def outright(self) -> int:
        return self.wins - self.shared


def _members(side: str, players: list[str]) -> list[str]:
    """The players behind a score's name (a Dr. Shark team is ``Ann+Cid``)."""
    if side in players:
        return [side]
    parts = side.split("+")
    return parts if all(p in players for p in parts) else [side]


def _placed(lines: Iterable[Line], key: Any, with_points: bool) -> list[dict[str, Any]]:
    ordered = sorted(lines, key=lambda line: (key(line), line.player.casefold()))
    out: list[dict[str, Any]] = []
    for i, line in enumerate(ordered):
        same = i > 0 and key(ordered[i - 1]) == key(line)
        place = out[-1]["place"] if same else i + 1
        item: dict[str, Any] = {"place": place, "player": line.player, "played": line.played,
                                "wins": line.wins, "shared": line.shared}
        if with_points:
            item["points"] = line.points
        out.append(item)
    return out


def league(finished: Iterable[dict[str, Any]], titles: dict[str, str]) -> dict[str, Any]:
    """The league of ``finished`` game summaries (``game``, ``players``, ``scores``,
    ``winners``); ``titles`` names the games."""
    per_game: dict[str, dict[str, Line]] = {}
    overall: dict[str, Line] = {}
    count = 0
    for g in finished:
        count += 1
        lines = per_game.setdefault(g["game"], {})
        winners = set(g["winners"])
        shared = len(winners) > 1
        for side, score in g["scores"].items():
            for person in _members(side, list(g["players"])):
                for table in (lines, overall):
                    line = table.setdefault(person, Line(person))
                    line.played += 1
                    line.points += int(score)
                    if side in winners:
                        line.wins += 1
                        line.shared += int(shared)
    return {
        "rules": RULES,
        "finished": count,
        "games": [
            {"game": name, "title": titles.get(name, name),
             "players": _placed(lines.values(), lambda x: (-x.wins, -x.outright, -x.points,
                                                           x.played), True)}
            for name, lines in sorted(per_game.items())
        ],
        "overall": _placed(overall.values(), lambda x: (-x.wins, -x.outright, x.played),
                           False),
    }
