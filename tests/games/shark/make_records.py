"""Write the complete-game records of ``records/`` (run from the repository root:
``.venv/bin/python -m tests.games.shark.make_records``). The games are random legal
games of the test driver, one for each way a game of Shark ends: the first seed whose
game ends that way, so the files are reproducible."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from companion.engine import Termination
from companion.games.shark import GAME
from tests.games.shark.driver import play
from tests.support import driver

HERE = Path(__file__).parent / "records"


def write(name: str, players: list[str], options: dict[str, Any],
          actions: list[dict[str, Any]]) -> None:
    data = {"game": "shark", "players": players, "options": options, "actions": actions}
    text = json.dumps(data, indent=None, separators=(",", ":"))
    (HERE / f"{name}.json").write_text(text.replace("},{", "},\n{") + "\n")


def ending(players: list[str], options: dict[str, Any], termination: Termination,
           greed: float, says: str = "") -> list[dict[str, Any]]:
    """The first random game (seed 0, 1, ...) that ends by ``termination``, its reason
    saying ``says``."""
    for seed in range(10000):
        moves = list(play(players, options, seed, limit=5000, greed=greed))
        result = GAME.outcome(moves[-1][2])
        if result and result.termination == termination and says in result.reason:
            return [action for _, action, _ in moves]
    raise SystemExit(f"no game ended by {termination} in 10000 seeds")


def share_run(players: list[str], options: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Everyone buys as many red shares as the turn allows until the bank has none."""
    rnd = random.Random(seed)
    state, actions = GAME.new(players, options), []
    while not GAME.is_over(state):
        buy = {x.type: x for x in GAME.legal(state)}.get("buy")
        if state.step == "choose_stock":
            action: dict[str, Any] = {"type": "choose_stock", "company": "red"}
        elif buy and "red" in buy.choices["company"] and state.step == "trade_before":
            count = min(5 - state.bought, state.supply_shares["red"],
                        state.cash[state.player] // state.prices["red"])
            action = {"type": "buy", "company": "red", "count": count}
        else:
            action, state = driver.step(GAME, state, rnd, {"buy": 0, "sell": 0})
            actions.append(action)
            continue
        action = GAME.resolve(state, action, rnd)
        state = GAME.apply(state, action)
        actions.append(action)
    return actions


def main() -> None:
    HERE.mkdir(exist_ok=True)
    two, three, four = ["Ann", "Ben"], ["Ann", "Ben", "Cid"], ["Ann", "Ben", "Cid", "Dan"]
    classic: dict[str, Any] = {"board": "classic"}
    write("bankruptcy", two, classic, ending(two, classic, Termination.LAST_PLAYER, 0.3))
    write("top-price", three, classic, ending(three, classic, Termination.TOP_PRICE, 0.3))
    write("buildings-out", four, classic, ending(four, classic, Termination.SUPPLY, 0.3,
                                                     "building"))
    rich: dict[str, Any] = {"board": "kbg2022", "variants": ["joker", "neutral", "pioneer"],
                            "starting_cash": 100000}
    write("shares-out", three, rich, share_run(three, rich, 3))


if __name__ == "__main__":
    main()
