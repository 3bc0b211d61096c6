"""Undo the table's light, measured in each photo: what is card, mat, glare or unknown.

Nothing here knows the project's own mat. Every photo is measured afresh:

- **the light** from the bare mat (one even paper, whatever its colour): a smooth surface
  fitted to the bare mat, leaning a little to the bare mat nearby, divided out;
- **paper white** from the white cells of the markers' own codes (the one thing on every
  mat that is known to be white paper), so the flattened mat reads in paper-white units:
  white 1.0, the mat its own measured colour (:attr:`Light.mat`);
- **clipped pixels**, one by one: a pixel at the sensor's top in any channel says nothing
  more than "at least this bright"; it is *unknown*, neither card nor mat, and is never
  grown into its neighbours (no step costs more as a bright region grows). So is a
  region brighter than the mat whose edges are softer than any print's (glare);
- **a veil**: glare that does not clip is a smooth brightening that lowers contrast. On
  the bare mat it shows as light above the smooth surface; under the cards it is
  interpolated from the bare mat around them and, on each card, measured by the matching
  as an offset (:mod:`vision.matching` is invariant to gain and offset).

A pixel is card when it differs from the mat's measured colour by more than the bare
mat's own spread allows (shadows: only when much darker).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from vision.mat import PX_PER_MM, MatSpec

TINT, BRIGHTER, DARKER = 0.03, 0.15, 0.45
"""Least difference from the mat's own colour (after the light is divided out) that makes
a pixel not bare mat: more coloured, brighter, or darker (a shadow the light estimate
missed darkens the mat, so darker must be much darker). Raised where the bare mat itself
is noisier (:data:`SPREAD`)."""
SPREAD = 5.0
"""... to this many times the bare mat's own spread (robust standard deviation)."""

CLIP = 254
"""A photo pixel at or above this in any channel is clipped (the sensor's top, less a
level of JPEG ringing): unknown, pixel by pixel."""

EDGE_MM = 5.0
"""Band along the mat's edges that is never read as a card."""

_STEP_MM = 4.0
"""Resolution (mm per pixel) at which the light is estimated."""

STEEP = 1 / (np.sqrt(2 * np.pi) * 3.0)
"""Slope (per mm, over the step) of a printed edge blurred by 3 mm: a region brighter
than the mat whose edge is softer is light (glare), not a card."""

CLIPPED_MAT = 0.25
"""When less of the mat's edge than this is unclipped, the bare mat is taken as clipped."""

VEIL = 0.08
"""Brightening (share of paper white) above the smooth light that counts as a veil."""


@dataclass
class Light:
    """The light of one photo, measured on the rectified mat."""

    flat: np.ndarray
    """float32 BGR, the light divided out: paper white 1.0, the bare mat :attr:`mat`."""
    mask: np.ndarray
    """bool, not bare mat (cards); never where :attr:`unknown`, never on the markers."""
    unknown: np.ndarray
    """bool, clipped pixels and soft glare: nothing is known there."""
    veil: np.ndarray
    """float32, the veil's brightening in paper-white units (0 where none)."""
    mat: np.ndarray
    """(3,) the mat's colour measured in this photo, paper white = 1."""
    noise: float
    """Robust spread of the bare mat's pixels in paper-white units."""
    bare: np.ndarray
    """bool, the bare mat: neither card, unknown, nor marker; none where the mat is
    clipped (every pixel of it not clipped is then a card's)."""
    paper: np.ndarray
    """(3,) paper white as it reads in :attr:`flat` (the markers' white cells): 1.0 but
    where the light could not be divided out (the bare mat clipped, as a warm lamp clips
    red: the lamp's colour then stays in :attr:`flat`)."""

    @property
    def glare(self) -> np.ndarray:
        """Where the photo shows nothing of what lies there (:attr:`unknown`)."""
        return self.unknown


def marker_mask(spec: MatSpec, shape: tuple[int, int], px_per_mm: float,
                margin_mm: float) -> np.ndarray:
    """True on the markers, grown by ``margin_mm`` (their quiet zones), in the rectified
    area (pixel (0, 0) at ``spec.origin_mm``)."""
    out = np.zeros(shape, bool)
    ox, oy = spec.origin_mm
    for x0, y0, x1, y1 in spec.marker_boxes_mm(margin_mm):
        out[max(0, round((y0 - oy) * px_per_mm)):max(0, round((y1 - oy) * px_per_mm)),
            max(0, round((x0 - ox) * px_per_mm)):max(0, round((x1 - ox) * px_per_mm))] = True
    return out


@cache
def _white_cells(dictionary: str, marker_mm: float,
                 markers: tuple[tuple[int, float, float], ...]) -> tuple[np.ndarray, ...]:
    """Each marker's white code cells (border included) as their centres in mat
    millimetres (n x 2), and the cells' side: made once per mat."""
    import cv2.aruco as aruco

    coded = aruco.getPredefinedDictionary(getattr(aruco, dictionary))
    n = coded.markerSize + 2
    side = marker_mm / n
    out = []
    for k, x, y in markers:
        r, c = np.nonzero(aruco.generateImageMarker(coded, k, n) > 127)
        # the corner as :meth:`MatSpec.marker_corners_mm` gives it (float32)
        x0, y0 = np.float32(x - marker_mm / 2), np.float32(y - marker_mm / 2)
        out.append(np.stack([x0 + (c + 0.5) * side, y0 + (r + 0.5) * side], 1))
    return (np.array(side), *out)


def _median_where(values: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (K x n x 3), the median over its ``ok`` samples (K x n), as
    :func:`numpy.median` of each row's kept samples gives it (K x 3; NaN where none)."""
    vals = np.sort(np.where(ok[..., None], values, np.float32(np.nan)), 1)
    count = ok.sum(1)
    rows = np.arange(len(values))
    lo = vals[rows, np.maximum(count - 1, 0) // 2]
    hi = vals[rows, np.minimum(count // 2, values.shape[1] - 1)]
    out: np.ndarray = (lo + hi) / np.float32(2)
    return out


def paper_white(rectified: np.ndarray, light: np.ndarray, spec: MatSpec,
                px_per_mm: float) -> np.ndarray | None:
    """Paper white over the mat's light (3,), from the white cells of the markers' codes
    (the centre of each cell, clipped pixels left out); ``None`` when none shows."""
    side, *each = _white_cells(spec.dictionary, spec.marker_mm,
                               tuple((k, *spec.markers[k]) for k in spec.markers))
    h = max(1, round(float(side) * px_per_mm / 4))
    ox, oy = spec.origin_mm
    ramp = np.arange(2 * h)
    ratios = []
    for centres in each:
        # the cells' centres rounded as Python rounds (half to even, as np.round)
        ya = np.round((centres[:, 1] - oy) * px_per_mm).astype(int) - h
        xa = np.round((centres[:, 0] - ox) * px_per_mm).astype(int) - h
        inside = ((ya >= 0) & (xa >= 0) & (ya + 2 * h <= rectified.shape[0])
                  & (xa + 2 * h <= rectified.shape[1]))
        if not inside.any():
            continue
        ys = (ya[inside][:, None] + ramp)[:, :, None]
        xs = (xa[inside][:, None] + ramp)[:, None, :]
        patch = rectified[ys, xs].reshape(len(ys), -1, 3).astype(np.float32)
        lit = light[ys, xs].reshape(len(ys), -1, 3)
        ok = patch.max(-1) < CLIP
        seen = ok.any(1)
        if not seen.any():
            continue
        whites = _median_where((patch + 1) / np.maximum(lit, 1.0), ok)[seen]
        ratios.append(np.median(whites, 0))
    if not ratios:
        return None
    out: np.ndarray = np.median(ratios, 0).astype(np.float32)
    return out


@cache
def _terms(h: int, w: int) -> np.ndarray:
    """The quadratic surface's terms at every pixel of an h x w image (h*w x 6)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    out: np.ndarray = np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys],
                               -1).reshape(-1, 6)
    out.setflags(write=False)  # shared by every fit of this size
    return out


def _poly_fit(img: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """A quadratic surface per channel through the kept pixels, evaluated everywhere
    (a cubic overshoots in the middle of a big layout, where no bare mat shows)."""
    h, w = keep.shape
    terms = _terms(h, w)
    sel = keep.reshape(-1)
    a = terms[sel].astype(np.float64)
    coef = np.linalg.lstsq(a.T @ a, a.T @ img.reshape(-1, 3)[sel], rcond=None)[0]
    out: np.ndarray = (terms @ coef.astype(np.float32)).reshape(h, w, 3)
    return out


def _light(small: np.ndarray, known: np.ndarray, markers: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mat's light at low resolution (the bare mat reads 1.0 divided by it), the
    bare-mat pixels it was fitted to, and the smooth surface alone."""
    sh, sw = small.shape[:2]
    band = np.zeros((sh, sw), bool)
    edge = max(2, round(24 / _STEP_MM))
    band[:edge], band[-edge:], band[:, :edge], band[:, -edge:] = True, True, True, True
    keep = band & ~markers & known
    if keep.sum() < CLIPPED_MAT * (band & ~markers).sum():
        # the bare mat is clipped: its light is only known to be at the top; everything
        # not clipped on it is something else (cards)
        flat = np.full_like(small, float(CLIP + 2))
        return flat, np.zeros_like(keep), flat
    light = _poly_fit(small, keep)
    for _ in range(3):
        ratio = small / np.maximum(light, 1.0)
        # each channel's median on its own: numpy's median down a column is slow
        ratio /= np.array([np.median(ratio[:, :, ch][keep]) for ch in range(3)], np.float32)
        # bare mat is its own colour under any light: in shadow darker, no more coloured
        b, g, r = ratio[..., 0], ratio[..., 1], ratio[..., 2]
        level = (b + g + r) / 3  # channel by channel: numpy's mean over 3 is slow
        over = np.maximum(level, 1e-3)
        tint = np.maximum(np.maximum(np.abs(b / over - 1.0), np.abs(g / over - 1.0)),
                          np.abs(r / over - 1.0))
        grown = (tint < 0.06) & (level > 0.3) & (level < 1.5) & ~markers
        grown &= known
        # pale cards look like mat too; the bare mat is what joins the mat's edges
        grown = joined(grown, band)
        if grown.sum() < 50:
            break
        keep = grown
        light = _poly_fit(small, keep)
    surface = light
    # A shadow is sharper than the surface: lean a little towards the bare mat nearby
    # (only a little: under a big layout that stretches an edge's shadow over the cards;
    # what is left, matching absorbs as a gain and an offset).
    sigma = 20 / _STEP_MM
    weight = cv2.GaussianBlur(keep.astype(np.float32), (0, 0), sigma)
    local = cv2.GaussianBlur(small * keep[:, :, None], (0, 0), sigma)
    light = (local + 0.15 * surface) / (weight[:, :, None] + 0.15)
    return light, keep, surface


def joined(mask: np.ndarray, band: np.ndarray) -> np.ndarray:
    """The pixels of ``mask`` (bool) joined, through ``mask`` (4-neighbours), to one of
    its pixels in ``band`` (bool): the bare mat is what joins the mat's edges, a pale
    card amid cards or a clipped mat is left apart."""
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=4)
    reached = np.zeros(count, bool)
    reached[labels[band & mask]] = True
    out: np.ndarray = reached[labels] & mask
    return out


def channels_at_top(rectified: np.ndarray) -> np.ndarray:
    """Each channel of ``rectified`` (uint8) at the sensor's top (:data:`CLIP`): 255, else 0."""
    out: np.ndarray = cv2.threshold(rectified, CLIP - 1, 255, cv2.THRESH_BINARY)[1]
    return out


def at_top(channels: np.ndarray) -> np.ndarray:
    """How many of each pixel's channels are at the sensor's top, as OpenCV's grey of
    :func:`channels_at_top` (uint8): 0 where none is, 255 where all are (its weights sum
    to one exactly), between otherwise. One pass where splitting the channels and
    comparing them took four."""
    out: np.ndarray = cv2.cvtColor(channels, cv2.COLOR_BGR2GRAY)
    return out


def clipped(rectified: np.ndarray) -> np.ndarray:
    """bool, the pixels at the sensor's top in any channel (:data:`CLIP`)."""
    out: np.ndarray = at_top(channels_at_top(rectified)) > 0
    return out


def flatten(rectified: np.ndarray, spec: MatSpec, px_per_mm: float = PX_PER_MM,
            clipped_share: np.ndarray | None = None) -> Light:
    """Measure the light of the rectified mat (see the module's docs). When
    ``rectified`` is a reduced photo (where a pixel partly clipped no longer reaches
    :data:`CLIP`), ``clipped_share`` says how much of each of its pixels was clipped
    (float32, 0..1); a pixel mostly clipped is unknown."""
    h, w = rectified.shape[:2]
    share = (clipped(rectified).astype(np.float32) if clipped_share is None
             else np.asarray(clipped_share, np.float32))
    unknown = share >= 0.5
    size = (max(8, round(w / (_STEP_MM * px_per_mm))), max(8, round(h / (_STEP_MM * px_per_mm))))
    small = cv2.resize(rectified, size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
    known = cv2.resize(share, size, interpolation=cv2.INTER_AREA) < 0.5
    markers = marker_mask(spec, (size[1], size[0]), 1 / _STEP_MM, spec.marker_mm / 4 + 2)
    light, keep, surface = _light(small, known, markers)
    light_full = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    white = paper_white(rectified, light_full, spec, px_per_mm)
    # no mat is brighter than paper (a white cell clipped in a channel reads darker)
    mat_tone = np.minimum(1.0 / white if white is not None else 1.0,
                          1.0).astype(np.float32) * np.ones(3, np.float32)
    # the bare mat reads 1.0 over the light; paper white 1.0 over light * white
    ratio = rectified.astype(np.float32)
    ratio += 1.0
    ratio /= np.maximum(light_full, 1.0)
    # OpenCV's product with a per-channel scalar: numpy's broadcast over 3 is ten times slower
    flat = cv2.multiply(ratio, (*map(float, mat_tone), 0.0))
    rb, rg, rr = cv2.split(ratio)
    level = (rb + rg + rr) / 3
    tint = cv2.max(cv2.max(cv2.absdiff(rb, level), cv2.absdiff(rg, level)),
                   cv2.absdiff(rr, level)) / np.maximum(level, 1e-3)
    # the bare mat's own spread (paper texture, noise, JPEG): at the fitted pixels
    keep_full = cv2.resize(keep.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0
    keep_full &= ~unknown
    spread_level, spread_tint = _spread(level, keep_full), _spread(tint, keep_full)
    # the veil: light above the smooth surface, in paper-white units
    above = (light / np.maximum(surface, 1.0) - 1.0).mean(-1) * float(mat_tone.mean())
    veil = cv2.resize(np.maximum(above, 0).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_LINEAR)
    brighter = level > 1.0 + max(BRIGHTER, SPREAD * spread_level)
    unknown |= soft_bright(level, brighter, px_per_mm)
    quiet = marker_mask(spec, (h, w), px_per_mm, spec.marker_mm / 6 + 2)
    # brighter than the mat but no more coloured is a card only where no veil is: under
    # a veil it is the veil's brightening (cards there still show in their colours)
    mask = ((tint > max(TINT, SPREAD * spread_tint)) | (brighter & (veil < VEIL))
            | (level < 1.0 - max(DARKER, SPREAD * spread_level)))
    if not keep.any():  # the bare mat clipped: what is not clipped is not bare mat
        mask = np.ones_like(unknown)
    mask &= ~quiet & ~unknown
    edge = round(EDGE_MM * px_per_mm)  # the table shows there when the mat is bent
    mask[:edge], mask[-edge:], mask[:, :edge], mask[:, -edge:] = False, False, False, False
    # drop specks of noise, keep a card's printed frame (1 mm is 2 px)
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN,
                            np.ones((2, 2), np.uint8)).astype(bool)
    noise = float(mat_tone.mean()) * spread_level
    # where the bare mat is clipped its light is not measured (the top of the sensor is
    # divided out): paper white reads as the lamp tints it
    paper = (np.minimum(white, 1.0).astype(np.float32) if white is not None and not keep.any()
             else np.ones(3, np.float32))
    # a clipped mat shows no bare mat at all: what the card mask's opening and the mat's
    # edge leave out there is the rim of a clipped region and the edge, not paper
    bare = ~mask & ~unknown & ~quiet if keep.any() else np.zeros_like(mask)
    return Light(flat, mask, unknown, veil, mat_tone, noise, bare, paper)


def soft_bright(level: np.ndarray, brighter: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The brighter-than-mat regions whose edges are softer than any print's: glare.

    A printed edge, however blurred by the camera, rises within a few millimetres; light
    fades over many. Each region brighter than the mat is judged by the mean slope of
    its edge against how much brighter it is; one pass over the pixels, whatever their
    size (connected components and per-region sums)."""
    count, labels = cv2.connectedComponents(brighter.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros_like(brighter)
    smooth = cv2.GaussianBlur(level, (0, 0), px_per_mm / 2)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3) / 8 * px_per_mm
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3) / 8 * px_per_mm
    slope = cv2.magnitude(gx, gy)  # per mm
    inner = cv2.erode(brighter.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    edge = brighter & ~inner
    on_edge, inside = edge.ravel(), brighter.ravel()
    lab_edge, lab_inside = labels.ravel()[on_edge], labels.ravel()[inside]
    n_edge = np.bincount(lab_edge, minlength=count)
    s_edge = np.bincount(lab_edge, slope.ravel()[on_edge], minlength=count)
    area = np.bincount(lab_inside, minlength=count)
    excess = np.bincount(lab_inside, level.ravel()[inside] - 1.0, minlength=count)
    steep = (s_edge / np.maximum(n_edge, 1)) / np.maximum(excess / np.maximum(area, 1), 1e-3)
    soft = steep < STEEP
    soft[0] = False
    out: np.ndarray = soft[labels] & brighter
    return out


def _spread(values: np.ndarray, where: np.ndarray) -> float:
    """Robust standard deviation (1.4826 median absolute deviation) of ``values[where]``."""
    sample = values[where][::7]
    if sample.size < 20:
        return 0.0
    med = np.median(sample)
    return float(1.4826 * np.median(np.abs(sample - med)))
