"""A Tokyo Poo Divers card's rim: the band just inside its edge (:data:`RIM_MM`), bowed,
which does not reflect a lamp that covers the rest of the card, and so still shows the
colour of the card's face there (a closed back's red, a sleeper's blue, a blank's white)
when its print does not.

The rim's colour is compared with the rims of the photo's clear cards of each face and
with the faces file's pictures' rims, brought into the photo by the gain per channel
that its clear cards show over their pictures (:func:`rim_distances`); a veil only adds
light, so a rim is compared as any share of a rim plus any veil (:func:`veil_residual`).
The rim speaks for a card as much as the reflection hides its print (:func:`weigh`):
the light its window carries beyond its rim, more than its face's pictures and the
photo's clear cards show (:func:`reflected`); a veil over a whole card, rim and all,
hides nothing the rim could tell (an object drawn on the back's colour under a veil
keeps its print's word). Where the reflection spreads over the cards around it, or the
clear cards around it show a veil, the print says as much less as the reflection hides
of it (:func:`shared`). Nothing here is a constant of a photo: the rim's noise is how
far the photo's clear cards' rims lie from their own faces' pictures; the rim of an
object not in the faces file may lie further off by as much as the file's objects' rims
lie apart.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from vision import images, templates
from vision.decks import Faces

RIM_MM = (0.5, 2.0)
"""The rim: from half a millimetre inside a card's edge (the edge itself blurs into the
mat) to two (beyond, a lamp's reflection reaches)."""


@cache
def _band(size: tuple[int, int], px_per_mm: float) -> np.ndarray:
    """The rim of a card of ``size`` (w, h px) as a mask."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w]
    d = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys)) / px_per_mm
    out: np.ndarray = (d >= RIM_MM[0]) & (d < RIM_MM[1])
    return out


def picture_rims(faces: Faces, px_per_mm: float) -> np.ndarray:
    """Each picture's rim colour (N x 3, paper white 1, in the order of
    :func:`vision.templates.poo_templates`), cached on disk as the templates are."""
    size = (round(faces.card_mm[0] * px_per_mm), round(faces.card_mm[1] * px_per_mm))
    paths = [p for ps in faces.faces.values() for p in ps]

    def build() -> templates.Arrays:
        band = _band(size, px_per_mm)
        rims = [cv2.resize(images.load(p), size, interpolation=cv2.INTER_AREA)[band].mean(0)
                / 255 for p in paths]
        return {"rims": np.array(rims, np.float64).reshape(-1, 3)}

    name = f"rims-{px_per_mm:g}-{RIM_MM[0]:g}-{RIM_MM[1]:g}"
    return templates.stored(name, templates.key("rims", faces.path, paths), build)[0]["rims"]


def card_rims(photo: np.ndarray, low: np.ndarray, flat: np.ndarray, clipped: np.ndarray,
              corners_px: np.ndarray, size: tuple[int, int], px_per_mm: float
              ) -> np.ndarray:
    """Each card's rim colour (K x 3, paper white 1; NaN when too little of it shows)
    in ``photo`` (the rectified photo's values) turned into paper whites as ``low`` (it
    reduced by a whole factor) is into ``flat`` (the light is smooth over a card), top
    left ``corners_px`` (K x 2), leaving out what is clipped (``clipped``, bool)."""
    by, bx = (v[::2] for v in np.nonzero(_band(size, px_per_mm)))  # every other: enough
    w, h = size
    step = photo.shape[0] // low.shape[0]
    at = np.round(corners_px).astype(int)
    inside = ((at >= 0).all(1) & (at[:, 0] + w <= photo.shape[1])
              & (at[:, 1] + h <= photo.shape[0]))
    out = np.full((len(corners_px), 3), np.nan)
    if not inside.any():
        return out
    ys, xs = at[inside, 1:2] + by[None, :], at[inside, 0:1] + bx[None, :]   # K x B
    where = ys * photo.shape[1] + xs
    seen = np.take(clipped.reshape(-1), where) == 0
    small = (np.minimum(ys // step, low.shape[0] - 1) * low.shape[1]
             + np.minimum(xs // step, low.shape[1] - 1))
    gain = np.take(flat.reshape(-1, 3), small, 0) / (np.take(low.reshape(-1, 3), small, 0)
                                                     + np.float32(1.0))
    values = (np.take(photo.reshape(-1, 3), where, 0) + np.float32(1.0)) * gain
    count = seen.sum(1)
    means = (values * seen[..., None]).sum(1) / np.maximum(count, 1)[:, None]
    out[np.flatnonzero(inside)] = np.where((count >= len(by) / 4)[:, None], means, np.nan)
    return out


def veil_residual(rims: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """How far each rim (K x 3) lies from each of ``shown`` (M x 3) once any share of it
    and any veil (the same light added to every channel: never taken away) are allowed
    for (K x M): the least-squares fit of ``rim = a * shown + b``, a and b at least 0."""
    r = rims[:, None, :]
    q = shown[None, :, :]
    qc = q - q.mean(-1, keepdims=True)
    rc = r - r.mean(-1, keepdims=True)
    a = np.maximum((rc * qc).sum(-1) / np.maximum((qc * qc).sum(-1), 1e-12), 0.0)
    b = (r - a[..., None] * q).mean(-1)
    free = ((rc - a[..., None] * qc) ** 2).sum(-1)
    # no veil (b < 0 would take light away): the share alone, or nothing but a veil
    a0 = np.maximum((r * q).sum(-1) / np.maximum((q * q).sum(-1), 1e-12), 0.0)
    dark = ((r - a0[..., None] * q) ** 2).sum(-1)
    grey = (rc ** 2).sum(-1)
    out: np.ndarray = np.sqrt(np.where(b >= 0, free, np.minimum(dark, grey)))
    return out


def rim_distances(rims: np.ndarray, read: np.ndarray, pictures: np.ndarray,
                  labels: tuple[str, ...], faces: tuple[str, ...], which: np.ndarray
                  ) -> tuple[np.ndarray, float, float] | None:
    """Each card's rim distance (K x F; only the cards ``which``, the rest infinite) to
    each face of ``faces``: the least of
    :func:`veil_residual` to the rims of the photo's clear cards of that face (``read``:
    K, the face's index, -1 for a card not clear; a card is not compared with itself)
    and to its pictures' rims (``pictures`` N x 3, labelled ``labels``) at the gain
    per channel the clear cards of the fixed faces (all but the last) show over their
    faces' pictures; and the rim's noise (how far those cards lie from their own
    faces' pictures, at least a paper white's 1/255); and how far apart the object
    pictures' rims lie (each from its nearest other's, the median: an object not in the
    faces file lies about as far from the nearest that is). ``None`` without three
    clear cards of fixed faces."""
    names = np.array(labels)
    own = np.array([pictures[names == f].mean(0) if (names == f).any() else np.full(3, np.nan)
                    for f in faces])
    fixed = (read >= 0) & (read < len(faces) - 1) & ~np.isnan(rims).any(1)
    fixed &= ~np.isnan(own[np.maximum(read, 0)]).any(1)
    if fixed.sum() < 3:
        return None
    seen, shown = rims[fixed], own[read[fixed]]
    gain = (seen * shown).sum(0) / np.maximum((shown * shown).sum(0), 1e-12)
    mapped = pictures * gain
    to_pictures = veil_residual(seen, mapped)
    faces_of = names[None, :] == np.array(faces)[read[fixed]][:, None]
    noise = max(float(np.median(np.where(faces_of, to_pictures, np.inf).min(1))), 1 / 255)
    out = np.full((len(rims), len(faces)), np.inf)
    known = ~np.isnan(rims).any(1)
    asked = np.flatnonzero(known & which)
    for i, face in enumerate(faces):
        mine = np.flatnonzero(known & (read == i))
        refs = np.concatenate([rims[mine], mapped[names == face]])
        if not len(refs) or not asked.size:
            continue
        d = veil_residual(rims[asked], refs)
        d[:, :len(mine)][asked[:, None] == mine[None, :]] = np.inf  # not its own
        out[asked, i] = d.min(1)
    drawn = mapped[names == faces[-1]]
    apart = veil_residual(drawn, drawn)
    np.fill_diagonal(apart, np.inf)
    spread = float(np.median(apart.min(1))) if len(drawn) > 1 else 0.0
    return out, noise, spread


def reflected(window: np.ndarray, rims: np.ndarray, rim: np.ndarray,
              pictures: templates.Templates, picture_rims: np.ndarray,
              faces: tuple[str, ...], clear: np.ndarray) -> np.ndarray:
    """The share (K, 0..1) of each card's light over its compared window (``window``,
    K x 3) that its rim (``rims``) does not show, beyond what the face its rim lies
    nearest (``rim``, K x F from :func:`rim_distances`) or any object picture shows
    there (an object drawn on a pale card in a dark frame is brighter inside) and beyond
    what the photo's ``clear`` cards (their print shows) show as a rule (their median:
    a clear card half under the lamp would set the bar for all): a lamp's reflection on
    the flat of the card, which the bowed rim does not catch; a veil over the whole
    card, rim and all, is none of it. Given as the share of a print's evidence it hides
    (the square of the print's share of the light, as :func:`vision.poo_veil.veiled`'s
    is counted for a card unlike every face)."""
    names = np.array(pictures.labels)
    steps = pictures.means.mean(1) - picture_rims.mean(1)
    step = np.array([steps[names == f].max() if (names == f).any() else 0.0
                     for f in faces[:-1]])
    objects = names == faces[-1]
    if objects.any():
        step = np.maximum(step, steps[objects].max())
    face = np.where(np.isfinite(rim[:, :-1]), rim[:, :-1], np.inf).argmin(1)
    bright = np.maximum(window.mean(1), 1e-3)
    share = np.nan_to_num(np.clip((bright - rims.mean(1) - step[face]) / bright, 0.0, 1.0))
    # beyond what the photo's clear cards (whose print shows) show as a rule
    if clear.any():
        floor = float(np.median(share[clear]))
        share = np.clip((share - floor) / (1.0 - floor + 1e-9), 0.0, 1.0)
    # what a print shows falls as the square of its share of the light
    out: np.ndarray = 1.0 - (1.0 - share) ** 2
    return out


def shared(hidden: np.ndarray, corners: np.ndarray, size: tuple[float, float],
           veil: np.ndarray) -> np.ndarray:
    """Of each card's ``hidden`` share (K, :func:`reflected`), as much as two of its
    neighbours (top-left ``corners`` K x 2, mm, within one and a half cards of ``size``
    of its own) show too, or as the ``veil`` the clear cards around it show (K,
    :func:`vision.poo_veil.veiled`): a lamp's reflection spreads over the cards around
    its brightest, while a drawing brighter inside its frame than any listed object's
    (an object not in the faces file) is the card's own and its print's word stands."""
    near = (np.abs(corners[:, None, :] - corners[None, :, :])
            <= 1.5 * np.asarray(size, float)).all(-1)
    np.fill_diagonal(near, False)
    theirs = np.where(near, hidden[None, :], 0.0)
    second = -np.partition(-theirs, 1, axis=1)[:, 1] if len(hidden) > 1 else 0.0 * hidden
    out: np.ndarray = np.minimum(hidden, np.maximum(second, veil))
    return out


def weigh(odds: np.ndarray, rim: np.ndarray, noise: float, spread: float,
          alone: np.ndarray, hidden: np.ndarray, common: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """The odds (K x F, the object last) of the cards read as objects by being unlike every
    face (``alone``) once their rims are weighed in, and the most each face may be sure of
    (K x F). The rim speaks for what the print does not show (``hidden``, K: the share of a
    print's evidence a reflection hides, :func:`reflected`): each face as likely as its
    rim's likelihood to that power; where the reflection reaches its neighbours too
    (``common``, K, :func:`shared`; none when not given), the print's odds count as much as
    it leaves of the print's evidence (to the power of one less ``common``). A rim distance
    (``rim``, K x F) is what is left of three channels once a share and a veil are fitted:
    one, whose likelihood is Cauchy's (a rim a little off its face says little; one far off
    says no more than the square of how far), its scale the rim's ``noise``; an object's is
    the likelier of that (a drawing in the faces file) and one as wide as the noise with the
    ``spread`` of the objects' rims added (a drawing not in the faces file has a rim of its
    own). A card whose rim lies nearer a fixed face than an object while its print says
    object has mixed evidence: the face is as sure as the less sure of the two between it
    and an object (the print's share is below even), the object as sure as the print says
    times the rim's likelihood ratio against it. Other cards are left as they are (``most``
    1)."""
    odds, most = odds.copy(), np.ones_like(odds)
    face = rim[:, :-1].argmin(1)
    at = rim[np.arange(len(rim)), face]
    k = np.flatnonzero(alone & np.isfinite(at) & (at < rim[:, -1]) & np.isfinite(rim[:, -1])
                       & (hidden > 0))
    if not k.size:
        return odds, most
    seen = rim[k]
    d2 = np.nan_to_num(seen) ** 2
    like = np.where(np.isfinite(seen), noise / (noise ** 2 + d2), 0.0)
    # an object's rim is a listed drawing's (as the fixed faces') or one of its own
    wide = np.hypot(noise, spread)
    like[:, -1] = np.maximum(like[:, -1], np.where(np.isfinite(seen[:, -1]),
                                                   wide / (wide ** 2 + d2[:, -1]), 0.0))
    f, i = face[k], np.arange(len(k))
    before = odds[k]
    if common is not None:  # a print the reflection hides says that much less
        before = before ** (1.0 - common[k, None])
        before /= before.sum(1, keepdims=True)
    w = before * like ** hidden[k, None]
    odds[k] = w / w.sum(1, keepdims=True)
    # each evidence's share between the face and an object: the print's and the rim's
    print_f = before[i, f] / np.maximum(before[i, f] + before[:, -1], 1e-300)
    ratio = (like[:, -1] / like[i, f]) ** hidden[k]
    most[k, f] = np.minimum(print_f, 1 / (1 + ratio))
    most[k, -1] = (1 - print_f) * ratio
    return odds, most
