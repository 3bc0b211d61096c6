"""A hub night: 20 tables publishing recorded games to one hub over a real Mosquitto.

Starts Mosquitto (password file and the shipped ACL) on a free loopback port and
``companion hub`` as a process; runs N tables in this process, each a real
:class:`~companion.table.Table` on its own SQLite file with the real publisher, replaying
games recorded beforehand (seeded picks from the engines' ``legal``, the four games in
turn) at table pace. It follows the hub page's live stream like a browser and prints JSON:

- ``latency_ms``: a table's acknowledgement of an action → the hub's page shows it
  (p50, p95, max), at table pace;
- ``burst``: every table as fast as it can, messages (changes) per second through the
  hub, and the latency then;
- ``catch_up``: the broker SIGKILLed, the tables playing on for ``--outage`` seconds
  (the issue's figure is 5 minutes), the broker restarted: seconds until the hub's page
  shows every change;
- ``hub_rss_mb`` at the end, and the machine and its load.

    python benchmarks/hub.py [--tables 20] [--pace 3] [--seconds 60] [--outage 300]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import games
from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table
from hub import broker, mqtt
from hub.publish import Publisher
from tests.hub.conftest import ACL, free_port
from tests.web.scripted import choose

GAMES = ("shark", "poodivers", "shoal", "drshark")
PLAYERS = ["Ann", "Ben", "Cy"]
TALLY = {"type": "tally", "dossiers": {"Ann": {"clues": 3}, "Ben": {"clues": 1},
                                       "Cy": {"clues": 3}}}


def record(game: str, seed: int, limit: int = 400) -> tuple[dict[str, Any], list[dict]]:
    """A game played to its end in memory: its options and the actions as logged."""
    engine = games.get(game)
    options = engine.prepare(PLAYERS, {"digital": True} if game == "poodivers" else {},
                             random.Random(f"{seed}/setup"))
    state = engine.new(PLAYERS, options)
    rnd, actions = random.Random(seed), list[dict[str, Any]]()
    for _ in range(limit * 5):
        if engine.is_over(state) or len(actions) >= limit:
            break
        action = TALLY if game == "drshark" and len(actions) > 6 else choose(
            [e.to_json() for e in engine.legal(state)], rnd)
        if action is None:
            break
        try:
            action = engine.resolve(state, action, random.Random(f"{seed}/{len(actions)}"))
            state = engine.apply(state, action)
        except (IllegalAction, ValueError):
            continue
        actions.append(action)
    return options, actions


class SimTable:
    """One table: a Table on its own database with the real publisher, replaying games."""

    def __init__(self, home: Path, name: str, url: mqtt.BrokerURL, password: str,
                 seed: int) -> None:
        self.name = name
        self.table = Table(Store(home / f"{name}.db"))
        self.publisher = Publisher(self.table, name, url, name, password).start()
        self.rnd = random.Random(seed)
        self.game = 0
        self.acks: dict[tuple[str, int, int], float] = {}
        if not self.publisher.connected.wait(30):
            raise SystemExit(f"{name} could not connect to the broker")
        self._next_game()

    def _next_game(self) -> None:
        game = GAMES[(self.game + self.rnd.randrange(4)) % 4]
        self.game += 1
        options, self.actions = record(game, self.rnd.randrange(10**6))
        self.session = self.table.create(game, PLAYERS, options)
        self.acks[(self.name, self.session.id, 1)] = time.perf_counter()

    def step(self) -> None:
        if self.session.seq >= len(self.actions):
            self._next_game()
            return
        self.table.play(self.session.id, self.actions[self.session.seq])
        self.acks[(self.name, self.session.id, self.session.seq + 1)] = time.perf_counter()

    def close(self) -> None:
        self.publisher.close()


class Viewer:
    """The hub page's live stream, read like a browser: when each change first showed."""

    def __init__(self, port: int) -> None:
        self.seen: dict[tuple[str, int], tuple[int, float]] = {}
        self.shown: dict[tuple[str, int, int], float] = {}
        self.lock = threading.Lock()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
        self.conn.request("GET", "/api/events")
        self.res = self.conn.getresponse()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with suppress(OSError, ValueError, http.client.HTTPException):
            for raw in self.res:
                line = raw.decode()
                if not line.startswith("data: "):
                    continue
                now = time.perf_counter()
                table = json.loads(line[6:])
                with self.lock:
                    for g in table["games"]:
                        key = (table["table"], g["id"])
                        before = self.seen.get(key, (0, 0.0))[0]
                        for n in range(before + 1, g["n"] + 1):
                            self.shown[(table["table"], g["id"], n)] = now
                        if g["n"] > before:
                            self.seen[key] = (g["n"], now)

    def has_all(self, acks: dict[tuple[str, int, int], float]) -> bool:
        with self.lock:
            return all(k in self.shown for k in acks)


def latencies(acks: dict[tuple[str, int, int], float], viewer: Viewer) -> dict[str, float]:
    with viewer.lock:
        ms = sorted((viewer.shown[k] - t) * 1000 for k, t in acks.items() if k in viewer.shown)
    if not ms:
        return {}
    return {"p50": round(statistics.median(ms), 1),
            "p95": round(ms[int(0.95 * (len(ms) - 1))], 1), "max": round(ms[-1], 1),
            "changes": len(ms)}


def run_for(tables: list[SimTable], seconds: float, pace: float) -> int:
    """Every table plays one action per ``pace`` seconds (0: as fast as it can)."""
    count = 0
    stop = time.monotonic() + seconds
    lock = threading.Lock()

    def table_loop(t: SimTable, start: float) -> None:
        nonlocal count
        time.sleep(start)
        while time.monotonic() < stop:
            t.step()
            with lock:
                count += 1
            if pace:
                time.sleep(pace)

    threads = [threading.Thread(target=table_loop, args=(t, pace * i / len(tables)))
               for i, t in enumerate(tables)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return count


def wait_all(viewer: Viewer, tables: list[SimTable], timeout: float) -> float:
    began = time.perf_counter()
    acks = {k: v for t in tables for k, v in t.acks.items()}
    while time.perf_counter() - began < timeout:
        if viewer.has_all(acks):
            return time.perf_counter() - began
        time.sleep(0.05)
    raise SystemExit(f"the hub did not show every change within {timeout} s")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--pace", type=float, default=3.0,
                        help="seconds between a table's actions at table pace")
    parser.add_argument("--seconds", type=float, default=60.0, help="table-pace phase")
    parser.add_argument("--burst", type=float, default=10.0, help="as-fast-as-can phase")
    parser.add_argument("--outage", type=float, default=300.0,
                        help="seconds the broker is away while the tables play")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="hub-bench-"))
    port = free_port()
    passwd = home / "passwd"
    names = [f"table-{i + 1}" for i in range(args.tables)]
    for user in ["hub", *names]:
        broker.add_user(passwd, user, f"{user}-pw")
    conf = broker.write_config(home / "broker", "127.0.0.1", port, password_file=passwd,
                               acl_file=ACL)
    mosq = broker.start(conf, "127.0.0.1", port, log=home / "broker.log")
    hub_port = free_port()
    (home / "hub-pw").write_text("hub-pw\n")
    hub_log = open(home / "hub.log", "w")  # noqa: SIM115 (the hub's for its whole run)
    hub = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "hub", "--broker", f"mqtt://127.0.0.1:{port}",
         "--db", str(home / "hub.db"), "--username", "hub", "--password-file",
         str(home / "hub-pw"), "--host", "127.0.0.1", "--port", str(hub_port)],
        stderr=hub_log, env={**os.environ, "HOME": str(home)})
    url = mqtt.BrokerURL("127.0.0.1", port)
    try:
        viewer = None
        for _ in range(300):
            with suppress(OSError):
                viewer = Viewer(hub_port)
                break
            time.sleep(0.1)
        if viewer is None:
            raise SystemExit(f"the hub did not start: see {home / 'hub.log'}")
        time.sleep(2)  # the hub subscribes right after its page is up
        tables = [SimTable(home, n, url, f"{n}-pw", seed=i) for i, n in enumerate(names)]
        paced = run_for(tables, args.seconds, args.pace)
        pace_latency: dict[str, Any] = {"changes_played": paced}
        wait_all(viewer, tables, 60)
        pace_latency.update(latencies({k: v for t in tables for k, v in t.acks.items()},
                                      viewer))
        for t in tables:
            t.acks.clear()
        burst = run_for(tables, args.burst, 0)
        drained = wait_all(viewer, tables, 120)
        burst_latency = latencies({k: v for t in tables for k, v in t.acks.items()}, viewer)
        rate = burst / (args.burst + drained)
        mosq.kill()
        mosq.wait()
        queued = run_for(tables, args.outage, args.pace)
        mosq = broker.start(conf, "127.0.0.1", port, log=home / "broker.log")
        catch_up = wait_all(viewer, tables, 600)
        out = {
            "tables": args.tables,
            "pace_s": args.pace,
            "latency_ms": pace_latency,
            "burst": {"changes": burst, "seconds": round(args.burst + drained, 2),
                      "changes_per_s": round(rate, 1), "latency_ms": burst_latency},
            "catch_up": {"outage_s": args.outage, "changes_queued": queued,
                         "seconds": round(catch_up, 2)},
            "hub_rss_mb": rss_mb(hub.pid),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "load_1min": round(os.getloadavg()[0], 2),
                        "platform": platform.platform()},
        }
        for t in tables:
            t.close()
        print(json.dumps(out, indent=1))
    finally:
        for proc in (hub, mosq):
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
