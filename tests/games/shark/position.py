"""Helpers for the Shark tests: games set up at the table, positions drawn as pictures."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from companion.engine import ReplayError, replay
from companion.games.shark import GAME, SharkState
from companion.games.shark.chains import Buildings
from companion.grid import Cell

PIECES = {"r": "red", "b": "blue", "g": "green", "y": "yellow", "k": "black", "n": "grey"}


def started(players: tuple[str, ...] = ("Ann", "Ben", "Cid"), stocks: list[str] | None = None,
            **options: Any) -> SharkState:
    """A new game after every player chose a starting share (red unless told)."""
    state = GAME.new(list(players), options)
    for company in stocks or ["red"] * len(players):
        state = GAME.apply(state, {"type": "choose_stock", "company": company})
    return state


def drawn(state: SharkState, *picture: str, at: str = "A1") -> SharkState:
    """The same game with buildings on the board as a picture shows them, top-left at
    ``at``: ``r b g y`` companies, ``k`` black, ``n`` grey, ``.`` empty. Prices follow
    the formula and the supply gives up the buildings drawn."""
    origin = Cell.parse(at)
    buildings = dict(state.buildings)
    for r, row in enumerate(picture):
        for c, ch in enumerate(row):
            if ch != ".":
                buildings[Cell(origin.col + c, origin.row + r)] = PIECES[ch]
    used = Counter(buildings.values())
    supply = {b: n - used[b] + Counter(state.buildings.values())[b]
              for b, n in state.supply_buildings.items()}
    return replace(state, buildings=Buildings(state.board, buildings),
                   supply_buildings=supply)


def holding(state: SharkState, player: str, cash: int | None = None, **shares: int
            ) -> SharkState:
    """The same game with a player's cash and shares set (the supply gives the shares)."""
    mine = {**state.shares[player], **shares}
    supply = {c: state.supply_shares[c] - mine[c] + state.shares[player][c]
              for c in state.supply_shares}
    return replace(state, shares={**state.shares, player: mine}, supply_shares=supply,
                   cash={**state.cash, player: state.cash[player] if cash is None else cash})


def play(state: SharkState, *actions: dict[str, Any]) -> SharkState:
    """The state after ``actions``; a refusal is raised as the rule's own error."""
    try:
        out: SharkState = replay(GAME, state, actions)
    except ReplayError as err:
        raise err.error from None
    return out


def roll(company: str, area: str) -> dict[str, Any]:
    return {"type": "roll", "company": company, "area": area}


def place(cell: str, company: str) -> dict[str, Any]:
    return {"type": "place", "cell": cell, "company": company}


def build(state: SharkState, cell: str, company: str, face: str | None = None
          ) -> SharkState:
    """Roll the dice for ``cell``'s area (company die ``face``, default the company) and
    place the building there."""
    area = state.board.areas[Cell.parse(cell)]
    return play(state, roll(face or company, area), place(cell, company))


def on_board(state: SharkState) -> dict[str, str]:
    """The buildings by cell name, as the view shows them: ``{"C4": "red"}``."""
    return {str(cell): b for cell, b in state.buildings.items()}


def paid(state: SharkState, kind: str | None = None) -> list[tuple[str, str, int]]:
    """The last action's payments as (player, kind, amount)."""
    return [(p.player, p.kind, p.amount) for p in state.payments
            if kind is None or p.kind == kind]
