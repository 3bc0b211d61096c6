"""The odds of a Tokyo Poo Divers card's faces from its distances to the faces file's
pictures: how far a card must lie from the closed, blank and sleeper faces to be an
object (:func:`object_margin`, learned from the faces file and the photo, never written
in), each face counted once (:func:`faces_apart`), and the odds weighed against the
photo's own true matches, the clearer half of its cards by that half's
(:func:`graded`, :func:`likely`), and no face read more often than the deck holds
(:func:`within_deck`).
"""

from __future__ import annotations

import numpy as np

from companion.games.poodivers.rules import DECK
from vision import calibration, templates

FIXED = ("closed", "blank", "sleeper")
"""The faces every card shows one of, unless it shows an object."""


def object_margin(templates: templates.Templates, margins: calibration.Margins,
                  photo_true: float, spreads: tuple[float, float] = (1.0, 1.0),
                  cross: np.ndarray | None = None) -> float:
    """The distance beyond which a card is none of the fixed faces: an object. Where, in
    log distance, a true match and an object are as likely: between how far a true
    match lies (the faces' worn distance, or the photo's own when worse) and how near
    the object images come to the fixed faces (without object images: how near the
    fixed faces come to each other), each weighed by how widely the other spreads
    (``spreads``: the photo's true matches', its wrong ones'; alike, the geometric
    mean): a photo whose true matches spread widely moves the margin out. ``cross``:
    the pictures' distances to each other (:func:`vision.calibration.cross` unless
    given: :class:`vision.poo_glare.Spared` compares over less of a card)."""
    return float(object_margins(templates, margins, np.array([photo_true]), spreads,
                                cross)[0])


def object_margins(templates: templates.Templates, margins: calibration.Margins,
                   photo_true: np.ndarray, spreads: tuple[float, float] = (1.0, 1.0),
                   cross: np.ndarray | None = None) -> np.ndarray:
    """:func:`object_margin` of each card whose true match would lie at ``photo_true``
    (K): a veiled card's lies further than the photo's."""
    labels = np.array(templates.labels)
    fixed = np.isin(labels, FIXED)
    true = np.maximum(margins.worn, photo_true)
    d = calibration.cross(templates) if cross is None else cross
    if fixed.all():  # no object images: as unlike as the fixed faces are to each other
        apart = labels[:, None] != labels[None, :]
        near = np.maximum(float(d[apart].min()), true)
    else:
        near = np.maximum(float(d[np.ix_(fixed, ~fixed)].min()), true)
    s_true, s_wrong = spreads
    w = max(0.5, s_true / (s_true + s_wrong))
    out: np.ndarray = np.exp(np.log(true) * (1 - w) + np.log(near) * w)
    return out


def faces_apart(dist: np.ndarray, labels: tuple[str, ...], unlike: float | np.ndarray
                ) -> tuple[tuple[str, ...], np.ndarray]:
    """Each card's distance (K x 4) to each face: closed, blank and sleeper their nearest
    picture's, an object its nearest object picture's or, nearer, the object margin
    (like none of the fixed faces is an object, in faces.json or not). A face counts
    once, however many pictures it has."""
    names = np.array(labels)
    out = np.stack([dist[:, names == face].min(1) if (names == face).any()
                    else np.full(len(dist), np.inf) for face in (*FIXED, "object")], 1)
    out[:, -1] = np.minimum(out[:, -1], unlike)
    return (*FIXED, "object"), out


def unlike_every_face(dist: np.ndarray, nearest: np.ndarray, fixed: np.ndarray,
                      unlike: float | np.ndarray) -> np.ndarray:
    """The cards read as objects by being unlike every face (``nearest``, K x 4, from
    :func:`faces_apart`: the object margin nearest), not by an object picture nearer than
    the margin (``dist`` K x N, ``fixed`` N: the closed, blank and sleeper pictures)."""
    out: np.ndarray = nearest.argmin(1) == nearest.shape[1] - 1
    if not fixed.all():
        out &= dist[:, ~fixed].min(1) > unlike
    return out


def graded(best: np.ndarray, shows: np.ndarray, alone: np.ndarray,
           density: calibration.Density, worn: float) -> np.ndarray:
    """Each card's density (K x 4, as :func:`vision.calibration.photo_density`): the
    clearer half of the photo's cards (``shows``, K: the share of each card's light that
    is its print's and not clipped) have their true matches measured on that half alone
    (``best``, K: each card's best distance; less the cards read as objects by being
    unlike every face, ``alone``: no true match of a picture), the others the photo's,
    spread as widely as their own half's spread if wider. A veil spreads a photo's true
    matches, so a clear card's true match lies where the clear cards' lie, and a veiled
    card's as widely as the veiled cards' do (their own spread only widens the photo's:
    the most washed out are read as objects and left out of it). The wrong matches'
    stay the photo's."""
    out = np.tile(np.asarray(density, float), (len(best), 1))
    half = shows >= np.median(shows)
    clear, veiled = half & ~alone, ~half & ~alone
    if clear.sum() >= 8:  # a median and its spread want numbers
        out[half, :2] = calibration.true_lognormal(best[clear], worn)
    if veiled.sum() >= 8:
        out[~half, 1] = np.maximum(out[~half, 1],
                                   calibration.true_lognormal(best[veiled], worn)[1])
    return out


def likely(nearest: np.ndarray, density: calibration.Density | np.ndarray, seen: np.ndarray
           ) -> np.ndarray:
    """:func:`vision.calibration.posterior` of every card at once (K x 4, the faces
    counted once each by :func:`faces_apart`; ``seen`` K, the share of its evidence)."""
    lw = calibration.log_weights(nearest, density) * seen[:, None]
    w = np.exp(lw - lw.max(1, keepdims=True))
    out: np.ndarray = w / w.sum(1, keepdims=True)
    return out


def within_deck(order: np.ndarray, odds: np.ndarray, values: tuple[str, ...]) -> np.ndarray:
    """``order`` (K x 4, each card's faces, the one it is read as first) with no face read
    more often than the deck holds (:data:`companion.games.poodivers.rules.DECK`: 14
    blanks, 14 sleepers, 42 objects; the closed back any number). While a face is read
    too often, of its cards the one that gives up least by its odds (``odds``, K x 4, in
    ``values``' order) for the likeliest face that still has room is read as that face
    (put first in its order): one of them is wrong as read, and that one most likely.
    A layout that breaks the deck is a veil's (a lamp washes closed backs out to blanks),
    never the table's."""
    out = order.copy()
    limit = np.array([DECK.get(v, len(order)) for v in values])
    rows = np.arange(len(order))
    log = np.log(np.maximum(odds, 1e-12))
    while True:
        count = np.bincount(out[:, 0], minlength=len(values))
        over = np.flatnonzero(count > limit)
        if not over.size:
            return out
        face = int(over[0])
        room = count < limit
        given = np.where(room[None, :], log[rows, face][:, None] - log, np.inf)
        given[out[:, 0] != face] = np.inf
        k, to = np.unravel_index(int(given.argmin()), given.shape)  # closed always has room
        out[k] = [to, *(f for f in out[k] if f != to)]
