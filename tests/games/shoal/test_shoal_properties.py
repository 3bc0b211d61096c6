"""Invariants of random legal games: connected shoals, top-most sections, honest totals."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import BadSetup, IllegalAction
from companion.games.shoal import placement
from companion.games.shoal.layout import count, has_fish, is_connected
from companion.games.shoal.rules import CARDS_EACH, GAME, ShoalState, default_deck
from tests.games.junk import json_values, like, spoiled
from tests.games.shoal.helpers import top_most

NAMES = ["Ann", "Ben", "Cid", "Dee"]


@st.composite
def games(draw: st.DrawFn) -> ShoalState:
    players = NAMES[:draw(st.integers(2, 4))]
    goal = draw(st.sampled_from([f"G{n}" for n in range(1, 9)]))
    state = GAME.new(players, {"goal": goal})
    while not state.over:
        who = state.player
        before = state.shoals[who]
        unplayed = [c for c in state.deck.cards if c not in state.played]
        start = draw(st.integers(0, len(unplayed) - 1))
        for cid in unplayed[start:] + unplayed[:start]:
            spots = placement.allowed(before, state.deck.cards[cid])
            if spots:
                at = draw(st.sampled_from(spots))
                break
        else:  # pragma: no cover - the default deck always has a card that fits
            raise AssertionError(f"no card fits {who}'s shoal")
        state = GAME.apply(state, {"type": "play", "card": cid, "at": list(at)})
        after = state.shoals[who]
        # a fish once visible stays a fish: empty space never covers it
        assert all(has_fish(after[c]) for c, v in before.items() if has_fish(v))
    return state


@settings(max_examples=25, deadline=None)
@given(games())
def test_random_legal_games(state: ShoalState) -> None:
    assert GAME.is_over(state)
    assert len(state.played) == CARDS_EACH * len(state.players)
    scored = GAME.breakdown(state)
    for player in state.players:
        layout = state.shoals[player]
        assert len(state.plays[player]) == CARDS_EACH
        assert is_connected(layout)
        assert layout == top_most(state, player)
        result = scored[player]
        assert result["fish"] == count(layout, "fish")
        assert result["total"] == result["fish"] + sum(b["points"] for b in result["breakdown"])
        assert len(result["breakdown"]) == 3
    assert GAME.scores(state) == {p: r["total"] for p, r in scored.items()}
    winners = GAME.outcome(state).winners
    assert set(winners) == {p for p, s in GAME.scores(state).items()
                            if s == max(GAME.scores(state).values())}


junk = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                 st.text(max_size=4), st.sampled_from(["F01", "F02", "F40", "X"]),
                 st.lists(st.integers(-2, 2), max_size=3),
                 st.lists(st.floats(-2, 2), min_size=2, max_size=2))
plays = st.fixed_dictionaries(
    {"type": like("play", "draw")},
    optional={"card": junk, "at": junk, "player": junk, "rotation": junk},
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(plays, json_values), max_size=12))
def test_any_action_is_played_or_refused_with_a_message(actions: list[dict[str, object]],
                                                       ) -> None:
    state = GAME.new(["Ann", "Ben"], {"goal": "G1"})
    for action in actions:
        try:
            after = GAME.apply(state, action)
        except IllegalAction as err:
            assert str(err)
            continue
        assert len(after.laid) == len(state.laid) + 1
        state = after
    GAME.view(state)


deck_paths = st.lists(st.one_of(st.integers(0, 40), st.sampled_from(
    ["cards", "goals", "sections", "id", "type", "what", "points", "thresholds", "length",
     "section_mm", "image"])), max_size=5)


@settings(max_examples=80, deadline=None)
@given(path=deck_paths, junk=json_values, goal=like("G1", "G9", {"id": "G"}))
def test_any_spoiled_deck_or_goal_is_played_or_refused_with_a_message(
        path: list[int | str], junk: object, goal: object) -> None:
    deck = spoiled(default_deck().to_json(), path, junk)
    for options in ({"deck": deck, "goal": "G1"}, {"deck": deck}, {"goal": goal}):
        try:
            GAME.new(NAMES[:2], GAME.prepare(NAMES[:2], options, random.Random(0)))
        except BadSetup as err:
            assert str(err)
