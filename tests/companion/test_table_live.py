"""The table tells its listeners of a change after releasing its lock, so a slow listener
(one game's live view being built) never holds up another game; and it keeps only the
games touched last in memory."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from companion import table as tables
from companion.store import Store
from companion.table import Table

FLIP = {"type": "flip", "cell": "C3", "face": "object"}


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(Store(tmp_path / "t.db"))


def test_a_slow_listener_does_not_hold_up_another_game(table: Table) -> None:
    first = table.create("poodivers", ["Ann", "Ben"]).id
    other = table.create("poodivers", ["Cy", "Dee"]).id
    inside, done = threading.Event(), threading.Event()

    def slow(sid: int, seq: int) -> None:
        if sid == first and seq == 1:
            inside.set()
            done.wait(10)

    table.listen(slow)
    player = threading.Thread(target=table.play, args=(first, FLIP))
    player.start()
    assert inside.wait(10)
    answered = threading.Event()

    def move() -> None:
        table.play(other, FLIP)
        answered.set()

    threading.Thread(target=move).start()
    assert answered.wait(5), "a move in another game waited for the first game's listener"
    done.set()
    player.join(10)
    assert table.get(first).seq == 1 and table.get(other).seq == 1


def test_a_listener_may_call_the_table(table: Table) -> None:
    seen: list[int] = []
    table.listen(lambda sid, seq: seen.append(table.get(sid).seq))
    sid = table.create("poodivers", ["Ann", "Ben"]).id
    table.play(sid, FLIP)
    table.undo(sid)
    assert seen == [0, 1, 0]


def test_a_failing_listener_leaves_the_change_acknowledged(
        table: Table, caplog: pytest.LogCaptureFixture) -> None:
    def broken(sid: int, seq: int) -> None:
        raise KeyError("view bug")

    heard: list[int] = []
    table.listen(broken)
    table.listen(lambda sid, seq: heard.append(seq))
    sid = table.create("poodivers", ["Ann", "Ben"]).id
    assert table.play(sid, FLIP).seq == 1 and heard == [0, 1]
    assert "a listener failed" in caplog.text


def test_only_the_games_touched_last_stay_in_memory(table: Table,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "MAX_SESSIONS", 3)
    ids = [table.create("poodivers", ["Ann", "Ben"]).id for _ in range(5)]
    table.play(ids[0], FLIP)
    assert len(table._sessions) == 3
    assert list(table._sessions) == [ids[3], ids[4], ids[0]]
    again = table.get(ids[1])          # folded again from its log
    assert again.seq == 0 and len(table._sessions) == 3
    assert table.play(ids[0], {"type": "bank"}).seq == 2
