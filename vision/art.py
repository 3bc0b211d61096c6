"""Generated card art for synthetic scenes: Shoal fish cards and Tokyo Poo Divers faces.

Real tables calibrate to their own cards (``companion vision capture-deck``); tests and
benchmarks need cards nobody has to scan, so this module draws them: each fish kind has
its own colour and body shape and swims to the left, as the rules ask. Everything is
seeded, so the same call gives the same pixels.
"""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ART_PX_PER_MM = 6.0
"""Resolution of the generated card images (any resolution works for calibration)."""

KINDS = ("angel", "clown", "puffer", "tang", "sardine", "octopus")
"""Fish kinds of the generated deck."""

WATER = (236, 222, 178)  # BGR light sea blue
FRAME = (92, 46, 18)

_PALETTE = [  # BGR body, stripe
    ((40, 215, 250), (20, 20, 20)),     # yellow with black stripes
    ((20, 120, 245), (250, 250, 250)),  # orange with white stripes
    ((70, 190, 110), (30, 90, 40)),     # green, round
    ((170, 60, 20), (30, 200, 250)),    # deep blue with a yellow tail
    ((150, 60, 190), (240, 200, 250)),  # purple
    ((40, 40, 210), (240, 240, 240)),   # red
    ((90, 90, 90), (220, 220, 220)),    # grey
    ((160, 160, 20), (20, 60, 120)),    # teal
]


def _seed(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode())


def _kind_style(kind: str) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
    """Colour, stripe colour and body shape (0 long, 1 tall, 2 round) of a fish kind."""
    i = KINDS.index(kind) if kind in KINDS else _seed(kind) % len(_PALETTE)
    body, stripe = _PALETTE[i % len(_PALETTE)]
    return body, stripe, i % 3


def draw_fish(img: np.ndarray, kind: str, centre: tuple[float, float], length: float) -> None:
    """Draw one fish of ``kind`` swimming left, ``length`` pixels long, centred at ``centre``."""
    body, stripe, shape = _kind_style(kind)
    cx, cy = centre
    half = length / 2
    height = {0: 0.32, 1: 0.55, 2: 0.45}[shape] * length
    tail = np.array([[cx + half * 0.45, cy], [cx + half, cy - height * 0.55],
                     [cx + half, cy + height * 0.55]], np.int32)
    cv2.fillConvexPoly(img, tail, stripe, cv2.LINE_AA)
    axes = (round(half * 0.62), round(height / 2))
    cv2.ellipse(img, (round(cx - half * 0.15), round(cy)), axes, 0, 0, 360, body, -1,
                cv2.LINE_AA)
    for k in (-0.3, 0.05):  # two stripes across the body
        x = round(cx + half * k)
        cv2.line(img, (x, round(cy - height * 0.42)), (x, round(cy + height * 0.42)), stripe,
                 max(1, round(length / 18)), cv2.LINE_AA)
    eye = (round(cx - half * 0.55), round(cy - height * 0.1))
    cv2.circle(img, eye, max(1, round(length / 22)), (20, 20, 20), -1, cv2.LINE_AA)


def _fish_spots(n: int, rng: random.Random) -> list[tuple[float, float]]:
    """Fish centres (fractions of the section) for n fish, a little different per card."""
    base = {1: [(0.5, 0.5)], 2: [(0.33, 0.3), (0.66, 0.7)],
            3: [(0.3, 0.25), (0.7, 0.45), (0.35, 0.78)],
            4: [(0.28, 0.25), (0.72, 0.25), (0.28, 0.75), (0.72, 0.75)]}[min(n, 4)]
    return [(x + rng.uniform(-0.05, 0.05), y + rng.uniform(-0.05, 0.05)) for x, y in base]


def shoal_card(sections: list[list[str]], section_mm: tuple[float, float],
               card_id: str) -> np.ndarray:
    """A fish card's face: 2 x 2 sections of water, with the fish each section shows."""
    sw, sh = (round(v * ART_PX_PER_MM) for v in section_mm)
    img = np.empty((2 * sh, 2 * sw, 3), np.uint8)
    img[:] = WATER
    rng = random.Random(_seed("card", card_id))
    for row in range(2):
        for col in range(2):
            x0, y0 = col * sw, row * sh
            for k in range(3):  # waves, so even an empty section is not a plain colour
                y = round(y0 + sh * (0.2 + 0.3 * k) + rng.uniform(-3, 3))
                cv2.line(img, (x0 + sw // 6, y), (x0 + sw * 5 // 6, y), (225, 205, 150), 2,
                         cv2.LINE_AA)
            value = sections[row][col]
            if value == "empty":
                continue
            kinds = value.split("+")
            # big fish, as on printed cards: the kinds must be told apart from a table away
            length = min(sw, 1.3 * sh) * (0.8 if len(kinds) == 1 else 0.58 if len(kinds) == 2
                                          else 0.46)
            for kind, (fx, fy) in zip(kinds, _fish_spots(len(kinds), rng), strict=False):
                draw_fish(img, kind, (x0 + fx * sw, y0 + fy * sh), length)
    frame = max(2, round(1.5 * ART_PX_PER_MM))
    cv2.rectangle(img, (0, 0), (2 * sw - 1, 2 * sh - 1), FRAME, frame)
    cv2.line(img, (sw, frame), (sw, 2 * sh - frame), (200, 180, 130), 1)
    cv2.line(img, (frame, sh), (2 * sw - frame, sh), (200, 180, 130), 1)
    return img


def write_deck(folder: Path, deck: dict[str, Any]) -> Path:
    """Write deck.json and one generated image per card into ``folder``; returns deck.json."""
    folder.mkdir(parents=True, exist_ok=True)
    section_mm = (float(deck["section_mm"][0]), float(deck["section_mm"][1]))
    out = dict(deck)
    out["cards"] = []
    for card in deck["cards"]:
        name = f"{card['id']}.png"
        cv2.imwrite(str(folder / name), shoal_card(card["sections"], section_mm, card["id"]))
        out["cards"].append({**card, "image": name})
    path = folder / "deck.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return path


# Tokyo Poo Divers -------------------------------------------------------------------

def poo_face(face: str, card_mm: tuple[float, float], variant: int = 0) -> np.ndarray:
    """A Tokyo Poo Divers card: the back (``closed``), ``blank``, ``sleeper`` or an
    ``object`` drawing (``variant`` picks which; any number of different ones)."""
    w, h = (round(v * ART_PX_PER_MM) for v in card_mm)
    img = np.empty((h, w, 3), np.uint8)
    frame = max(2, round(1.2 * ART_PX_PER_MM))
    if face == "closed":
        img[:] = (40, 75, 120)
        for k in range(-h, w, max(4, w // 8)):
            cv2.line(img, (k, 0), (k + h, h), (60, 105, 160), max(2, w // 30), cv2.LINE_AA)
        cv2.circle(img, (w // 2, h // 2), w // 4, (30, 200, 240), -1, cv2.LINE_AA)
        cv2.circle(img, (w // 2, h // 2), w // 8, (40, 75, 120), -1, cv2.LINE_AA)
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), (20, 40, 70), frame)
        return img
    img[:] = (235, 245, 250)
    if face == "sleeper":
        img[:] = (110, 45, 35)
        cv2.ellipse(img, (w // 2, h * 3 // 5), (w // 3, h // 6), 0, 180, 360, (230, 230, 250),
                    max(2, w // 18), cv2.LINE_AA)
        for i, s in enumerate((0.22, 0.16)):
            x, y = round(w * (0.55 + 0.15 * i)), round(h * (0.3 - 0.1 * i))
            cv2.putText(img, "Z", (x, y + round(h * s / 2)), cv2.FONT_HERSHEY_SIMPLEX,
                        h * s / 22, (230, 230, 250), max(1, w // 40), cv2.LINE_AA)
    elif face == "object":
        rng = random.Random(_seed("object", variant))
        img[:] = (200 + rng.randrange(40), 200 + rng.randrange(40), 200 + rng.randrange(40))
        for _ in range(3):
            colour = tuple(rng.randrange(0, 200) for _ in range(3))
            pts = np.array([[rng.uniform(0.18, 0.82) * w, rng.uniform(0.18, 0.82) * h]
                            for _ in range(rng.randrange(3, 7))], np.float32)
            hull = cv2.convexHull(pts).astype(np.int32)
            cv2.fillConvexPoly(img, hull, colour, cv2.LINE_AA)
        cv2.circle(img, (round(rng.uniform(0.3, 0.7) * w), round(rng.uniform(0.3, 0.7) * h)),
                   round(w * rng.uniform(0.08, 0.16)), (30, 60, 110), -1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (60, 140, 60), frame)
    return img


def write_faces(folder: Path, card_mm: tuple[float, float] = (26.0, 26.0),
                objects: int = 12) -> Path:
    """Write faces.json and its images (objects 0..objects-1); returns faces.json."""
    folder.mkdir(parents=True, exist_ok=True)
    faces: dict[str, list[str]] = {}
    for face in ("closed", "blank", "sleeper"):
        cv2.imwrite(str(folder / f"{face}.png"), poo_face(face, card_mm))
        faces[face] = [f"{face}.png"]
    faces["object"] = []
    for i in range(objects):
        name = f"o{i + 1:02d}.png"
        cv2.imwrite(str(folder / name), poo_face("object", card_mm, i))
        faces["object"].append(name)
    path = folder / "faces.json"
    path.write_text(json.dumps({"card_mm": list(card_mm), "faces": faces}, indent=1) + "\n",
                    encoding="utf-8")
    return path
