"""TEMPORARY: the turn flow of Dr. Shark until the real engine lands on main."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.engine import Action, Game, IllegalAction, Legal, Outcome


@dataclass(frozen=True)
class S:
    players: tuple[str, ...]
    turn: int = 0
    phase: str = "move"


class StandIn(Game[S]):
    name = "drshark"
    title = "Dr. Shark"

    def new(self, players: Sequence[str], options: Mapping[str, Any]) -> S:
        return S(tuple(players))

    def apply(self, state: S, action: Action) -> S:
        kind = action["type"]
        flow = {("move", "move"): "ready", ("ready", "start_search"): "searching",
                ("searching", "time_up"): "after", ("searching", "stop"): "after",
                ("after", "end_turn"): "move"}
        if (state.phase, kind) not in flow:
            raise IllegalAction(f"{kind} is not allowed now")
        turn = state.turn + (kind == "end_turn")
        return replace(state, phase=flow[state.phase, kind], turn=turn)

    def legal(self, state: S) -> list[Legal]:
        return {"move": [Legal("move", {"space": ["A-light"]})],
                "ready": [Legal("start_search")],
                "searching": [Legal("time_up"), Legal("stop")],
                "after": [Legal("end_turn")]}[state.phase]

    def view(self, state: S) -> dict[str, Any]:
        return {"phase": state.phase}

    def scores(self, state: S) -> dict[str, int]:
        return {p: 0 for p in state.players}

    def current(self, state: S) -> str | None:
        return state.players[state.turn % len(state.players)]

    def outcome(self, state: S) -> Outcome | None:
        return None

    def players(self, state: S) -> Sequence[str]:
        return state.players
