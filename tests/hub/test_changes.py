"""The store's changes (what a table publishes): the order they happened, undo and redo
included, across sessions sharing the action ids; and what was published, kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.store import Store

OPS = st.lists(st.tuples(st.sampled_from(["play", "undo", "redo"]), st.integers(0, 1)),
               max_size=25)


def fold(changes: list) -> list[dict]:
    actions: list[dict] = []
    for change in changes:
        if change.kind == "undo":
            assert actions and actions[-1] == change.action, "an undo takes back the last"
            actions.pop()
        elif change.kind in ("play", "redo"):
            actions.append(change.action)
        assert change.seq == len(actions)
    return actions


@settings(max_examples=25, deadline=None)
@given(OPS)
def test_changes_replay_to_the_log(tmp_path_factory, ops) -> None:
    store = Store(tmp_path_factory.mktemp("c") / "x.db")
    sids = [store.create("shark", ["A", "B"], {}, 1) for _ in range(2)]
    for i, (op, which) in enumerate(ops):
        sid = sids[which]
        if op == "play":
            store.append(sid, {"type": "p", "i": i})
        elif op == "undo":
            store.undo(sid)
        elif (entry := store.redoable(sid)) is not None:
            store.append(sid, entry.action, redo_of=entry.id)
    for sid in sids:
        changes = store.changes(sid)
        assert [c.n for c in changes] == list(range(1, len(changes) + 1))
        assert changes[0].kind == "create" and changes[0].action is None
        assert fold(changes) == store.actions(sid)
        assert store.changes(sid, after=3) == changes[3:]
        assert store.published(sid) == 0
    assert sorted(store.unpublished()) == sorted(
        (sid, len(store.changes(sid)), 0) for sid in sids)
    store.close()


def test_published_is_kept_and_never_goes_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "x.db")
    sid = store.create("shark", ["A", "B"], {}, 1)
    store.append(sid, {"type": "p"})
    store.mark_published(sid, 2)
    store.mark_published(sid, 1)
    assert store.unpublished() == []
    store.close()
    again = Store(tmp_path / "x.db")
    assert again.published(sid) == 2
    again.append(sid, {"type": "q"})
    assert again.unpublished() == [(sid, 3, 2)]
    assert [c.kind for c in again.changes(sid, after=2)] == ["play"]


def test_a_version_1_database_moves_forward(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL,
            players TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER NOT NULL,
            created REAL NOT NULL, updated REAL NOT NULL, over INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE actions (id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES sessions(id), action TEXT NOT NULL,
            at REAL NOT NULL, undone_at INTEGER, redo_of INTEGER REFERENCES actions(id));
        INSERT INTO sessions VALUES (1, 'shark', '["A","B"]', '{}', 7, 1.0, 2.0, 0);
        INSERT INTO actions VALUES (1, 1, '{"type":"a"}', 1.5, NULL, NULL);
        INSERT INTO actions VALUES (2, 1, '{"type":"b"}', 1.6, 2, NULL);
        PRAGMA user_version=1;
    """)
    db.close()
    store = Store(path)
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert store.actions(1) == [{"type": "a"}]
    assert [(c.kind, c.seq) for c in store.changes(1)] == [
        ("create", 0), ("play", 1), ("play", 2), ("undo", 1)]
    assert store.unpublished() == [(1, 4, 0)]
