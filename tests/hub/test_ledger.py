"""The hub's ledger: changes applied in order and only if the rules agree; duplicates
dropped, gaps noticed, contradictions never applied; the same games after a restart."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from companion.store import Store
from companion.table import Table
from hub.ledger import APPLIED, CONTRADICTION, DUPLICATE, GAP, Ledger
from hub.publish import event_of
from hub.topics import Event
from tests.hub.games import play


def events(table: Table, gid: int, name: str = "t1") -> list[Event]:
    row = table.store.session(gid)
    return [event_of(name, gid, c, row) for c in table.store.changes(gid)]


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(Store(tmp_path / "table.db"))


def view_of(table: Table, gid: int) -> dict:
    s = table.get(gid)
    v = s.summary()
    return {k: v[k] for k in ("players", "current", "over", "scores", "winners", "seq")}


def copy_of(ledger: Ledger, gid: int, name: str = "t1") -> dict:
    games = {g["id"]: g for g in ledger.table_json(name)["games"]}
    return {k: games[gid][k] for k in ("players", "current", "over", "scores", "winners",
                                       "seq")}


@pytest.mark.parametrize("game", ["poodivers", "shoal", "drshark", "shark"])
def test_the_hub_folds_to_the_tables_own_state(tmp_path: Path, table: Table,
                                               game: str) -> None:
    gid = play(table, game, seed=3, steps=120)
    ledger = Ledger(tmp_path / "hub.db")
    with ledger.batch():
        verdicts = [ledger.apply(e)[0] for e in events(table, gid)]
    assert set(verdicts) == {APPLIED}
    assert copy_of(ledger, gid) == view_of(table, gid)
    ledger.close()
    again = Ledger(tmp_path / "hub.db")
    assert copy_of(again, gid) == view_of(table, gid)


def test_duplicates_dropped_gaps_noticed(tmp_path: Path, table: Table) -> None:
    gid = play(table, "poodivers", seed=5, steps=20)
    evs = events(table, gid)
    ledger = Ledger(tmp_path / "hub.db")
    assert ledger.apply(evs[0])[0] == APPLIED
    assert ledger.apply(evs[0])[0] == DUPLICATE
    assert ledger.apply(evs[2])[0] == GAP
    assert ledger.have("t1", gid) == 1
    for e in evs[1:]:
        ledger.apply(e)
    for e in evs:  # all again, as after a replay
        assert ledger.apply(e)[0] == DUPLICATE
    assert copy_of(ledger, gid) == view_of(table, gid)


def test_contradictions_are_never_applied(tmp_path: Path, table: Table) -> None:
    gid = play(table, "poodivers", seed=6, steps=10, undo_every=0)
    evs = events(table, gid)
    ledger = Ledger(tmp_path / "hub.db")
    for e in evs[:5]:
        ledger.apply(e)
    before = ledger.table_json("t1")
    nxt = evs[5]
    bad = [
        replace(nxt, seq=nxt.seq + 3),                                  # wrong count
        replace(nxt, action={"type": "flip", "cell": "Z99"}),           # not a cell
        replace(nxt, action={"type": "no such thing"}),
        replace(nxt, kind="undo", seq=nxt.seq - 2, action={"type": "bank"}),  # not last
        replace(evs[2], action={"type": "bank", "other": 1}),           # n=3 rewritten
        replace(evs[0], n=6, kind="create"),
    ]
    for e in bad:
        assert ledger.apply(e)[0] == CONTRADICTION, e
    assert ledger.table_json("t1") == before
    assert ledger.have("t1", gid) == 5


def test_a_game_the_hub_cannot_start(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "hub.db")
    for game, players in [("chess", ["A", "B"]), ("shark", ["A"]), ("shark", ["A", "A"])]:
        e = Event("t1", 1, 1, "create", 0, 1.0, game=game, players=tuple(players),
                  options={})
        assert ledger.apply(e)[0] == CONTRADICTION
    assert ledger.tables_json() == {"tables": []}
