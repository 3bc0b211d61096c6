"""Where a Tokyo Poo Divers layout lies on the mat, found from the cards' outlines.

Nothing here asks what colour the mat is (a bright white mat whose bare paper clips
cannot be told from a white card by colour, nor a dark card from a grey mat by a fixed
difference): a card is a rectangle of the faces file's card size whose sides are steps
in the photo (:func:`outline`), whatever the colours on either side. The clearest of
them are the cards; they lie on a lattice: its pitch along each axis is the one on which
their positions agree best (their phases), the layout's shape then slides over the
lattice to where it holds the most of them, less the places it would lay on bare mat
(an outline below what the candidates off the lattice score: cards washed out at one
edge of the layout hold little, and the bare mat beyond the other must not win) or where
no card may lie (over the mat's edge or a marker, or off the photo: as bare mat), and
the grid's origin and pitch are fitted to the cards it holds. The pitch is sought
from the card's size up to the widest at which the whole layout still lies on the mat
(however far apart the cards are laid).
Every weight is measured in the photo: a card counts by how far its outline stands
above the median of twice as many candidates as the layout has cards (so at least half
of them are not cards), and no more than the second sharpest does (one outline far
sharper than every other is no card's: the edge of a lamp's reflection, nine times
sharper than the next, once set the lattice's pitch on its own, half a millimetre off,
and a layout nine cards across slid a column off its cards); it is seen, for the check
that the layout fits the cards, when it stands above what the candidates off the
lattice (no card) score. A layout is refused when more of its cards lie outside the
span of those seen than one of its lines holds (a heart's pale tip may not show; a
larger layout than the cards on the mat is the wrong one).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import VisionError
from vision.matching import FEATURE_PX_PER_MM


@dataclass(frozen=True)
class Grid:
    """The layout's card cells: top-left of cell (c, r) at (x0 + c * px, y0 + r * py) mm
    of the rectified mat."""

    x0: float
    y0: float
    px: float
    py: float


def peaks(score: np.ndarray, size: tuple[int, int], keep: np.ndarray, most: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """The ``most`` best local maxima of ``score`` at least half a card (``size``, px)
    apart, where ``keep``: positions (N x 2, px) and scores, best first."""
    kernel = np.ones((max(1, size[1] // 2) | 1, max(1, size[0] // 2) | 1), np.uint8)
    top = cv2.dilate(score, kernel)
    ys, xs = np.nonzero((score >= top) & keep & (score > 0))
    values = score[ys, xs]
    order = np.argsort(-values)[:most]
    return np.stack([xs[order], ys[order]], 1).astype(float), values[order]


def widest(mat_mm: float, size: float, cards: int) -> float:
    """The largest pitch at which ``cards`` cards of ``size`` in a line fit in
    ``mat_mm``."""
    return max(size + 0.05, (mat_mm - size) / max(cards - 1, 1))


def pitch(coords: np.ndarray, weights: np.ndarray, size: float, most: float
          ) -> tuple[float, float]:
    """The period (between ``size`` and ``most``, to 0.05 mm) on which the ``coords``
    agree best, and their phase (the lattice's offset, 0..period).

    Sought coarse, then fine around the best: over a span S the agreement falls by half
    within about P^2 / 4S of the right period P, so steps of an eighth of that at the
    smallest period never step over it."""
    step = max(0.05, size * size / (8 * max(float(np.ptp(coords)), size)))
    best = _agreement(coords, weights, np.arange(size, most, step))
    fine = size + 0.05 * np.arange(max(0, int((best[0] - step - size) / 0.05)),
                                   int((best[0] + step - size) / 0.05) + 2)
    fine = fine[fine < most]
    return _agreement(coords, weights, fine) if fine.size else best


def _agreement(coords: np.ndarray, weights: np.ndarray, periods: np.ndarray
               ) -> tuple[float, float]:
    """Of ``periods``, the one on which the ``coords`` agree best, and their phase."""
    phase = np.exp(2j * np.pi * coords[None, :] / periods[:, None]) @ weights
    k = int(np.abs(phase).argmax())
    return float(periods[k]), float(np.angle(phase[k]) / (2 * np.pi) * periods[k]) % periods[k]


def _along(edge: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Mean of ``edge`` over ``length`` pixels from each position along ``axis``."""
    run = np.cumsum(np.pad(edge, ((1, 0), (0, 0)) if axis == 0 else ((0, 0), (1, 0))),
                    axis, dtype=np.float64)
    if axis == 0:
        out = (run[length:] - run[:-length]) / length
    else:
        out = (run[:, length:] - run[:, :-length]) / length
    f32: np.ndarray = out.astype(np.float32)
    return f32


def outline(small: np.ndarray, card_mm: tuple[float, float]) -> np.ndarray:
    """How much every position (a card's top-left, 1 mm apart) is the outline of a card:
    the edge strength along each of the card's four sides (a step across it, in any
    channel), the middle two of the four averaged, so a card of any colour on a mat of
    any colour, even beside a card of its own colour on one side, counts; the mat beside
    a card (one side only) does not."""
    gx = np.abs(cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3))
    if gx.ndim == 3:  # the channels summed (cv2.transform: numpy's sum over 3 is slow)
        every = np.ones((1, gx.shape[2]), np.float32)
        gx, gy = cv2.transform(gx, every), cv2.transform(gy, every)
    # a card a little turned: its side wanders by a pixel or two over its length
    gx = cv2.dilate(gx, np.ones((1, 3), np.uint8))
    gy = cv2.dilate(gy, np.ones((3, 1), np.uint8))
    w, h = (round(v * FEATURE_PX_PER_MM) for v in card_mm)
    upright = _along(gx, h, 0)   # [y, x]: the side from (x, y) down
    level = _along(gy, w, 1)     # [y, x]: the side from (x, y) rightwards
    n_y = min(upright.shape[0], level.shape[0] - h)
    n_x = min(upright.shape[1] - w, level.shape[1])
    a, b = upright[:n_y, :n_x], upright[:n_y, w:w + n_x]
    c, d = level[:n_y, :n_x], level[h:h + n_y, :n_x]
    # the middle two of four: all four less the least and the most
    least = np.minimum(np.minimum(a, b), np.minimum(c, d))
    most = np.maximum(np.maximum(a, b), np.maximum(c, d))
    out: np.ndarray = ((a + b + c + d - least - most) / 2).astype(np.float32)
    return out


def find_grid(small: np.ndarray, card_mm: tuple[float, float], rows: tuple[str, ...],
              keep: np.ndarray) -> Grid:
    """The grid of the layout ``rows`` ("#" card) of cards ``card_mm`` on the mat image
    ``small`` (1 px/mm, :func:`vision.matching.prepare`); ``keep`` (same size, bool) is
    where a card's centre may lie (not on the markers, not at the mat's edge)."""
    cw, ch = card_mm
    if small.shape[0] <= ch * FEATURE_PX_PER_MM or small.shape[1] <= cw * FEATURE_PX_PER_MM:
        raise VisionError("the mat is smaller than one card of these faces: is this the "
                          "right mat.json and faces file?")
    score = outline(small, (cw, ch))
    size = (round(cw * FEATURE_PX_PER_MM), round(ch * FEATURE_PX_PER_MM))
    where = keep[size[1] // 2:, size[0] // 2:][:score.shape[0], :score.shape[1]]
    cells = sum(line.count("#") for line in rows)
    at, value = peaks(score, size, where, 2 * cells)
    if len(at) < 3:
        raise VisionError("no cards found on the mat: are the cards on the mat and the "
                          "faces file the right one?")
    mm = at / FEATURE_PX_PER_MM  # the cards' top-left corners
    w = np.maximum(value - np.median(value), 0.0)
    # one outline far sharper than every other (a reflection's edge) would set the
    # lattice on its own: none counts for more than the second sharpest
    if len(w) > 1:
        w = np.minimum(w, np.partition(w, -2)[-2])
    mat_h, mat_w = (n / FEATURE_PX_PER_MM for n in small.shape[:2])
    px, fx = pitch(mm[:, 0], w, cw, widest(mat_w, cw, len(rows[0])))
    py, fy = pitch(mm[:, 1], w, ch, widest(mat_h, ch, len(rows)))
    col = np.round((mm[:, 0] - fx) / px).astype(int)
    row = np.round((mm[:, 1] - fy) / py).astype(int)
    near = (np.abs(mm[:, 0] - fx - col * px) < 0.25 * px) \
        & (np.abs(mm[:, 1] - fy - row * py) < 0.25 * py)
    if near.sum() < 2:
        raise VisionError("no cards found on the mat: are the cards on the mat and the "
                          "faces file the right one?")
    # a card is seen when its outline stands above what the candidates off the lattice
    # (no card) score in this photo
    off = value[~near]
    seen = value[near] > (np.median(off) if off.size else np.median(value))
    col, row, w, mm = col[near], row[near], w[near], mm[near]
    # slide the layout's shape over the lattice to where it holds the most peak weight,
    # less what it lays on lattice places whose outline is below what no card scores
    # (bare mat: a layout slid a line off its cards, onto the mat, loses by it)
    c0, r0 = col.min() - len(rows[0]), row.min() - len(rows)
    held = np.zeros((row.max() - r0 + 1, col.max() - c0 + 1))
    np.add.at(held, (row - r0, col - c0), w)
    held = np.pad(held, ((0, len(rows)), (0, len(rows[0]))))
    floor = float(np.median(off)) if off.size else float(np.median(value))
    held -= _bare(score, where, fx + c0 * px, fy + r0 * py, px, py, held.shape, floor)
    shape = np.array([[m == "#" for m in line] for line in rows], np.float32)
    fit = cv2.filter2D(held.astype(np.float32), -1, shape, anchor=(0, 0),
                       borderType=cv2.BORDER_CONSTANT)
    b, a = np.unravel_index(int(fit.argmax()), fit.shape)
    c, r = col - c0 - a, row - r0 - b
    inside = (c >= 0) & (r >= 0) & (c < len(rows[0])) & (r < len(rows))
    inside[inside] = shape[r[inside], c[inside]] > 0
    if inside.sum() < 2:
        raise VisionError("no cards found on the mat: are the cards on the mat and the "
                          "faces file the right one?")
    check_span(c, r, seen, rows, (cw, ch))
    gx = _fit(c[inside], mm[inside, 0], w[inside], px)
    gy = _fit(r[inside], mm[inside, 1], w[inside], py)
    return Grid(gx[0], gy[0], gx[1], gy[1])


def _bare(score: np.ndarray, where: np.ndarray, x0: float, y0: float, px: float,
          py: float, shape: tuple[int, ...], floor: float) -> np.ndarray:
    """How far below ``floor`` the outline ``score`` (1 px/mm) falls at each lattice
    place (row, col; place (0, 0) at ``x0``, ``y0`` mm), its best within a quarter pitch
    (a card lies a little off its place, as the peaks held may); ``floor`` itself where
    no card may lie (off the image, or off ``where``: over the mat's edge or a marker),
    as if no outline showed there: a layout slid off its cards, over the mat's edge,
    loses by it as it does onto bare mat."""
    reach = (2, 2)
    score = cv2.dilate(score, np.ones((2 * reach[1] + 1, 2 * reach[0] + 1), np.uint8))
    rr, cc = np.mgrid[:shape[0], :shape[1]]
    x = np.round((x0 + cc * px) * FEATURE_PX_PER_MM).astype(int)
    y = np.round((y0 + rr * py) * FEATURE_PX_PER_MM).astype(int)
    on = (x >= 0) & (y >= 0) & (x < where.shape[1]) & (y < where.shape[0])
    on[on] = where[y[on], x[on]]
    out = np.full(shape, floor)
    out[on] = np.maximum(floor - score[y[on], x[on]], 0.0)
    return out


def _fit(index: np.ndarray, pos: np.ndarray, w: np.ndarray, period: float
         ) -> tuple[float, float]:
    """Origin and period of ``pos = origin + index * period`` (weighted least squares;
    the period kept when the peaks span one index)."""
    if np.ptp(index) == 0:
        return float(np.average(pos - index * period, weights=w + 1e-9)), period
    a = np.stack([np.ones_like(pos), index.astype(float)], 1) * np.sqrt(w + 1e-9)[:, None]
    (origin, step), *_ = np.linalg.lstsq(a, pos * np.sqrt(w + 1e-9), rcond=None)
    return float(origin), float(step)


def check_span(col: np.ndarray, row: np.ndarray, seen: np.ndarray,
               rows: tuple[str, ...], card_mm: tuple[float, float]) -> None:
    """Refuse a layout of which more cards lie outside the span of the cards seen on the
    mat (``col``, ``row``: their places in the layout) than one of its lines holds: a
    line of cards may not show (white on white, or a heart's pale tip), a layout larger
    than the cards on the mat by more is the wrong layout. Public as the layout check
    of its own: which cards count as seen is :func:`find_grid`'s to measure, what a
    layout lets go unseen this function's (and its refusals' words are tested here,
    with cards no photo makes on purpose, such as none seen at all)."""
    shape = np.array([[m == "#" for m in line] for line in rows])
    if not seen.any():  # no outline on the lattice stands out from those off it
        raise VisionError("no cards found on the mat: are the cards on the mat and the "
                          "faces file the right one?")
    c, r = col[seen], row[seen]
    c0, c1 = max(int(c.min()), 0), min(int(c.max()), shape.shape[1] - 1)
    r0, r1 = max(int(r.min()), 0), min(int(r.max()), shape.shape[0] - 1)
    outside = int(shape.sum()) - int(shape[r0:r1 + 1, c0:c1 + 1].sum())
    line = int(max(shape.sum(0).max(), shape.sum(1).max()))
    if outside > line:
        ncols, nrows = len(rows[0]), len(rows)
        raise VisionError(
            f"the cards on the mat lie {c1 - c0 + 1} x {r1 - r0 + 1} cards wide and tall, "
            f"which does not fit a layout of {ncols} x {nrows} cards of {card_mm[0]:g} x "
            f"{card_mm[1]:g} mm: is it the right layout, and nothing else on the mat?")
