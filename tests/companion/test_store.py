"""The event store: durability, undo and redo, conflicts, migrations."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine import IllegalAction
from companion.store import Conflict, Store, StoreError
from companion.table import NoSuchSession, Table

FLIPS = [{"type": "flip", "cell": f"{c}{r}", "face": "blank"} for r in (1, 2) for c in "ABCDEFG"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "companion.db"


def test_a_game_written_by_one_process_is_read_by_another(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        for action in FLIPS[:3]:
            table.play(sid, action)
    code = (
        "import json, sys\n"
        "from companion.store import Store\n"
        "from companion.table import Table\n"
        f"t = Table(Store({str(db)!r}))\n"
        f"print(json.dumps(t.get({sid}).record()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    rec = json.loads(out.stdout)
    assert rec["actions"] == FLIPS[:3] and rec["players"] == ["Ann", "Ben"]


BURST = """
import json, random, sys, time
from tests.support.driver import action_for
from companion.store import Store
from companion.table import Table
table = Table(Store(sys.argv[1]))
session = table.create("poodivers", ["Ann", "Ben"], seed=1)
print("session", session.id, flush=True)
rnd = random.Random(5)
while not session.game.is_over(session.state):
    action = action_for(session.game, session.state, rnd)
    table.play(session.id, action)
    print("ack", json.dumps(action), flush=True)
time.sleep(60)
"""


def test_kill_9_in_a_burst_keeps_exactly_the_acknowledged_actions(db: Path) -> None:
    root = Path(__file__).parents[2]
    proc = subprocess.Popen([sys.executable, "-c", BURST, str(db)], stdout=subprocess.PIPE,
                            text=True, cwd=root)
    assert proc.stdout is not None
    sid = int(proc.stdout.readline().split()[1])
    lines = [proc.stdout.readline() for _ in range(20)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # Whatever the process printed before it died is still in the pipe: every printed
    # line is an acknowledged action.
    lines += proc.stdout.read().splitlines()
    acked = [json.loads(line[4:]) for line in lines]
    with Store(db) as store:
        actions = store.actions(sid)
        assert store.integrity() == "ok"
    # Every acknowledged action is there, in order; at most the one in flight (committed
    # but not yet acknowledged when the kill came) follows it.
    assert actions[: len(acked)] == acked
    assert len(acked) <= len(actions) <= len(acked) + 1
    Table(Store(db)).get(sid)  # the log still folds through the rules


def test_undo_keeps_the_action_in_history_and_redo_brings_it_back(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        for action in FLIPS[:3]:
            table.play(sid, action)
        assert table.undo(sid) == FLIPS[2]
        assert table.undo(sid) == FLIPS[1]
        assert table.get(sid).seq == 1
        session = table.get(sid)
        assert session.game.view(session.state)["cells"]["B1"] == "closed"
        history = store.history(sid)
        assert [(e.action, e.undone) for e in history] == [
            (FLIPS[0], False), (FLIPS[1], True), (FLIPS[2], True)]
        assert table.redo(sid) == FLIPS[1]
        assert table.redo(sid) == FLIPS[2]
        assert table.redo(sid) is None
        assert store.actions(sid) == FLIPS[:3]
        assert len(store.history(sid)) == 5


def test_a_new_action_after_undo_ends_the_redo_chain(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        table.play(sid, FLIPS[0])
        table.play(sid, FLIPS[1])
        table.undo(sid)
        table.play(sid, FLIPS[2])
        assert table.redo(sid) is None
        assert store.actions(sid) == [FLIPS[0], FLIPS[2]]


def test_undo_with_nothing_to_undo(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        assert table.undo(sid) is None


def test_stale_seq_is_a_conflict_and_writes_nothing(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        table.play(sid, FLIPS[0], seq=0)
        with pytest.raises(Conflict) as err:
            table.play(sid, FLIPS[1], seq=0)
        assert (err.value.expected, err.value.actual) == (0, 1)
        with pytest.raises(Conflict):
            table.undo(sid, seq=5)
        assert store.actions(sid) == [FLIPS[0]]


def test_an_illegal_action_is_not_stored(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        table.play(sid, FLIPS[0])
        with pytest.raises(IllegalAction, match="already open"):
            table.play(sid, FLIPS[0])
        with pytest.raises(IllegalAction, match="type"):
            table.play(sid, {"cell": "A1"})
        assert store.actions(sid) == [FLIPS[0]]
        assert table.get(sid).seq == 1


def test_listeners_hear_every_change(db: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        heard: list[tuple[int, int]] = []
        remove = table.listen(lambda sid, seq: heard.append((sid, seq)))
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        table.play(sid, FLIPS[0])
        table.undo(sid)
        remove()
        table.play(sid, FLIPS[0])
        assert heard == [(sid, 0), (sid, 1), (sid, 0)]


def test_unknown_session(db: Path) -> None:
    with Store(db) as store, pytest.raises(NoSuchSession, match="no game with id 9"):
        Table(store).get(9)


def test_a_fresh_file_is_migrated_to_the_current_schema(db: Path) -> None:
    sqlite3.connect(db).close()
    with Store(db) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] >= 1
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_newer_schema_is_refused_with_advice(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version=99")
    con.close()
    with pytest.raises(StoreError, match="newer companion"):
        Store(db)


def test_an_unwritable_place_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot open the database"):
        Store(blocker / "sub" / "c.db")


def test_backup_is_a_consistent_copy_while_the_store_is_open(db: Path, tmp_path: Path) -> None:
    with Store(db) as store:
        table = Table(store)
        sid = table.create("poodivers", ["Ann", "Ben"]).id
        for action in FLIPS[:4]:
            table.play(sid, action)
        store.backup(tmp_path / "copy.db")
        table.play(sid, FLIPS[4])
        with pytest.raises(StoreError, match="exists already"):
            store.backup(tmp_path / "copy.db")
    with Store(tmp_path / "copy.db") as copy:
        assert copy.integrity() == "ok"
        assert copy.actions(sid) == FLIPS[:4]
