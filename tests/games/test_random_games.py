"""Every game played at random from its own ``legal()`` by the one driver: what legal
offers can be played, the log reads in the rulebook's words, and the log replays."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import engine, games
from tests.support import driver

OPTIONS: dict[str, dict[str, Any]] = {
    "drshark": {}, "shark": {"variants": ["joker", "neutral", "pioneer"]},
    "poodivers": {"digital": True}, "shoal": {}}
CODE_WORD = re.compile(r"\b[a-z]+_[a-z_]+\b")     # end_turn, forced_sell, time_up


@pytest.mark.parametrize("name", games.available())
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), extra=st.integers(0, 2))
def test_a_random_legal_game_reads_in_words_and_replays(name: str, seed: int,
                                                       extra: int) -> None:
    game = games.get(name)
    players = ["Ann", "Ben", "Cid", "Dan", "Eve"][: game.min_players + extra]
    options = OPTIONS[name]
    actions, last = [], None
    for before, action, after in driver.play(game, players, options, seed, limit=400):
        actions.append(action)
        last = after
        line = game.describe(before, action, after)
        assert line.endswith(".") and "None" not in line, line
        assert not CODE_WORD.search(line.replace("-", " ")), line
        assert line.split()[0] in players, line
    start = game.new(players, driver.prepared(game, players, options, seed))
    end = engine.replay(game, start, actions)
    assert last is None or game.view(end) == game.view(last)
    result = game.outcome(end)
    if result is not None:
        assert set(result.winners) <= set(game.scores(end))
        assert isinstance(result.termination, engine.Termination) and result.reason


@pytest.mark.parametrize("name", games.available())
def test_a_log_refused_at_an_index_says_which(name: str) -> None:
    game = games.get(name)
    players = ["Ann", "Ben"]
    played = [a for _, a, _ in driver.play(game, players, OPTIONS[name], 7, limit=5)]
    start = game.new(players, driver.prepared(game, players, OPTIONS[name], 7))
    with pytest.raises(engine.ReplayError) as err:
        engine.replay(game, start, [*played, {"type": "no_such_action"}])
    assert err.value.index == len(played)
    assert isinstance(err.value.error, engine.Malformed)
