"""Card art in other styles than :mod:`vision.art`, for test tables the readers were not
tuned to: Shoal cards cut from photographs or drawn in ink, dark low-contrast Tokyo Poo
Divers faces, faces cut from photographs, and object faces from generators of their own
(line drawings; drawings on a ground like the closed back).

The photographs are scikit-image's sample images (a development dependency, imported
only here). Everything is seeded: the same call gives the same pixels.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable
from functools import cache

import cv2
import numpy as np

from vision.art import ART_PX_PER_MM, poo_face, shoal_card

PHOTOS = ("chelsea", "coffee", "astronaut", "rocket", "hubble_deep_field",
          "immunohistochemistry", "retina", "colorwheel")
"""scikit-image sample photographs fish are cut from, one per fish kind in turn."""

INK = (38, 34, 30)


def _seed(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode())


@cache
def photo(name: str) -> np.ndarray:
    """A scikit-image sample image as BGR uint8."""
    from skimage import data

    img = np.asarray(getattr(data, name)())
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    return np.ascontiguousarray(img[:, :, 2::-1]).astype(np.uint8)


def _crop(name: str, size: tuple[int, int], rng: random.Random) -> np.ndarray:
    """A crop of a sample photo resized to ``size`` (w, h), from a seeded spot."""
    src = photo(name)
    h, w = src.shape[:2]
    cw = min(w, max(8, round(w * rng.uniform(0.35, 0.6))))
    ch = min(h, max(8, round(cw * size[1] / size[0])))
    x0, y0 = rng.randrange(0, w - cw + 1), rng.randrange(0, h - ch + 1)
    return cv2.resize(src[y0:y0 + ch, x0:x0 + cw], size, interpolation=cv2.INTER_AREA)


@cache
def _skin(name: str, kind: str, size: tuple[int, int]) -> np.ndarray:
    """The part of a photograph a fish kind is cut from, at a card's size."""
    return _crop(name, size, random.Random(_seed("skin", kind)))


def _fish_mask(shape: tuple[int, int], centre: tuple[float, float], length: float,
               tallness: float) -> np.ndarray:
    """A fish silhouette swimming left (body ellipse and tail), as a 0/1 float mask."""
    mask = np.zeros(shape, np.uint8)
    cx, cy = centre
    half, height = length / 2, tallness * length
    cv2.ellipse(mask, (round(cx - half * 0.15), round(cy)), (round(half * 0.62),
                round(height / 2)), 0, 0, 360, 255, -1, cv2.LINE_AA)
    tail = np.array([[cx + half * 0.4, cy], [cx + half, cy - height * 0.5],
                     [cx + half, cy + height * 0.5]], np.int32)
    cv2.fillConvexPoly(mask, tail, 255, cv2.LINE_AA)
    return mask.astype(np.float32) / 255


def _spots(n: int, rng: random.Random) -> list[tuple[float, float]]:
    base = {1: [(0.5, 0.5)], 2: [(0.32, 0.3), (0.68, 0.7)],
            3: [(0.28, 0.25), (0.7, 0.45), (0.36, 0.78)],
            4: [(0.27, 0.26), (0.73, 0.26), (0.27, 0.74), (0.73, 0.74)]}[min(n, 4)]
    return [(x + rng.uniform(-0.04, 0.04), y + rng.uniform(-0.04, 0.04)) for x, y in base]


def _card(sections: list[list[str]], section_mm: tuple[float, float], card_id: str,
          style: str, ground: Callable[[tuple[int, int], random.Random], np.ndarray],
          fish: Callable[[np.ndarray, str, tuple[float, float], float, random.Random], None],
          frame: tuple[int, int, int]) -> np.ndarray:
    sw, sh = (round(v * ART_PX_PER_MM) for v in section_mm)
    rng = random.Random(_seed(style, card_id))
    img = ground((2 * sw, 2 * sh), rng)
    for row in range(2):
        for col in range(2):
            value = sections[row][col]
            if value == "empty":
                continue
            kinds = value.split("+")
            length = min(sw, 1.4 * sh) * (0.8 if len(kinds) == 1 else 0.56 if len(kinds) == 2
                                          else 0.44)
            for kind, (fx, fy) in zip(kinds, _spots(len(kinds), rng), strict=False):
                fish(img, kind, (col * sw + fx * sw, row * sh + fy * sh), length, rng)
    cv2.rectangle(img, (0, 0), (2 * sw - 1, 2 * sh - 1), frame, max(2, round(ART_PX_PER_MM)))
    return img


def photo_card(sections: list[list[str]], section_mm: tuple[float, float],
               card_id: str, kinds: tuple[str, ...]) -> np.ndarray:
    """A Shoal card of fish cut from photographs on textured water (a grey photo of
    gravel, tinted sea green)."""
    def ground(size: tuple[int, int], rng: random.Random) -> np.ndarray:
        tex = _crop("gravel", size, rng).astype(np.float32) / 255
        sea = np.array([150, 140, 60], np.float32)
        return np.clip(sea * (0.75 + 0.5 * tex), 0, 255).astype(np.uint8)

    def fish(img: np.ndarray, kind: str, at: tuple[float, float], length: float,
             rng: random.Random) -> None:
        i = kinds.index(kind) if kind in kinds else _seed(kind) % len(PHOTOS)
        h, w = img.shape[:2]
        x0, y0 = max(0, round(at[0] - length * 0.6)), max(0, round(at[1] - length * 0.4))
        x1, y1 = min(w, round(at[0] + length * 0.6)), min(h, round(at[1] + length * 0.4))
        box = img[y0:y1, x0:x1]
        mask = _fish_mask(box.shape[:2], (at[0] - x0, at[1] - y0), length,
                          (0.34, 0.55, 0.46)[i % 3])[:, :, None]
        skin = _skin(PHOTOS[i % len(PHOTOS)], kind, (w, h))[y0:y1, x0:x1]
        box[:] = (box * (1 - mask) + skin * mask).astype(np.uint8)
        eye = (round(at[0] - length * 0.28), round(at[1] - length * 0.04))
        cv2.circle(img, eye, max(2, round(length / 20)), INK, -1, cv2.LINE_AA)

    return _card(sections, section_mm, card_id, "photo", ground, fish, (60, 70, 40))


def ink_card(sections: list[list[str]], section_mm: tuple[float, float],
             card_id: str, kinds: tuple[str, ...]) -> np.ndarray:
    """A Shoal card drawn in ink on cream paper, every fish in warm yellows and oranges:
    the kinds differ by outline and pattern more than by colour."""
    def ground(size: tuple[int, int], rng: random.Random) -> np.ndarray:
        img = np.empty((size[1], size[0], 3), np.uint8)
        img[:] = (200, 228, 240)
        for _ in range(14):
            y = rng.randrange(size[1])
            cv2.line(img, (0, y), (size[0], y + rng.randrange(-20, 20)), (180, 212, 228), 1,
                     cv2.LINE_AA)
        return img

    def fish(img: np.ndarray, kind: str, at: tuple[float, float], length: float,
             rng: random.Random) -> None:
        i = kinds.index(kind) if kind in kinds else _seed(kind) % 6
        colour = ((40, 190, 245), (30, 140, 240), (60, 210, 235), (40, 120, 220),
                  (150, 170, 180), (60, 90, 200))[i % 6]
        tall = (0.6, 0.32, 0.5, 0.4, 0.22, 0.45)[i % 6]
        mask = _fish_mask(img.shape[:2], at, length, tall)
        solid = (mask > 0.5).astype(np.uint8)
        img[solid > 0] = colour
        pattern = np.zeros(img.shape[:2], np.uint8)
        step = max(3, round(length / 7))
        x0, y0 = round(at[0] - length / 2), round(at[1] - length / 2)
        for k in range(0, round(length) + step, step):  # stripes, spots or cross-hatch
            if i % 3 == 0:
                cv2.line(pattern, (x0 + k, y0), (x0 + k, y0 + round(length)), 255, 2)
            elif i % 3 == 1:
                for j in range(0, round(length), step):
                    cv2.circle(pattern, (x0 + k, y0 + j), max(1, step // 4), 255, -1)
            else:
                cv2.line(pattern, (x0 + k, y0), (x0, y0 + k), 255, 1)
                cv2.line(pattern, (x0 + k, y0 + round(length)), (x0 + round(length),
                         y0 + k), 255, 1)
        img[(pattern > 0) & (solid > 0)] = INK
        contours, _ = cv2.findContours(solid, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(img, contours, -1, INK, max(1, round(length / 40)), cv2.LINE_AA)

    return _card(sections, section_mm, card_id, "ink", ground, fish, INK)


def flat_card(sections: list[list[str]], section_mm: tuple[float, float],
              card_id: str, kinds: tuple[str, ...]) -> np.ndarray:
    """The project's own generated art (:func:`vision.art.shoal_card`)."""
    return shoal_card(sections, section_mm, card_id)


CARD_ART: dict[str, Callable[[list[list[str]], tuple[float, float], str, tuple[str, ...]],
                             np.ndarray]] = {
    "flat": flat_card, "photo": photo_card, "ink": ink_card}


# Tokyo Poo Divers -------------------------------------------------------------------

def _blank(card_mm: tuple[float, float], colour: tuple[int, int, int]) -> np.ndarray:
    w, h = (round(v * ART_PX_PER_MM) for v in card_mm)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = colour
    return img


def dark_face(face: str, card_mm: tuple[float, float], variant: int = 0) -> np.ndarray:
    """Dark, low-contrast faces: a navy back with a faint pattern, a charcoal blank, a
    dim sleeper and objects drawn some 30 levels off their ground."""
    rng = random.Random(_seed("dark", face, variant))
    if face == "closed":
        img = _blank(card_mm, (62, 40, 30))
        h, w = img.shape[:2]
        for k in range(0, w + h, max(4, w // 10)):
            cv2.line(img, (k, 0), (k - h, h), (80, 56, 42), max(2, w // 28), cv2.LINE_AA)
        cv2.circle(img, (w // 2, h // 2), w // 4, (84, 70, 60), max(2, w // 20), cv2.LINE_AA)
        return img
    if face == "blank":
        img = _blank(card_mm, (58, 58, 60))
        h, w = img.shape[:2]
        cv2.rectangle(img, (w // 8, h // 8), (w * 7 // 8, h * 7 // 8), (70, 70, 72), 2)
        return img
    if face == "sleeper":
        img = _blank(card_mm, (54, 44, 50))
        h, w = img.shape[:2]
        cv2.ellipse(img, (w // 2, h * 3 // 5), (w // 3, h // 6), 0, 180, 360, (88, 80, 86),
                    max(2, w // 16), cv2.LINE_AA)
        cv2.putText(img, "z", (w * 3 // 5, h // 3), cv2.FONT_HERSHEY_SIMPLEX, h / 70,
                    (88, 80, 86), max(1, w // 36), cv2.LINE_AA)
        return img
    ground = tuple(rng.randrange(40, 75) for _ in range(3))
    img = _blank(card_mm, (int(ground[0]), int(ground[1]), int(ground[2])))
    _object_drawing(img, rng, [tuple(min(255, g + rng.randrange(18, 40)) for g in ground)
                               for _ in range(3)])
    return img


def photo_face(face: str, card_mm: tuple[float, float], variant: int = 0) -> np.ndarray:
    """Faces cut from photographs: a brick back, a paper blank, a night-sky sleeper, and
    objects that are crops of the sample photographs."""
    rng = random.Random(_seed("photo-face", face, variant))
    w, h = (round(v * ART_PX_PER_MM) for v in card_mm)
    if face == "closed":
        img = (_crop("brick", (w, h), random.Random(3)).astype(np.float32)
               * np.array([0.45, 0.6, 0.9], np.float32)).astype(np.uint8)
        cv2.circle(img, (w // 2, h // 2), w // 5, (40, 190, 230), -1, cv2.LINE_AA)
    elif face == "blank":
        img = _blank(card_mm, (226, 232, 236))
    elif face == "sleeper":
        img = _crop("hubble_deep_field", (w, h), random.Random(5))
        cv2.circle(img, (w * 2 // 3, h // 3), w // 6, (200, 230, 240), -1, cv2.LINE_AA)
    else:
        img = _crop(PHOTOS[variant % len(PHOTOS)], (w, h), rng)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (40, 40, 40), max(2, round(ART_PX_PER_MM)))
    return img


def flat_face(face: str, card_mm: tuple[float, float], variant: int = 0) -> np.ndarray:
    """The project's own generated faces (:func:`vision.art.poo_face`)."""
    return poo_face(face, card_mm, variant)


FACE_ART: dict[str, Callable[[str, tuple[float, float], int], np.ndarray]] = {
    "flat": flat_face, "dark": dark_face, "photo": photo_face}


def _object_drawing(img: np.ndarray, rng: random.Random,
                    colours: list[tuple[int, ...]]) -> None:
    """One of a few everyday things in outline: a teapot, a bicycle wheel, a key, an
    umbrella, a boot, a lamp."""
    h, w = img.shape[:2]
    c = (w / 2 + rng.uniform(-0.08, 0.08) * w, h / 2 + rng.uniform(-0.08, 0.08) * h)
    s = min(w, h) * rng.uniform(0.26, 0.34)
    ink = tuple(int(v) for v in colours[0])
    fill = tuple(int(v) for v in colours[1])
    t = max(2, round(s / 9))
    thing = rng.randrange(6)
    p = (round(c[0]), round(c[1]))
    if thing == 0:  # teapot
        cv2.ellipse(img, p, (round(s), round(s * 0.7)), 0, 0, 360, fill, -1, cv2.LINE_AA)
        cv2.line(img, (round(c[0] - s), p[1]), (round(c[0] - 1.5 * s), round(c[1] - s * 0.6)),
                 ink, t, cv2.LINE_AA)
        cv2.ellipse(img, (round(c[0] + s), p[1]), (round(s * 0.4), round(s * 0.45)), 0, -90,
                    90, ink, t, cv2.LINE_AA)
        cv2.circle(img, (p[0], round(c[1] - s * 0.75)), max(2, round(s / 6)), ink, -1)
    elif thing == 1:  # bicycle wheel
        cv2.circle(img, p, round(s), ink, t, cv2.LINE_AA)
        for k in range(12):
            a = k * math.pi / 6
            cv2.line(img, p, (round(c[0] + s * math.cos(a)), round(c[1] + s * math.sin(a))),
                     ink, 1, cv2.LINE_AA)
        cv2.circle(img, p, max(2, round(s / 7)), fill, -1)
    elif thing == 2:  # key
        cv2.circle(img, (round(c[0] - s * 0.6), p[1]), round(s * 0.45), ink, t, cv2.LINE_AA)
        cv2.line(img, (round(c[0] - s * 0.15), p[1]), (round(c[0] + s * 1.1), p[1]), ink, t)
        for dx in (0.7, 0.95):
            cv2.line(img, (round(c[0] + s * dx), p[1]), (round(c[0] + s * dx),
                     round(c[1] + s * 0.35)), ink, t)
    elif thing == 3:  # umbrella
        cv2.ellipse(img, p, (round(s), round(s * 0.8)), 0, 180, 360, fill, -1, cv2.LINE_AA)
        cv2.line(img, p, (p[0], round(c[1] + s)), ink, t)
        cv2.ellipse(img, (round(c[0] - s * 0.2), round(c[1] + s)), (round(s * 0.2),
                    round(s * 0.2)), 0, 0, 180, ink, t)
    elif thing == 4:  # boot
        pts = np.array([[c[0] - s * 0.5, c[1] - s], [c[0] + s * 0.1, c[1] - s],
                        [c[0] + s * 0.1, c[1] + s * 0.3], [c[0] + s, c[1] + s * 0.5],
                        [c[0] + s, c[1] + s * 0.9], [c[0] - s * 0.5, c[1] + s * 0.9]], np.int32)
        cv2.fillPoly(img, [pts], fill, cv2.LINE_AA)
        cv2.polylines(img, [pts], True, ink, t, cv2.LINE_AA)
    else:  # lamp
        shade = np.array([[c[0] - s * 0.4, c[1] - s], [c[0] + s * 0.4, c[1] - s],
                          [c[0] + s * 0.8, c[1] - s * 0.2], [c[0] - s * 0.8, c[1] - s * 0.2]],
                         np.int32)
        cv2.fillConvexPoly(img, shade, fill, cv2.LINE_AA)
        cv2.line(img, (p[0], round(c[1] - s * 0.2)), (p[0], round(c[1] + s * 0.8)), ink, t)
        cv2.line(img, (round(c[0] - s * 0.5), round(c[1] + s * 0.85)),
                 (round(c[0] + s * 0.5), round(c[1] + s * 0.85)), ink, t)


def line_object(card_mm: tuple[float, float], variant: int) -> np.ndarray:
    """An object face by a generator of its own: an everyday thing in outline on a
    light ground (none of these are in any faces.json the styles write)."""
    rng = random.Random(_seed("line", variant))
    img = _blank(card_mm, (rng.randrange(205, 245), rng.randrange(205, 245),
                           rng.randrange(205, 245)))
    _object_drawing(img, rng, [(rng.randrange(0, 90), rng.randrange(0, 90),
                                rng.randrange(0, 90)),
                               (rng.randrange(60, 200), rng.randrange(60, 200),
                                rng.randrange(60, 200))])
    cv2.rectangle(img, (0, 0), (img.shape[1] - 1, img.shape[0] - 1), INK, 2)
    return img


def like_back(closed: np.ndarray) -> Callable[[tuple[float, float], int], np.ndarray]:
    """Object faces drawn on the closed back's own mean colour, a little off it: the
    objects the issue saw read as closed."""
    ground = [int(v) for v in closed.reshape(-1, 3).mean(0)]

    def draw(card_mm: tuple[float, float], variant: int) -> np.ndarray:
        rng = random.Random(_seed("like-back", variant))
        img = _blank(card_mm, (ground[0], ground[1], ground[2]))
        _object_drawing(img, rng, [tuple(max(0, min(255, g + rng.choice((-1, 1))
                                                     * rng.randrange(30, 60)))
                                         for g in ground) for _ in range(2)])
        return img

    return draw
