"""Photos the size a phone takes them: read decoded whole and decoded as the companion does.

    nice -n 15 .venv/bin/python benchmarks/phone_photos.py --n 4 --seed 1

A phone sends a 12 Mpx JPEG (4032 x 3024). The companion decodes a photo larger than a
reader needs at a half, a quarter or an eighth of its size (:func:`vision.images.decode_photo`).
This renders ``--n`` synthetic scenes per style, tier and game of
:mod:`vision.synth_tables` with the virtual camera at 4032 x 3024, saves each as a JPEG
(quality 92), and reads every file twice with the readers the CLI and the dashboard use:
decoded whole, and decoded as the companion decodes it. Per game and way: per-cell
errors, silent and asked cells (as ``vision_accuracy.py`` counts them) and ms per read,
decode included (wall and this process's CPU, p50 and p95). Prints one JSON object.
"""

# ruff: noqa: E402  (BLAS must be told "one thread" before numpy is imported)
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2

from benchmarks.vision_accuracy import GAMES, TIERS, measure, synth_cases
from vision import images, synth, synth_camera
from vision.synth_tables import STYLES, write_table

PHONE = (4032, 3024)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=4, help="photos per style, tier and game")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--games", nargs="*", default=list(GAMES), choices=GAMES)
    args = p.parse_args()
    if args.n < 1:
        p.error("--n counts photos: give 1 or more")
    cv2.setNumThreads(1)
    # the virtual camera's frame (synth reads it when it photographs a scene)
    synth_camera.PHOTO_SIZE = synth.PHOTO_SIZE = PHONE
    out: dict[str, Any] = {
        "seed": args.seed, "n": args.n, "photo": list(PHONE),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, python "
                   f"{platform.python_version()}, opencv {cv2.__version__}, one thread "
                   "per read",
        "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("COMPANION_CACHE", str(Path(tmp) / "cache"))
        tables = [write_table(STYLES[name], Path(tmp) / name) for name in sorted(STYLES)]
        for game in args.games:
            cases = [(cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes(),
                      truth, read)
                     for table in tables for tier in TIERS
                     for photo, truth, read in synth_cases(table, tier, game, args.n,
                                                           args.seed)]
            out[game] = {}
            for way, decode in (("whole", images.decode),
                                ("as_the_companion", images.decode_photo)):
                got = measure(cases, decode=decode)
                out[game][way] = {k: v for k, v in got.items()
                                  if k not in ("ms", "cpu_ms", "calibration")}
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
