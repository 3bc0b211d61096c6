"""A mat seen by two of its markers: the paper's edges fix what two markers leave loose.

Two markers' eight corners fix a homography exactly, but from two small squares: a
fraction of a pixel of error at their corners moves the far side of the mat by
millimetres (docs/vision.md, "Both readers on the held-out sets, 5 December
(evening)"). When ``mat.json`` gives the paper's size (``size_mm``), the paper's edges
are long straight lines in the photo, seen wherever the frame does not cut them: each
edge is sought across the line where the two markers put it, as the strongest step in
colour (the paper against whatever it lies on, brighter or darker), a line is fitted
through what is found, and the homography is solved again from the markers' corners
and every point found on an edge (a point on an edge only says how far it lies across
the edge: one equation, where a corner gives two). This is done twice, the second time
in a band around where the first fit put each edge.

Nothing here is a constant of a mat or a table: the band sought across an edge is as
wide as the two markers' fit may be off there (a share of the distance to the nearest
marker, :data:`LOOSE`), and an edge counts only when the steps found along it lie on
one line within the spread of the steps themselves.
"""

from __future__ import annotations

import cv2
import numpy as np

LOOSE = 0.1
"""How far (a share of its distance from the nearest marker found) the two markers'
homography may put a point of the mat: on the Blender photos the mat's corners moved by a
median of 6 mm, at worst 17 mm, some 400 mm from the markers (docs/vision.md); the band
sought across an edge is twice that wide, so it holds the edge."""
STEP_MM = 4.0
"""Points along an edge are sought this far apart."""
MIN_SHARE = 0.25
"""An edge counts when the points found on its line span at least this share of it: a
short run of steps is as likely a card's edge or a shadow as the paper's."""


def refine(homography: np.ndarray, photo: np.ndarray, corners_px: np.ndarray,
           corners_mm: np.ndarray, size_mm: tuple[float, float],
           markers_mm: np.ndarray, marker_mm: float) -> np.ndarray | None:
    """The homography (photo pixels -> mat mm) from the markers' corners (``corners_px``
    N x 2 in the photo, ``corners_mm`` on the mat) and the paper's edges (the rectangle
    ``size_mm`` from the mat's origin) found in ``photo``, starting from ``homography``
    (the markers' alone); ``None`` unless all four edges show (the frame cuts one, or
    the paper does not stand out from the table: with two markers, three edges read
    the Blender sets' shoals more than twice as often wrong as four, docs/vision.md).
    ``markers_mm``: every marker centre of the mat (no edge is sought across one)."""
    grey = cv2.GaussianBlur(photo.astype(np.float32), (0, 0), 1.0)
    for first in (True, False):
        seen = []
        for edge in _edges(size_mm):
            pts = _edge(grey, homography, edge, markers_mm, marker_mm, corners_mm, first)
            if pts is not None:
                seen.append((edge, pts))
        # the wide first search need only bring the fit nearer; the narrow one must
        # find every edge
        if len(seen) < (2 if first else 4):
            return None
        homography = _solve(corners_px, corners_mm, seen)
    return homography


def _edges(size_mm: tuple[float, float]) -> list[tuple[int, float, float]]:
    """The paper's four edges as (axis, value, length): axis 0 is a line of constant x."""
    w, h = size_mm
    return [(1, 0.0, w), (1, h, w), (0, 0.0, h), (0, w, h)]


def _edge(grey: np.ndarray, homography: np.ndarray, edge: tuple[int, float, float],
          markers_mm: np.ndarray, marker_mm: float, corners_mm: np.ndarray, first: bool
          ) -> np.ndarray | None:
    """The photo points (M x 2) found on one edge of the paper, on one line; ``None``
    when too few are found or they do not lie on one line."""
    axis, value, length = edge
    t = np.arange(STEP_MM / 2, length, STEP_MM)
    along = np.stack([t, np.full_like(t, value)], 1) if axis == 1 else \
        np.stack([np.full_like(t, value), t], 1)
    # how loose the fit may be there: a share of the distance to the nearest corner used
    near = np.sqrt(((along[:, None, :] - corners_mm[None, :, :]) ** 2).sum(-1)).min(1)
    reach = LOOSE * near if first else np.full_like(near, 2.0 * STEP_MM)
    reach = np.maximum(reach, 2.0)
    # not across a marker: its black border is a stronger step than the paper's edge
    beside = np.abs(along[:, None, 1 - axis] - markers_mm[None, :, 1 - axis]) \
        > marker_mm / 2 + reach[:, None]
    apart = np.abs(along[:, None, axis] - markers_mm[None, :, axis]) \
        > marker_mm / 2 + reach[:, None]
    clear = (beside | apart).all(1)
    along, reach = along[clear], reach[clear]
    if len(along) < 3:
        return None
    inv = np.linalg.inv(homography)
    normal = np.zeros(2)
    normal[axis] = 1.0
    inner = _to_photo(inv, along - normal * 0.5)
    outer = _to_photo(inv, along + normal * 0.5)
    centre = _to_photo(inv, along)
    across = outer - inner
    px_per_mm = np.linalg.norm(across, axis=1)
    h, w = grey.shape[:2]
    # a loose fit can put part of an edge at or past the horizon: no band is sought there
    sane = (np.isfinite(centre).all(1) & np.isfinite(px_per_mm)
            & (reach * px_per_mm < max(h, w)))
    if sane.sum() < 3:
        return None
    along, reach, centre = along[sane], reach[sane], centre[sane]
    across, px_per_mm = across[sane] / np.maximum(px_per_mm[sane], 1e-9)[:, None], \
        px_per_mm[sane]
    half = np.ceil(reach * px_per_mm).astype(int)
    steps = np.arange(-half.max(), half.max() + 1, dtype=np.float32)
    xs = (centre[:, None, 0] + steps[None, :] * across[:, None, 0]).astype(np.float32)
    ys = (centre[:, None, 1] + steps[None, :] * across[:, None, 1]).astype(np.float32)
    inside = (xs >= 1) & (xs <= w - 2) & (ys >= 1) & (ys <= h - 2)
    profile = cv2.remap(grey, xs, ys, cv2.INTER_LINEAR).reshape(len(along), len(steps), -1)
    change = np.sqrt((np.diff(profile, axis=1) ** 2).sum(-1))
    usable = inside[:, 1:] & inside[:, :-1] & (np.abs(steps[1:]) <= half[:, None])
    change = np.where(usable, change, -1.0)
    best = change.argmax(1)
    # a point counts where its whole band lies in the photo and its step stands out
    whole = usable.sum(1) >= 2 * half
    strength = change[np.arange(len(along)), best]
    ok = whole & (strength > 0)
    if ok.sum() < 3:
        return None
    at = steps[best] + 0.5
    points = centre + at[:, None] * across
    return _on_line(points[ok], strength[ok], along[ok, 1 - axis], length)


def _on_line(points: np.ndarray, strength: np.ndarray, place: np.ndarray,
             length: float) -> np.ndarray | None:
    """The points that lie on one line (the steps' own spread as the tolerance), when
    they span at least :data:`MIN_SHARE` of the edge (``place``: each point's mm along
    it, of ``length``); else ``None``."""
    keep = strength >= np.median(strength) / 2  # a faint step is no paper edge
    for _ in range(3):
        if keep.sum() < 3:
            return None
        vx, vy, x0, y0 = cv2.fitLine(points[keep].astype(np.float32), cv2.DIST_HUBER, 0,
                                     0.01, 0.01).reshape(4)
        off = np.abs((points[:, 0] - x0) * vy - (points[:, 1] - y0) * vx)
        spread = max(1.4826 * float(np.median(off[keep])), 0.5)
        keep = keep & (off <= 3 * spread)
    if keep.sum() < 3 or np.ptp(place[keep]) < MIN_SHARE * length:
        return None
    return points[keep]


def _to_photo(inv: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points_mm.reshape(-1, 1, 2).astype(np.float64),
                                    inv).reshape(-1, 2)


def _solve(corners_px: np.ndarray, corners_mm: np.ndarray,
           seen: list[tuple[tuple[int, float, float], np.ndarray]]) -> np.ndarray:
    """The homography (photo -> mm) that fits the corners and puts every edge point on
    its edge: the direct linear fit, corners two rows each, edge points one, in
    normalised coordinates; each edge weighs as much as one corner's pair of rows."""
    px = np.concatenate([corners_px, *[pts for _, pts in seen]]).astype(np.float64)
    mu, scale = px.mean(0), 1.0 / max(float(np.std(px - px.mean(0))), 1e-9)
    t_px = np.array([[scale, 0, -scale * mu[0]], [0, scale, -scale * mu[1]], [0, 0, 1]])
    mm_all = np.asarray(corners_mm, np.float64)
    nu, mscale = mm_all.mean(0), 1.0 / max(float(np.std(mm_all - mm_all.mean(0))), 1e-9)
    t_mm = np.array([[mscale, 0, -mscale * nu[0]], [0, mscale, -mscale * nu[1]], [0, 0, 1]])

    def norm_px(p: np.ndarray) -> np.ndarray:
        return (p - mu) * scale

    rows = []
    for (u, v), (x, y) in zip(norm_px(np.asarray(corners_px, np.float64)),
                              (mm_all - nu) * mscale, strict=True):
        rows.append([u, v, 1, 0, 0, 0, -x * u, -x * v, -x])
        rows.append([0, 0, 0, u, v, 1, -y * u, -y * v, -y])
    for (axis, value, _), pts in seen:
        c = (value - nu[axis]) * mscale
        w = np.sqrt(2.0 / len(pts))
        for u, v in norm_px(pts):
            row = [0.0] * 9
            row[3 * axis:3 * axis + 3] = [w * u, w * v, w]
            row[6:9] = [-c * w * u, -c * w * v, -c * w]
            rows.append(row)
    _, _, vt = np.linalg.svd(np.array(rows))
    h = vt[-1].reshape(3, 3)
    out: np.ndarray = np.linalg.inv(t_mm) @ h @ t_px
    return out / out[2, 2]
