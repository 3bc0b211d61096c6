"""Templates built from straight-on card images, and matching table cells against them.

A cell is compared in a light-free colour space (:mod:`vision.lighting`: the mat reads
1.0), blurred and sampled at 2 mm, a few millimetres inside its edges, at a few shifts
(cards lie a little off where they should). Its label is that of the closest template.

Templates are cached on disk (``$COMPANION_CACHE``, else ``$XDG_CACHE_HOME/companion``,
else ``~/.cache/companion``) under a key made of the JSON file, the images' names, sizes
and modification times and :data:`VERSION`: change the deck and they are rebuilt.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import images
from vision.decks import Deck, Faces, missing_images
from vision.errors import VisionError
from vision.lighting import GLARE
from vision.mat import MAT_GREY

VERSION = 3
"""Bump when features change, so old caches are not used."""

FEATURE_PX_PER_MM = 1.0
BLUR_MM = 1.0
STEP = 2
"""Sample every STEP pixels of the 1 px/mm image."""
SHIFTS_MM = (-4, -2, 0, 2, 4)

NO_CARD = "no-card"


@dataclass(frozen=True)
class Templates:
    labels: tuple[str, ...]
    features: np.ndarray
    """N x D float32, one row per template."""
    box_mm: tuple[float, float]
    """Size of the box a feature describes (a section, a card)."""
    inset_mm: float
    cached: bool = False
    """True when read from the cache instead of built."""


def prepare(flat: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The flattened rectified mat at the feature resolution, blurred."""
    scale = FEATURE_PX_PER_MM / px_per_mm
    small = cv2.resize(flat, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), BLUR_MM * FEATURE_PX_PER_MM)


def _window(box_mm: tuple[float, float], inset_mm: float) -> tuple[int, int]:
    return (round((box_mm[0] - 2 * inset_mm) * FEATURE_PX_PER_MM),
            round((box_mm[1] - 2 * inset_mm) * FEATURE_PX_PER_MM))


def features_at(small: np.ndarray, x_mm: float, y_mm: float, box_mm: tuple[float, float],
                inset_mm: float, shifts: tuple[int, ...] = SHIFTS_MM,
                outside: float = 1.0) -> np.ndarray:
    """Features of the box with top-left (x_mm, y_mm), at every shift (S x D); off the
    image reads ``outside`` (1.0: the bare mat)."""
    ww, wh = _window(box_mm, inset_mm)
    h, w = small.shape[:2]
    x0 = round((x_mm + inset_mm) * FEATURE_PX_PER_MM)
    y0 = round((y_mm + inset_mm) * FEATURE_PX_PER_MM)
    out = []
    for dy in shifts:
        for dx in shifts:
            xa, ya = x0 + round(dx * FEATURE_PX_PER_MM), y0 + round(dy * FEATURE_PX_PER_MM)
            if xa < 0 or ya < 0 or xa + ww > w or ya + wh > h:
                patch = np.full((wh, ww, *small.shape[2:]), outside, np.float32)
                xs, ys = max(xa, 0), max(ya, 0)
                xe, ye = min(xa + ww, w), min(ya + wh, h)
                if xe > xs and ye > ys:
                    patch[ys - ya:ye - ya, xs - xa:xe - xa] = small[ys:ye, xs:xe]
            else:
                patch = small[ya:ya + wh, xa:xa + ww]
            out.append(patch[::STEP, ::STEP].reshape(-1))
    return np.stack(out).astype(np.float32)


def _image_features(path: Path, box_mm: tuple[float, float], inset_mm: float,
                    split: tuple[int, int]) -> list[np.ndarray]:
    """Features of each box of a straight-on card image split into cols x rows boxes."""
    img = images.load(path)
    cols, rows = split
    size = (round(box_mm[0] * cols * FEATURE_PX_PER_MM),
            round(box_mm[1] * rows * FEATURE_PX_PER_MM))
    flat = cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.float32) / MAT_GREY
    small = cv2.GaussianBlur(flat, (0, 0), BLUR_MM * FEATURE_PX_PER_MM,
                             borderType=cv2.BORDER_REPLICATE)
    return [features_at(small, c * box_mm[0], r * box_mm[1], box_mm, inset_mm, (0,))[0]
            for r in range(rows) for c in range(cols)]


def _cache_dir() -> Path:
    if os.environ.get("COMPANION_CACHE"):
        return Path(os.environ["COMPANION_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "companion"


def _key(kind: str, file: Path, images: list[Path]) -> str:
    h = hashlib.sha256(f"{kind} {VERSION}".encode())
    h.update(file.read_bytes())
    for p in images:
        st = p.stat()
        h.update(f"{p.name} {st.st_size} {st.st_mtime_ns}".encode())
    return h.hexdigest()[:24]


Builder = Callable[[], tuple[list[str], list[np.ndarray]]]


def _cached(kind: str, file: Path, images: list[Path], box_mm: tuple[float, float],
            inset_mm: float, build: Builder) -> Templates:
    path = _cache_dir() / "vision" / f"{kind}-{_key(kind, file, images)}.npz"
    try:
        with np.load(path) as data:
            return Templates(tuple(str(s) for s in data["labels"]), data["features"],
                             box_mm, inset_mm, cached=True)
    except (OSError, KeyError, ValueError):
        pass
    labels, feats = build()
    templates = Templates(tuple(labels), np.stack(feats).astype(np.float32), box_mm, inset_mm)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, labels=np.array(labels), features=templates.features)
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache only costs the rebuild next time
    return templates


SECTION_INSET_MM = 3.0
CARD_INSET_MM = 2.5


def shoal_templates(deck: Deck) -> Templates:
    """One template per section of every card image, plus the bare mat (``no-card``)."""
    missing = missing_images(deck)
    where = deck.source or "the deck"
    if missing:
        raise VisionError(f"the deck {where} has no image for card {missing[0]} "
                          f"({len(missing)} cards without one): photograph the cards with "
                          "`companion vision capture-deck` or add straight-on scans")
    cards = list(deck.cards.values())
    images = [c.image for c in cards if c.image is not None]
    box = deck.section_mm

    def build() -> tuple[list[str], list[np.ndarray]]:
        labels, feats = [NO_CARD], [np.ones(_feature_len(box, SECTION_INSET_MM), np.float32)]
        for card in cards:
            assert card.image is not None
            for value, f in zip((v for row in card.sections for v in row),
                                _image_features(card.image, box, SECTION_INSET_MM, (2, 2)),
                                strict=True):
                labels.append(value)
                feats.append(f)
        return labels, feats

    deck_file = deck.source or Path("deck.json")
    return _cached("shoal", deck_file, images, box, SECTION_INSET_MM, build)


def poo_templates(faces: Faces) -> Templates:
    """One template per face image, labelled closed, blank, sleeper or object."""
    images = [p for ps in faces.faces.values() for p in ps]
    box = faces.card_mm

    def build() -> tuple[list[str], list[np.ndarray]]:
        labels, feats = [], []
        for face, paths in faces.faces.items():
            for p in paths:
                labels.append(face)
                feats.append(_image_features(p, box, CARD_INSET_MM, (1, 1))[0])
        return labels, feats

    return _cached("poodivers", faces.path, images, box, CARD_INSET_MM, build)


def _feature_len(box_mm: tuple[float, float], inset_mm: float) -> int:
    ww, wh = _window(box_mm, inset_mm)
    return len(range(0, wh, STEP)) * len(range(0, ww, STEP)) * 3


GLARE_SHARE = 0.6
"""A feature pixel this much under the glare mask (lighting.flatten) is not compared."""

GAIN = (0.6, 1.6)
"""How much darker or brighter than its template a cell may look (shadows left over)."""


def glare_map(glare: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The glare mask (bool, rectified mat) at the feature resolution: the share of
    every feature pixel's neighbourhood that glare touches, blurred like the features."""
    return prepare(glare.astype(np.float32), px_per_mm)


def distances(patches: np.ndarray, templates: Templates,
              allowed: np.ndarray | None = None,
              glare: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean squared difference of every template to the cell at its best shift (N), and
    that shift's index; ``patches`` is S x D from :func:`features_at`.

    Each comparison may brighten or darken the cell a little (:data:`GAIN`), and ignores
    glare (pixels brighter than paper, and where ``glare``, S x D/3 from
    :func:`features_at` over :func:`glare_map`, is above :data:`GLARE_SHARE`)."""
    t = templates.features
    weight = (patches.reshape(len(patches), -1, 3).max(-1) < GLARE).astype(np.float32)
    if glare is not None:
        weight *= glare <= GLARE_SHARE
    weight[weight.mean(1) < 0.4] = 1.0  # mostly glare: compare what there is
    weight = np.repeat(weight, 3, axis=1)
    wp = weight * patches
    pp = (wp * patches).sum(1)[:, None]
    pt = wp @ t.T
    tt = weight @ (t * t).T
    gain = np.clip(pt / np.maximum(pp, 1e-6), *GAIN)
    d = (gain * gain * pp - 2 * gain * pt + tt) / np.maximum(weight.sum(1), 1.0)[:, None]
    if allowed is not None:
        d[:, ~allowed] = np.inf
    best = d.argmin(0)
    return d[best, np.arange(t.shape[0])], best


def decide(dist: np.ndarray, labels: tuple[str, ...]) -> tuple[str, float, float]:
    """Label of the closest template, a confidence in 0..1, and the best distance."""
    order = np.argsort(dist)
    best = labels[order[0]]
    d1 = float(dist[order[0]])
    d2 = next((float(dist[i]) for i in order[1:] if labels[i] != best), d1 * 4 + 1e-3)
    return best, (d2 - d1) / (d2 + d1 + 1e-9), d1
