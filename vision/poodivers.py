"""Read a Tokyo Poo Divers layout from a photo: which cards are closed, blank, sleeper or
an object.

The layout (a named one or row strings) says which grid cells hold a card. The grid is
found from the cards' outlines, whatever the mat's colour (:mod:`vision.poo_grid`). Each
card is matched against the faces file's images (all cards at once, invariant to gain
and offset: :mod:`vision.matching`); a card that looks like none of the closed, blank or
sleeper faces is an object, so object drawings missing from faces.json are still read as
objects. How unlike is "none" is learned from the faces file itself and the photo
(:func:`object_margin`), never written in. A card's colour counts less the brighter it
is than a picture can be (a veil of glare, whose colour is not the light's:
:meth:`PooDiversReader._read`), and a card partly clipped by glare is read from what
shows and is that much less sure (:func:`vision.calibration.posterior`). A card is an
object by looking like none of the faces only once a glare halo on it is allowed for,
fitted together with each face 1 mm around the card's place, in the photo's values and
in linear light (:func:`halo_distances`): a blank beside a lamp's reflection is a blank,
a faint print under it its face; and only if it looks like none of them over its best
three quarters as well (:class:`Spared`: a glare spot, a shadow's edge or the mat beside
a card laid off its place spoils a corner). A card whose colour fits its face only at
more contrast than the photo's clearest cards show (:func:`bounded_misfit`: a brown card
as a blank's faint tint stretched fivefold) is not that face, unless clipped somewhere
(a clipped channel says only "at least this bright"); one that only the free fit calls
that face is asked about. A card under a veil (as the cards around it that match a
patterned picture show it, beyond what every card of the photo shows: :func:`veiled`)
says that much less, as a card partly clipped does; a card read as the plain face no
more than its brightness leaves of its print (:func:`plain_print`: a veil hides a
pattern, never makes one). The clearer half of a photo's cards is judged by that half's
own true matches, the veiled half at least as widely as its own spread (:func:`graded`).
A card torn between two fixed faces is sought again with
every picture at every 1 mm shift (:func:`everywhere`). Build a :class:`PooDiversReader`
once per faces file, mat and layout.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

from companion.grid import Cell
from vision import calibration, lighting, matching, poo_grid, templates
from vision.decks import Faces, load_faces
from vision.mat import PX_PER_MM, MatSpec, detect, mat_of
from vision.matching import FEATURE_PX_PER_MM
from vision.reading import Reading, timed

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
    given: :class:`Spared` compares over less of a card)."""
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


def card_colours(means: np.ndarray, pattern: np.ndarray, templates: templates.Templates,
                 unlike: float, noise: float) -> tuple[np.ndarray, float, float] | None:
    """The colour cast (3, gains of mean 1) left in the photo once its light is divided
    out, how far a card's colour strays from its picture's (per channel, paper-white
    units), and the most contrast a card shows (:func:`bounded_misfit`), as the cards
    told by their pattern alone show them (their nearest patterned picture by
    ``pattern``, the distances without colour, within the object margin): each has that
    picture's colour, darkened or brightened and veiled (``seen = a * cast * shown +
    b``, a and b its own); the cast fits them all best. ``None`` with fewer than three
    such cards."""
    patterned = (templates.features ** 2).mean(1) > 9 * noise ** 2 + templates.wear
    if not patterned.any():
        return None
    best = np.flatnonzero(patterned)[pattern[:, patterned].argmin(1)]
    sure = pattern[np.arange(len(pattern)), best] < unlike
    if sure.sum() < 3:
        return None
    seen, shown = means[sure].astype(np.float64), templates.means[best[sure]]
    cast = np.ones(3)
    for _ in range(6):  # each card's gain and veil, then the cast, in turn
        lit = shown * cast
        x = np.stack([lit, np.ones_like(lit)], -1)                 # K x 3 x 2
        ab = np.linalg.solve(np.einsum("kci,kcj->kij", x, x) + 1e-9 * np.eye(2),
                             np.einsum("kci,kc->ki", x, seen)[..., None])[..., 0]
        a, b = ab[:, :1], ab[:, 1:]
        cast = ((a * shown * (seen - b)).sum(0)
                / np.maximum(((a * shown) ** 2).sum(0), 1e-12))
        cast = cast / cast.mean()
    misfit = matching.colour_misfit(means[sure] / cast, templates, np.ones(3, np.float32))
    own = misfit[np.arange(int(sure.sum())), best[sure]]
    # a card's contrast: its gain over the gain that would leave it no veil (1 - b / seen)
    contrast = 1.0 - b[:, 0] / np.maximum(seen.mean(1), 1e-3)
    return cast, float(np.sqrt(np.median(own) / 3)), max(1.0, float(contrast.max()))


def bounded_misfit(means: np.ndarray, templates: templates.Templates, mat: np.ndarray,
                   contrast: float) -> np.ndarray:
    """:func:`vision.matching.colour_misfit` (``means`` K x 3, or K x N x 3: each card's
    colour where each picture matches) with the gain held to what light can do:
    never below 0, and never more than ``contrast`` times the gain that leaves no veil
    (a veil only adds light; more contrast than the photo's clearest cards show is none
    of the light's). Without the bound a near-white picture (a blank's faint tint) is
    stretched to any colour along its tint: a brown card would be a blank seen at five
    times its contrast under a veil of minus four paper whites."""
    t = np.where(np.isnan(templates.means), mat[None, :], templates.means).astype(np.float64)
    tc = t - t.mean(1, keepdims=True)
    seen = means.astype(np.float64)
    if seen.ndim == 2:
        seen = np.repeat(seen[:, None, :], len(t), 1)
    mc = seen - seen.mean(-1, keepdims=True)
    tt = (tc * tc).sum(1)[None, :]
    mt = np.einsum("knc,nc->kn", mc, tc)
    gain = mt / np.maximum(tt, 1e-12)
    most = contrast * seen.mean(-1) / np.maximum(t.mean(1)[None, :], 1e-3)
    gain = np.clip(gain, 0.0, most)
    out: np.ndarray = ((mc * mc).sum(-1) - 2 * gain * mt + gain * gain * tt)
    return np.maximum(out, 0.0)


def everywhere(small: np.ndarray, known: np.ndarray, corners: np.ndarray,
               templates: templates.Templates, noise: float, outside: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every card (top-left ``corners``, K x 2) against every picture at every 1 mm shift
    as far as :func:`vision.matching.match` reaches (its coarse shifts and the fine ones
    around them): each picture's pattern distance at its own best shift (K x N), that
    shift (K x N x 2 mm) and the card's mean colour there (K x N x 3). ``match`` seeks the
    fine shifts around the best picture's coarse shift only, so a faint pattern between
    two coarse shifts loses to a plain face that happened to lie nearer there."""
    box, inset = templates.box_mm, templates.inset_mm
    reach = max(matching.SHIFTS_MM) + max(matching.FINE_MM)
    steps = tuple(range(-reach, reach + 1))
    grid = np.array([(dx, dy) for dy in steps for dx in steps], float)
    samples = matching.sample(small, corners, box, inset, steps, outside=outside)
    seen = matching.sample(known, corners, box, inset, steps, outside=1.0) > 0.5
    weight = None if seen.all() else seen
    k, s, n = len(corners), len(grid), len(templates.labels)
    cube = matching.distances(samples, templates, noise, weight).reshape(k, s, n)
    best = cube.argmin(1)
    pattern = np.take_along_axis(cube, best[:, None, :], 1)[:, 0, :]
    means = matching.window_means(samples, weight, k)
    return pattern, grid[best], means[np.arange(k)[:, None], best]


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


class Spared:
    """The pictures compared over the best three quarters of a card (:meth:`distances`):
    for each quarter of the compared window, the pictures with their planes removed over
    the rest (zero on the quarter left out), made once per faces file."""

    def __init__(self, pictures: templates.Templates) -> None:
        ww, wh = matching.window(pictures.box_mm, pictures.inset_mm)
        ys, xs = np.mgrid[0:wh:matching.STEP, 0:ww:matching.STEP].astype(np.float64)
        xs, ys = xs.ravel(), ys.ravel()
        n = xs.size
        feats = pictures.features.reshape(len(pictures.features), n, 3).astype(np.float64)
        kept, bases, parts = [], [], []
        for right in (False, True):
            for low in (False, True):
                keep = ~(((xs > (ww - 1) / 2) == right) & ((ys > (wh - 1) / 2) == low))
                terms = np.stack([np.ones(n), xs - xs[keep].mean(), ys - ys[keep].mean()], 1)
                q = np.zeros((n, 3))
                q[keep] = np.linalg.qr(terms[keep])[0]
                t = feats - np.einsum("nk,mkc->mnc", q, np.einsum("nk,mnc->mkc", q, feats))
                parts.append((t * keep[None, :, None]).reshape(len(feats), -1))
                bases.append(np.kron(q, np.eye(3)))  # n*3 x 9: each channel's plane
                kept.append(np.repeat(keep, 3))
        self.parts = np.concatenate(parts).astype(np.float32)        # 4N x n*3
        self.squares = (np.concatenate(parts) ** 2).sum(1).reshape(4, -1)
        self.bases = np.concatenate(bases, 1).astype(np.float32)     # n*3 x 36
        self.kept = np.stack(kept, 1).astype(np.float32)             # n*3 x 4
        self.wear = pictures.wear

    def distances(self, samples: np.ndarray, noise: float) -> np.ndarray:
        """Each card's distance (``samples`` M x n x 3, from :func:`vision.matching.sample`)
        to every picture (M x N) over the best three quarters of it: each quarter left
        out in turn, the planes removed over what is kept, damped and compared as
        :func:`vision.matching.distances` compares a whole card. A spoiler of a photo (a
        glare spot, a shadow's edge, the bright mat beside a card laid off its place)
        lies on a corner of a card; an object unlike a face is unlike it all over."""
        m = len(samples)
        flat = np.ascontiguousarray(samples, np.float32).reshape(m, -1)
        pt = (flat @ self.parts.T).reshape(m, 4, -1).astype(np.float64)
        # what removing the planes leaves of each card's square (Pythagoras)
        coef = (flat @ self.bases).astype(np.float64).reshape(m, 4, 9)
        pp = np.maximum((flat.astype(np.float64) ** 2) @ self.kept - (coef * coef).sum(2),
                        0.0)[:, :, None]
        eps2 = (self.kept.sum(0) * ((matching.FLOOR * noise) ** 2 + self.wear))[None, :, None]
        tt = self.squares[None]
        npp, ntt = np.sqrt(pp + eps2), np.sqrt(tt + eps2)
        d = pp / (npp * npp) + tt / (ntt * ntt) - 2 * pt / (npp * ntt)
        out: np.ndarray = np.maximum(d, 0.0).min(1)
        return out


@cache
def _bumps(window: tuple[int, int], card_mm: float) -> np.ndarray:
    """The halos' shapes (M x n, planes removed) over a compared window of ``window``
    feature pixels: made once per faces file, as the planes are linear in light."""
    ww, wh = window
    ys, xs = np.mgrid[0:wh:matching.STEP, 0:ww:matching.STEP].astype(np.float32)
    xs, ys = xs.ravel(), ys.ravel()
    bumps = [np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
             for sigma in (card_mm / 4, card_mm / 2, card_mm)
             for cy in np.linspace(-wh / 4, 5 * wh / 4, 5)
             for cx in np.linspace(-ww / 4, 5 * ww / 4, 5)]
    out: np.ndarray = matching.deplane(np.stack(bumps)[:, :, None].astype(np.float32),
                                       matching.plane_basis(ww, wh))[:, :, 0]
    return out


def halos(templates: templates.Templates, card_mm: float, whites: list[np.ndarray]
          ) -> np.ndarray:
    """The glare halos a card may show (M x n*3, each with its plane removed as the
    cards' are): a smooth round bump of added light, of each of ``whites`` (the light's
    own colour and the camera's white), from a quarter of the card (``card_mm``) wide to
    the whole card, centred anywhere on the compared window or a little beyond it (a
    spot on the card beside)."""
    shapes = _bumps(matching.window(templates.box_mm, templates.inset_mm), card_mm)
    units = np.stack([w / np.linalg.norm(w) for w in whites]).astype(np.float32)
    out: np.ndarray = shapes[:, None, :, None] * units[None, :, None, :]  # M x W x n x 3
    return out.reshape(len(shapes) * len(units), -1)


def without_halo(small: np.ndarray, corners: np.ndarray, templates: templates.Templates,
                 bumps: np.ndarray) -> np.ndarray:
    """Each card's samples (K x n x 3, top-left ``corners``, its plane removed) once the
    halo of ``bumps`` that explains most of what its plane leaves (light added, never
    taken away) is taken off it."""
    box, inset = templates.box_mm, templates.inset_mm
    ww, wh = matching.window(box, inset)
    samples = matching.sample(small, corners, box, inset, (0,))
    k, n = samples.shape[:2]
    left = matching.deplane(samples, matching.plane_basis(ww, wh)).reshape(k, -1)
    size = (bumps * bumps).sum(1)
    amount = np.maximum((left @ bumps.T) / np.maximum(size, 1e-12)[None, :], 0.0)
    best = (amount * amount * size[None, :]).argmax(1)
    left = left - amount[np.arange(k), best][:, None] * bumps[best]
    out: np.ndarray = left.reshape(k, n, 3)
    return out


def linear(encoded: np.ndarray) -> np.ndarray:
    """Light from a photo's values (paper-white units) by the sRGB curve that JPEG and PNG
    values are encoded with: light adds up (a reflection on a print) in linear light, not
    in its encoded values."""
    v = np.maximum(encoded, 0.0)
    out: np.ndarray = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    return out


def halo_distances(small: np.ndarray, corners: np.ndarray, templates: templates.Templates,
                   bumps: np.ndarray, noise: float, shifts: tuple[int, ...] = (0,),
                   in_light: bool = False) -> np.ndarray:
    """Each card's distance (K x N, as :func:`vision.matching.distances`) to each picture
    once the halo of ``bumps`` that best explains, together with that picture, what the
    card's plane leaves is taken off it (light added, never taken away): the picture and
    the halo fitted at once, so a faint print under a lamp's reflection is compared with
    the reflection taken off as that picture would leave it, not as a plain card would.
    ``shifts`` (mm, as :func:`vision.matching.sample`): the card is compared at each and
    the best kept. ``in_light``: the card, the pictures and the halo in linear light
    (:func:`linear`; a picture's values are its features over its mean colour: a picture
    is lit evenly), the noise's damping at the slope of the curve at the cards' level."""
    box, inset = templates.box_mm, templates.inset_mm
    ww, wh = matching.window(box, inset)
    q = matching.plane_basis(ww, wh)
    samples = matching.sample(small, corners, box, inset, shifts)
    pictures = templates.features
    slope = 1.0
    if in_light:
        m = len(pictures)
        values = pictures.reshape(m, -1, 3) + templates.means[:, None, :]
        pictures = matching.deplane(linear(values).astype(np.float32), q).reshape(m, -1)
        level = float(np.median(samples))
        slope = 2.4 / 1.055 * ((level + 0.055) / 1.055) ** 1.4
        samples = linear(samples).astype(np.float32)
    k = len(samples)
    r = matching.deplane(samples, q).reshape(k, -1).astype(np.float64)
    t = pictures.astype(np.float64)
    b = bumps.astype(np.float64)
    n = r.shape[1]
    eps2 = n * slope ** 2 * ((matching.FLOOR * noise) ** 2 + templates.wear)
    rr = (r * r).sum(1)[:, None, None]
    rt = (r @ t.T)[:, :, None]                      # K x N x 1
    rb = (r @ b.T)[:, None, :]                      # K x 1 x M
    tt = (t * t).sum(1)[None, :, None]              # 1 x N x 1
    tb = (t @ b.T)[None]                            # 1 x N x M
    bb = (b * b).sum(1)[None, None, :]              # 1 x 1 x M
    det = np.maximum(tt * bb - tb * tb, 1e-12)
    h = np.maximum((tt * rb - tb * rt) / det, 0.0)  # the halo's amount, with the picture
    pp = np.maximum(rr - 2 * h * rb + h * h * bb, 0.0)
    pt = rt - h * tb
    d = pp / (pp + eps2) + tt / (tt + eps2) - 2 * pt / np.sqrt((pp + eps2) * (tt + eps2))
    out: np.ndarray = np.maximum(d, 0.0).min(2).reshape(len(corners), -1, len(t)).min(1)
    return out


def veiled(small: np.ndarray, corners: np.ndarray, templates: templates.Templates,
           dist: np.ndarray, unlike: float, noise: float, means: np.ndarray,
           where: np.ndarray) -> np.ndarray:
    """The share (K, 0..1) of each card's light that is a veil's, as the cards around it
    (``where``: K x 2 grid column and row) that match a patterned picture show it: each
    such card's brightness beyond its picture at the contrast it shows
    (:func:`vision.matching.veil`), weighed by nearness (a veil is smooth over a card)."""
    patterned = (templates.features ** 2).mean(1) > 9 * noise ** 2 + templates.wear
    best = dist.argmin(1)
    sure = patterned[best] & (dist.min(1) < unlike)
    if not sure.any():
        return np.zeros(len(dist))
    veil = matching.veil(small, corners[sure], templates, best[sure])
    # beyond what every card shows (its own blur lowers a photo's contrast everywhere,
    # and the photo's densities already allow for what all its cards share)
    veil = np.maximum(veil - np.median(veil), 0.0)
    gap = ((where[:, None, :] - where[None, sure, :]) ** 2).sum(-1)
    w = np.exp(-gap / 2)
    around = (w @ veil) / np.maximum(w.sum(1), 1e-9)
    out: np.ndarray = np.clip(around / np.maximum(means.mean(1), 1e-3), 0.0, 1.0)
    return out


def veil_law(printed: np.ndarray, best: np.ndarray, read: np.ndarray) -> float:
    """How a true match's distance grows with the veil in this photo: the power of the
    print's share (``printed``, K) that the distances (``best``, K) of the cards read as
    patterned fixed faces (``read``) follow, between -2 (what is left of a pattern over
    noise that the veil brings falls as the square of its share) and 0 (a veil of light
    alone, which the planes take off: no further)."""
    x, y = np.log(np.maximum(printed[read], 1e-3)), np.log(np.maximum(best[read], 1e-6))
    if (x < np.log(0.95)).sum() < 4:
        return 0.0
    x = x - x.mean()
    return float(np.clip((x * (y - y.mean())).sum() / max(float((x * x).sum()), 1e-9),
                         -2.0, 0.0))


def plain_face(templates: templates.Templates) -> int:
    """The fixed face (its index in :data:`FIXED`) whose pictures have the least pattern."""
    labels = np.array(templates.labels)
    energy = [float((templates.features[labels == f] ** 2).mean(1).min())
              if (labels == f).any() else np.inf for f in FIXED]
    return int(np.argmin(energy))


def plain_print(printed: np.ndarray, nearest: np.ndarray, means: np.ndarray,
                templates: templates.Templates) -> np.ndarray:
    """The print's share of each card's light (``printed``, K, from :func:`veiled`) once
    a card read as the plain face (the fixed face whose pictures have the least pattern;
    ``nearest`` K x 4 from :func:`faces_apart`) is allowed no more than its brightness
    leaves: a veil hides a pattern but never makes one, so a card that shows none and is
    brighter than the plain face's pictures (at the gain this photo's unveiled cards of
    fixed faces show over theirs; ``means`` K x 3) may be any face under a veil, the
    rest of its light being the veil's."""
    labels = np.array(templates.labels)
    has = [(labels == f).any() for f in FIXED]
    tone = np.array([templates.means[labels == f].mean(1).max() if h else np.inf
                     for f, h in zip(FIXED, has, strict=True)] + [np.inf])
    face = nearest.argmin(1)
    bright = np.maximum(means.mean(1), 1e-3)
    clear = (face < len(FIXED)) & (printed >= 1.0)
    gain = float(np.median(bright[clear] / tone[face[clear]])) if clear.any() else 1.0
    plain = face == plain_face(templates)
    out: np.ndarray = np.where(plain, np.minimum(printed, gain * tone[face] / bright),
                               printed)
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


class PooDiversReader:
    """Reads Tokyo Poo Divers layouts of one faces file, mat and layout."""

    def __init__(self, faces: Faces, mat: MatSpec, rows: tuple[str, ...]) -> None:
        self.faces = faces
        self.mat = mat
        self.rows = rows
        self.templates = templates.poo_templates(faces)
        self.margins = calibration.margins(self.templates, frozenset({"object"}))
        n = self.templates.features.shape[1] // 3
        self.spared = Spared(self.templates)
        self.spared_cross = self.spared.distances(self.templates.features.reshape(-1, n, 3),
                                                  matching.QUANTUM)

    @classmethod
    def from_files(cls, faces: Path, mat: Path | None, rows: tuple[str, ...]
                   ) -> PooDiversReader:
        return cls(load_faces(faces), mat_of(mat), rows)

    def read(self, photo: np.ndarray) -> Reading:
        """Read every card cell of the layout ("#" card, "." gap) in ``photo``."""
        return timed(self._read, photo)

    def _read(self, photo: np.ndarray) -> Reading:
        rows, templates, faces, mat = self.rows, self.templates, self.faces, self.mat
        view = detect(mat, photo)
        # the light is measured at the resolution cards are compared at
        scale = FEATURE_PX_PER_MM / PX_PER_MM
        low = cv2.resize(view.rectified, None, fx=scale, fy=scale,
                         interpolation=cv2.INTER_AREA)
        clip = cv2.resize(lighting.clipped(view.rectified).astype(np.float32),
                          low.shape[1::-1], interpolation=cv2.INTER_AREA)
        light = lighting.flatten(low, mat, FEATURE_PX_PER_MM, clip)
        cw, ch = faces.card_mm
        small = matching.prepare(light.flat, FEATURE_PX_PER_MM)
        bare = matching.prepare(light.bare.astype(np.float32), FEATURE_PX_PER_MM) > 0.99
        noise, colour_noise = matching.floors(small, bare)
        free = ~lighting.marker_mask(mat, small.shape[:2], 1.0, mat.marker_mm / 6 + 2)
        edge = round(lighting.EDGE_MM + min(cw, ch) / 2)  # no card lies over the mat's edge
        free[:edge], free[-edge:], free[:, :edge], free[:, -edge:] = False, False, False, False
        grid = poo_grid.find_grid(small, faces.card_mm, rows, free)
        x0, y0, pitch_x, pitch_y = grid.x0, grid.y0, grid.px, grid.py
        # what each channel shows: a pixel clipped in one channel (a warm lamp clips red
        # first) still shows the others; glare found by its soft edges shows none
        channel_top = cv2.threshold(view.rectified, lighting.CLIP - 1, 255, cv2.THRESH_BINARY)[1]
        channel_top = cv2.resize(channel_top, low.shape[1::-1], interpolation=cv2.INTER_AREA)
        each_shows = (channel_top < 128) & ~(light.unknown & (clip < 0.5))[:, :, None]
        known = matching.prepare(each_shows.astype(np.float32), FEATURE_PX_PER_MM)
        cells = [(c, r) for r, row in enumerate(rows) for c, mark in enumerate(row)
                 if mark == "#"]
        corners = np.array([(x0 + c * pitch_x, y0 + r * pitch_y) for c, r in cells])
        dist, shift, each = matching.match(small, known, corners, templates, noise,
                                           light.mat, colour_noise)
        density = calibration.photo_density(dist, self.margins.worn)
        unlike = object_margin(templates, self.margins, float(np.exp(density[0])),
                               (density[1], density[3]))
        box, inset = templates.box_mm, templates.inset_mm
        # the share of each card seen (not clipped): what its distances were measured on
        share = (matching.sample(known, corners + shift, box, inset, (0,), outside=1.0)
                 > 0.5).reshape(len(cells), -1).mean(1)
        colour_scale = 3 * (matching.FLOOR * colour_noise) ** 2
        # a card torn between two fixed faces is sought again, every picture at every
        # 1 mm shift (match sought the fine shifts around the best picture's only)
        odds = likely(faces_apart(dist, templates.labels, unlike)[1], density, share)
        torn = (np.argsort(-odds, 1, kind="stable")[:, :2] < len(FIXED)).all(1)
        again = np.flatnonzero((odds.max(1) < calibration.UNSURE) & torn)
        if again.size:
            pattern = dist[again] - matching.colour_misfit(each[again], templates,
                                                           light.mat) / colour_scale
            found, _, there = everywhere(small, known, corners[again], templates, noise,
                                         light.mat)
            better = found < pattern
            each[again] = np.where(better[:, :, None], there, each[again])
            pattern = np.where(better, found, pattern)
            dist[again] = pattern + matching.colour_misfit(each[again], templates,
                                                           light.mat) / colour_scale
            density = calibration.photo_density(dist, self.margins.worn)
            unlike = object_margin(templates, self.margins, float(np.exp(density[0])),
                                   (density[1], density[3]))
        means = matching.box_means(small, known, corners + shift, templates, light.mat)
        misfit = matching.colour_misfit(each, templates, light.mat)
        pattern = dist - misfit / colour_scale
        colours = card_colours(means, pattern, templates, unlike, noise)
        spread, bounded, clear = colour_noise, misfit, np.zeros(len(cells), bool)
        if colours is not None:
            # colours compared at the spread the cards show, with the cast they show
            # taken out or, that cast being an estimate, as photographed
            cast, shown, contrast = colours
            misfit = np.minimum(misfit, matching.colour_misfit(each / cast, templates,
                                                               light.mat))
            bounded = np.minimum(bounded_misfit(each, templates, light.mat, contrast),
                                 bounded_misfit(each / cast, templates, light.mat, contrast))
            spread = max(colour_noise, shown)
            # a card clipped anywhere (a pixel of the photo at the sensor's top) shows its
            # colour only as "at least this bright" in that channel, and the means of
            # what is left lean away from it
            at_top = matching.sample(clip, corners + shift, box, inset, (0,), outside=0.0)
            clear = np.asarray(at_top.max(1) <= 0)
        # a card brighter than its picture can be is veiled, by light whose colour is
        # unknown: its colour says that much less
        excess = np.maximum(each.mean(-1) - templates.means.mean(1)[None, :], 0.0)
        scale = 3 * ((matching.FLOOR * spread) ** 2 + excess ** 2)
        # two fits of a card's colour to each face: its gain free (any contrast), or held
        # to what light gives (:func:`bounded_misfit`); a card is read by the bounded one
        # unless clipped, and is as sure as the less sure of the two
        dist_f, dist_b = pattern + misfit / scale, pattern + bounded / scale
        dist = np.where(clear[:, None], dist_b, dist_f)
        density = calibration.photo_density(dist_f, self.margins.worn)
        photo_true = float(np.exp(density[0]))
        unlike = object_margin(templates, self.margins, photo_true, (density[1], density[3]))
        values, nearest = faces_apart(dist, templates.labels, unlike)
        # like none of the faces is an object only once a glare halo is allowed for
        labels = np.array(templates.labels)
        fixed = np.isin(labels, FIXED)
        absent = unlike_every_face(dist, nearest, fixed, unlike)
        tint, tint_f = dist - pattern, dist_f - pattern  # what colour adds, as read and free
        haloed = np.zeros(len(cells), bool)
        if absent.any():
            # the light's own colour is paper white; the camera's white is what adds
            # the same to every channel of the photo
            whites = [np.ones(3, np.float32),
                      np.median((light.flat / (low + 1.0)).reshape(-1, 3)[::97], 0)]
            bumps = halos(templates, min(cw, ch), whites)
            # the three quarters below compare the card less the halo that explains it
            # most; the whole card, with the halo each face leaves (a faint print's
            # halo is not a plain card's), added to the photo's values or to its light
            # (the camera's processing is not known: light adds up before it)
            unhaloed = without_halo(small, (corners + shift)[absent], templates, bumps)
            haloed = absent.copy()
            plain = np.minimum(*(halo_distances(small, (corners + shift)[absent], templates,
                                                bumps, noise, matching.FINE_MM, in_light)
                                 for in_light in (False, True)))
            for d in (dist, dist_f, dist_b):
                d[absent] = np.minimum(d[absent], plain + (d - pattern)[absent])
            values, nearest = faces_apart(dist, templates.labels, unlike)
        absent = unlike_every_face(dist, nearest, fixed, unlike)
        if absent.any():
            # like none of the faces over its best three quarters too (a spoiler lies on a
            # corner of a card), against the margin that comparison has in this photo; a
            # card read so is as sure as the whole card's fits say (it is asked about)
            around = matching.sample(small, corners + shift, box, inset, matching.FINE_MM)
            part = self.spared.distances(around, noise).reshape(len(cells), -1,
                                                                len(labels)).min(1)
            if haloed.any():  # the halo taken off as well
                part[haloed] = np.minimum(part[haloed],
                                          self.spared.distances(unhaloed, noise))
            own = calibration.photo_density(part + tint_f, self.margins.worn)
            margin = object_margin(templates, self.margins, float(np.exp(own[0])),
                                   (own[1], own[3]), self.spared_cross)
            kept = (part + tint)[np.ix_(absent, fixed)] * unlike / margin
            dist[np.ix_(absent, fixed)] = np.minimum(dist[np.ix_(absent, fixed)], kept)
            values, nearest = faces_apart(dist, templates.labels, unlike)
        # a veiled card's light is that much the veil's, not its print's; and a veil's
        # light, which carries no pattern, is itself what makes a card look like none of
        # the faces: a card that is an object only by that says as much as its pattern's
        # contrast squared (evidence grows as the square of a pattern's contrast), one that
        # matches a face as much as its print's share of the light
        printed = 1.0 - veiled(small, corners + shift, templates, dist, unlike, noise, means,
                               np.array(cells, float))
        printed = plain_print(printed, nearest, means, templates)
        # and a true match of a card that much veiled lies that much further from its
        # picture (what is left of its pattern over the noise falls as the square of the
        # print's share), while an object lies no nearer a patterned face: the object
        # margin of a card nearest a patterned face moves out (a faint pattern lies as near
        # the plain face as its own: a veiled object nears the plain face too)
        face = nearest.argmin(1)
        moved = (nearest[:, :len(FIXED)].argmin(1) != plain_face(templates))
        law = veil_law(printed, nearest.min(1), (face < len(FIXED)) & moved)
        # a clear card's true match lies where the photo's clear cards' lie (its margin
        # and its odds with them), a veiled card's where the whole photo's do
        each_density = graded(dist_f.min(1), share * printed,
                              unlike_every_face(dist, nearest, fixed, unlike), density,
                              self.margins.worn)
        each_unlike = object_margins(templates, self.margins,
                                     np.exp(each_density[:, 0])
                                     * np.where(moved, np.maximum(printed, 1e-3), 1.0) ** law,
                                     (density[1], density[3]))
        values, nearest = faces_apart(dist, templates.labels, each_unlike)
        nearest_f = faces_apart(dist_f, templates.labels, each_unlike)[1]
        nearest_b = faces_apart(dist_b, templates.labels, each_unlike)[1]
        alone = unlike_every_face(dist, nearest, fixed, each_unlike)
        seen = share * np.where(alone, printed ** 2, printed)
        reading = Reading("poodivers", {}, {}, view=view)
        free = likely(nearest_f, each_density, seen)
        # the fit held to what light gives says nothing of a card clipped anywhere (its
        # means lean away from the clipped channel): such a card is read by the free fit
        # and is as sure as that fit says
        held = np.where(clear[:, None], likely(nearest_b, each_density, seen), free)
        # the candidates are the odds of the distances a card is read by (in their order:
        # the value read is always the first), however much less sure the other fit is;
        # a card is as sure as the least sure of the two fits and those distances (a card
        # an object only over the whole of it, its three quarters nearer a face, is less)
        odds = likely(nearest, each_density, seen)
        sure = np.minimum(np.minimum(free, held), odds)
        order = np.argsort(nearest, 1, kind="stable")
        for k, (c, r) in enumerate(cells):
            v = int(order[k, 0])
            name = str(Cell(c, r))
            dx, dy = shift[k]
            reading.cells[name] = values[v]
            reading.confidence[name] = float(sure[k, v])
            reading.candidates[name] = {values[i]: float(odds[k, i]) for i in order[k]}
            ox, oy = mat.origin_mm
            reading.boxes_mm[name] = (ox + x0 + c * pitch_x + dx, oy + y0 + r * pitch_y + dy,
                                      cw, ch)
        return reading


def read(photo: np.ndarray, faces: Faces, rows: tuple[str, ...], mat: MatSpec) -> Reading:
    """Read one photo (builds a reader: for many photos, keep a :class:`PooDiversReader`)."""
    return PooDiversReader(faces, mat, rows).read(photo)
