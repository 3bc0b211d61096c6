"""Render the physically based test set of the camera readers with Blender, once.

    nice -n 15 .venv/bin/python benchmarks/render_blender.py --out tests/vision/blender

Shares no code with ``vision/synth.py`` or ``vision/art.py``: it draws its own mats,
Shoal card art and Tokyo Poo Divers faces, lays out its own legal shoals (with the Shoal
engine's placement rules) and layouts, and has Blender (Debian's package, Cycles on the
CPU, one thread, no denoiser) photograph them: cards of real thickness that bow a little
with a glossy coat, a lamp and a window, a phone-like camera with depth of field. It
writes, as a user would have them, ``<table>/mat.json`` (with ``size_mm``),
``<table>/deck/`` and ``<table>/faces/``, the photos as JPEG and ``truth.json``: per photo
its game, table, layout and cells as the readers report them. Not run by the tests.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.poodivers.layout import card_cells, rows_of
from companion.games.poodivers.rules import DECK
from companion.games.shoal import placement
from companion.games.shoal.deck import load_deck
from companion.games.shoal.layout import normalise

TEX_PX_PER_MM = 5.0
SCAN_PX_PER_MM = 3.0
"""The deck's pictures as committed: scans at 3 px/mm (the textures are drawn at 5)."""
SCENE = Path(__file__).with_name("blender_scene.py")
TABLES: dict[str, dict[str, Any]] = {
    "linen": {"dictionary": "DICT_4X4_50", "marker_mm": 42.0, "size_mm": [500.0, 380.0],
              "markers": {"5": [33.0, 34.0], "16": [466.0, 30.0], "27": [470.0, 347.0],
                          "38": [29.0, 349.0]},
              "paper": (214, 228, 236), "tone": None, "roughness": 0.75, "coat": 0.0,
              "section_mm": [40.0, 30.0], "card_mm": [28.0, 28.0]},
    "gloss": {"dictionary": "DICT_4X4_50", "marker_mm": 40.0, "size_mm": [420.0, 297.0],
              "markers": {"0": [32.0, 32.0], "1": [388.0, 32.0], "2": [388.0, 265.0],
                          "3": [32.0, 265.0]},
              "paper": (250, 250, 250), "tone": (206, 206, 204), "roughness": 0.3,
              "coat": 0.4, "section_mm": [44.0, 31.5], "card_mm": [26.0, 26.0]},
}
"""Two tables: cream linen paper, bare and matte, with markers at irregular insets; and
white glossy paper printed grey with the project's marker places."""

KIND_LOOK = {  # BGR body, pattern, fin; body length/height ratio
    "angel": ((30, 200, 245), (30, 30, 30), (30, 160, 230), 1.3),
    "clown": ((20, 110, 240), (245, 245, 245), (20, 20, 20), 1.9),
    "tang": ((190, 80, 30), (40, 200, 250), (130, 40, 20), 2.0),
    "sardine": ((190, 185, 170), (120, 110, 90), (150, 140, 120), 3.2),
    "puffer": ((80, 170, 120), (30, 70, 40), (70, 150, 100), 1.1),
}


def _marker(dictionary: str, marker_id: int, side: int) -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.generateImageMarker(d, marker_id, side)


def mat_texture(t: dict[str, Any]) -> np.ndarray:
    """The printed mat: paper (or a printed tone) with ink markers in paper quiet zones."""
    r = TEX_PX_PER_MM
    w, h = (round(v * r) for v in t["size_mm"])
    paper = np.array(t["paper"], np.uint8)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = t["tone"] if t["tone"] else t["paper"]
    side, quiet = round(t["marker_mm"] * r), round(t["marker_mm"] * r * 0.2)
    for key, (x, y) in t["markers"].items():
        x0, y0 = round((x - t["marker_mm"] / 2) * r), round((y - t["marker_mm"] / 2) * r)
        img[y0 - quiet:y0 + side + quiet, x0 - quiet:x0 + side + quiet] = paper
        bits = _marker(t["dictionary"], int(key), side) > 127
        img[y0:y0 + side, x0:x0 + side] = np.where(bits[:, :, None], paper, np.uint8(22))
    return img


def _fish(img: np.ndarray, kind: str, cx: float, cy: float, length: float) -> None:
    """A fish swimming left: an almond body, a forked tail, a dorsal fin, bands, an eye."""
    body, pattern, fin, ratio = KIND_LOOK.get(kind, ((120, 120, 200), (40, 40, 40),
                                                     (90, 90, 160), 1.6))
    half, tall = length / 2, length / ratio / 2
    t = np.linspace(0, math.pi, 24)
    top = np.stack([cx - half * 0.7 * np.cos(t), cy - tall * np.sin(t) ** 0.8], 1)
    bottom = np.stack([cx + half * 0.7 * np.cos(t), cy + tall * np.sin(t) ** 0.8], 1)
    outline = np.concatenate([top, bottom]).astype(np.int32)
    tail = np.array([[cx + half * 0.6, cy], [cx + half, cy - tall * 0.8],
                     [cx + half * 0.85, cy], [cx + half, cy + tall * 0.8]], np.int32)
    dorsal = np.array([[cx - half * 0.2, cy - tall * 0.9], [cx + half * 0.15, cy - tall * 1.35],
                       [cx + half * 0.35, cy - tall * 0.7]], np.int32)
    cv2.fillPoly(img, [tail, dorsal], fin, cv2.LINE_AA)
    cv2.fillPoly(img, [outline], body, cv2.LINE_AA)
    band = np.zeros(img.shape[:2], np.uint8)
    for k in (-0.25, 0.15):
        cv2.ellipse(band, (round(cx + half * k), round(cy)), (max(1, round(length / 16)),
                    round(tall)), 0, 0, 360, 255, -1)
    inside = np.zeros_like(band)
    cv2.fillPoly(inside, [outline], 255)
    img[(band > 0) & (inside > 0)] = pattern
    cv2.polylines(img, [outline], True, (40, 40, 40), max(1, round(length / 45)), cv2.LINE_AA)
    cv2.circle(img, (round(cx - half * 0.45), round(cy - tall * 0.2)),
               max(2, round(length / 18)), (15, 15, 15), -1, cv2.LINE_AA)


def card_art(card: dict[str, Any], section_mm: list[float]) -> np.ndarray:
    """A Shoal card: a sea gradient with a sandy bottom in each section, the fish on it."""
    sw, sh = (round(v * TEX_PX_PER_MM) for v in section_mm)
    img = np.zeros((2 * sh, 2 * sw, 3), np.uint8)
    grad = np.linspace(0, 1, sh)[:, None, None]
    sea = (np.array([225, 205, 140]) * (1 - grad) + np.array([190, 160, 70]) * grad)
    rng = random.Random(card["id"])
    for row in range(2):
        for col in range(2):
            cell = img[row * sh:(row + 1) * sh, col * sw:(col + 1) * sw]
            cell[:] = sea.astype(np.uint8)
            cv2.ellipse(cell, (sw // 2, sh), (sw // 2, sh // 8), 0, 180, 360, (150, 200, 225),
                        -1, cv2.LINE_AA)
            kinds = [k for k in card["sections"][row][col].split("+") if k != "empty"]
            spots = {1: [(0.5, 0.45)], 2: [(0.3, 0.3), (0.68, 0.65)],
                     3: [(0.27, 0.25), (0.72, 0.4), (0.35, 0.72)]}.get(len(kinds), [])
            length = min(sw * 0.8, sh * 1.2) * (1.0, 0.72, 0.55)[min(len(kinds), 3) - 1] \
                if kinds else 0
            for kind, (fx, fy) in zip(kinds, spots, strict=False):
                _fish(cell, kind, fx * sw + rng.uniform(-3, 3), fy * sh + rng.uniform(-3, 3),
                      length)
    cv2.rectangle(img, (0, 0), (2 * sw - 1, 2 * sh - 1), (250, 250, 250), round(TEX_PX_PER_MM))
    return img


def face_art(face: str, card_mm: list[float], variant: int = 0) -> np.ndarray:
    """Tokyo Poo Divers faces: a maroon back with a gold ring, a white blank, a night
    sleeper, and objects (``variant``): a bottle, a ring, a star, a cup, a hat, a flower..."""
    w, h = (round(v * TEX_PX_PER_MM) for v in card_mm)
    img = np.empty((h, w, 3), np.uint8)
    if face == "closed":
        img[:] = (50, 30, 120)
        for k in range(0, w, max(3, w // 9)):
            cv2.line(img, (k, 0), (k, h), (60, 40, 140), max(1, w // 40))
        cv2.circle(img, (w // 2, h // 2), w // 3, (60, 190, 230), max(2, w // 14), cv2.LINE_AA)
        return img
    img[:] = (246, 248, 248) if face != "sleeper" else (90, 40, 20)
    if face == "sleeper":
        cv2.circle(img, (w // 2, h // 2), w // 4, (210, 235, 245), -1, cv2.LINE_AA)
        cv2.circle(img, (w // 2 + w // 9, h // 2 - h // 12), w // 4, (90, 40, 20), -1,
                   cv2.LINE_AA)
    elif face == "object":
        rng = random.Random(f"object{variant}")
        img[:] = [rng.randrange(170, 240) for _ in range(3)]
        ink = tuple(rng.randrange(0, 110) for _ in range(3))
        c, s, t = (w // 2, h // 2), w // 3, max(2, w // 16)
        shape = variant % 8
        if shape == 0:  # bottle
            cv2.rectangle(img, (c[0] - s // 2, c[1] - s // 3), (c[0] + s // 2, c[1] + s), ink, -1)
            cv2.rectangle(img, (c[0] - s // 6, c[1] - s), (c[0] + s // 6, c[1] - s // 3), ink, -1)
        elif shape == 1:  # ring
            cv2.circle(img, c, s, ink, t * 2, cv2.LINE_AA)
        elif shape == 2:  # star
            pts = [(c[0] + s * math.cos(a) * (1 if i % 2 == 0 else 0.45),
                    c[1] + s * math.sin(a) * (1 if i % 2 == 0 else 0.45))
                   for i, a in enumerate(np.linspace(-math.pi / 2, 1.5 * math.pi, 11)[:-1])]
            cv2.fillPoly(img, [np.array(pts, np.int32)], ink, cv2.LINE_AA)
        elif shape == 3:  # cup
            cv2.ellipse(img, c, (s, s), 0, 0, 180, ink, -1, cv2.LINE_AA)
            cv2.ellipse(img, (c[0] + s, c[1] + s // 3), (s // 3, s // 3), 0, -90, 90, ink, t)
        elif shape == 4:  # hat
            cv2.rectangle(img, (c[0] - s // 2, c[1] - s), (c[0] + s // 2, c[1] + s // 3), ink,
                          -1)
            cv2.line(img, (c[0] - s, c[1] + s // 3), (c[0] + s, c[1] + s // 3), ink, t * 2)
        elif shape == 5:  # flower
            for a in range(0, 360, 60):
                p = (round(c[0] + s * 0.6 * math.cos(math.radians(a))),
                     round(c[1] + s * 0.6 * math.sin(math.radians(a))))
                cv2.circle(img, p, s // 3, ink, -1, cv2.LINE_AA)
            cv2.circle(img, c, s // 4, (40, 200, 240), -1, cv2.LINE_AA)
        elif shape == 6:  # fish bone
            cv2.line(img, (c[0] - s, c[1]), (c[0] + s, c[1]), ink, t)
            for k in range(-2, 3):
                x = c[0] + k * s // 3
                cv2.line(img, (x, c[1] - s // 2), (x, c[1] + s // 2), ink, t)
        else:  # sock
            sock = np.array([[c[0] - s // 3, c[1] - s], [c[0] + s // 3, c[1] - s],
                             [c[0] + s // 3, c[1] + s // 3], [c[0] + s, c[1] + s // 2],
                             [c[0] + s, c[1] + s], [c[0] - s // 3, c[1] + s]], np.int32)
            cv2.fillPoly(img, [sock], ink, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (200, 200, 200), max(1, w // 40))
    return img


# Layouts -----------------------------------------------------------------------------

def legal_shoal(rng: random.Random, cards: int, max_span: tuple[int, int]
                ) -> list[tuple[str, int, int]]:
    """A legal play order (card id, x, y) by the Shoal engine's placement rules."""
    deck = load_deck("default")
    while True:
        ids = list(deck.cards)
        rng.shuffle(ids)
        visible: dict[tuple[int, int], str] = {}
        order: list[tuple[str, int, int]] = []
        for cid in ids:
            options = []
            for x, y in placement.allowed(visible, deck.cards[cid]):
                xs = [p[0] for p in visible] + [x, x + 1]
                ys = [p[1] for p in visible] + [y, y + 1]
                if max(xs) - min(xs) < max_span[0] and max(ys) - min(ys) < max_span[1]:
                    options.append((x, y))
            if options:
                x, y = rng.choice(options)
                visible = placement.place(visible, deck.cards[cid], (x, y))
                order.append((cid, x, y))
            if len(order) == cards:
                return order


def _free(t: dict[str, Any]) -> tuple[float, float, float, float]:
    """Where cards may lie: between the marker columns, off the paper's edges."""
    w, h = t["size_mm"]
    half = t["marker_mm"] / 2 + 10
    xs = [x for x, _ in t["markers"].values()]
    return (max(x for x in xs if x < w / 2) + half, 12.0,
            min(x for x in xs if x > w / 2) - half, h - 12.0)


THICKNESS_MM = 0.32
"""A card's thickness (Blender solidifies each card's face this much downwards)."""


def card_surface(card: dict[str, Any], points: np.ndarray) -> np.ndarray:
    """The height (mm) of ``card``'s face over mat points (N x 2 mm; NaN off the card):
    its ``z_mm`` where it is lowest, rising as the square towards the ends of its long
    side by ``curl_mm`` (as ``blender_scene.py`` bows it), turned by ``angle_deg``."""
    w, h = card["size_mm"]
    a = math.radians(card["angle_deg"])
    d = np.asarray(points, float) - np.asarray(card["centre_mm"], float)
    # along the card's own sides (the mat's y runs down, Blender's up, where the card is
    # turned by minus the angle)
    u = math.cos(a) * d[:, 0] + math.sin(a) * d[:, 1]
    v = math.sin(a) * d[:, 0] - math.cos(a) * d[:, 1]
    t = u / (w / 2) if w >= h else v / (h / 2)
    out = card["z_mm"] + card["curl_mm"] * t * t
    out[(np.abs(u) > w / 2) | (np.abs(v) > h / 2)] = np.nan
    return out


def resting_height(card: dict[str, Any], below: list[dict[str, Any]]) -> float:
    """The ``z_mm`` at which ``card`` rests on the mat and the cards ``below``: its
    underside (its face less :data:`THICKNESS_MM`, bowed as the face is) clears every face
    under it everywhere, touching the highest. Cards that bow pass through each other
    when they are only stacked a thickness apart: the lower card's raised ends then show
    through the upper one, and the photo no longer shows the layout the truth says."""
    w, h = card["size_mm"]
    reach = math.hypot(w, h) / 2
    steps = np.arange(-reach, reach + 0.5, 0.5)  # every half millimetre
    us, vs = np.meshgrid(steps, steps)
    points = np.stack([us.ravel(), vs.ravel()], 1) + np.asarray(card["centre_mm"], float)
    own = card_surface({**card, "z_mm": 0.0}, points)
    on = ~np.isnan(own)
    points, own = points[on], own[on]
    top = np.zeros(len(points))  # the mat
    for other in below:
        top = np.fmax(top, card_surface(other, points))
    return float(np.max(top - own) + THICKNESS_MM + 0.02)  # and a hair of air


def shoal_cards(t: dict[str, Any], tdir: Path, rng: random.Random
                ) -> tuple[list[dict[str, Any]], dict[str, str]]:
    sw, sh = t["section_mm"]
    left, top, right, bottom = _free(t)
    span = (int((right - left - 6) // sw), int((bottom - top - 6) // sh))
    order = legal_shoal(rng, 10, span)
    x0, y0 = min(x for _, x, _ in order), min(y for _, _, y in order)
    cols = max(x for _, x, _ in order) + 2 - x0
    rows = max(y for _, _, y in order) + 2 - y0
    ox = rng.uniform(left + 3, right - 3 - cols * sw)
    oy = rng.uniform(top + 3, bottom - 3 - rows * sh)
    deck = load_deck("default")
    cards: list[dict[str, Any]] = []
    for cid, x, y in order:
        card = {"image": str(tdir / "deck" / f"{cid}.png"),
                "centre_mm": [ox + (x - x0 + 1) * sw + rng.uniform(-1.5, 1.5),
                              oy + (y - y0 + 1) * sh + rng.uniform(-1.5, 1.5)],
                "size_mm": [2 * sw, 2 * sh], "angle_deg": rng.uniform(-2, 2),
                "curl_mm": rng.uniform(0.3, 1.4)}
        card["z_mm"] = resting_height(card, cards)
        cards.append(card)
    visible: dict[tuple[int, int], str] = {}
    for cid, x, y in order:
        visible = placement.place(visible, deck.cards[cid], (x, y))
    truth = {f"{x},{y}": v for (x, y), v in sorted(normalise(visible).items())}
    return cards, truth


def poo_cards(t: dict[str, Any], tdir: Path, rng: random.Random, layout: str
              ) -> tuple[list[dict[str, Any]], dict[str, str]]:
    cw, ch = t["card_mm"]
    rows = rows_of(layout)
    left, top, right, bottom = _free(t)
    pitch = (cw + 2.0, ch + 2.0)
    ox = rng.uniform(left, right - len(rows[0]) * pitch[0])
    oy = rng.uniform(top, bottom - len(rows) * pitch[1])
    opened = rng.uniform(0.2, 0.8)
    cards: list[dict[str, Any]] = []
    truth: dict[str, str] = {}
    # a face the deck holds no more of stays closed (sets 1-11 were dealt before this:
    # four of their layouts show more blanks or sleepers than the deck holds, up to 17)
    room = dict(DECK)
    for name, (c, r) in zip(card_cells(rows), ((c, r) for r, row in enumerate(rows)
                                               for c, ch_ in enumerate(row) if ch_ == "#"),
                            strict=True):
        face = "closed"
        if rng.random() < opened:
            face = rng.choices(["blank", "sleeper", "object"], [1, 1, 3])[0]
            if room[face] > 0:
                room[face] -= 1
            else:
                face = "closed"
        image = {"closed": "closed.png", "blank": "blank.png", "sleeper": "sleeper.png",
                 "object": f"o{rng.randrange(14):02d}.png"}[face]
        truth[str(name)] = face
        card = {"image": str(tdir / "faces" / image),
                "centre_mm": [ox + (c + 0.5) * pitch[0] + rng.uniform(-1, 1),
                              oy + (r + 0.5) * pitch[1] + rng.uniform(-1, 1)],
                "size_mm": [cw, ch], "angle_deg": rng.uniform(-3, 3),
                "curl_mm": rng.uniform(0.1, 0.6)}
        card["z_mm"] = resting_height(card, [])  # on the mat, not sunk into it
        cards.append(card)
    return cards, truth


# Files and jobs ----------------------------------------------------------------------

def write_table(name: str, t: dict[str, Any], out: Path) -> None:
    """mat.json (with size_mm) and the mat texture, deck/ and faces/ of one table."""
    tdir = out / name
    (tdir / "deck").mkdir(parents=True, exist_ok=True)
    (tdir / "faces").mkdir(exist_ok=True)
    (tdir / "mat.json").write_text(json.dumps(
        {k: t[k] for k in ("dictionary", "marker_mm", "markers", "size_mm")}, indent=1) + "\n",
        encoding="utf-8")
    cv2.imwrite(str(tdir / "mat.png"), mat_texture(t))
    deck = load_deck("default").to_json()
    deck["section_mm"] = t["section_mm"]
    for card in deck["cards"]:
        card["image"] = f"{card['id']}.png"
        cv2.imwrite(str(tdir / "deck" / card["image"]), card_art(card, t["section_mm"]))
    (tdir / "deck" / "deck.json").write_text(json.dumps(deck, indent=1) + "\n",
                                             encoding="utf-8")
    for face in ("closed", "blank", "sleeper"):
        cv2.imwrite(str(tdir / "faces" / f"{face}.png"), face_art(face, t["card_mm"]))
    for i in range(14):  # faces.json names the first six; the others are unseen objects
        cv2.imwrite(str(tdir / "faces" / f"o{i:02d}.png"), face_art("object", t["card_mm"], i))
    faces = {"card_mm": t["card_mm"], "faces": {
        "closed": ["closed.png"], "blank": ["blank.png"], "sleeper": ["sleeper.png"],
        "object": [f"o{i:02d}.png" for i in range(6)]}}
    (tdir / "faces" / "faces.json").write_text(json.dumps(faces, indent=1) + "\n",
                                               encoding="utf-8")


def job(i: int, name: str, t: dict[str, Any], cards: list[dict[str, Any]], out: Path,
        rng: random.Random, args: argparse.Namespace) -> dict[str, Any]:
    w, h = t["size_mm"]
    target = [w / 2 + rng.uniform(-20, 20), h / 2 + rng.uniform(-20, 20), 0.0]
    lens, sensor = rng.uniform(24, 30), 36.0
    tilt, towards = math.radians(rng.uniform(0, 25)), rng.uniform(0, 2 * math.pi)
    roll = rng.choice([0, 180]) + rng.uniform(-15, 15)
    aspect = args.width / args.height
    fov = 2 * math.atan(sensor / 2 / lens)
    spread = max(w, h * aspect) / rng.uniform(0.82, 0.92)  # share of the width the mat fills
    dist = spread / 2 / math.tan(fov / 2) * (1 + 0.5 * math.sin(tilt))
    at = [target[0] + dist * math.sin(tilt) * math.cos(towards),
          target[1] + dist * math.sin(tilt) * math.sin(towards), dist * math.cos(tilt)]
    lamp_at = [rng.uniform(0, w), rng.uniform(0, h), rng.uniform(600, 1000)]
    side = rng.uniform(0, 2 * math.pi)
    window_at = [w / 2 + 1500 * math.cos(side), h / 2 + 1500 * math.sin(side),
                 rng.uniform(700, 1300)]
    return {"png": str(out / f"{i:02d}.png"), "seed": i, "samples": args.samples,
            "resolution": [args.width, args.height], "exposure": rng.uniform(-0.4, 0.5),
            "ambient": rng.uniform(0.03, 0.12), "table_rgb": [rng.uniform(0.25, 0.5),
                                                              rng.uniform(0.12, 0.25), 0.06],
            "mat_mm": [w, h], "mat_image": str(out / name / "mat.png"),
            "mat_roughness": t["roughness"], "mat_coat": t["coat"], "cards": [
                {**c, "thickness_mm": THICKNESS_MM, "roughness": rng.uniform(0.15, 0.3),
                 "coat": rng.uniform(0.5, 1.0)} for c in cards],
            "lamp": {"size_m": rng.uniform(0.08, 0.25), "at_mm": lamp_at,
                     "target_mm": [w / 2, h / 2, 0], "watts": rng.uniform(3.5, 7.0),
                     "kelvin": rng.uniform(2700, 3800)},
            "window": {"size_m": [1.2, 0.9], "at_mm": window_at,
                       "target_mm": [w / 2, h / 2, 0], "watts": rng.uniform(10, 35),
                       "kelvin": rng.uniform(5500, 7500)},
            "camera": {"at_mm": at, "target_mm": target, "roll_deg": roll, "lens_mm": lens,
                       "sensor_mm": sensor, "fstop": rng.uniform(2.0, 4.0)}}


def shrink(folder: Path) -> None:
    """Store the card pictures at :data:`SCAN_PX_PER_MM`, as a user's scans would be."""
    for png in sorted(folder.glob("*.png")):
        img = cv2.imread(str(png))
        scale = SCAN_PX_PER_MM / TEX_PX_PER_MM
        if img is not None and img.shape[1] > 1:
            cv2.imwrite(str(png), cv2.resize(img, None, fx=scale, fy=scale,
                                             interpolation=cv2.INTER_AREA))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=Path("tests/vision/blender"))
    p.add_argument("--n", type=int, default=10, help="photos per game")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--height", type=int, default=768)
    p.add_argument("--samples", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", type=int, nargs="+", default=None,
                   help="render only these photo numbers (truth.json is written whole)")
    args = p.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for name, t in TABLES.items():
        write_table(name, t, out)
    rng = random.Random(args.seed)
    jobs, photos = [], []
    layouts = ("square", "donut", "cow")
    for i in range(2 * args.n):
        name = list(TABLES)[i % 2]
        t = TABLES[name]
        if i < args.n:
            cards, cells = shoal_cards(t, out / name, rng)
            entry: dict[str, Any] = {"game": "shoal"}
        else:
            layout = layouts[i % len(layouts)]
            cards, cells = poo_cards(t, out / name, rng, layout)
            entry = {"game": "poodivers", "layout": layout}
        jobs.append(job(i, name, t, cards, out, rng, args))
        photos.append({"file": f"photos/{i:02d}.jpg", "table": name, **entry,
                       "cells": cells})
    if args.only is not None:
        if not all(0 <= k < len(jobs) for k in args.only):
            p.error(f"--only takes photo numbers from 0 to {len(jobs) - 1}")
        jobs = [jobs[k] for k in args.only]
    with tempfile.TemporaryDirectory() as tmp:
        for j in jobs:
            j["png"] = str(Path(tmp) / Path(j["png"]).name)
        (Path(tmp) / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
        blender = shutil.which("blender") or "blender"
        subprocess.run(["nice", "-n", "15", blender, "-b", "--factory-startup", "-t", "1",
                        "-P", str(SCENE), "--", str(Path(tmp) / "jobs.json")], check=True)
        (out / "photos").mkdir(exist_ok=True)
        for j in jobs:
            img = cv2.imread(j["png"])
            if img is None:
                raise SystemExit(f"render_blender: Blender wrote no readable {j['png']}")
            cv2.imwrite(str(out / "photos" / (Path(j["png"]).stem + ".jpg")), img,
                        [cv2.IMWRITE_JPEG_QUALITY, 90])
    for name in TABLES:
        (out / name / "mat.png").unlink()  # the texture; mat.json is what a user has
        shrink(out / name / "deck")
    (out / "truth.json").write_text(json.dumps({"photos": photos}, indent=1) + "\n",
                                    encoding="utf-8")


if __name__ == "__main__":
    main()
