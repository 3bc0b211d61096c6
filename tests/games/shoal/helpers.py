"""Helpers for the Shoal tests: small inline decks and a random legal game."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.games.shoal.rules import CARDS_EACH, GAME, ShoalState
from tests.support import driver

E = "empty"
FILLER = [["puffer", "puffer"], ["puffer", "puffer"]]
PLAIN_GOAL = {"id": "T", "goals": [{"type": "each", "what": "fish", "points": 0},
                                   {"type": "each", "what": "empty", "points": 0},
                                   {"type": "tallest", "points": 0}]}
RULEBOOK = Path(__file__).parent / "records" / "rulebook.json"


def inline_deck(cards: Mapping[str, list[list[str]]], fillers: int = 20,
                goals: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A deck object: the given cards plus ``fillers`` all-puffer cards X01, X02 …"""
    out = [{"id": cid, "sections": rows} for cid, rows in cards.items()]
    out += [{"id": f"X{n:02d}", "sections": FILLER} for n in range(1, fillers + 1)]
    return {"section_mm": [40, 30], "cards": out, "goals": goals or [PLAIN_GOAL]}


def start(cards: Mapping[str, list[list[str]]], players: int = 2) -> ShoalState:
    names = ["Ann", "Ben", "Cid", "Dee"][:players]
    return GAME.new(names, {"deck": inline_deck(cards), "goal": "T"})


class Table:
    """Ann lays the cards under test; the other players answer with filler cards laid
    exactly over their own first card (always legal: fish over fish)."""

    def __init__(self, cards: Mapping[str, list[list[str]]]) -> None:
        self.state = start(cards)
        self.fillers = iter(f"X{n:02d}" for n in range(1, 21))

    def ann(self, card: str, at: list[int] | Any, **extra: Any) -> None:
        assert self.state.player == "Ann"
        self.state = GAME.apply(self.state, {"type": "play", "card": card, "at": at, **extra})
        self.state = GAME.apply(self.state, {"type": "play", "card": next(self.fillers),
                                             "at": [0, 0]})


def random_game(rng: random.Random, players: list[str],
                goal: str = "G1") -> list[dict[str, Any]]:
    """The actions of a random legal full game with the default deck (the one driver)."""
    seed = rng.randrange(2**32)
    actions = [a for _, a, _ in driver.play(GAME, players, {"goal": goal}, seed)]
    assert len(actions) == CARDS_EACH * len(players)
    return actions


def top_most(state: ShoalState, player: str) -> dict[tuple[int, int], str]:
    """Each coordinate's section from the last card laid over it, worked out from the
    list of plays alone."""
    seen: dict[tuple[int, int], str] = {}
    for play in reversed(state.plays[player]):
        card = state.deck.cards[play.card]
        for dy in (0, 1):
            for dx in (0, 1):
                seen.setdefault((play.at[0] + dx, play.at[1] + dy), card.sections[dy][dx])
    return seen
