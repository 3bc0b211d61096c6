"""Calibrate to a table's own cards: cut card images out of a photo of them on the mat.

Lay the cards face up on the mat, upright (fish swimming left), a finger's width apart,
in the deck's order row by row; photograph; run ``companion vision capture-deck``. Each
card found is straightened, its light divided out, and saved as ``<id>.png`` next to the
deck's JSON, whose ``image`` fields are filled in (paper white at 255, measured on the
markers). More cards than fit on the mat: take several photos, ``--start`` naming the
first card of each. Sections whose images come out too alike to tell apart in a photo
are named (:func:`vision.calibration.alike_messages`).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision import lighting
from vision.errors import VisionError
from vision.mat import MatSpec, detect

CAPTURE_PX_PER_MM = 4.0


def find_cards(photo: np.ndarray, mat: MatSpec,
               card_mm: tuple[float, float]) -> list[np.ndarray]:
    """Straight-on images of the cards lying apart on the mat, in reading order (rows top
    to bottom, left to right), each ``card_mm`` at :data:`CAPTURE_PX_PER_MM`."""
    ppm = CAPTURE_PX_PER_MM
    view = detect(mat, photo, ppm)
    light = lighting.flatten(view.rectified, mat, ppm)
    filled = cv2.morphologyEx(light.mask.astype(np.uint8), cv2.MORPH_CLOSE,
                              np.ones((9, 9), np.uint8))
    # the camera's blur spreads a card's colour a little over the mat: trim that rim
    rim = max(1, round(ppm))
    filled = cv2.erode(filled, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8))
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area = card_mm[0] * card_mm[1] * ppm * ppm
    found = []
    for contour in contours:
        (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
        if 0.7 * area < w * h < 1.3 * area:
            found.append(((cx, cy), angle))
    if not found:
        raise VisionError("no card-sized shapes on the mat: lay the cards apart (not "
                          "touching), face up, on the mat")
    row_h = card_mm[1] * ppm
    found.sort(key=lambda f: (round(f[0][1] / row_h), f[0][0]))
    size = (round(card_mm[0] * ppm), round(card_mm[1] * ppm))
    out = []
    image = np.clip(light.flat * 255, 0, 255).astype(np.uint8)  # paper white 255
    for (cx, cy), angle in found:
        # keep the card upright: a card lies within 45 degrees of square to the mat
        a = (angle + 45) % 90 - 45
        m = cv2.getRotationMatrix2D((cx, cy), a, 1.0)
        m[:, 2] += np.array([size[0] / 2 - cx, size[1] / 2 - cy])
        out.append(cv2.warpAffine(image, m, size, flags=cv2.INTER_AREA))
    return out


def capture_deck(photo: np.ndarray, mat: MatSpec, deck_file: Path,
                 start: str | None = None) -> list[str]:
    """Save the cards in ``photo`` as the images of the deck's cards from ``start`` on (the
    first card without an image by default); returns the ids written."""
    try:
        data = json.loads(deck_file.read_text(encoding="utf-8"))
        cards = data["cards"]
        section = data["section_mm"]
        card_mm = (2 * float(section[0]), 2 * float(section[1]))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
        raise VisionError(f"the deck {deck_file} does not load: {err}") from None
    ids = [str(c["id"]) for c in cards]
    if start is None:
        todo = [i for i, c in enumerate(cards)
                if not c.get("image") or not (deck_file.parent / c["image"]).is_file()]
        first = todo[0] if todo else 0
    elif start in ids:
        first = ids.index(start)
    else:
        raise VisionError(f"the deck has no card {start!r} (it starts {', '.join(ids[:3])}…)")
    images = find_cards(photo, mat, card_mm)
    if first + len(images) > len(cards):
        raise VisionError(f"{len(images)} cards found but only {len(cards) - first} left in "
                          f"the deck from {ids[first]}: is something else on the mat?")
    written = []
    for card, img in zip(cards[first:], images, strict=False):
        name = f"{card['id']}.png"
        if not cv2.imwrite(str(deck_file.parent / name), img):
            raise VisionError(f"could not write {deck_file.parent / name}")
        card["image"] = name
        written.append(str(card["id"]))
    deck_file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    return written
