"""Camera scoring accuracy and speed on synthetic 1600 x 1200 photos, on one core.

    python benchmarks/vision_accuracy.py --n 200 --seed 1 [--preset hard]

For each reader (Shoal: the shipped deck with generated card art; Tokyo Poo Divers: the
six named layouts in turn, half the open objects drawings missing from faces.json) it
photographs ``--n`` scenes through a preset of ``vision.synth`` (default ``table``: every
distortion at once, each drawn at random below its bound: tilt up to 25 degrees, any
rotation, distance, barrel distortion, uneven coloured light, glare, shadows, noise,
blur, JPEG and careless hands; ``hard`` pushes each to the issue's limits) and
prints one JSON object: per-cell error rate (cells read wrong, missed or made up, over
true cells), the share of photos read exactly, and milliseconds per photo (JPEG decode
plus reading; p50, p95). Scene rendering is not timed.
"""

# ruff: noqa: E402  (BLAS must be told "one thread" before numpy is imported)
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core, before numpy loads

import argparse
import json
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.poodivers.layout import named, rows_of
from companion.games.shoal.deck import load_deck
from vision import art, synth
from vision.decks import load_deck as vision_deck
from vision.decks import load_faces
from vision.errors import VisionError
from vision.mat import standard
from vision.poodivers import PooDiversReader
from vision.reading import Reading
from vision.shoal import ShoalReader


def errors(truth: dict[str, str], read: dict[str, str]) -> int:
    return sum(truth.get(k) != read.get(k) for k in set(truth) | set(read))


Case = tuple[synth.Scene, Callable[[np.ndarray], Reading]]


def run(case: Callable[[int], Case], n: int, seed: int) -> dict[str, Any]:
    """Photograph and read ``n`` scenes; ``case(seed)`` gives a scene and its reader."""
    wrong = cells = exact = failed = 0
    times = []
    for i in range(n):
        scene, read = case(seed * 100_000 + i)
        _, jpeg = cv2.imencode(".jpg", scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
        start = time.perf_counter()
        try:
            reading = read(cv2.imdecode(jpeg, cv2.IMREAD_COLOR))
            got = reading.cells
        except VisionError:
            got, failed = {}, failed + 1
        times.append((time.perf_counter() - start) * 1000)
        e = errors(scene.cells, got)
        wrong += e
        cells += len(scene.cells)
        exact += e == 0
    return {"photos": n, "cells": cells, "per_cell_error": round(wrong / cells, 5),
            "layouts_exact": round(exact / n, 4), "refused": failed,
            "ms_p50": round(float(np.percentile(times, 50)), 1),
            "ms_p95": round(float(np.percentile(times, 95)), 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--preset", choices=sorted(synth.PRESETS), default="table")
    args = p.parse_args()
    cv2.setNumThreads(1)
    spec = standard("A3")
    distortions = synth.PRESETS[args.preset]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("COMPANION_CACHE", str(Path(tmp) / "cache"))
        deck_json = load_deck("default").to_json()
        art.write_deck(Path(tmp) / "deck", deck_json)
        deck = vision_deck(Path(tmp) / "deck")
        shoal_reader = ShoalReader(deck, spec)
        faces = load_faces(art.write_faces(Path(tmp) / "faces"))
        images = {k: [cv2.imread(str(f)) for f in v] for k, v in faces.faces.items()}
        layouts = [rows_of(name) for name in sorted(named())]
        poo_readers = {rows: PooDiversReader(faces, spec, rows) for rows in layouts}

        out: dict[str, Any] = {
            "preset": args.preset, "seed": args.seed, "photo": list(synth.PHOTO_SIZE),
            "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
                       f"python {platform.python_version()}, opencv {cv2.__version__}, "
                       "1 thread",
        }
        def shoal_case(s: int) -> Case:
            return synth.shoal_scene(deck_json, spec, s, distortions), shoal_reader.read

        def poodivers_case(s: int) -> Case:
            rows = layouts[s % len(layouts)]
            return (synth.poodivers_scene(images, faces.card_mm, rows, spec, s, distortions),
                    poo_readers[rows].read)

        out["shoal"] = run(shoal_case, args.n, args.seed)
        out["poodivers"] = run(poodivers_case, args.n, args.seed)
    print(json.dumps(out))

if __name__ == "__main__":
    main()
