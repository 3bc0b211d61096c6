"""Templates: the deck's sections and the faces' cards as :mod:`vision.matching`
compares them, built from straight-on card images.

Templates, and what else is worked out from them once per deck or faces file (the whole
cards, :func:`vision.calibration.margins`), are cached on disk (``$COMPANION_CACHE``,
else ``$XDG_CACHE_HOME/companion``, else ``~/.cache/companion``) under a key made of the
JSON file, the images' names, sizes and modification times, the source of the modules
that compute them (:data:`CODE`) and the numpy and OpenCV versions: change the deck, or
how it is worked out, and they are rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from vision import closer, images
from vision.decks import Deck, Faces, missing_images
from vision.errors import VisionError
from vision.matching import (
    BLUR_MM,
    FEATURE_PX_PER_MM,
    QUANTUM,
    STEP,
    distances,
    local_contrast,
    plane_basis,
    sample,
    window,
)
from vision.planes import deplane

CODE = ("templates", "matching", "blas", "images", "calibration", "closer", "poo_rim")
"""The modules (of this package) whose arithmetic the cache holds: any change to their
source builds it anew, as a new numpy or OpenCV does."""

WORN_MM = 0.5
"""How far off a cell still is after the fine shifts (at most 0.5 mm each way)."""

NO_CARD = "no-card"
"""The bare mat: nothing but the mat's own colour, no pattern (a zero template)."""


@dataclass(frozen=True)
class Templates:
    labels: tuple[str, ...]
    features: np.ndarray
    """N x D float32, one row per template, plane removed per channel (paper white 1)."""
    box_mm: tuple[float, float]
    """Size of the box a feature describes (a section, a card)."""
    inset_mm: float
    worn: np.ndarray
    """N, each template's distance to its own image photographed a little worse
    (:data:`WORN_MM` off and blurred 1 mm more): the least a true match's distance is."""
    means: np.ndarray
    """N x 3, each template's mean colour over its window (paper white 1)."""
    wear: float
    """Per-sample variance of what that does to a template (paper-white units squared):
    a pattern weaker than this is not told from what a photo does to a card."""
    cached: bool = False
    """True when read from the cache instead of built."""
    key: str = ""
    """The cache key of the files they were built from (what is worked out from them is
    cached under it too)."""

    @cached_property
    def unit(self) -> np.ndarray:
        """The features as unit vectors (N x D; the bare mat's zero template stays zero),
        made once. A template's whole norm divides: what glare hides of a cell counts
        against it, so a cell mostly clipped never correlates well by what little is
        left of it."""
        t = self.features
        out: np.ndarray = t / np.maximum(np.linalg.norm(t, axis=1), 1e-9)[:, None]
        return out


Feature = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A template's features, those of its worn image, and its mean colour."""


def _image_features(path: Path, box_mm: tuple[float, float], inset_mm: float,
                    split: tuple[int, int], contrast: bool = False) -> list[Feature]:
    """Features of each box of a straight-on card image split into cols x rows boxes, and
    of the same photographed a little worse (:data:`WORN_MM` off, blurred 1 mm more); with
    ``contrast``, of the images at their local contrast (:func:`local_contrast`). The mean
    colour is the image's own either way."""
    img = images.load(path)
    cols, rows = split
    size = (round(box_mm[0] * cols * FEATURE_PX_PER_MM),
            round(box_mm[1] * rows * FEATURE_PX_PER_MM))
    # a scan's full scale is paper white, as capture-deck writes it
    flat = cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    small = cv2.GaussianBlur(flat, (0, 0), BLUR_MM * FEATURE_PX_PER_MM,
                             borderType=cv2.BORDER_REPLICATE)
    off = np.array([[1, 0, -WORN_MM * FEATURE_PX_PER_MM], [0, 1, -WORN_MM * FEATURE_PX_PER_MM]],
                   np.float32)
    worse = cv2.GaussianBlur(cv2.warpAffine(small, off, size, borderMode=cv2.BORDER_REPLICATE),
                             (0, 0), BLUR_MM * FEATURE_PX_PER_MM, borderType=cv2.BORDER_REPLICATE)
    ww, wh = window(box_mm, inset_mm)
    q = plane_basis(ww, wh)
    seen, worse = (local_contrast(small), local_contrast(worse)) if contrast else (small, worse)
    out = []
    for r in range(rows):
        for c in range(cols):
            corner = np.array([[c * box_mm[0], r * box_mm[1]]])
            clean = sample(seen, corner, box_mm, inset_mm, (0,), outside=0.0)
            worn = sample(worse, corner, box_mm, inset_mm, (0,), outside=0.0)
            colour = sample(small, corner, box_mm, inset_mm, (0,), outside=0.0)
            out.append((deplane(clean, q).reshape(-1), deplane(worn, q).reshape(-1),
                        colour[0].mean(0)))
    return out


def _cache_dir() -> Path:
    if os.environ.get("COMPANION_CACHE"):
        return Path(os.environ["COMPANION_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "companion"


@cache
def _code() -> bytes:
    """A digest of :data:`CODE`'s source and of numpy's and OpenCV's versions."""
    h = hashlib.sha256(f"numpy {np.__version__} opencv {cv2.__version__}".encode())
    for name in CODE:
        h.update(Path(__file__).with_name(f"{name}.py").read_bytes())
    return h.digest()


def key(kind: str, file: Path, images: list[Path]) -> str:
    """The cache key of what is worked out of ``file`` and its ``images`` by :data:`CODE`."""
    h = hashlib.sha256(kind.encode())
    h.update(_code())
    h.update(file.read_bytes())
    for p in images:
        st = p.stat()
        h.update(f"{p.name} {st.st_size} {st.st_mtime_ns}".encode())
    return h.hexdigest()[:24]


Arrays = dict[str, np.ndarray]


def stored(name: str, key: str, build: Callable[[], Arrays]) -> tuple[Arrays, bool]:
    """The arrays cached as ``name`` under ``key`` and True; else ``build()``'s, written
    for next time, and False. A cache file that cannot be read (cut short, say) is built
    anew; one that cannot be written only costs the build next time. Each process writes
    a file of its own and renames it into place, so two building at once never mix."""
    path = _cache_dir() / "vision" / f"{name}-{key}.npz"
    try:
        with np.load(path) as data:
            return {k: data[k] for k in data.files}, True
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        pass
    arrays = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, **cast("dict[str, Any]", arrays))
        tmp.replace(path)
    except OSError:
        pass
    return arrays, False


Builder = Callable[[], tuple[list[str], list[Feature]]]


def _wear(features: np.ndarray, worse: np.ndarray) -> float:
    """See :attr:`Templates.wear`: the median over templates."""
    change = ((features - worse) ** 2).mean(1)
    return float(np.median(change[(features != 0).any(1)])) if len(change) else 0.0


def _worn(features: np.ndarray, worse: np.ndarray, box_mm: tuple[float, float],
          inset_mm: float) -> np.ndarray:
    """Each template's distance to its worse photograph (see :attr:`Templates.worn`)."""
    tmp = Templates((), features, box_mm, inset_mm, np.zeros(len(features)),
                    np.zeros((len(features), 3)), _wear(features, worse))
    ww, wh = window(box_mm, inset_mm)
    n = len(range(0, wh, STEP)) * len(range(0, ww, STEP))
    d = distances(worse.reshape(len(worse), n, 3), tmp, QUANTUM)
    out: np.ndarray = np.diag(d).astype(np.float32)
    return out


def _cached(kind: str, file: Path, images: list[Path], box_mm: tuple[float, float],
            inset_mm: float, build: Builder) -> Templates:
    def arrays() -> Arrays:
        labels, feats = build()
        features = np.stack([f for f, _, _ in feats]).astype(np.float32)
        worse = np.stack([w for _, w, _ in feats]).astype(np.float32)
        return {"labels": np.array(labels), "features": features,
                "worn": _worn(features, worse, box_mm, inset_mm),
                "means": np.stack([m for _, _, m in feats]).astype(np.float32),
                "wear": np.array(_wear(features, worse))}

    files = key(kind, file, images)
    data, cached = stored(kind, files, arrays)
    return Templates(tuple(str(s) for s in data["labels"]), data["features"], box_mm,
                     inset_mm, data["worn"], data["means"], float(data["wear"]), cached, files)


SECTION_INSETS_MM = (WORN_MM + BLUR_MM, 3.0)
"""How far in from a section's edges its window starts, searched like its shift: close to
the edges (what is left of a card's misplacement after the fine shifts, and the blur),
where a card's own edge and frame show, and plain sections have a pattern at all; and
further in, clear of the edge and shadow of a bowed or askew card next to it."""
CARD_INSET_MM = 2.5


def shoal_templates(deck: Deck, inset_mm: float = SECTION_INSETS_MM[0],
                    contrast: bool = False) -> Templates:
    """One template per section of every card image, after the bare mat (``no-card``),
    leaving ``inset_mm`` of each section's edges out; with ``contrast``, at the images'
    local contrast (:func:`vision.matching.local_contrast`), as the Shoal reader compares
    cells (the mean colours stay the images')."""
    missing = missing_images(deck)
    where = deck.source or "the deck"
    if missing:
        raise VisionError(f"the deck {where} has no image for card {missing[0]} "
                          f"({len(missing)} cards without one): photograph the cards with "
                          "`companion vision capture-deck` or add straight-on scans")
    cards = list(deck.cards.values())
    images = [c.image for c in cards if c.image is not None]
    box = deck.section_mm

    def build() -> tuple[list[str], list[Feature]]:
        zero = np.zeros(_feature_len(box, inset_mm), np.float32)
        labels, feats = [NO_CARD], [(zero, zero, np.full(3, np.nan, np.float32))]
        for card in cards:
            assert card.image is not None
            for value, f in zip((v for row in card.sections for v in row),
                                _image_features(card.image, box, inset_mm, (2, 2), contrast),
                                strict=True):
                labels.append(value)
                feats.append(f)
        return labels, feats

    deck_file = deck.source or Path("deck.json")
    kind = f"shoal-{'contrast-' if contrast else ''}{inset_mm:g}"
    return _cached(kind, deck_file, images, box, inset_mm, build)


def sharp_sections(deck: Deck, inset_mm: float) -> np.ndarray:
    """Every section of every card image as :func:`vision.closer.closer_best` compares
    them: at :data:`vision.closer.PX_PER_MM`, blurred :data:`vision.closer.SHARP_BLUR_MM`,
    ``inset_mm`` in from the section's edges, each channel's plane removed, unit vectors
    (4N x D, in the order of :func:`shoal_templates` without the bare mat); cached as
    they are."""
    cards = list(deck.cards.values())
    images_ = [c.image for c in cards if c.image is not None]
    deck_file = deck.source or Path("deck.json")
    sw, sh = deck.section_mm
    wh, ww = closer.window_size((sw, sh), inset_mm)
    s = closer.PX_PER_MM

    def build() -> Arrays:
        windows = []
        for p in images_:
            card = cv2.resize(images.load(p), (round(2 * sw * s), round(2 * sh * s)),
                              interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
            img = cv2.GaussianBlur(card, (0, 0), closer.SHARP_BLUR_MM * s,
                                   borderType=cv2.BORDER_REPLICATE)
            for r in range(2):
                for c in range(2):
                    x, y = round((c * sw + inset_mm) * s), round((r * sh + inset_mm) * s)
                    windows.append(img[y:y + wh, x:x + ww])
        return {"sections": closer.unit_windows(np.stack(windows))}

    name = f"sharp-{inset_mm:g}-{s:g}"
    return stored(name, key("sharp", deck_file, images_), build)[0]["sections"]


def whole_cards(deck: Deck, px_per_mm: float, inset_mm: float) -> np.ndarray:
    """Every card picture of a deck whole, in grey, at ``px_per_mm``, less ``inset_mm``
    of each edge (N x h x w float32, 0..255), cached on disk as the templates are."""
    cards = list(deck.cards.values())
    images_ = [c.image for c in cards if c.image is not None]
    deck_file = deck.source or Path("deck.json")

    def build() -> Arrays:
        sw, sh = deck.section_mm
        size = (round(2 * sw * px_per_mm), round(2 * sh * px_per_mm))
        i = round(inset_mm * px_per_mm)
        return {"cards": np.stack([
            cv2.resize(cv2.cvtColor(images.load(p), cv2.COLOR_BGR2GRAY), size,
                       interpolation=cv2.INTER_AREA)[i:size[1] - i, i:size[0] - i]
            for p in images_]).astype(np.float32)}

    return stored(f"whole-{px_per_mm:g}-{inset_mm:g}", key("whole", deck_file, images_),
                  build)[0]["cards"]


def poo_templates(faces: Faces) -> Templates:
    """One template per face image, labelled closed, blank, sleeper or object."""
    images = [p for ps in faces.faces.values() for p in ps]
    box = faces.card_mm

    def build() -> tuple[list[str], list[Feature]]:
        labels, feats = [], []
        for face, paths in faces.faces.items():
            for p in paths:
                labels.append(face)
                feats.append(_image_features(p, box, CARD_INSET_MM, (1, 1))[0])
        return labels, feats

    return _cached("poodivers", faces.path, images, box, CARD_INSET_MM, build)


def _feature_len(box_mm: tuple[float, float], inset_mm: float) -> int:
    ww, wh = window(box_mm, inset_mm)
    return len(range(0, wh, STEP)) * len(range(0, ww, STEP)) * 3
