"""How much of a Tokyo Poo Divers card's light is its print's and how much a veil's: the
colour cast and the most contrast the photo's clearest cards show (:func:`card_colours`),
a card's colour fitted with its gain held to what light can do (:func:`bounded_misfit`),
the veil the cards around a card show (:func:`veiled`), how a true match's distance grows
with it (:func:`veil_law`), and a plain card allowed no more print than its brightness
leaves (:func:`plain_print`).
"""

from __future__ import annotations

import numpy as np

from vision import matching, templates
from vision.poo_odds import FIXED


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
    # beyond what the clearest quarter of the cards show (its own blur lowers a photo's
    # contrast everywhere, and the photo's densities already allow for what all its cards
    # share): not the median card, as a window's reflection may lie over most of them
    veil = np.maximum(veil - np.percentile(veil, 25), 0.0)
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
    ``nearest`` K x 4 from :func:`vision.poo_odds.faces_apart`) is allowed no more than
    its brightness leaves: a veil hides a pattern but never makes one, so a card that
    shows none and is brighter than the plain face's pictures (at the gain this photo's
    unveiled cards of fixed faces show over theirs; ``means`` K x 3) may be any face
    under a veil, the rest of its light being the veil's."""
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
