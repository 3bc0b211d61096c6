"""The hub's start after a long night: how soon ``companion hub`` answers again.

Writes a hub database the way the hub itself does (its :class:`~hub.ledger.Ledger`
applying every change), for N tables by M games, each game a random one from the
project's driver (``tests/support/driver.py``: plays picked from the engines' ``legal``,
an undo and a redo now and then), played to its end or ``--actions`` actions. Then it
measures, median of ``--runs``:

- ``open_s``: opening the ledger in this process (what the hub does before it serves);
- ``first_page_s``: ``companion hub`` started as a process on that database until
  ``/api/tables`` answers, with the whole night in it (no broker needed for that);
- ``next_change_ms``: after opening, applying the next change of a game still going on
  (the first change of a game after a start, when a lazily kept game is folded);
- ``hub_rss_mb`` of that process, the database's size and the machine and its load.

    python benchmarks/hub_start.py [--tables 20] [--games 15] [--actions 300] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import games
from hub.ledger import APPLIED, Ledger
from hub.topics import Event
from tests.hub.conftest import free_port
from tests.support import driver

GAMES = ("shark", "poodivers", "shoal", "drshark")
PLAYERS = ["Ann", "Ben", "Cy"]


def night_of(game: str, seed: int, limit: int) -> tuple[dict[str, Any], list[tuple[str, dict]],
                                                        Any]:
    """One game: its options, its changes after the creation as (kind, action), and its
    state at the end."""
    engine = games.get(game)
    options = {"digital": True} if game == "poodivers" else {}
    prepared = driver.prepared(engine, PLAYERS, options, seed)
    rnd = random.Random(seed)
    changes: list[tuple[str, dict]] = []
    state = engine.new(PLAYERS, prepared)
    for _, action, state in driver.play(engine, PLAYERS, options, seed, limit):  # noqa: B007
        changes.append(("play", action))
        if rnd.random() < 0.03:  # taken back and played again, as tables do
            changes += [("undo", action), ("redo", action)]
    return prepared, changes, state


Going = tuple[str, int, str, Any, int]
"""A game not over: table, id, game, its state, its actions."""


def write_night(path: Path, tables: int, per_table: int, limit: int
                ) -> tuple[int, int, list[Going]]:
    """The database of a night, written by the hub's ledger; (games, changes, the games
    not over)."""
    ledger = Ledger(path)
    count = changes = 0
    going: list[Going] = []
    for t in range(tables):
        name = f"table-{t + 1}"
        for gid in range(1, per_table + 1):
            game = GAMES[(t + gid) % len(GAMES)]
            seed = t * 1000 + gid
            options, played, state = night_of(game, seed, limit)
            at = 1.7e9 + seed
            events = [Event(name, gid, 1, "create", 0, at, game=game,
                            players=tuple(PLAYERS), options=options)]
            seq = 0
            for n, (kind, action) in enumerate(played, 2):
                seq += -1 if kind == "undo" else 1
                events.append(Event(name, gid, n, kind, seq, at + n, action=action))
            with ledger.batch():
                for e in events:
                    verdict, why = ledger.apply(e)
                    assert verdict == APPLIED, why
            count += 1
            changes += len(events)
            if not games.get(game).is_over(state):
                going.append((name, gid, game, state, seq))
    ledger.close()
    return count, changes, going


def next_change(path: Path, going: Going) -> float:
    """Open the ledger, then apply the next action of a game still going on: seconds
    the change took."""
    name, gid, game, state, seq = going
    action, _ = driver.step(games.get(game), state, random.Random(gid))
    ledger = Ledger(path)
    try:
        change = Event(name, gid, ledger.have(name, gid) + 1, "play", seq + 1, time.time(),
                       action=action)
        began = time.perf_counter()
        with ledger.batch():
            verdict, why = ledger.apply(change)
        took = time.perf_counter() - began
        assert verdict == APPLIED, why
        return took
    finally:
        ledger.close()


def first_page(path: Path, home: Path) -> tuple[float, float]:
    """``companion hub`` on ``path`` until ``/api/tables`` answers: seconds, RSS MB."""
    port = free_port()
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "hub", "--broker",
         f"mqtt://127.0.0.1:{free_port()}", "--db", str(path), "--host", "127.0.0.1",
         "--port", str(port)], stderr=subprocess.DEVNULL, env={**os.environ,
                                                               "HOME": str(home)})
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables",
                                            timeout=60) as res:
                    tables = json.loads(res.read())["tables"]
                took = time.perf_counter() - began
                assert tables, "the hub answered without the night"
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit("the hub stopped at start") from None
                if time.perf_counter() - began > 600:
                    raise SystemExit("the hub did not answer within 10 minutes") from None
                time.sleep(0.02)
        rss = 0.0
        for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = round(int(line.split()[1]) / 1024, 1)
        return took, rss
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--games", type=int, default=15, help="games per table")
    parser.add_argument("--actions", type=int, default=300, help="at most, per game")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="hub-start-"))
    path = home / "hub.db"
    began = time.perf_counter()
    count, changes, going = write_night(path, args.tables, args.games, args.actions)
    written = time.perf_counter() - began
    opens = []
    for _ in range(args.runs):
        t = time.perf_counter()
        Ledger(path).close()
        opens.append(time.perf_counter() - t)
    pages = [first_page(path, home) for _ in range(args.runs)]
    nexts = [next_change(path, going[i * len(going) // args.runs]) for i in range(args.runs)]
    out = {
        "tables": args.tables, "games": count, "changes": changes,
        "games_going_on": len(going), "db_mb": round(path.stat().st_size / 2**20, 1),
        "written_s": round(written, 1),
        "open_s": round(statistics.median(opens), 3),
        "first_page_s": round(statistics.median(p[0] for p in pages), 3),
        "next_change_ms": round(statistics.median(nexts) * 1000, 1),
        "hub_rss_mb": statistics.median(p[1] for p in pages),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_1min": round(os.getloadavg()[0], 2),
                    "platform": platform.platform()},
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
