"""Camera reading accuracy and speed: every synthetic table style and tier, and the
physically based (Blender) set, read by the readers the CLI and the dashboard use.

    nice -n 15 .venv/bin/python benchmarks/vision_accuracy.py --n 8 --cli 8

For each style of :mod:`vision.synth_tables` (mat, paper, section size, card art, faces,
unseen objects) and each tier (easy, medium, hard) it photographs ``--n`` Shoal shoals and
``--n`` Tokyo Poo Divers layouts (the named layouts in turn, half the open objects missing
from faces.json), reads them in this process and counts per-cell errors (cells read
wrong, missed or made up, over true cells), exact layouts and refusals, with ms per read
(JPEG decode plus reading; p50, p95, as wall time and as this process's CPU time,
``cpu_ms_*``: the goal is in milliseconds of one core, and another program on the
machine slows the wall time only). The Blender set (``tests/vision/blender``) is read
the same way from its JPEG files as they are (not compressed again), and so are eleven
more (``benchmarks/blender-seed2`` to ``blender-seed12``) that no test reads;
``--blender`` reads others instead (any folder ``render_blender.py`` wrote), or none.
Then it times ``companion vision read`` of each game as a whole process (start-up, file
loading, reading, JSON out) on ``--cli`` photos, one process at a time and two at once,
as a person runs it (``CLI_UNSET``); ``--cli-only`` times only that.
It tallies how often cells are right at each confidence (``calibration``: a cell read at
0.9 should be right about 9 times in 10). ``--wrong-cells`` names every cell read wrong,
missed or made up, per group (``wrong_cells``), to look at. Prints one JSON object.
Scene rendering is not timed.
"""

# ruff: noqa: E402  (BLAS must be told "one thread" before numpy is imported)
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import itertools
import json
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.poodivers.layout import named, rows_of
from vision import images, mat, synth
from vision.decks import load_deck, load_faces
from vision.errors import VisionError
from vision.poodivers import PooDiversReader
from vision.reading import Reading
from vision.shoal import ShoalReader, moved
from vision.synth_tables import STYLES, TIERS, Table, write_table
from vision.templates import NO_CARD

BLENDER = Path(__file__).resolve().parents[1] / "tests" / "vision" / "blender"
BLENDER_SETS = {"blender": BLENDER,
                **{f"blender_seed{n}": Path(__file__).resolve().parent / f"blender-seed{n}"
                   for n in range(2, 13)}}
"""The committed physically based sets by the key the benchmark's JSON gives each: the
one the tests read, and ``benchmarks/blender-seed2`` to ``blender-seed12``
(``render_blender.py --seed N``), each rendered once and kept from the changes of the
session it was rendered in but for reads before and after them (``docs/vision.md``
says which session and how; the Shoal photos of sets 1-11 were rendered again on 7
December with the cards resting on each other, and set 12 was rendered then, its Tokyo
Poo Divers cards resting on the mat as well)."""
LAYOUTS = sorted(named())
GAMES = ("shoal", "poodivers")
Read = Callable[[np.ndarray], Reading]


def errors(truth: dict[str, str], read: dict[str, str]) -> int:
    return sum(truth.get(k) != read.get(k) for k in set(truth) | set(read))


def as_placed(truth: dict[str, str], read: dict[str, str]) -> tuple[int, int]:
    """The shift (up to 2 cells) of a Shoal reading's names that matches the truth best.

    Both name cells from the shoal's own top-left ("0,0" is its smallest x and y), and
    its score does not depend on where it lies: a row lost along the top would rename
    every other cell, and count them all wrong, while only the lost row's cells are."""
    def wrong(d: tuple[int, int]) -> tuple[int, int]:
        names = moved(read, *d)
        return errors(truth, {names[k]: v for k, v in read.items()}), abs(d[0]) + abs(d[1])

    return min(((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3)), key=wrong)


def _stats(times: list[float], prefix: str = "ms") -> dict[str, float]:
    return {f"{prefix}_p50": round(float(np.percentile(times, 50)), 1),
            f"{prefix}_p95": round(float(np.percentile(times, 95)), 1),
            f"{prefix}_max": round(max(times), 1)}


BINS = (0.0, 0.5, 0.9, 0.99, 1.01)
"""Confidence bins of the calibration tally: a cell read at 0.9 should be right about
9 times in 10."""


def calibration(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per confidence bin: cells read there and the share of them read right."""
    out = []
    for k, (lo, hi) in enumerate(itertools.pairwise(BINS)):
        n = sum(p["calibration"][k][0] for p in parts)
        right = sum(p["calibration"][k][1] for p in parts)
        out.append({"confidence": f"{lo:g}-{min(hi, 1.0):g}", "cells": n,
                    "right": round(right / n, 3) if n else None})
    return out


def measure(cases: Iterable[tuple[np.ndarray | bytes, dict[str, str], Read]],
            cells: bool = False,
            decode: Callable[[bytes, str], np.ndarray] = images.decode_photo
            ) -> dict[str, Any]:
    """Read each (photo, truth, reader) from a JPEG as a phone sends it (a photo given as
    its file's bytes is read from those), decoded by ``decode`` (as the companion decodes
    a photo, unless given). ``silent``: the
    cells read wrong, missed or made up that the reading does not list as unsure (a
    player is not asked about them); ``unwarned``: those of them that it does not name
    as hidden by glare either (the players are told to take the photo again:
    ``retakes`` counts the photos that say so); ``asked``: the cells a player is asked
    about, right or wrong (read unsure, or doubtful); ``unoffered``: those of them whose
    true value is not among the candidates offered (the player picks it from every
    value, ``Reading.values``). A refused photo's cells count as wrong
    but neither silent nor unwarned: the refusal tells the players why and what to do.
    With ``cells``, ``wrong_cells`` names each: [photo (its place among the cases: a
    synthetic photo's scene is ``seed * 1000`` plus it, a Blender photo is that set's
    photo of the game in truth.json's order), cell, true value, value read (None: missed;
    "refused"), asked about, confidence]."""
    wrong = silent = unwarned = retakes = total = exact = refused = photos = asked = 0
    unoffered = 0
    times: list[float] = []
    cpu: list[float] = []
    bins = [[0, 0] for _ in BINS[1:]]
    named: list[list[Any]] = []
    for index, (photo, truth, read) in enumerate(cases):
        data = (photo if isinstance(photo, bytes) else
                cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes())
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            reading: Reading | None = read(decode(data, "the photo"))
        except VisionError:
            reading, refused = None, refused + 1
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        got: dict[str, str] = {}
        unsure: set[str] = set()
        hidden: set[str] = set()
        if reading is not None:
            shift = as_placed(truth, reading.cells) if reading.game == "shoal" else (0, 0)
            names = (moved([*reading.cells, *reading.doubtful, *reading.hidden], *shift)
                     if reading.game == "shoal" else {k: k for k in reading.cells})
            got = {names[k]: v for k, v in reading.cells.items()}
            unsure = {names[k] for k in reading.unsure()}
            hidden = {names[k] for k in reading.hidden}
            retakes += bool(hidden)
            asked += len(unsure)
            for entry in reading.to_json()["unsure"]:
                offered = {c["value"] for c in entry["candidates"]}
                unoffered += truth.get(names[entry["cell"]], NO_CARD) not in offered
            for cell, value in reading.cells.items():
                k = int(np.searchsorted(BINS, reading.confidence[cell], side="right")) - 1
                bins[min(k, len(bins) - 1)][0] += 1
                bins[min(k, len(bins) - 1)][1] += truth.get(names[cell]) == value
        bad = {k for k in set(truth) | set(got) if truth.get(k) != got.get(k)}
        wrong, total = wrong + len(bad), total + len(truth)
        if cells:
            sure = ({names[k]: round(v, 3) for k, v in reading.confidence.items()}
                    if reading is not None else {})
            named += [[index, k, truth.get(k), got.get(k) if reading is not None else "refused",
                       k in unsure, sure.get(k)] for k in sorted(bad)]
        if reading is not None:
            silent += len(bad - unsure)
            unwarned += len(bad - unsure - hidden)
        exact, photos = exact + (not bad), photos + 1
    return {"photos": photos, "cells": total, "wrong": wrong, "silent": silent,
            "unwarned": unwarned, "retakes": retakes, "asked": asked, "unoffered": unoffered,
            "per_cell_error": round(wrong / max(total, 1), 5), "layouts_exact": exact,
            "refused": refused, **_stats(times), **_stats(cpu, "cpu_ms"),
            "calibration": bins, "ms": times, "cpu_ms": cpu,
            **({"wrong_cells": named} if cells else {})}


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over several :func:`measure` results: times of every read together, and
    the worst group's p50 (``ms_p50_worst_group``: a group is a few photos, so it moves
    by tens of milliseconds from run to run)."""
    out = {k: sum(p[k] for p in parts) for k in ("photos", "cells", "wrong", "silent",
                                                 "unwarned", "retakes", "asked", "unoffered",
                                                 "layouts_exact", "refused")}
    out["per_cell_error"] = round(out["wrong"] / max(out["cells"], 1), 5)
    times = [t for p in parts for t in p["ms"]]
    cpu = [t for p in parts for t in p["cpu_ms"]]
    out.update(_stats(times), ms=times, ms_p50_worst_group=max(p["ms_p50"] for p in parts))
    out.update(_stats(cpu, "cpu_ms"), cpu_ms=cpu)
    out["calibration"] = [[sum(p["calibration"][k][i] for p in parts) for i in (0, 1)]
                          for k in range(len(BINS) - 1)]
    return out


def _without_times(value: Any) -> Any:
    """``value`` without the reads' times (``ms``, ``cpu_ms``), kept only to pool them."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k not in ("ms", "cpu_ms")}
    return value


def synth_cases(table: Table, tier: str, game: str, n: int, seed: int
                ) -> Iterable[tuple[np.ndarray, dict[str, str], Read]]:
    spec = mat.load(table.mat)
    if game == "shoal":
        reader = ShoalReader(load_deck(table.deck), spec)
        for i in range(n):
            scene = table.shoal(seed * 1000 + i, tier)
            yield scene.photo, scene.cells, reader.read
        return
    faces = load_faces(table.faces)
    readers: dict[str, PooDiversReader] = {}
    for i in range(n):
        layout = LAYOUTS[i % len(LAYOUTS)]
        if layout not in readers:
            readers[layout] = PooDiversReader(faces, spec, tuple(rows_of(layout)))
        scene = table.poodivers(seed * 1000 + i, tier, layout)
        yield scene.photo, scene.cells, readers[layout].read


def blender_key(folder: Path) -> str:
    """The JSON key of a physically based set: its committed name, else its folder's."""
    for key, known in BLENDER_SETS.items():
        if folder.resolve() == known.resolve():
            return key
    return "blender_" + folder.name.replace("-", "_").removeprefix("blender_")


def blender_cases(game: str, folder: Path = BLENDER
                  ) -> Iterable[tuple[bytes, dict[str, str], Read]]:
    """Each photo of the set for ``game`` as its file's bytes (the JPEG as rendered,
    read as the companion reads an upload: not decoded and compressed again), its truth
    and the reader of its table."""
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    for shot in truth["photos"]:
        if shot["game"] != game:
            continue
        table = folder / shot["table"]
        spec = mat.load(table / "mat.json")
        reader: Read = (ShoalReader(load_deck(table / "deck"), spec).read if game == "shoal"
                        else PooDiversReader(load_faces(table / "faces"), spec,
                                             tuple(rows_of(shot["layout"]))).read)
        yield (folder / shot["file"]).read_bytes(), shot["cells"], reader


CLI_UNSET = ("PYTHONDONTWRITEBYTECODE", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS")
"""Left out of the command line's environment, so that it runs as a person runs it on an
installed companion: bytecode cached (pip compiles it at install; the first, untimed run
writes it here), BLAS threads as the command sets them itself (this process sets them
for its own reads)."""


def _cli_run(args: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k not in CLI_UNSET}
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=env)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"companion vision read failed: {done.stderr.strip()}")
    return ms


def cli_timing(table: Table, folder: Path, k: int, games: Iterable[str]) -> dict[str, Any]:
    """``companion vision read`` of each game as a whole process, alone and two at once,
    on ``k`` medium photos each (Tokyo Poo Divers: the named layouts in turn)."""
    companion = str(Path(sys.executable).with_name("companion"))
    out: dict[str, Any] = {"photos": k}
    for game in games:
        jobs = []
        for i in range(k):
            photo = folder / f"cli-{game}-{i}.jpg"
            if game == "shoal":
                scene = table.shoal(90_000 + i, "medium")
                given = ["--deck", str(table.deck)]
            else:
                layout = LAYOUTS[i % len(LAYOUTS)]
                scene = table.poodivers(90_000 + i, "medium", layout)
                given = ["--faces", str(table.faces), "--layout", layout]
            cv2.imwrite(str(photo), scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
            jobs.append([companion, "vision", "read", game, str(photo), "--mat",
                         str(table.mat), "--json", *given])
        _cli_run(jobs[0])  # the template cache is built once per deck, as on a table
        alone = [_cli_run(j) for j in jobs]
        with ThreadPoolExecutor(2) as pool:
            pairs = list(pool.map(_cli_run, jobs + jobs))
        out[game] = {"one_at_a_time": _stats(alone), "two_at_once": _stats(pairs)}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=8,
                   help="photos per style, tier and game (0: the Blender sets alone)")
    p.add_argument("--cli", type=int, default=8, help="photos timed through the CLI")
    p.add_argument("--cli-only", action="store_true",
                   help="only time the CLI (on the off-white table): no accuracy")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--wrong-cells", action="store_true",
                   help="name every cell read wrong, missed or made up (wrong_cells)")
    p.add_argument("--styles", nargs="*", default=sorted(STYLES), choices=sorted(STYLES))
    p.add_argument("--games", nargs="*", default=list(GAMES), choices=GAMES)
    p.add_argument("--blender", nargs="*", type=Path, default=list(BLENDER_SETS.values()),
                   help="physically based sets to read (folders with truth.json); "
                        "the twelve committed ones unless given")
    args = p.parse_args()
    if args.n < 0 or args.cli < 0:
        p.error("--n and --cli count photos: give 0 or more")
    if args.cli_only and not args.cli:
        p.error("--cli-only times the CLI: give --cli 1 or more")
    for folder in args.blender:
        if not (folder / "truth.json").is_file():
            p.error(f"{folder} has no truth.json: give a folder that render_blender.py wrote")
    cv2.setNumThreads(1)
    out: dict[str, Any] = {
        "seed": args.seed, "n": args.n, "photo": list(synth.PHOTO_SIZE),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, python "
                   f"{platform.python_version()}, opencv {cv2.__version__}, one thread "
                   "per read",
        "load_before": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("COMPANION_CACHE", str(Path(tmp) / "cache"))
        if args.cli_only:
            name = "offwhite" if "offwhite" in args.styles else args.styles[0]
            table = write_table(STYLES[name], Path(tmp) / name)
            out["cli"] = {"style": name, **cli_timing(table, Path(tmp), args.cli, args.games)}
            out["load_after"] = os.getloadavg()[0]
            print(json.dumps(out))
            return
        tables = {name: write_table(STYLES[name], Path(tmp) / name)
                  for name in (args.styles if args.n else [])}
        by_tier: dict[str, dict[str, list[dict[str, Any]]]] = {}
        out["styles"] = {}
        for name, table in tables.items():
            out["styles"][name] = {"about": STYLES[name].about}
            for tier in TIERS:
                row = {game: measure(synth_cases(table, tier, game, args.n, args.seed),
                                     args.wrong_cells)
                       for game in args.games}
                out["styles"][name][tier] = row
                for game, result in row.items():
                    by_tier.setdefault(game, {}).setdefault(tier, []).append(result)
        out["tiers"] = {game: {tier: merge(parts) for tier, parts in tiers.items()}
                        for game, tiers in by_tier.items()}
        out["all_synthetic"] = {game: merge([r for parts in tiers.values() for r in parts])
                                for game, tiers in by_tier.items()}
        out["calibration"] = {game: calibration([r for parts in tiers.values() for r in parts])
                              for game, tiers in by_tier.items()}
        for folder in args.blender:
            key = blender_key(folder)
            out[key] = {game: measure(blender_cases(game, folder), args.wrong_cells)
                        for game in args.games}
            out[f"calibration_{key}"] = {game: calibration([r])
                                         for game, r in out[key].items()}
        if args.cli:
            name = "offwhite" if "offwhite" in args.styles else args.styles[0]
            table = tables.get(name) or write_table(STYLES[name], Path(tmp) / name)
            out["cli"] = {"style": table.style.name,
                          **cli_timing(table, Path(tmp), args.cli, args.games)}
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(_without_times(out)))


if __name__ == "__main__":
    main()
