"""Dr. Shark engine speed: a full six-spy game folded, and legal() at every step.

Prints one JSON object: actions in the game, ms to fold it (what a session reload or
`companion replay` costs), and the mean and worst ms of apply and legal per action.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from companion.engine import replay
from companion.games.drshark import GAME, DrSharkState

PLAYERS = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"]


def choose(state: DrSharkState, rnd: random.Random) -> dict[str, Any]:
    """A legal action: dive, search a few clues, form what can be formed, end the turn."""
    legal = {leg.type: leg for leg in GAME.legal(state)}
    for kind in ("move", "draw", "take"):
        if kind in legal:
            field = "space" if kind == "move" else "clue"
            return {"type": kind, field: rnd.choice(list(legal[kind].choices[field]))}
    if "start_search" in legal:
        return {"type": "start_search"}
    if "fistful" in legal:
        return {"type": "fistful", "clues": rnd.sample(list(legal["fistful"].choices["clues"]), 4)}
    if "select" in legal:
        return {"type": "select", "clues": list(legal["select"].choices["clues"])[:1]}
    for kind in ("skip_service", "end_turn"):
        if kind in legal:
            return {"type": kind}
    return {"type": "time_up"}


def main() -> None:
    rnd = random.Random(1)
    state = GAME.new(PLAYERS, {})
    actions, applies, legals = [], [], []
    while not GAME.is_over(state):
        t = time.perf_counter()
        GAME.legal(state)
        legals.append(time.perf_counter() - t)
        action = choose(state, rnd)
        t = time.perf_counter()
        state = GAME.apply(state, action)
        applies.append(time.perf_counter() - t)
        actions.append(action)
    t = time.perf_counter()
    replay(GAME, GAME.new(PLAYERS, {}), actions)
    folded = time.perf_counter() - t
    ms = 1000.0
    print(json.dumps({
        "benchmark": "drshark_engine", "players": len(PLAYERS), "actions": len(actions),
        "fold_ms": round(folded * ms, 2),
        "apply_ms_mean": round(sum(applies) / len(applies) * ms, 3),
        "apply_ms_max": round(max(applies) * ms, 3),
        "legal_ms_mean": round(sum(legals) / len(legals) * ms, 3),
        "legal_ms_max": round(max(legals) * ms, 3),
    }))


if __name__ == "__main__":
    main()
