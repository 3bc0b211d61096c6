"""The virtual camera of synthetic photos: where it stands over the mat and its lens.

:func:`camera` gives the homography from mat millimetres to photo pixels of a camera
tilted, turned and moved back at random below the given bounds; :func:`undistort` and
:func:`distort` add and remove barrel distortion of strength ``k``.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

PHOTO_SIZE = (1600, 1200)


def camera(size_mm: tuple[float, float], rng: random.Random, tilt_deg: float,
           rotation_deg: float, fill: tuple[float, float]) -> np.ndarray:
    """Homography from mat millimetres to (undistorted) photo pixels."""
    w, h = size_mm
    tilt = math.radians(rng.uniform(0, tilt_deg))
    towards = rng.uniform(0, 2 * math.pi)
    spin = math.radians(rng.uniform(-rotation_deg, rotation_deg))
    axis = np.array([math.cos(towards), math.sin(towards), 0.0])
    r_tilt, _ = cv2.Rodrigues(axis * tilt)
    r_spin, _ = cv2.Rodrigues(np.array([0.0, 0.0, spin]))
    rot = r_spin @ r_tilt
    distance = 1.3 * math.hypot(w, h)
    target = np.array([w / 2, h / 2, 0.0])
    centre = target - distance * rot.T @ np.array([0.0, 0.0, 1.0])
    t = -rot @ centre
    h_norm = np.column_stack([rot[:, 0], rot[:, 1], t])
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
    proj = cv2.perspectiveTransform(corners, h_norm).reshape(-1, 2)
    lo, hi = proj.min(0), proj.max(0)
    s = rng.uniform(*fill) * min(PHOTO_SIZE[0] / (hi[0] - lo[0]),
                                 PHOTO_SIZE[1] / (hi[1] - lo[1]))
    slack = np.array(PHOTO_SIZE) - s * (hi - lo)
    off = -s * lo + slack * np.array([rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7)])
    fit = np.array([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    out: np.ndarray = fit @ h_norm
    return out


def _radius2(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centre = np.array(PHOTO_SIZE, np.float64) / 2
    half_diag = math.hypot(*centre)
    q = (p - centre) / half_diag
    return q, (q**2).sum(1, keepdims=True)


def undistort(p: np.ndarray, k: float) -> np.ndarray:
    """Photo pixel -> where it would be without barrel distortion."""
    centre = np.array(PHOTO_SIZE, np.float64) / 2
    q, r2 = _radius2(p.astype(np.float64))
    return centre + q * (1 + k * r2) * math.hypot(*centre)


def distort(p: np.ndarray, k: float) -> np.ndarray:
    """Undistorted pixel -> photo pixel (inverse of :func:`undistort`, by Newton)."""
    if k == 0.0:
        return p
    centre = np.array(PHOTO_SIZE, np.float64) / 2
    half_diag = math.hypot(*centre)
    q_u, r2_u = _radius2(p)
    ru = np.sqrt(r2_u)
    rd = ru.copy()
    for _ in range(20):
        rd -= (rd * (1 + k * rd**2) - ru) / (1 + 3 * k * rd**2)
    scale = np.where(ru > 0, rd / np.maximum(ru, 1e-12), 1.0)
    return centre + q_u * scale * half_diag
