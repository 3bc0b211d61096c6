"""The hub's ledger: changes applied in order and only if the rules agree; duplicates
dropped, gaps noticed, contradictions never applied; the same games after a restart."""

from __future__ import annotations

import random
import sqlite3
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.engine import Game, IllegalAction
from companion.store import Store
from companion.table import Table
from hub import topics
from hub.ledger import (
    APPLIED,
    CONTRADICTION,
    DUPLICATE,
    GAP,
    MIGRATIONS,
    SCHEMA_VERSION,
    Ledger,
    _body,
)
from hub.publish import event_of
from hub.topics import Event, View
from tests.hub.games import play
from tests.web.scripted import choose


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


def told(table: Table, gid: int) -> list[str]:
    """The table's own log of the game, in the game's words (the dashboard's lines)."""
    session = table.get(gid)
    lines, state = [], session.game.new(session.players, session.options)
    for action in session.actions:
        after = session.game.apply(state, action)
        lines.append(session.game.describe(state, action, after))
        state = after
    return lines


def log_of(ledger: Ledger, gid: int, name: str = "t1") -> list[str]:
    found = ledger.game_json(name, gid)
    assert found is not None
    assert [e["seq"] for e in found["log"]] == list(range(1, found["seq"] + 1))
    return [e["text"] for e in found["log"]]


@pytest.mark.parametrize("game", ["poodivers", "shoal", "shark"])
def test_the_log_in_the_games_words_through_undos_and_a_restart(tmp_path: Path,
                                                                table: Table,
                                                                game: str) -> None:
    gid = play(table, game, seed=8, steps=60, undo_every=0.2)
    kinds = [c.kind for c in table.store.changes(gid)]
    assert "undo" in kinds
    ledger = Ledger(tmp_path / "hub.db")
    evs = events(table, gid)
    with ledger.batch():
        for e in evs:
            ledger.apply(e)
    lines = told(table, gid)
    assert len(lines) == table.get(gid).seq and all(lines)
    assert log_of(ledger, gid) == lines
    ledger.close()
    again = Ledger(tmp_path / "hub.db")
    assert log_of(again, gid) == lines
    assert ledger.game_json("t1", gid + 1) is None


def test_a_start_folds_no_game_and_the_next_change_still_follows_the_rules(
        tmp_path: Path, table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    gids = [play(table, g, seed=9, steps=40) for g in ("poodivers", "shark", "shoal")]
    going = play(table, "poodivers", seed=10, steps=6, undo_every=0)
    ledger = Ledger(tmp_path / "hub.db")
    for gid in [*gids, going]:
        with ledger.batch():
            for e in events(table, gid):
                ledger.apply(e)
    ledger.close()
    applied: list[str] = []
    real = Game.apply

    def counted(self: Game[Any], state: Any, action: dict[str, Any]) -> Any:
        applied.append(action["type"])
        return real(self, state, action)

    monkeypatch.setattr(Game, "apply", counted)  # every game's engine
    again = Ledger(tmp_path / "hub.db")
    assert applied == [], "opening the hub's database folded a game"
    for gid in [*gids, going]:
        assert copy_of(again, gid) == view_of(table, gid)
    before, in_force = len(table.store.changes(going)), table.get(going).seq
    session, rnd = table.get(going), random.Random(1)
    while len(table.store.changes(going)) == before:
        action = choose([e.to_json() for e in session.game.legal(session.state)], rnd)
        assert action is not None
        with suppress(IllegalAction):
            table.play(going, action)
    change = events(table, going)[before]
    applied.clear()
    assert again.apply(change)[0] == APPLIED
    assert len(applied) == in_force + 1, "the game is folded when its next change comes"
    assert copy_of(again, going) == view_of(table, going)
    wrong = replace(events(table, going)[before], n=before + 2, seq=change.seq + 1,
                    action={"type": "flip", "cell": "A1", "face": "nonsense"})
    assert again.apply(wrong)[0] == CONTRADICTION  # the rules still hold after a start


def test_a_version_1_database_moves_forward_with_its_log(tmp_path: Path, table: Table) -> None:
    gid = play(table, "shark", seed=11, steps=50)
    old = sqlite3.connect(tmp_path / "hub.db")
    old.executescript(MIGRATIONS[0] + ";PRAGMA user_version=1")
    old.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(e.table, e.game_id, e.n, e.kind, e.seq, _body(e), e.at)
                     for e in events(table, gid)])
    old.commit()
    old.close()
    ledger = Ledger(tmp_path / "hub.db")
    assert copy_of(ledger, gid) == view_of(table, gid)
    assert log_of(ledger, gid) == told(table, gid)
    ledger.close()
    db = sqlite3.connect(tmp_path / "hub.db")
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 1


def view(table: Table, gid: int, name: str = "t1", **change: object) -> View:
    """The retained view the table's publisher sends of the game."""
    s = table.get(gid).summary()
    n = len(table.store.changes(gid))
    data = {"table": name, "id": gid, "n": n, "seq": s["seq"], **s, **change}
    return topics.parse_view(topics.Topic(name, "view", gid), data)


def test_a_game_known_only_from_its_view_is_shown_until_its_log_comes(
        tmp_path: Path, table: Table) -> None:
    gid = play(table, "shoal", seed=12, steps=100)
    going = play(table, "poodivers", seed=13, steps=8, undo_every=0)
    ledger = Ledger(tmp_path / "hub.db")
    assert ledger.set_view(view(table, gid)) and ledger.set_view(view(table, going))
    shown = {g["id"]: g for g in ledger.table_json("t1")["games"]}
    for g in (gid, going):
        assert shown[g]["replaying"] and shown[g]["n"] == 0
        assert {k: shown[g][k] for k in view_of(table, g)} == view_of(table, g)
    assert shown[gid]["over"] and ledger.finished() == [], "a view never counts"
    assert ledger.game_json("t1", gid)["log"] == []  # type: ignore[index]
    assert not ledger.set_view(view(table, gid)), "the same view again changes nothing"
    evs = events(table, going)
    with ledger.batch():
        for e in evs[:4]:
            ledger.apply(e)
    behind = {g["id"]: g for g in ledger.table_json("t1")["games"]}[going]
    assert behind["replaying"] and behind["n"] == 4, "a view further on than the copy"
    assert behind["seq"] == table.get(going).seq
    with ledger.batch():
        for e in [*evs[4:], *events(table, gid)]:
            ledger.apply(e)
    for g in (gid, going):
        entry = ledger.game_json("t1", g)
        assert entry is not None and not entry["replaying"]
        assert [x["text"] for x in entry["log"]] == told(table, g)
    assert len(ledger.finished()) == 1
    with pytest.raises(topics.BadMessage, match="does not know"):
        ledger.set_view(view(table, gid, game="chess", n=99))


@pytest.mark.parametrize("change", [
    {"scores": {"Ann": "lots"}}, {"scores": [1]}, {"players": "Ann"}, {"over": "no"},
    {"current": 3}, {"winners": [1]}, {"game": None}, {"n": 0}, {"seq": -1}, {"id": 8},
])
def test_a_view_that_cannot_be_shown(table: Table, change: dict) -> None:
    gid = play(table, "shoal", seed=14, steps=3)
    with pytest.raises(topics.BadMessage):
        view(table, gid, **change)
