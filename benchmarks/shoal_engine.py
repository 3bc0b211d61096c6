"""Speed of the Shoal engine: a full 4-player game, scoring, and placement hints.

Prints one JSON object (milliseconds, median of several runs):
``python benchmarks/shoal_engine.py``.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from companion.engine import replay
from companion.games.shoal import placement
from companion.games.shoal.rules import GAME, ShoalState

PLAYERS = ["Ann", "Ben", "Cid", "Dee"]


def random_game(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    state = GAME.new(PLAYERS, {"goal": "G1"})
    actions = []
    while not state.over:
        layout = state.shoals[state.player]
        cards = [c for c in state.deck.cards.values() if c.id not in state.played]
        rng.shuffle(cards)
        for card in cards:
            spots = placement.allowed(layout, card)
            if spots:
                action = {"type": "play", "card": card.id, "at": list(rng.choice(spots))}
                break
        state = GAME.apply(state, action)
        actions.append(action)
    return actions


def median_ms(work: Callable[[], object], runs: int = 15) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 3)


def hints(state: ShoalState) -> int:
    """Every legal (card, spot) for the player to act: what a UI would highlight."""
    layout = state.shoals[state.player]
    return sum(len(placement.allowed(layout, c)) for c in state.deck.cards.values()
               if c.id not in state.played)


def main() -> None:
    actions = random_game(1)
    done = replay(GAME, GAME.new(PLAYERS, {"goal": "G1"}), actions)
    middle = replay(GAME, GAME.new(PLAYERS, {"goal": "G1"}), actions[:20])
    print(json.dumps({
        "benchmark": "shoal_engine",
        "replay_4_players_40_cards_ms": median_ms(
            lambda: replay(GAME, GAME.new(PLAYERS, {"goal": "G1"}), actions)),
        "score_4_shoals_ms": median_ms(lambda: GAME.breakdown(done)),
        "view_ms": median_ms(lambda: GAME.view(done)),
        "all_legal_placements_mid_game_ms": median_ms(lambda: hints(middle)),
    }))


if __name__ == "__main__":
    main()
