"""How fast the ``companion`` command answers: ``--version``, ``--help`` and ``replay`` of a
200-action record of each game, each a fresh process as a person runs it.

Prints one JSON object: per command the median, best and worst wall time in seconds of
``--runs`` runs (after one run that is not counted), for replay the record's length, and
the machine and its load. Python may cache bytecode, as on an installed Pi (pip compiles
at install; this one runs even if ``PYTHONDONTWRITEBYTECODE`` is set where it starts).
The records are played here through :class:`companion.table.Table` (legal picks from the
engine's ``legal()``, chance dealt by the table) and exported as ``companion export``
writes them::

    nice -n 15 .venv/bin/python benchmarks/cli_speed.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table

GAMES = {"drshark": ["Ann", "Ben", "Cy", "Dee"], "shark": ["Ann", "Ben", "Cy", "Dee"],
         "poodivers": ["Ann", "Ben", "Cy", "Dee"], "shoal": ["Ann", "Ben", "Cy", "Dee"]}
LENGTH = 200


def pick(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    """An action built from one ``legal`` entry: a choice for each of its fields."""
    entry = rnd.choice(legal)
    action: dict[str, Any] = {"type": entry["type"]}
    for key, values in (entry.get("choices") or {}).items():
        values = list(values)
        if values:
            action[key] = rnd.choice(values)
    return action


def record(table: Table, game: str, seed: int) -> dict[str, Any]:
    """A game of up to :data:`LENGTH` accepted actions: a pick that ends the game sooner
    is taken back (fewer only when every way on ends it, as Shoal's 40 cards do)."""
    rnd = random.Random(seed)
    session = table.create(game, GAMES[game], {}, seed=seed)
    tries = 0
    while session.seq < LENGTH and tries < 1500:
        tries += 1
        legal = [o.to_json() for o in session.game.legal(session.state)]
        if not legal:
            break
        try:
            session = table.play(session.id, pick(legal, rnd))
        except IllegalAction:
            continue
        if session.game.is_over(session.state) and session.seq < LENGTH:
            table.undo(session.id)       # not yet: pick another way on
    return session.record()


def longest(table: Table, game: str) -> dict[str, Any]:
    """The longest of a few seeded games, so each game's record is as close to 200
    actions as its rules allow."""
    best: dict[str, Any] = {"actions": []}
    for seed in range(1, 4):
        rec = record(table, game, seed)
        if len(rec["actions"]) > len(best["actions"]):
            best = rec
        if len(best["actions"]) >= LENGTH:
            break
    return best


def timed(argv: list[str], runs: int) -> dict[str, float]:
    """Wall time, and the CPU time the process used (user + system: what a busy machine
    does not inflate)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, check=True, capture_output=True, env=env)   # bytecode cached
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"cpu_median_s": round(statistics.median(cpus), 3),
            "cpu_worst_s": round(max(cpus), 3),
            "wall_median_s": round(statistics.median(walls), 3),
            "wall_best_s": round(min(walls), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    companion = str(Path(sys.executable).with_name("companion"))
    out: dict[str, Any] = {"python": sys.version.split()[0], "machine": platform.machine(),
                           "cpus": os.cpu_count(), "runs": args.runs,
                           "load_before": round(os.getloadavg()[0], 1)}
    out["--version"] = timed([companion, "--version"], args.runs)
    out["--help"] = timed([companion, "--help"], args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        table = Table(Store(Path(tmp) / "bench.db"))
        for game in GAMES:
            rec = longest(table, game)
            path = Path(tmp) / f"{game}.json"
            path.write_text(json.dumps(rec), "utf-8")
            out[f"replay {game}"] = {"actions": len(rec["actions"]),
                                     **timed([companion, "replay", str(path)], args.runs)}
    out["load_after"] = round(os.getloadavg()[0], 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
