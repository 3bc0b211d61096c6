"""A hub night on one machine: a real Mosquitto (password file, the shipped ACL), three
``companion serve --hub`` tables, a table without a hub for comparison, and ``companion
hub``. Games are played through the tables' HTTP API; the hub must end up with every
game exactly as the tables have it, whatever happens to the broker, a table or the hub.

The tests run in order and share the night (starting it is the slow part); each checks
its own games."""

from __future__ import annotations

import functools
import json
import random
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.store import Store
from hub import mqtt, topics
from hub.league import league
from tests.hub.conftest import (
    PASSWORDS,
    PHONE,
    TABLET,
    Hub,
    Mosquitto,
    Table,
    screenshot,
    wait_for,
)
from tests.hub.games import PLAYERS, TALLY
from tests.web.scripted import choose

FIELDS = ("game", "players", "current", "over", "scores", "winners", "seq")


class Night:
    def __init__(self, home: Path, broker: Mosquitto) -> None:
        self.home = home
        self.broker = broker
        self.procs: list[Any] = []
        try:
            self.tables = {name: self._started(Table(home / name, name, broker.url))
                           for name in ("t1", "t2", "t3")}
            self.solo = self._started(Table(home / "solo", None, None))
            self.hub = self._started(Hub(home / "hub", broker.url))
        except BaseException:
            self.stop()
            raise

    def _started(self, proc: Any) -> Any:
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.procs:
            proc.stop()


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory, mosquitto: Mosquitto) -> Iterator[Night]:
    n = Night(tmp_path_factory.mktemp("night"), mosquitto)
    yield n
    n.stop()


def start(table: Table, game: str, players: list[str] = PLAYERS) -> dict[str, Any]:
    options = {"digital": True} if game == "poodivers" else {}
    status, view = table.call("POST", "/api/games", {"game": game, "players": players,
                                                     "options": options})
    assert status == 201, view
    return dict(view)


def burst(table: Table, view: dict[str, Any], steps: int, rnd: random.Random,
          timings: list[float] | None = None) -> dict[str, Any]:
    """Play up to ``steps`` actions picked from ``legal`` (Dr. Shark: the tally)."""
    for _ in range(steps):
        if view["over"]:
            break
        action = TALLY if view["game"] == "drshark" else choose(view["legal"], rnd)
        began = time.perf_counter()
        status, answer = table.call("POST", f"/api/games/{view['id']}/actions",
                                    {"action": action, "seq": view["seq"]})
        if timings is not None:
            timings.append(time.perf_counter() - began)
        if status == 200:
            view = answer
    return view


def at_hub(night: Night, table: str, gid: int) -> dict[str, Any] | None:
    for t in night.hub.get("/api/tables")["tables"]:
        if t["table"] == table:
            return next((g for g in t["games"] if g["id"] == gid), None)
    return None


def changes(table: Table, gid: int) -> int:
    store = Store(table.db)
    try:
        return len(store.changes(gid))
    finally:
        store.close()


def hub_has(night: Night, name: str, gid: int) -> bool:
    """The hub shows the game as the table does, with every change and no more."""
    mine = night.tables[name].get(f"/api/games/{gid}")
    theirs = at_hub(night, name, gid)
    return theirs is not None and all(theirs[k] == mine[k] for k in FIELDS) and \
        theirs["n"] == changes(night.tables[name], gid)


def expected_league(night: Night) -> dict[str, Any]:
    finished = []
    for table in night.tables.values():
        for item in table.get("/api/games"):
            if item["over"]:
                finished.append(table.get(f"/api/games/{item['id']}"))
    titles = {g["game"]: g["title"] for g in night.solo.get("/api/games/available")}
    return league(finished, titles)


def test_every_game_at_the_hub_equals_the_tables_own_and_the_league(night: Night) -> None:
    rnd = random.Random(1)
    t1, t2, t3 = night.tables.values()
    played = [  # Shoal ends after 30 actions, Dr. Shark with the tally
        ("t1", burst(t1, start(t1, "shoal"), 100, rnd)),
        ("t2", burst(t2, start(t2, "shoal", ["Ann", "Dee"]), 100, rnd)),
        ("t3", burst(t3, start(t3, "drshark"), 5, rnd)),
        ("t1", burst(t1, start(t1, "poodivers"), 20, rnd)),
        ("t2", burst(t2, start(t2, "shark"), 20, rnd)),
    ]
    assert [v["over"] for _, v in played] == [True, True, True, False, False]
    for name, view in played:
        wait_for(functools.partial(hub_has, night, name, view["id"]), what=f"{name} game")
    tables = night.hub.get("/api/tables")["tables"]
    assert [t["table"] for t in tables] == ["t1", "t2", "t3"]
    assert all(t["online"] for t in tables)
    hub_league = night.hub.get("/api/league")
    assert hub_league == expected_league(night)
    drshark = next(g for g in hub_league["games"] if g["game"] == "drshark")["players"]
    assert [(r["place"], r["player"], r["wins"], r["shared"]) for r in drshark] == [
        (1, "Ann", 1, 1), (1, "Cy", 1, 1), (3, "Ben", 0, 0)]
    assert hub_league["finished"] == 3


def test_broker_killed_and_restarted_nothing_lost_or_doubled(night: Night) -> None:
    rnd = random.Random(2)
    t1, t2 = night.tables["t1"], night.tables["t2"]
    games = {"t1": start(t1, "shark"), "t2": start(t2, "poodivers")}
    solo = start(night.solo, "shark")
    with_hub: list[float] = []
    without: list[float] = []

    def play_both(rounds: int) -> None:
        for _ in range(rounds):  # interleaved, so both see the same load
            games["t1"] = burst(t1, games["t1"], 1, rnd, with_hub)
            solo.update(burst(night.solo, solo, 1, rnd, without))
            games["t2"] = burst(t2, games["t2"], 1, rnd)

    play_both(15)
    night.broker.kill()
    play_both(30)  # the minute of play while the broker is away, as a scripted burst
    published = Store(t1.db).published(games["t1"]["id"])
    assert published < changes(t1, games["t1"]["id"]), "the outage queued nothing"
    night.broker.start()
    play_both(15)
    for name, view in games.items():
        wait_for(functools.partial(hub_has, night, name, view["id"]),
                 what=f"{name} catch-up")
    slow, base = statistics.median(with_hub), statistics.median(without)
    print(f"median request: {slow * 1000:.1f} ms with a hub, {base * 1000:.1f} ms without")
    assert slow <= base * 1.5 + 0.010, (slow, base)


def test_a_table_killed_with_its_queue_unpublished_catches_up(night: Night) -> None:
    rnd = random.Random(3)
    t3 = night.tables["t3"]
    view = burst(t3, start(t3, "shoal"), 5, rnd)
    wait_for(lambda: hub_has(night, "t3", view["id"]), what="t3 before")
    night.broker.kill()
    view = burst(t3, view, 20, rnd)
    assert Store(t3.db).published(view["id"]) < changes(t3, view["id"])
    t3.kill()
    night.broker.start()
    t3.start()
    wait_for(lambda: hub_has(night, "t3", view["id"]), what="t3 catch-up after its restart")
    wait_for(lambda: any(t["table"] == "t3" and t["online"]
                         for t in night.hub.get("/api/tables")["tables"]))


def test_the_hub_restarted_rebuilds_the_same_league(night: Night) -> None:
    wait_for(lambda: night.hub.get("/api/league") == expected_league(night))
    before = night.hub.get("/api/league")
    tables = night.hub.get("/api/tables")
    night.hub.stop()
    night.hub.start()  # the same database
    assert night.hub.get("/api/league") == before
    night.hub.stop()
    fresh = Hub(night.home / "hub2", night.broker.url)  # an empty database
    try:
        wait_for(lambda: fresh.get("/api/league") == before, what="the rebuilt league")
        wait_for(lambda: _games(fresh.get("/api/tables")) == _games(tables),
                 what="every game rebuilt from the broker and the tables' replays")
    finally:
        fresh.stop()
        night.hub.start()


def _games(tables: dict[str, Any]) -> dict[tuple[str, int], tuple[Any, ...]]:
    return {(t["table"], g["id"]): tuple(g[k] for k in FIELDS) for t in tables["tables"]
            for g in t["games"]}


def _client(name: str, port: int, password: str) -> Any:
    url = mqtt.BrokerURL("127.0.0.1", port)
    c = mqtt.client(f"intruder-{name}", url, name, password)
    c.connect(url.host, url.port)
    c.loop_start()
    return c


def test_another_tables_name_is_refused_and_garbage_changes_nothing(night: Night) -> None:
    t1 = night.tables["t1"]
    view = burst(t1, start(t1, "poodivers"), 5, random.Random(4))
    wait_for(lambda: hub_has(night, "t1", view["id"]), what="t1 game")
    before = night.hub.get("/api/tables")
    acks: list[str | None] = []
    done = threading.Event()
    c = _client("t1", night.broker.port, PASSWORDS["t1"])
    def published(*a: Any) -> None:
        acks.append(mqtt.refusal(a[3]))
        done.set()

    c.on_publish = published
    forged = topics.Event("t2", 1, 99, "play", 1, 1.0, action={"type": "bank"})
    c.publish(topics.events_topic("t2", 1), topics.dumps(forged.to_json()), qos=1)
    assert done.wait(10)
    assert acks == ["Not authorized"], "the broker let t1 publish as t2"
    gid = view["id"]
    n = at_hub(night, "t1", gid)["n"]  # type: ignore[index]
    good = topics.Event("t1", gid, n + 1, "play", view["seq"] + 1, 1.0,
                        action={"type": "bank"}).to_json()
    garbage: list[tuple[str, bytes]] = [
        (topics.events_topic("t1", gid), b"\xff\xfe not json"),
        (topics.events_topic("t1", gid), b"[1, 2, 3]"),
        (topics.events_topic("t1", gid), json.dumps({**good, "seq": 77}).encode()),
        (topics.events_topic("t1", gid), json.dumps({**good, "action": {"type": "x"}}).encode()),
        (topics.events_topic("t1", gid), json.dumps({**good, "table": "t2"}).encode()),
        (topics.events_topic("t1", gid), json.dumps({**good, "n": 1, "kind": "create"}).encode()),
        (topics.events_topic("t1", gid + 1000), json.dumps(good).encode()),
        (topics.view_topic("t1", gid), b"{}"),
        (topics.status_topic("t1"), b'{"online": "maybe"}'),
        (f"companion/t1/games/{gid}/events", b"x" * 600_000),
    ]
    for topic, payload in garbage:
        c.publish(topic, payload, qos=1).wait_for_publish(10)
    c.disconnect()
    c.loop_stop()
    # A real change after the garbage: once the hub shows it, it has read all of it.
    view = burst(t1, view, 1, random.Random(5))
    wait_for(lambda: hub_has(night, "t1", view["id"]), what="the change after the garbage")
    after = night.hub.get("/api/tables")
    assert _games(after) == {**_games(before),
                             ("t1", gid): tuple(view[k] for k in FIELDS)}
    assert at_hub(night, "t2", 99) is None
    assert at_hub(night, "t1", gid + 1000) is None
    assert all(t["online"] for t in after["tables"])


def test_a_phone_follows_a_tables_game_live_from_the_hub(night: Night, new_browser: Any) -> None:
    t2 = night.tables["t2"]
    view = start(t2, "poodivers", ["Ann", "Ben"])
    phone = new_browser(PHONE).new_page()
    phone.goto(night.hub.url + "/tables/t2")
    phone.wait_for_selector("#live.on")
    box = f'[data-game="t2/{view["id"]}"]'
    phone.wait_for_selector(f'{box}[data-seq="0"]')
    rnd = random.Random(7)
    for _ in range(6):
        view = burst(t2, view, 1, rnd)
        phone.wait_for_selector(f'{box}[data-seq="{view["seq"]}"]', timeout=15_000)
    turn = phone.locator(f"{box} .turn").inner_text()
    assert turn == (f"{view['current']} to play" if not view["over"] else turn)
    rows = phone.locator(f"{box} .scores tr").all_inner_texts()
    assert [r.split()[0] for r in rows] == list(view["scores"])
    assert [int(r.split()[-1]) for r in rows] == list(view["scores"].values())
    screenshot(phone, "hub-table-on-a-phone")
    # the league needs a finished game: one here, so the test stands alone
    assert burst(night.tables["t1"], start(night.tables["t1"], "shoal"), 100, rnd)["over"]
    room = new_browser(TABLET).new_page()
    room.goto(night.hub.url + "/")
    for name in ("t1", "t2", "t3"):
        room.wait_for_selector(f'[data-table="{name}"] .state.on')
    room.wait_for_selector("#league .league")
    assert "Ann" in room.locator("#league").inner_text()
    screenshot(room, "hub-every-table")


def test_a_tables_page_shows_each_games_log_in_its_own_words_live(
        night: Night, new_browser: Any) -> None:
    t3 = night.tables["t3"]
    rnd = random.Random(8)
    view = burst(t3, start(t3, "shark"), 8, rnd)
    done = burst(t3, start(t3, "shoal"), 100, rnd)
    assert done["over"]
    phone = new_browser(PHONE).new_page()
    phone.goto(night.hub.url + "/tables/t3")
    box = f'[data-game="t3/{view["id"]}"]'

    def shown(where: str) -> list[str]:
        return phone.locator(f"{where} ol.log li").all_inner_texts()

    def told() -> list[str]:
        """The table's own log (its dashboard's lines), newest first as shown."""
        return [e["text"] for e in reversed(t3.get(f"/api/games/{view['id']}")["log"])]

    phone.wait_for_selector(f'{box}[data-seq="{view["seq"]}"] ol.log li')
    wait_for(lambda: shown(box) == told(), timeout=15, what="the log as the table has it")
    assert any("Ann" in line for line in shown(box))
    for _ in range(2):  # a new action's line comes to the top
        view = burst(t3, view, 1, rnd)
        phone.wait_for_selector(f'{box}[data-seq="{view["seq"]}"]', timeout=15_000)
        wait_for(lambda: shown(box) == told(), timeout=15, what="the new action's line")
    status, view = t3.call("POST", f"/api/games/{view['id']}/undo", {})
    assert status == 200, view
    wait_for(lambda: shown(box) == told(), timeout=15, what="the undone line gone")
    finished = f'[data-game="t3/{done["id"]}"]'
    phone.click(f"{finished} details.log-box summary")
    wait_for(lambda: len(shown(finished)) == done["seq"], timeout=15, what="a finished log")
    screenshot(phone, "hub-table-log-on-a-phone")
