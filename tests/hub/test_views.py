"""A game the hub knows only from its retained view (a hub started after the game, the
table's replay still on its way) is shown from that view, marked as such, until the log
arrives; then it is the hub's own copy, log and all. A real Mosquitto and ``companion
hub``; the table is a scripted MQTT client with the table's own user (its messages are
the real publisher's, from a real game)."""

from __future__ import annotations

import json
import threading
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.store import Store
from companion.table import Table
from hub import mqtt, topics
from hub.publish import event_of
from tests.hub.conftest import PASSWORDS, PHONE, Hub, Mosquitto, screenshot, wait_for
from tests.hub.games import play


class ScriptedTable:
    """Table t1's messages, sent by hand: a retained view first, the log later."""

    def __init__(self, home: Path, port: int) -> None:
        self.table = Table(Store(home / "t1.db"))
        url = mqtt.BrokerURL("127.0.0.1", port)
        self.client = mqtt.client("scripted-t1", url, "t1", PASSWORDS["t1"])
        connected = threading.Event()
        self.client.on_connect = lambda *a: connected.set()
        self.client.connect(url.host, url.port)
        self.client.loop_start()
        assert connected.wait(10)

    def send(self, topic: str, payload: dict[str, Any], retain: bool = False) -> None:
        self.client.publish(topic, topics.dumps(payload), qos=1,
                            retain=retain).wait_for_publish(10)

    def view(self, gid: int) -> None:
        s = self.table.get(gid).summary()
        self.send(topics.view_topic("t1", gid), {
            "table": "t1", "id": gid, "n": len(self.table.store.changes(gid)),
            **s}, retain=True)

    def log(self, gid: int) -> None:
        row = self.table.store.session(gid)
        for change in self.table.store.changes(gid):
            self.send(topics.events_topic("t1", gid),
                      event_of("t1", gid, change, row).to_json())

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def scripted(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[ScriptedTable]:
    t = ScriptedTable(tmp_path, mosquitto.port)
    yield t
    t.close()


def test_a_game_known_from_its_view_is_shown_until_its_log_arrives(
        tmp_path: Path, mosquitto: Mosquitto, scripted: ScriptedTable,
        new_browser: Any) -> None:
    gid = play(scripted.table, "poodivers", seed=21, steps=12, undo_every=0)
    scripted.view(gid)  # retained: there before the hub
    hub = Hub(tmp_path / "hub", mosquitto.url)
    try:
        mine = scripted.table.get(gid).summary()

        def listed() -> dict[str, Any] | None:
            for t in hub.get("/api/tables")["tables"]:
                for g in t["games"]:
                    if t["table"] == "t1" and g["id"] == gid:
                        return dict(g)
            return None

        entry = wait_for(listed, what="the game from its retained view")
        assert entry["replaying"] and entry["n"] == 0
        assert {k: entry[k] for k in ("players", "current", "scores", "seq")} == {
            k: mine[k] for k in ("players", "current", "scores", "seq")}
        phone = new_browser(PHONE).new_page()
        phone.goto(hub.url + "/tables/t1")
        box = f'[data-game="t1/{gid}"][data-seq="{mine["seq"]}"]'
        phone.wait_for_selector(f"{box} .replaying")
        assert phone.locator(f"{box} ol.log").count() == 0
        assert phone.locator(f"{box} .turn").inner_text() == f"{mine['current']} to play"
        screenshot(phone, "hub-game-from-its-view")
        scripted.log(gid)  # the table's replay
        phone.wait_for_selector(f"{box} ol.log li", timeout=15_000)
        assert phone.locator(f"{box} .replaying").count() == 0
        assert phone.locator(f"{box} ol.log li").count() == mine["seq"]
        entry = listed()
        assert entry is not None and not entry["replaying"]
        assert entry["n"] == len(scripted.table.store.changes(gid))
        for path in (f"/api/tables/t1/games/{gid + 1}", "/api/tables/t1/games/x",
                     f"/api/tables/a%20b/games/{gid}"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                hub.get(path)
            assert refused.value.code == 404
            assert "error" in json.loads(refused.value.read())
    finally:
        hub.stop()
