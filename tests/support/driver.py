"""The one random-game driver: any game, played from what its ``legal()`` offers.

An action is built from one entry of the legal list: a value for each field, and for a
plural field (``clues``) a few of the values, or all of them now and then. Some picks are
refused by the rules (a hostile takeover, clues of one colour, a count the cash cannot
pay): that is part of the game, a refused action changes nothing and another is picked.
Chance the companion deals is filled in by the game's ``resolve``, as a table does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from companion.engine import Action, Game, IllegalAction

PLURAL_FIELDS = {"clues", "give"}
"""Fields whose value is a list of the choices (the others take one choice)."""

Pick = Callable[[str, list[Any], random.Random], Any]
"""A table's habit for one field: ``pick(field, values, rnd)`` returns the value to use
(Dr. Shark's spies draw clues that complete evidence they have begun)."""


def choose(legal: Sequence[Mapping[str, Any]], rnd: random.Random,
           weights: Mapping[str, float] | None = None, pick: Pick | None = None
           ) -> Action | None:
    """One action from ``legal`` entries as JSON (``Legal.to_json()`` or the API's
    ``legal``); ``weights`` favour some action types (default 1). ``None`` if none."""
    if not legal:
        return None
    w = [(weights or {}).get(str(e["type"]), 1.0) for e in legal]
    entry = rnd.choices(list(legal), weights=w)[0] if sum(w) > 0 else rnd.choice(legal)
    action: Action = {"type": entry["type"]}
    for key, values in (entry.get("choices") or {}).items():
        values = list(values)
        if not values:
            continue
        if key in PLURAL_FIELDS:
            whole = rnd.random() < 0.3
            action[key] = values if whole else rnd.sample(values, min(len(values),
                                                                      rnd.randint(1, 3)))
        else:
            action[key] = pick(key, values, rnd) if pick else rnd.choice(values)
    return action


def action_for(game: Game[Any], state: Any, rnd: random.Random,
               weights: Mapping[str, float] | None = None) -> Action:
    """One action built from what ``game.legal(state)`` offers (not applied; it may be
    refused when a combination of choices breaks a rule)."""
    action = choose([entry.to_json() for entry in game.legal(state)], rnd, weights)
    assert action is not None, f"{game.name}: nothing is legal"
    return action


Habits = Callable[[Any], Pick | None]
"""Given the state, the :data:`Pick` to use for it (or none)."""


def step(game: Game[Any], state: Any, rnd: random.Random,
         weights: Mapping[str, float] | None = None, habits: Habits | None = None,
         tries: int = 30) -> tuple[Action, Any]:
    """A legal action for ``state`` (as logged, chance filled in) and the state after."""
    legal = [entry.to_json() for entry in game.legal(state)]
    for _ in range(tries):
        picked = choose(legal, rnd, weights, habits(state) if habits else None)
        if picked is None:
            break
        action = game.resolve(state, picked, rnd)
        try:
            return action, game.apply(state, action)
        except IllegalAction:
            continue
    raise AssertionError(f"{game.name}: nothing legal found in {tries} tries from "
                         f"{[e['type'] for e in legal]}")


def play(game: Game[Any], players: Sequence[str], options: Mapping[str, Any], seed: int,
         limit: int = 3000, weights: Mapping[str, float] | None = None,
         habits: Habits | None = None) -> Iterator[tuple[Any, Action, Any]]:
    """A random game: yields (before, action as logged, after) until it is over or
    ``limit`` actions were played. Options are prepared as a new session's are."""
    rnd = random.Random(seed)
    names = list(players)
    state = game.new(names, game.prepare(names, dict(options), rnd))
    for _ in range(limit):
        if game.is_over(state):
            return
        action, after = step(game, state, rnd, weights, habits)
        yield state, action, after
        state = after


def reached(game: Game[Any], players: Sequence[str], options: Mapping[str, Any], seed: int,
            steps: int, weights: Mapping[str, float] | None = None,
            habits: Habits | None = None) -> Any:
    """The state ``steps`` actions into :func:`play`'s game (or at its end)."""
    names = list(players)
    state = game.new(names, prepared(game, names, options, seed))
    for _, _, state in play(game, names, options, seed, steps, weights, habits):  # noqa: B007
        pass
    return state


def prepared(game: Game[Any], players: Sequence[str], options: Mapping[str, Any],
             seed: int) -> dict[str, Any]:
    """The options :func:`play` starts the game with (for a replay of its actions)."""
    return game.prepare(list(players), dict(options), random.Random(seed))
