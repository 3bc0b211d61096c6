"""Invariants of Tokyo Poo Divers over random legal games (hypothesis)."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion import record
from companion.games.poodivers import GAME, PooState
from companion.store import Store
from companion.table import Table
from tests.support import driver

LAYOUTS = ["square", "donut", "mascot", "lovers", "cow", "shithead"]


def check_invariants(state: PooState) -> None:
    brown = state.supply["brown"] + sum(h["brown"] for h in state.holdings.values())
    golden = state.supply["golden"] + sum(h["golden"] for h in state.holdings.values())
    assert (brown, golden) == (20, 30)
    assert all(v >= 0 for v in state.supply.values())
    for player, h in state.holdings.items():
        assert GAME.scores(state)[player] == h["brown"] + 5 * h["golden"]
        assert h["brown"] < 5 or state.supply["golden"] == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), layout=st.sampled_from(LAYOUTS),
       players=st.integers(2, 5), digital=st.booleans())
def test_turds_are_never_created_or_lost(seed: int, layout: str, players: int,
                                         digital: bool) -> None:
    rnd = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    options = GAME.prepare(names, {"layout": layout, "digital": digital}, rnd)
    state = GAME.new(names, options)
    for _ in range(400):
        if GAME.is_over(state):
            break
        action = GAME.resolve(state, driver.action_for(GAME, state, rnd), rnd)
        state = GAME.apply(state, action)
        check_invariants(state)
    if GAME.is_over(state):
        assert GAME.current(state) is None
        assert GAME.outcome(state).winners


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), digital=st.booleans(), undos=st.integers(0, 5))
def test_replaying_the_exported_record_gives_the_same_view(
        tmp_path_factory: object, seed: int, digital: bool, undos: int) -> None:
    rnd = random.Random(seed)
    path = Path(tmp_path_factory.mktemp("db")) / "c.db"  # type: ignore[attr-defined]
    with Store(path) as store:
        table = Table(store)
        session = table.create("poodivers", ["Ann", "Ben", "Cid"], {"digital": digital},
                               seed=seed)
        for _ in range(rnd.randint(1, 120)):
            if GAME.is_over(session.state):
                break
            action = driver.action_for(GAME, session.state, rnd)
            if digital:
                action.pop("face", None)
            table.play(session.id, action)
        for _ in range(undos):
            table.undo(session.id)
        rec = session.record()
        out, code = record.replay(record.parse(rec))
    assert code == 0
    assert out == {k: v for k, v in session.summary().items() if k not in ("id", "seq")}
