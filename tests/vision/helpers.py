"""Helpers of the vision tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.poodivers.layout import rows_of
from vision import mat, matching, planes
from vision.decks import load_deck, load_faces
from vision.images import load
from vision.poodivers import PooDiversReader
from vision.reading import Reading
from vision.shoal import ShoalReader, moved
from vision.synth import Scene
from vision.synth_tables import Table
from vision.templates import Templates

Tables = Callable[[str], Table]
"""The ``user_table`` fixture: a synthetic user's table by style name."""


def read_as_sent(table: Table, seed: int, tier: str) -> tuple[Scene, Reading]:
    """A Shoal photo of ``table`` sent as a phone sends it (JPEG), and its reading."""
    scene = table.shoal(seed, tier)
    _, jpeg = cv2.imencode(".jpg", scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photo = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert photo is not None
    return scene, ShoalReader(load_deck(table.deck), mat.load(table.mat)).read(photo)


def read_grid(table: Table, layout: str, photo: np.ndarray) -> Reading:
    """A Tokyo Poo Divers photo of a synthetic table, read with that table's files."""
    return PooDiversReader(load_faces(table.faces), mat.load(table.mat),
                           tuple(rows_of(layout))).read(photo)


def misread(truth: dict[str, str], read: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each cell read otherwise than it is: cell -> (truth, read)."""
    return {c: (v, read.get(c, "")) for c, v in truth.items() if read.get(c) != v}


def wrong_cells(truth: dict[str, str], read: dict[str, str], shoal: bool = False
                ) -> tuple[set[str], tuple[int, int]]:
    """Cells read wrong, missed or made up (truth's names), and the shift (dx, dy) that
    moves the read names to the truth's: for a Shoal reading (``shoal``), the shift of up
    to 2 cells that matches the truth best, since both name cells from the shoal's own
    top-left and a row lost along the top would rename every other cell."""
    def bad(names: dict[str, str]) -> set[str]:
        got = {names[k]: v for k, v in read.items()}
        return {k for k in set(truth) | set(got) if truth.get(k) != got.get(k)}

    if not shoal:
        return bad({k: k for k in read}), (0, 0)
    shifts = [(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3)]
    best = min(shifts, key=lambda d: (len(bad(moved(read, *d))), abs(d[0]) + abs(d[1])))
    return bad(moved(read, *best)), best


def errors(truth: dict[str, str], read: dict[str, str], shoal: bool = False) -> int:
    """How many cells are read wrong, missed or made up (:func:`wrong_cells`)."""
    return len(wrong_cells(truth, read, shoal)[0])


def as_sent(photo: np.ndarray) -> np.ndarray:
    """The photo as the benchmark reads it: encoded again as a phone sends it (JPEG 92)."""
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    out = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert out is not None
    return out


def random_templates(rng: np.random.Generator, n: int, box_mm: tuple[float, float],
                     inset_mm: float) -> Templates:
    """``n`` templates of random samples, each with its plane removed, as the matching
    keeps them."""
    ww, wh = matching.window(box_mm, inset_mm)
    q = matching.plane_basis(ww, wh)
    raw = rng.random((n, q.shape[0], 3)).astype(np.float32)
    feats = planes.deplane(raw, q).reshape(n, -1)
    return Templates(tuple(f"t{i}" for i in range(n)), feats, box_mm, inset_mm,
                     np.zeros(n), np.zeros((n, 3)), 0.0)


BLENDER = Path(__file__).with_name("blender")
"""The committed physically based set (``benchmarks/render_blender.py``)."""


def blender_grid(name: str, folder: Path = BLENDER
                 ) -> tuple[dict[str, Any], PooDiversReader, np.ndarray]:
    """A Tokyo Poo Divers photo of a Blender set (``"photos/10.jpg"``; the committed
    set unless ``folder``): its truth, the reader of its table and layout, and the photo
    as the benchmark sends it."""
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    shot = next(s for s in truth["photos"] if s["file"] == name)
    table = folder / shot["table"]
    reader = PooDiversReader(load_faces(table / "faces"), mat.load(table / "mat.json"),
                             tuple(rows_of(shot["layout"])))
    return shot, reader, as_sent(load(folder / name))
