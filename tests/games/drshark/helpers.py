"""Shared helpers for the Dr. Shark tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.engine import replay
from companion.games.drshark import GAME, DrSharkState

PAIR = ["Ann", "Ben"]
FOUR = ["Ann", "Ben", "Cid", "Dan"]


def play(state: DrSharkState, *actions: dict[str, Any]) -> DrSharkState:
    out: DrSharkState = replay(GAME, state, actions)
    return out


def searching(space: str, players: list[str] | None = None, **options: Any) -> DrSharkState:
    """The first player has dived onto ``space`` and started the search."""
    state = GAME.new(players or PAIR, options)
    return play(state, {"type": "move", "space": space}, {"type": "start_search"})


def organising(clues: list[str], players: list[str] | None = None,
               owner: str | None = None, **options: Any) -> DrSharkState:
    """The first player's search is over and ``clues`` (out of the bag) are in the
    dossier of ``owner`` (default: the first player's)."""
    state = play(searching("E-light", players, **options), {"type": "stop"})
    return give(state, owner or state.owner(state.player), clues)


def give(state: DrSharkState, owner: str, clues: list[str]) -> DrSharkState:
    """Move ``clues`` from the bag into ``owner``'s dossier (as earlier searches would)."""
    assert set(clues) <= state.bag
    d = state.dossiers[owner]
    return replace(state, bag=state.bag - set(clues),
                   dossiers={**state.dossiers, owner: replace(d, clues=d.clues + tuple(clues))})


def types(state: DrSharkState) -> list[str]:
    return [leg.type for leg in GAME.legal(state)]
