"""Speed of the Shark engine: replaying a whole game, the placement choices the
dashboard shows after a roll, and the view.

Prints one JSON object (milliseconds, median wall time of several runs; for the replay
also the least CPU time, which a busy machine inflates less) with the machine's load:
``nice -n 15 python benchmarks/shark_engine.py``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from companion.engine import replay
from companion.games.shark import GAME, SharkState, turn

PLAYERS = ["Ann", "Ben", "Cid", "Dee"]
OPTIONS = {"board": "kbg2022", "variants": ["joker", "neutral", "pioneer"],
           "starting_cash": 10000}


def random_game(seed: int) -> list[dict[str, Any]]:
    """A game to the end: roll, place anywhere legal, buy one share now and then."""
    rng = random.Random(seed)
    state = GAME.new(PLAYERS, OPTIONS)
    actions: list[dict[str, Any]] = []
    while not GAME.is_over(state):
        legal = {x.type: x for x in GAME.legal(state)}
        action: dict[str, Any]
        if "choose_stock" in legal:
            action = {"type": "choose_stock", "company": rng.choice(["red", "blue"])}
        elif "buy" in legal and state.bought == 0 and rng.random() < 0.3:
            action = {"type": "buy", "company": legal["buy"].choices["company"][0],
                      "count": 1}
        elif "roll" in legal:
            action = GAME.resolve(state, {"type": "roll"}, rng)
        elif "place" in legal:
            choices = {k: v for k, v in turn.choices(state).items() if k != "remove_neutral"}
            building = rng.choice(sorted(choices))
            action = {"type": "place", "cell": str(rng.choice(choices[building])),
                      "company": building}
        elif "forced_sell" in legal:
            action = {"type": "forced_sell", "player": state.debts[0][0],
                      "company": legal["forced_sell"].choices["company"][0], "count": 1}
        elif "remove_neutral" in legal:
            action = {"type": "remove_neutral", "cell": legal["remove_neutral"].choices["cell"][0]}
        else:
            action = {"type": "end_turn"}
        state = GAME.apply(state, action)
        actions.append(action)
    return actions


def least_cpu_ms(work: Callable[[], object], runs: int = 15) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append((time.process_time() - start) * 1000)
    return round(min(times), 3)


def median_ms(work: Callable[[], object], runs: int = 9) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 3)


def main() -> None:
    actions = random_game(1)
    rolls = [i for i, a in enumerate(actions) if a["type"] == "roll"]
    def whole(upto: int = len(actions)) -> SharkState:
        return replay(GAME, GAME.new(PLAYERS, OPTIONS), actions[:upto])

    rolled = whole(rolls[len(rolls) // 2] + 1)
    done = whole()
    load = round(os.getloadavg()[0], 1)
    print(json.dumps({
        "benchmark": "shark_engine",
        "actions": len(actions),
        "load_before": load,
        "replay_whole_game_ms": median_ms(whole),
        "replay_whole_game_cpu_ms": least_cpu_ms(whole),
        "placement_choices_mid_game_ms": median_ms(lambda: turn.choices(rolled)),
        "legal_mid_game_ms": median_ms(lambda: GAME.legal(rolled)),
        "view_end_ms": median_ms(lambda: GAME.view(done)),
        "load_after": round(os.getloadavg()[0], 1),
    }))


if __name__ == "__main__":
    main()
