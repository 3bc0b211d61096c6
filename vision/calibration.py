"""What the supplied images themselves say about telling them apart: margins, confidence.

Nothing here is a constant of the project's own art. When a deck or a faces file is
loaded, its images are scored against each other (:func:`margins`):

- each template against its own image photographed a little worse (1 mm off, blurred
  1 mm more: :attr:`vision.templates.Templates.worn`): how far a true match lies at best;
- each template against the nearest template of another value: how far a wrong one is.

Two values whose images lie within :data:`ALIKE` times the worn distance cannot be told
apart in a photo (`companion doctor` and `capture-deck` say which). For Tokyo Poo Divers
the object margin (a card that is none of closed, blank, sleeper: an object, even one
not in faces.json) lies between the two: the geometric mean of the true-match distance
(the faces' worn distance or, worse, the photo's own) and the distance from the fixed
faces to the object images most like them.

**Confidence** (:func:`posterior`): in each photo, the best distances of its cells show
how far true matches lie in *that* photo (lighting, focus, JPEG), and all the others
how far wrong ones lie: a log-normal is fitted to each (median and spread, robustly;
the worn distance a floor; :func:`photo_density`). Each template is then the true one
with the weight ``f(d) / g(d)`` at its distance ``d`` (``f`` true, ``g`` wrong: the
likelihood ratio), and a cell's confidence is the weight of its value over all weights:
a cell whose second value lies where true matches lie is unsure. A cell partly hidden
(clipped pixels, left out of its distances) says that much less: its log weights are
scaled by the share of its samples seen (evidence adds up over samples, and the photo's
densities are those of cells seen whole), so a card the lamp washes out is asked about.
A Shoal cell read off a card also counts its card mates' matches, as a prior
(:func:`vision.peel.card_priors`).
``benchmarks/vision_accuracy.py`` checks that a cell at 0.9 is right about 9 times in 10.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from vision import matching
from vision.decks import Deck, Faces
from vision.matching import QUANTUM, distances, window
from vision.templates import NO_CARD, Templates, poo_templates, shoal_templates, stored

ALIKE = 1.5
"""Images of two values that differ by less than this many times what a photo alone does
to a card (the worn distance) are too alike."""
SPREAD_MIN = 0.25
"""Least spread (of the log distance) of true matches: no photo is read perfectly."""
UNSURE = 0.9
"""A cell read with less confidence is unsure: shown with its candidates to be checked."""


@dataclass(frozen=True)
class Margins:
    worn: float
    """Median distance of a template to its own worn image: a true match at best."""
    nearest: np.ndarray
    """N, each template's distance to the nearest template of another value."""
    alike: tuple[tuple[int, int, float], ...]
    """Pairs of templates (i, j, distance) of different values that are too alike."""


def cross(templates: Templates) -> np.ndarray:
    """Distance of every template to every other (N x N)."""
    ww, wh = window(templates.box_mm, templates.inset_mm)
    n = len(range(0, wh, matching.STEP)) * len(range(0, ww, matching.STEP))
    feats = templates.features
    return distances(feats.reshape(len(feats), n, 3), templates, QUANTUM)


def margins(templates: Templates, skip: frozenset[str] = frozenset()) -> Margins:
    """The margins of a template set; labels in ``skip`` are left out of "too alike".
    Worked out once per deck or faces file: cached with its templates (every template
    against every other, 2-5 ms of every command-line read of Shoal)."""
    if not templates.key:
        return _margins(templates, skip)

    def build() -> dict[str, np.ndarray]:
        found = _margins(templates, skip)
        return {"worn": np.array(found.worn), "nearest": found.nearest,
                "pairs": np.array([(i, j) for i, j, _ in found.alike], np.int64).reshape(-1, 2),
                "apart": np.array([d for _, _, d in found.alike], np.float64)}

    key = hashlib.sha256(f"{templates.key} {sorted(skip)}".encode()).hexdigest()[:24]
    data, _ = stored("margins", key, build)
    return Margins(float(data["worn"]), data["nearest"],
                   tuple((int(i), int(j), float(d))
                         for (i, j), d in zip(data["pairs"], data["apart"], strict=True)))


def _margins(templates: Templates, skip: frozenset[str]) -> Margins:
    labels = np.array(templates.labels)
    d = cross(templates)
    other = labels[:, None] != labels[None, :]
    nearest = np.where(other, d, np.inf).min(1)
    worn = float(np.median(templates.worn[[lab not in skip for lab in labels]]))
    limit = ALIKE * np.maximum(templates.worn[:, None], templates.worn[None, :])
    pairs = []
    for i, j in zip(*np.nonzero(np.triu(other & (d <= limit), 1)), strict=True):
        if labels[i] not in skip and labels[j] not in skip:
            pairs.append((int(i), int(j), float(d[i, j])))
    return Margins(worn, nearest, tuple(sorted(pairs, key=lambda p: p[2])))


Density = tuple[float, float, float, float]
"""Log-normals of one photo: (median's log, spread) of true matches, then of wrong ones."""


def _lognormal(values: np.ndarray, floor: float) -> tuple[float, float]:
    logs = np.log(np.maximum(values, 1e-6)).ravel()
    if logs.size < 4:
        return max(float(np.median(logs)) if logs.size else floor, floor), 1.0
    med = float(np.median(logs))
    spread = max(SPREAD_MIN, 1.4826 * float(np.median(np.abs(logs - med))))
    return max(med, floor), spread


def true_lognormal(best: np.ndarray, worn: float) -> tuple[float, float]:
    """Median's log and spread of true matches at ``best`` distances (the worn one a floor)."""
    return _lognormal(best, np.log(max(worn, 1e-6)))


def photo_density(dist: np.ndarray, worn: float) -> Density:
    """How far true and wrong matches lie in one photo, from its cells' distances
    (K x N): each cell's best is taken as true (most cells are read right), the worn
    distance a floor, and all the others as wrong."""
    if dist.size == 0:
        return np.log(max(worn, 1e-6)), 1.0, 0.0, 1.0
    best = dist.min(1)
    mu_t, s_t = true_lognormal(best, worn)
    wrong = np.sort(dist, 1)[:, 1:]
    mu_w, s_w = _lognormal(wrong[:, ::max(1, wrong.shape[1] // 32)], mu_t)
    return mu_t, s_t, mu_w, s_w


def log_weights(dist: np.ndarray, density: Density | np.ndarray) -> np.ndarray:
    """Log of how much likelier each distance is a true match's than a wrong one's
    (``density`` one for every row of ``dist``, or K x 4: each row its own)."""
    # one density, or one per row (K x 4): broadcast against the rows of dist
    each = np.asarray(density, float)
    mu_t, s_t, mu_w, s_w = (each[..., i:i + 1] if each.ndim == 2 else each[i]
                            for i in range(4))
    logs = np.log(np.maximum(dist, 1e-6))
    z_t = (logs - mu_t) / s_t
    z_w = (logs - mu_w) / s_w
    # closer than the true matches' median is as good as a true match gets; further than
    # the wrong ones' median is as bad as a wrong one gets
    out: np.ndarray = -0.5 * np.maximum(z_t, 0.0) ** 2 + 0.5 * np.minimum(z_w, 0.0) ** 2
    return out


def posterior(dist: np.ndarray, labels: tuple[str, ...], density: Density,
              extra: dict[str, float] | None = None, seen: float = 1.0,
              prior: np.ndarray | None = None) -> dict[str, float]:
    """Probability of each value of one cell (template distances ``dist``), largest
    first; ``extra`` adds values at a pseudo-distance (Tokyo Poo Divers' unseen objects);
    ``seen`` is the share of the cell's samples its distances were measured on (the
    rest clipped): its evidence counts that much; ``prior`` (one per template, summing
    to 1; even when ``None``) is what the cell's neighbours say before its own pixels."""
    names = list(labels) + list(extra or {})
    d = np.concatenate([dist, np.array(list((extra or {}).values()), float)])
    lw = log_weights(d, density) * seen
    if prior is not None:
        lw[:len(prior)] += np.log(np.maximum(prior, 1e-300))
    w = np.exp(lw - lw.max())
    out: dict[str, float] = {}
    for label, v in zip(names, w, strict=True):
        out[label] = out.get(label, 0.0) + float(v)
    total = sum(out.values())
    return {k: v / total for k, v in sorted(out.items(), key=lambda kv: -kv[1])}


POSITIONS = ("top-left", "top-right", "bottom-left", "bottom-right")


def alike_messages(deck: Deck | None = None, faces: Faces | None = None,
                   most: int = 5) -> list[str]:
    """What cannot be told apart in a deck's sections or a faces file's images, in words
    (empty when everything can)."""
    names: list[str] = []
    if deck is not None:
        templates = shoal_templates(deck)
        names = ["the bare mat"] + [f"card {c.id} {pos} ({value})"
                                    for c in deck.cards.values()
                                    for pos, value in zip(POSITIONS,
                                                          (v for r in c.sections for v in r),
                                                          strict=True)]
        found = margins(templates, frozenset({NO_CARD}))
        what = "sections"
    elif faces is not None:
        templates = poo_templates(faces)
        names = [f"{face} ({p.name})" for face, paths in faces.faces.items() for p in paths]
        # objects need not be told from each other, only from the other faces
        found = margins(templates)
        what = "faces"
    else:
        return []
    pairs = [(i, j, d) for i, j, d in found.alike
             if deck is not None or "object" not in (templates.labels[i], templates.labels[j])
             or templates.labels[i] != templates.labels[j]]
    out = [f"{what} {names[i]} and {names[j]} look too alike to tell apart in a photo "
           f"(they differ by {d:.2f}; a photo alone changes a card by about "
           f"{max(float(templates.worn[i]), float(templates.worn[j])):.2f}): "
           "expect them to be confused, or use other images" for i, j, d in pairs[:most]]
    if len(pairs) > most:
        out.append(f"... and {len(pairs) - most} more pairs of {what} as alike")
    return out
