"""A Tokyo Poo Divers card compared with the faces' pictures past what glare spoils: over
its best three quarters (:class:`Spared`: a glare spot, a shadow's edge or the mat beside
a card laid off its place spoils a corner), and with a lamp's halo fitted together with
each picture, in the photo's values and in linear light (:func:`halo_distances`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from vision import matching, planes, templates


class Spared:
    """The pictures compared over the best three quarters of a card (:meth:`distances`):
    for each quarter of the compared window, the pictures with their planes removed over
    the rest (zero on the quarter left out), made once per faces file. The quarters are
    the window's corners or, with ``sides``, the bands a quarter of it wide along each of
    its sides (a card laid askew shows the mat or the card beside it along a side)."""

    def __init__(self, pictures: templates.Templates, sides: bool = False) -> None:
        ww, wh = matching.window(pictures.box_mm, pictures.inset_mm)
        ys, xs = np.mgrid[0:wh:matching.STEP, 0:ww:matching.STEP].astype(np.float64)
        xs, ys = xs.ravel(), ys.ravel()
        n = xs.size
        feats = pictures.features.reshape(len(pictures.features), n, 3).astype(np.float64)
        right, low = xs > (ww - 1) / 2, ys > (wh - 1) / 2
        quarters = ([xs < ww / 4, xs >= ww * 3 / 4, ys < wh / 4, ys >= wh * 3 / 4] if sides
                    else [~right & ~low, ~right & low, right & ~low, right & low])
        kept, bases, parts = [], [], []
        for quarter in quarters:
            keep = ~quarter
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
    out: np.ndarray = planes.deplane(np.stack(bumps)[:, :, None].astype(np.float32),
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
    left = planes.deplane(samples, matching.plane_basis(ww, wh)).reshape(k, -1)
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
        pictures = planes.deplane(linear(values).astype(np.float32), q).reshape(m, -1)
        level = float(np.median(samples))
        slope = 2.4 / 1.055 * ((level + 0.055) / 1.055) ** 1.4
        samples = linear(samples).astype(np.float32)
    k = len(samples)
    r = planes.deplane(samples, q).reshape(k, -1).astype(np.float64)
    t = pictures.astype(np.float64)
    b = bumps.astype(np.float64)
    n = r.shape[1]
    eps2 = n * slope ** 2 * ((matching.FLOOR * noise) ** 2 + templates.wear)
    rr: np.ndarray = (r * r).sum(1)[:, None, None]
    rt: np.ndarray = (r @ t.T)[:, :, None]          # K x N x 1
    rb: np.ndarray = (r @ b.T)[:, None, :]          # K x 1 x M
    tt: np.ndarray = (t * t).sum(1)[None, :, None]  # 1 x N x 1
    tb: np.ndarray = (t @ b.T)[None]                # 1 x N x M
    bb: np.ndarray = (b * b).sum(1)[None, None, :]  # 1 x 1 x M
    det: np.ndarray = np.maximum(tt * bb - tb * tb, 1e-12)
    # the cube (K x N x M) in single precision, in three buffers, in place: its terms,
    # products and squares made above in double precision, are what it is made of (the
    # samples' planes are off already: no large offset left to cancel), and the distances
    # move by under 1e-6
    rr, rt, rb, tt, tb, bb, det = (v.astype(np.float32) for v in (rr, rt, rb, tt, tb, bb, det))
    h = np.multiply(tt, rb)
    cube = np.multiply(tb, rt)
    h -= cube
    h /= det
    h = np.maximum(h, 0.0, out=h)  # the halo's amount, with the picture
    pp = np.multiply(h, 2, out=cube)
    pp *= rb
    pp = np.subtract(rr, pp, out=pp)
    pt = h * h
    pt *= bb
    pp += pt
    pp = np.maximum(pp, 0.0, out=pp)
    pt = np.multiply(h, tb, out=pt)
    pt = np.subtract(rt, pt, out=pt)
    root = np.add(pp, eps2, out=h)  # the match's square less the halo, damped
    d = np.divide(pp, root, out=pp)
    d += tt / (tt + eps2)
    root *= tt + eps2
    root = np.sqrt(root, out=root)
    pt *= 2
    pt /= root
    d -= pt
    out: np.ndarray = np.maximum(d, 0.0, out=d).min(2).reshape(len(corners), -1, len(t)).min(1)
    return out.astype(np.float64)
