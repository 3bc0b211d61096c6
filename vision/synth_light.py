"""The light of a synthetic table photo: what the lamp, the window and the camera's
exposure do to the mat and the cards.

:func:`light` takes the top-down canvas (BGR, ``px_per_mm``) and gives it uneven light,
a colour cast (tungsten, shade, fluorescent), soft shadows, glare as a clipped specular
spot (strong on glossy paper) and as a veil (a smooth brightening that lowers contrast
and does not clip), and the camera's exposure, which may be high enough that bare paper
clips. It says what it did, so a benchmark can tell which photos were which.
"""

from __future__ import annotations

import math
import random
from typing import Any, Protocol

import cv2
import numpy as np

CASTS: dict[str, tuple[float, float, float]] = {
    "tungsten": (0.42, 0.72, 1.0),
    "shade": (1.0, 0.86, 0.7),
    "fluorescent": (0.8, 1.0, 0.74),
}
"""Channel gains (B, G, R) of strong colour casts, at full strength."""

PAPER_EXPOSURE = 0.92
"""Share of full scale the brightest lit white reaches at an exposure of 0 stops."""


class Lighting(Protocol):
    """The light bounds of a :class:`vision.synth.Distortions`."""

    @property
    def light(self) -> float: ...
    @property
    def glare(self) -> float: ...
    @property
    def shadow(self) -> float: ...
    @property
    def veil(self) -> float: ...
    @property
    def cast(self) -> float: ...
    @property
    def casts(self) -> tuple[str, ...]: ...
    @property
    def exposure(self) -> tuple[float, float]: ...


def light(canvas: np.ndarray, rng: random.Random, d: Lighting, px_per_mm: float,
          gloss: float = 1.0) -> tuple[np.ndarray, dict[str, Any]]:
    """The canvas as lit, and what was done (cast, exposure in stops, glare)."""
    info: dict[str, Any] = {}
    if not (d.light or d.shadow or d.glare or d.veil or d.cast or any(d.exposure)):
        return canvas, info
    h, w = canvas.shape[:2]
    small = (w // 8, h // 8)
    ys, xs = np.mgrid[0:small[1], 0:small[0]].astype(np.float32)
    xs, ys = xs / small[0] - 0.5, ys / small[1] - 0.5
    field = np.ones((small[1], small[0], 3), np.float32)
    if d.light:
        a = rng.uniform(0, 2 * math.pi)
        ramp = 1 + d.light * rng.uniform(0.15, 0.45) * (math.cos(a) * xs + math.sin(a) * ys)
        tint = np.array([1 + d.light * rng.uniform(-0.2, 0.2) for _ in range(3)], np.float32)
        field *= ramp[:, :, None] * tint[None, None, :] * rng.uniform(1 - 0.4 * d.light, 1.0)
    if d.shadow:
        for _ in range(rng.randint(1, 2)):
            cx, cy = rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)
            s = rng.uniform(0.08, 0.2)
            blob = np.exp(-((xs - cx) ** 2 + ((ys - cy) * h / w) ** 2) / (2 * s * s))
            field *= (1 - d.shadow * rng.uniform(0.25, 0.5) * blob)[:, :, None]
    gains = np.ones(3, np.float32)
    if d.cast and d.casts:
        name = rng.choice(d.casts)
        strength = rng.uniform(0.5, 1.0) * d.cast
        gains = np.array([1 + strength * (g - 1) for g in CASTS[name]], np.float32)
        field *= gains[None, None, :]
        info["cast"] = name
    # the camera exposes for the brightest part of the table; more stops clip bare paper
    stops = rng.uniform(*d.exposure) if any(d.exposure) else 0.0
    field *= rng.uniform(0.87, 1.0) * PAPER_EXPOSURE * 2**stops / field.max()
    info["exposure_stops"] = round(stops, 2)
    out = canvas.astype(np.float32) * cv2.resize(field, (w, h))
    if d.glare:
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        s = rng.uniform(6, 18) * px_per_mm
        gy, gx = np.ogrid[0:h, 0:w]
        spot = np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * s * s)).astype(np.float32)
        out += (gloss * d.glare * rng.uniform(120, 230) * spot)[:, :, None]
        info["spot_mm"] = [round(cx / px_per_mm, 1), round(cy / px_per_mm, 1)]
    if d.veil:
        out = _veil(out, rng, d.veil, px_per_mm, gains, info)
    return np.clip(out, 0, 255).astype(np.uint8), info


def _veil(out: np.ndarray, rng: random.Random, strength: float, px_per_mm: float,
          gains: np.ndarray, info: dict[str, Any]) -> np.ndarray:
    """A window's reflection: a broad, smooth mix towards a bright haze below clipping,
    so a card under it keeps its drawing at a fraction of its contrast."""
    h, w = out.shape[:2]
    small = (w // 8, h // 8)
    cx, cy = rng.uniform(0.25, 0.75) * small[0], rng.uniform(0.25, 0.75) * small[1]
    sx = rng.uniform(35, 90) * px_per_mm / 8
    sy = sx * rng.uniform(0.5, 1.5)
    gy, gx = np.mgrid[0:small[1], 0:small[0]].astype(np.float32)
    blob = np.exp(-((gx - cx) ** 2 / (2 * sx * sx) + (gy - cy) ** 2 / (2 * sy * sy)))
    mix = cv2.resize(blob * strength * rng.uniform(0.45, 0.7), (w, h))[:, :, None]
    haze = 244 * gains / gains.max()
    info["veil_mm"] = [round(cx * 8 / px_per_mm, 1), round(cy * 8 / px_per_mm, 1)]
    # the haze is below full scale, so a veil never clips what did not already clip
    return np.where(out >= 255, out, out * (1 - mix) + haze[None, None, :] * mix)
