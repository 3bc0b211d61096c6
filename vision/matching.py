"""Matching table cells against templates of straight-on card images.

A cell is compared in paper-white units (:mod:`vision.lighting`), blurred and sampled
at 2 mm, a few millimetres inside its edges, at a few shifts (cards lie a little off
where they should). The comparison is invariant to gain and offset: from every channel
of the cell and of each template the best plane (offset and tilt: a veil's brightening
over the cell) is removed, and what is left is compared as a unit vector, all channels
together: mean-removed normalised correlation (OpenCV's ``TM_CCOEFF_NORMED`` over three
channels) with a plane instead of a mean. Patterns weaker than the photo's own noise are
damped (:func:`distances`, ``eps2``), so a plain face matches a plain cell. Every cell
at every shift against every template is one matrix product.

Clipped pixels (unknown) are left out of the comparison, one by one. The templates
themselves are built and cached by :mod:`vision.templates`; Shoal's undamped
correlation of the same samples is :mod:`vision.correlation`'s.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision import lighting
from vision.blas import product
from vision.planes import deplane, deplane_weighted, over_channels

if TYPE_CHECKING:
    from vision.templates import Templates


FEATURE_PX_PER_MM = 1.0
BLUR_MM = 1.0
STEP = 2
"""Sample every STEP pixels of the 1 px/mm image."""
SHIFTS_MM = (-4, -2, 0, 2, 4)
FINE_MM = (-1, 0, 1)
"""Around the best of :data:`SHIFTS_MM`, the cell is matched again at these shifts."""
QUANTUM = 1 / 255
"""One grey level of an 8-bit photo in paper-white units: the least noise there is."""
FLOOR = 3.0
"""A pattern weaker than this many times the photo's noise (per sample) is damped."""


def window(box_mm: tuple[float, float], inset_mm: float) -> tuple[int, int]:
    """Width and height (feature pixels) of the compared window of a box."""
    return (round((box_mm[0] - 2 * inset_mm) * FEATURE_PX_PER_MM),
            round((box_mm[1] - 2 * inset_mm) * FEATURE_PX_PER_MM))


@cache
def plane_basis(ww: int, wh: int, step: int = STEP) -> np.ndarray:
    """Orthonormal basis (n x 3) of offset and tilt over the window sampled every
    ``step`` pixels."""
    ys, xs = np.mgrid[0:wh:step, 0:ww:step].astype(np.float64)
    basis = np.stack([np.ones(xs.size), xs.ravel() - xs.mean(), ys.ravel() - ys.mean()], 1)
    q, _ = np.linalg.qr(basis)
    out: np.ndarray = q.astype(np.float32)
    return out


@cache
def _per_channel_f64(ww: int, wh: int, c: int) -> np.ndarray:
    """:func:`vision.planes.per_channel` of :func:`plane_basis` in double precision."""
    out: np.ndarray = np.kron(plane_basis(ww, wh).astype(np.float64), np.eye(c))
    return out


def prepare(flat: np.ndarray, px_per_mm: float, blur_mm: float = BLUR_MM) -> np.ndarray:
    """A rectified image (float) at the feature resolution, blurred ``blur_mm``."""
    scale = FEATURE_PX_PER_MM / px_per_mm
    small = cv2.resize(flat, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    out: np.ndarray = cv2.GaussianBlur(small, (0, 0), blur_mm * FEATURE_PX_PER_MM)
    return out


CONTRAST_MM = 2.0
"""Scale of :func:`local_contrast`: about a printed line's width and a fish's fin, well under
a fish or a section, so the print's strokes are kept and a reflection's falloff is not."""


def local_contrast(small: np.ndarray, sigma_mm: float = CONTRAST_MM) -> np.ndarray:
    """``small`` (feature resolution, c channels) less its local mean, over its local
    contrast (the root mean square of what is left, over the channels together, both
    Gaussian over ``sigma_mm``; one grey level the least: :data:`QUANTUM`).

    A lamp's reflection on a glossy card adds light that changes across the card and
    compresses the print's contrast where it is bright; a plane removed per window
    leaves its falloff as most of what is compared. Here each place keeps its strokes at
    the contrast its neighbourhood shows, so a washed-out card's faint outlines count as
    much as a clear card's, and colour survives in the steps between colours."""
    sigma = sigma_mm * FEATURE_PX_PER_MM
    image = small if small.ndim == 3 else small[:, :, None]
    detail = image - cv2.GaussianBlur(image, (0, 0), sigma,
                                      borderType=cv2.BORDER_REPLICATE).reshape(image.shape)
    square = np.einsum("hwc,hwc->hw", detail, detail) / image.shape[2]  # faster than .mean
    power = cv2.GaussianBlur(square, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    out: np.ndarray = detail / np.sqrt(power + QUANTUM ** 2)[:, :, None]
    return out if small.ndim == 3 else out[:, :, 0]


def _reach(corners_mm: np.ndarray, inset_mm: float, shifts: tuple[int, ...]
           ) -> tuple[np.ndarray, int, int]:
    """Where each box's region starts (K x 2 feature pixels: its window at the least
    shift), how much wider than the window the shifts make it, and their spacing (px)."""
    d = np.round(np.asarray(shifts, float) * FEATURE_PX_PER_MM).astype(np.intp)
    step = int(d[1] - d[0]) if len(d) > 1 else STEP
    tl = np.round((np.asarray(corners_mm, float) + inset_mm) * FEATURE_PX_PER_MM
                  ).astype(np.intp) + int(d.min())
    return tl, int(d.max() - d.min()), step


def _regions(small: np.ndarray, corners_mm: np.ndarray, box_mm: tuple[float, float],
             inset_mm: float, shifts: tuple[int, ...], outside: np.ndarray | float
             ) -> tuple[np.ndarray, int, int]:
    """Each box's region, wide enough for every shift, cut out once (K x h x w x c; off the
    image reads ``outside``), with the shifts' spacing and the samples' in it (pixels of
    the region). When the shifts fall on the sampling grid (a multiple of :data:`STEP`
    apart) only the grid's pixels are cut out, so every window's rows lie whole in memory.
    The boxes wholly on the image are cut out together (one gather from a view of every
    region of the image), the rest one by one."""
    ww, wh = window(box_mm, inset_mm)
    tl, span, step = _reach(corners_mm, inset_mm, shifts)
    image = small if small.ndim == 3 else small[:, :, None]
    h, w, c = image.shape
    rh, rw = wh + span, ww + span
    grid = STEP if step % STEP == 0 else 1  # pixels kept of the region, every grid-th
    inside = (tl >= 0).all(1) & (tl[:, 0] + rw <= w) & (tl[:, 1] + rh <= h)
    if inside.any():  # every region of the image (rows x columns of them) as a view
        views = np.lib.stride_tricks.sliding_window_view(image, (rh, rw), axis=(0, 1))
        views = views.transpose(0, 1, 3, 4, 2)[:, :, ::grid, ::grid]
        if inside.all():
            whole: np.ndarray = np.asarray(views[tl[:, 1], tl[:, 0]], np.float32)
            return whole, step // grid, STEP // grid
    regions = np.empty((len(tl), -(-rh // grid), -(-rw // grid), c), np.float32)
    if inside.any():
        regions[inside] = views[tl[inside, 1], tl[inside, 0]]
    for k in np.flatnonzero(~inside):  # partly off the image
        x, y = tl[k]
        region = np.full((rh, rw, c), outside, np.float32)
        xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + rw, w), min(y + rh, h)
        if xa < xb and ya < yb:
            region[ya - y:yb - y, xa - x:xb - x] = image[ya:yb, xa:xb]
        regions[k] = region[::grid, ::grid]
    return regions, step // grid, STEP // grid


def _windows(regions: np.ndarray, spacing: int, stride: int, count: int,
             size: tuple[int, int]) -> np.ndarray:
    """The ``count`` x ``count`` windows of ``size`` samples (rows, columns) of each
    region, ``spacing`` apart, a sample every ``stride`` pixels: K*S x n x c.

    Each window is copied from the region's sub-grid of its phase (every ``stride``-th
    pixel from its offset), whose rows lie whole in memory: a copy of whole rows, not of
    one pixel's channels at a time."""
    k, c = len(regions), regions.shape[3]
    rows, cols = size
    out = np.empty((k, count, count, rows, cols, c), regions.dtype)
    grids: dict[tuple[int, int], np.ndarray] = {}
    for i in range(count):
        for j in range(count):
            y, x = i * spacing, j * spacing
            phase = (y % stride, x % stride)
            if phase not in grids:
                grids[phase] = np.ascontiguousarray(regions[:, phase[0]::stride,
                                                            phase[1]::stride])
            y, x = y // stride, x // stride
            out[:, i, j] = grids[phase][:, y:y + rows, x:x + cols]
    return out.reshape(k * count * count, rows * cols, c)


def _grid_size(box_mm: tuple[float, float], inset_mm: float) -> tuple[int, int]:
    """Samples of a box's window: rows, columns."""
    ww, wh = window(box_mm, inset_mm)
    return -(-wh // STEP), -(-ww // STEP)


def sample(small: np.ndarray, corners_mm: np.ndarray, box_mm: tuple[float, float],
           inset_mm: float, shifts: tuple[int, ...] = SHIFTS_MM,
           outside: np.ndarray | float = 1.0) -> np.ndarray:
    """Samples of the boxes with top-left ``corners_mm`` (K x 2, rectified mm), at every
    shift (dy major, dx minor; ``shifts`` evenly spaced): K*S x n (x channels); off the
    image reads ``outside``.

    Each box's region, wide enough for every shift, is cut out once; the shifted windows
    are views of it."""
    regions, spacing, stride = _regions(small, corners_mm, box_mm, inset_mm, shifts, outside)
    out = _windows(regions, spacing, stride, len(shifts), _grid_size(box_mm, inset_mm))
    return out if small.ndim == 3 else out[:, :, 0]


def floors(flat_small: np.ndarray, bare: np.ndarray) -> tuple[float, float]:
    """What the bare mat (``bare``, bool) says of the photo's noise, paper-white units:

    - per sample, what is left of it at the feature resolution once its smooth light
      (over 4 mm, of the bare mat alone: neither the cards beside it nor clipped pixels
      lean on it) is taken away (one grey level at least);
    - in colour, how far that smooth light's colour strays from itself across the photo:
      what is left of casts and uneven light once divided out (1 % at least).

    Only the bare mat joined to the photo's border counts: amid a mat the light clips,
    a pale card of the mat's colour is left isolated, and its print is no noise."""
    border = np.ones_like(bare, dtype=bool)
    border[1:-1, 1:-1] = False
    where = np.flatnonzero(lighting.joined(np.asarray(bare, bool), border))
    if len(where) < 50:
        return QUANTUM, 0.01
    where = where[::5]  # neighbours are alike (blurred): a fifth of them will do
    c = flat_small.shape[2] if flat_small.ndim == 3 else 1
    weight = bare.astype(np.float32)
    sigma = 4 * FEATURE_PX_PER_MM
    # the bare mat's pixels alone (OpenCV's masked copy: numpy's product over 3 is slower)
    lit = cv2.GaussianBlur(cv2.copyTo(flat_small, bare.astype(np.uint8)), (0, 0),
                           sigma).reshape(-1, c)[where]
    wide = lit / cv2.GaussianBlur(weight, (0, 0), sigma).reshape(-1, 1)[where]
    hp = np.abs(flat_small.reshape(-1, c)[where] - wide)
    noise = max(QUANTUM, float(1.4826 * np.median(hp)))
    values = wide - wide.mean(-1, keepdims=True)
    dev = np.abs(values - np.median(values, 0)).ravel()
    return noise, max(0.01, float(1.4826 * np.median(dev)))


def colour_misfit(means: np.ndarray, templates: Templates, mat: np.ndarray) -> np.ndarray:
    """How far each box's mean colour (K x 3, or K x N x 3: its colour where each template
    matches) is from each template's (K x N) once the template may be darkened or
    brightened (a gain) and veiled (the same offset in every channel): the residual of
    that fit. The bare mat's colour is the one measured.

    The offset takes each colour's mean over its channels, the gain the part of what is
    left along the template's (a grey template: none), so only differences of channels
    are ever subtracted (no cancellation of large sums in float32)."""
    t = np.where(np.isnan(templates.means), mat[None, :], templates.means).astype(np.float64)
    tc = t - t.mean(1, keepdims=True)
    mc = means.astype(np.float64) - means.mean(-1, keepdims=True)
    tt = (tc * tc).sum(1)[None, :]
    if mc.ndim == 3:
        mt = np.einsum("knc,nc->kn", mc, tc)
        mm = (mc * mc).sum(-1)
    else:
        mt = product(mc, tc.T)
        mm = (mc * mc).sum(1)[:, None]
    along = np.where(tt > 1e-12, mt * mt / np.maximum(tt, 1e-12), 0.0)
    out: np.ndarray = np.maximum(mm - along, 0.0)
    return out


def distances(samples: np.ndarray, templates: Templates, noise: float,
              weight: np.ndarray | None = None,
              contrast: np.ndarray | None = None) -> np.ndarray:
    """Distance (0 alike .. 4 opposite) of every sample (M x n x 3, from :func:`sample`)
    to every template (M x N): both made unit vectors after their planes are removed,
    damped when weaker than :data:`FLOOR` times ``noise`` plus the templates' wear;
    ``weight`` (M x n, 0 for clipped samples; or M x n x 3, each channel's) leaves
    pixels out. ``contrast`` (M, 0..1; 1 unless given) is the share of its light that
    each sample's print is: what a photo does to a print (the wear) is as faint as the
    print shows, while the photo's noise is not (a veil lowers both pattern and wear)."""
    ww, wh = window(templates.box_mm, templates.inset_mm)
    q = plane_basis(ww, wh)
    m, n = samples.shape[:2]
    t = templates.features
    share = np.ones((m, 1)) if contrast is None else np.asarray(contrast, np.float64)[:, None] ** 2
    eps2 = n * 3 * ((FLOOR * noise) ** 2 + share * templates.wear)
    tt = (t * t).sum(1)[None, :]
    part = _partly(weight)
    d = np.empty((m, len(t)))
    # the templates hold no plane, so a sample's plane adds nothing to its products with
    # them, and what removing it leaves of the sample's square is the square less the
    # plane's part (Pythagoras): no sample seen whole need have its plane removed (the
    # boxes partly clipped are compared below, and only below)
    rest = np.ones(m, bool)
    rest[part] = False
    rows = np.flatnonzero(rest) if part.size else slice(None)
    flat = np.ascontiguousarray(samples[rows], np.float32)
    flat = flat.reshape(len(flat), samples[0].size)
    if len(flat):
        whole = flat.astype(np.float64)
        coef = product(whole, _per_channel_f64(ww, wh, samples.shape[2]), False)
        pp = np.maximum(np.einsum("md,md->m", whole, whole) - (coef * coef).sum(1), 0.0)
        d[rows] = _unit_distance(pp[:, None], product(flat, t.T), tt, eps2[rows])
    if part.size:  # partly clipped: the plane fitted to, and compared over, what shows
        assert weight is not None
        w = weight[part]
        p = deplane_weighted(samples[part], w, q).reshape(len(part), -1)
        w3 = (np.repeat(w, 3, axis=1) if w.ndim == 2 else w).reshape(len(part), -1)
        w3 = w3.astype(np.float32)
        d[part] = _unit_distance((p * p).sum(1)[:, None], product(p, t.T),
                                 product(w3, (t * t).T),
                                 eps2[part] * np.maximum(w3.mean(1), 1e-3)[:, None])
    return d


def _partly(weight: np.ndarray | None) -> np.ndarray:
    """The rows of ``weight`` (M x n or M x n x c, from :func:`known_samples`) partly clipped:
    some sample unknown, but at least a quarter known (a box mostly clipped is compared
    over all of it: what there is)."""
    if weight is None:
        return np.zeros(0, np.intp)
    flat = weight.reshape(len(weight), -1)
    some = np.flatnonzero(~flat.all(1))
    out: np.ndarray = some[np.count_nonzero(flat[some], 1) >= 0.25 * flat.shape[1]]
    return out


def _unit_distance(pp: np.ndarray, pt: np.ndarray, tt: np.ndarray,
                   eps2: float | np.ndarray) -> np.ndarray:
    """:func:`distances` from the squares and products of samples and templates."""
    npp, ntt = np.sqrt(pp + eps2), np.sqrt(tt + eps2)
    d: np.ndarray = pp / (npp * npp) + tt / (ntt * ntt) - 2 * pt / (npp * ntt)
    return np.maximum(d, 0.0)


def best_shift(d: np.ndarray, shifts: int) -> tuple[np.ndarray, np.ndarray]:
    """Per cell (rows of ``d`` are cells x shifts), each template's distance at its best
    shift (K x N), and that shift's index."""
    k = d.shape[0] // shifts
    cube = d.reshape(k, shifts, -1)
    idx = cube.argmin(1)
    return np.take_along_axis(cube, idx[:, None, :], 1)[:, 0, :], idx


def window_means(samples: np.ndarray, weight: np.ndarray | None, k: int) -> np.ndarray:
    """Mean colour (K x S x 3) of each box's window at each of S shifts (``samples`` K*S x
    n x 3, as :func:`sample`), over its known samples (``weight``; all of them when fewer
    than a quarter are known), as :func:`box_means`. The sums are products with a
    channel-summing matrix (numpy's sums over the middle axis are slower)."""
    m, n, c = samples.shape
    total = _channel_sums(n, c)
    flat = samples.reshape(m, n * c)
    out: np.ndarray = product(flat, total, False) / n
    part = (np.zeros(0, np.intp) if weight is None
            else np.flatnonzero(~weight.reshape(len(weight), -1).all(1)))
    if part.size:
        assert weight is not None
        rows = part if len(part) < len(weight) else slice(None)  # no copies when all are
        seen = (over_channels(weight[rows], c) if weight.ndim == 2
                else weight[rows].reshape(len(part), n * c)).astype(np.float32)
        count = product(seen, total, False)
        means = product(flat[rows] * seen, total, False) / np.maximum(count, 1.0)
        out[rows] = np.where(count >= 0.25 * n, means, out[rows])
    return out.reshape(k, -1, c)


@cache
def _channel_sums(n: int, c: int) -> np.ndarray:
    """n*c x c: the product of samples flattened with their ``c`` channels with it sums
    each channel over the ``n`` samples."""
    out: np.ndarray = np.kron(np.ones((n, 1), np.float32), np.eye(c, dtype=np.float32))
    return out


def match(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
          templates: Templates, noise: float, outside: np.ndarray,
          colour_noise: float = 0.01) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every box (top-left ``corners_mm``, K x 2) against every template, each template
    at its own best shift: distances there (K x N), the shift (dx, dy mm) of the best
    template (K x 2), and each box's mean colour at each template's shift (K x N x 3).

    First at :data:`SHIFTS_MM` (every cell, every shift, one product), then at
    :data:`FINE_MM` around the best of those. The pattern's distance is added the
    colour's (:func:`colour_misfit`, over :data:`FLOOR` times ``colour_noise``, the
    outside colour ``outside`` being the mat's), each template's colour measured where
    it matches (a card off its place shows the mat beside it at another template's
    shift): plain faces differ only in colour."""
    box, inset = templates.box_mm, templates.inset_mm
    k = len(corners_mm)
    coarse = np.array([(dx, dy) for dy in SHIFTS_MM for dx in SHIFTS_MM], float)
    samples = sample(small, corners_mm, box, inset, outside=outside)
    weight = known_samples(known, corners_mm, box, inset, SHIFTS_MM, whole=False)
    dist, idx = best_shift(distances(samples, templates, noise, weight), len(coarse))
    rows = np.arange(k)[:, None]
    means = window_means(samples, weight, k)[rows, idx]
    first = coarse[idx[np.arange(k), dist.argmin(1)]]
    fine = np.array([(dx, dy) for dy in FINE_MM for dx in FINE_MM if dx or dy], float)
    centres = np.asarray(corners_mm, float) + first
    moved = (centres[:, None, :] + fine[None]).reshape(-1, 2)
    more = sample(small, moved, box, inset, (0,), outside=outside)
    more_w = known_samples(known, moved, box, inset, (0,), whole=False)
    near, nidx = best_shift(distances(more, templates, noise, more_w), len(fine))
    better = near < dist
    dist = np.where(better, near, dist)
    means = np.where(better[:, :, None], window_means(more, more_w, k)[rows, nidx], means)
    best = dist.argmin(1)
    shift = first + np.where(better[np.arange(k), best][:, None],
                             fine[nidx[np.arange(k), best]], 0.0)
    misfit = colour_misfit(means, templates, np.asarray(outside, np.float32))
    dist = dist + misfit / (3 * (FLOOR * colour_noise) ** 2)
    return dist, shift, means


def box_means(small: np.ndarray, known: np.ndarray, corners_mm: np.ndarray,
              templates: Templates, outside: np.ndarray | float) -> np.ndarray:
    """Mean colour (K x 3) of each box (top-left ``corners_mm``) over its known samples
    (all of them when fewer than a quarter are known), as :func:`match` compares it."""
    box, inset = templates.box_mm, templates.inset_mm
    final = sample(small, corners_mm, box, inset, (0,), outside=outside)
    seen = sample(known, corners_mm, box, inset, (0,), outside=1.0) > 0.5
    seen = np.where(seen.mean(1, keepdims=True) < 0.25, True, seen)
    if seen.ndim == 2:
        seen = seen[:, :, None]
    out: np.ndarray = (final * seen).sum(1) / seen.sum(1)
    return out


def known_samples(known: np.ndarray, corners_mm: np.ndarray, box_mm: tuple[float, float],
           inset_mm: float, shifts: tuple[int, ...], whole: bool = True) -> np.ndarray | None:
    """Which samples of each box at each shift (as :func:`sample`) are known (``known``
    above 0.5: not clipped), M*S x n (x c for a ``known`` of c channels, each channel's
    own), as ``sample(known, ...) > 0.5`` says; ``None`` when
    nothing is clipped (with ``whole``, also when no box has a clipped pixel in reach).
    Only the boxes with a clipped pixel in reach are cut out window by window."""
    table = _clipped_table(known)
    if table is None:
        return None
    ww, wh = window(box_mm, inset_mm)
    tl, span, _ = _reach(corners_mm, inset_mm, shifts)
    h, w = known.shape[:2]
    x0, y0 = np.clip(tl[:, 0], 0, w), np.clip(tl[:, 1], 0, h)
    x1, y1 = np.clip(tl[:, 0] + ww + span, 0, w), np.clip(tl[:, 1] + wh + span, 0, h)
    hit = np.flatnonzero(table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0] > 0)
    if whole and not hit.size:
        return None
    size = _grid_size(box_mm, inset_mm)
    count = len(shifts) ** 2
    out = np.ones((len(tl), count, size[0] * size[1], *known.shape[2:]), bool)
    if hit.size:
        regions, spacing, stride = _regions(known, np.asarray(corners_mm, float)[hit],
                                            box_mm, inset_mm, shifts, 1.0)
        windows = _windows(regions > 0.5, spacing, stride, len(shifts), size)
        out[hit] = windows.reshape(len(hit), count, *out.shape[2:])
    return out.reshape(len(tl) * count, *out.shape[2:])


_LAST_TABLE: tuple[np.ndarray, np.ndarray | None] | None = None


def _clipped_table(known: np.ndarray) -> np.ndarray | None:
    """The summed table of ``known``'s clipped pixels (in any channel), ``None`` when none
    is. The last read-only image's is kept (nothing changes it): a Shoal read asks for
    it some twenty times, of one image made read-only once per photo."""
    global _LAST_TABLE
    last = _LAST_TABLE
    if last is not None and last[0] is known:
        return last[1]
    table = None
    if known.min() <= 0.5:
        every = (np.minimum(np.minimum(known[:, :, 0], known[:, :, 1]), known[:, :, 2])
                 if known.ndim == 3 else known)  # known in every channel
        table = cv2.integral((every <= 0.5).astype(np.uint8))
    if not known.flags.writeable:
        _LAST_TABLE = (known, table)
    return table


def veil(small: np.ndarray, corners_mm: np.ndarray, templates: Templates,
         best: np.ndarray) -> np.ndarray:
    """How much brighter (paper-white units, K) each box is than its best template
    (``best``, K indices) would be at the contrast it shows: a veil brightens and lowers
    contrast; a wrong light only scales. NaN for the bare mat."""
    box, inset = templates.box_mm, templates.inset_mm
    ww, wh = window(box, inset)
    raw = sample(small, corners_mm, box, inset, (0,))
    flat = deplane(raw, plane_basis(ww, wh)).reshape(len(raw), -1)
    t = templates.features[best]
    gain = (flat * t).sum(1) / np.maximum((t * t).sum(1), 1e-9)
    out: np.ndarray = (raw.mean(1) - gain[:, None] * templates.means[best]).mean(1)
    return out
