"""A full disk while playing: the write is refused with a 507 a player understands, the
game stays as it was (on disk and in the table's memory), nothing is corrupted, and play
carries on once space returns. The disk is a size cap on the database file (SQLite's
``max_page_count``, set on the store's own connection), which runs anywhere without
privileges; SQLite reports it exactly as a full disk (SQLITE_FULL)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.table import Table
from tests.web.conftest import PIN
from tests.web.scripted import GAMES, PLAYERS, choose

HEADERS = {"X-Table-Pin": PIN}


def cap(table: Table, pages: int | None) -> None:
    """Cap the database at ``pages`` pages (``None``: the current size, so any growth
    fails); a large cap is space returning."""
    db = table.store._db
    if pages is None:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def snapshot(client: FlaskClient, table: Table, sid: int) -> tuple[Any, ...]:
    view = client.get(f"/api/games/{sid}").get_json()
    session = table.get(sid)
    return (view["seq"], view["log"], view["scores"], session.seq, list(session.actions),
            session.state, [(e.id, e.action, e.undone) for e in table.store.history(sid)])


def fill_until_full(client: FlaskClient, table: Table, sid: int,
                    rnd: random.Random) -> tuple[dict[str, Any], Any]:
    """Play scripted actions until one is refused for lack of space; that action and
    the refusal."""
    for _ in range(2000):
        view = client.get(f"/api/games/{sid}").get_json()
        action = choose(view["legal"], rnd)
        before = snapshot(client, table, sid)
        if action is None:  # the game is over: take the last action back, play on
            res = client.post(f"/api/games/{sid}/undo", headers=HEADERS)
            assert res.status_code in (200, 507), res.get_json()
            if res.status_code == 507:  # the undo filled it first: room for a few pages more
                cap(table, table.store._db.execute("PRAGMA page_count").fetchone()[0] + 8)
            continue
        res = client.post(f"/api/games/{sid}/actions", json={"action": action},
                          headers=HEADERS)
        if res.status_code == 507:
            assert snapshot(client, table, sid) == before
            return action, res
        assert res.status_code in (200, 400), res.get_json()
        if res.status_code == 400:
            assert snapshot(client, table, sid) == before
    raise AssertionError("the capped database never filled")


@pytest.mark.parametrize("game", GAMES)
def test_a_full_disk_refuses_the_write_and_keeps_the_game(
        client: FlaskClient, table: Table, game: str) -> None:
    rnd = random.Random(game)
    res = client.post("/api/games", json={"game": game, "players": PLAYERS},
                      headers=HEADERS)
    assert res.status_code == 201
    sid = res.get_json()["id"]
    cap(table, None)

    action, refused = fill_until_full(client, table, sid, rnd)
    body = refused.get_json()
    assert refused.is_json and "disk is full" in body["error"]
    assert "game is as it was" in body["error"]
    before = snapshot(client, table, sid)

    # Every other write is refused the same way, and changes nothing.
    again = client.post(f"/api/games/{sid}/actions", json={"action": action},
                        headers=HEADERS)
    assert again.status_code == 507
    new_game = client.post("/api/games", json={"game": game, "players": PLAYERS},
                           headers=HEADERS)
    assert new_game.status_code in (201, 507)   # a new session row may still fit a page
    assert snapshot(client, table, sid) == before
    assert table.store.integrity() == "ok"

    # A fresh table over the same file (a restart) sees the same game.
    fresh = Table(type(table.store)(table.store.path))
    try:
        assert fresh.get(sid).actions == before[4]
        assert fresh.store.integrity() == "ok"
    finally:
        fresh.store.close()

    # Space returns: the refused action now goes through, and play carries on.
    cap(table, 1 << 30)
    res = client.post(f"/api/games/{sid}/actions", json={"action": action},
                      headers=HEADERS)
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["seq"] == before[0] + 1
    undo = client.post(f"/api/games/{sid}/undo", headers=HEADERS)
    assert undo.status_code == 200 and undo.get_json()["seq"] == before[0]
    assert table.store.integrity() == "ok"


def test_undo_and_redo_on_a_full_disk_answer_in_json(client: FlaskClient,
                                                     table: Table) -> None:
    """Undo marks a row and redo appends one: on a full disk both answer 507 (or
    succeed when the row fits in a page already there), never a 500."""
    sid = client.post("/api/games", json={"game": "shoal", "players": PLAYERS},
                      headers=HEADERS).get_json()["id"]
    rnd = random.Random(7)
    cap(table, None)
    fill_until_full(client, table, sid, rnd)
    for _ in range(3):
        before = snapshot(client, table, sid)
        res = client.post(f"/api/games/{sid}/undo", headers=HEADERS)
        assert res.status_code in (200, 507) and res.is_json
        if res.status_code == 507:
            assert snapshot(client, table, sid) == before
        res = client.post(f"/api/games/{sid}/redo", headers=HEADERS)
        assert res.status_code in (200, 400, 507) and res.is_json
    assert table.store.integrity() == "ok"
