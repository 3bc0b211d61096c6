"""Whole synthetic tables a user might have, for tests and the accuracy benchmark.

A :class:`Style` is a table: the mat (size, marker dictionary, ids and places), the paper
it is printed on, the Shoal section size, the card art and the Tokyo Poo Divers faces,
and the generator of the objects that are not in ``faces.json``. :func:`write_table`
writes its ``mat.json``, ``deck/`` and ``faces/`` as a user would (DESIGN.md's formats)
and gives a :class:`Table` that photographs scenes through a tier (:data:`TIERS`) or one
light (:data:`LIGHTS`)::

    table = write_table(STYLES["offwhite"], tmp_path)
    scene = table.shoal(seed=3, tier="medium")       # scene.photo, scene.cells
    ShoalReader(load_deck(table.deck), mat.load(table.mat)).read(scene.photo)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.poodivers.layout import rows_of
from companion.games.shoal.deck import load_deck
from vision import art_styles, synth
from vision.mat import MatSpec, standard
from vision.synth import Distortions, Paper


@dataclass(frozen=True)
class Style:
    name: str
    about: str
    """One line for the README's style table."""
    mat: MatSpec
    paper: Paper
    section_mm: tuple[float, float]
    card_art: str
    """A key of :data:`vision.art_styles.CARD_ART`."""
    face_art: str
    """A key of :data:`vision.art_styles.FACE_ART`."""
    card_mm: tuple[float, float]
    unseen: str
    """Generator of objects missing from faces.json: ``flat``, ``line`` or ``like-back``."""
    objects: int = 4
    """Object faces written to faces.json."""


def _mat(dictionary: str, marker_mm: float, markers: dict[int, tuple[float, float]],
         size_mm: tuple[float, float]) -> MatSpec:
    return MatSpec(dictionary, marker_mm, markers, size_mm)


STYLES: dict[str, Style] = {s.name: s for s in (
    Style("project", "the project's A3 mat (grey 200 on white, glossy), generated flat art",
          standard("A3"), synth.PROJECT_PAPER, (44.0, 31.5), "flat", "flat", (26.0, 26.0),
          "flat"),
    Style("offwhite", "off-white 520 x 420 mm mat, ids 7 18 29 40 at irregular insets, "
          "semi-gloss; 32 x 28 mm sections in ink; faces from photographs; line objects",
          _mat("DICT_4X4_50", 45.0, {7: (31.0, 36.0), 18: (486.0, 29.0), 29: (482.0, 388.0),
                                     40: (38.0, 381.0)}, (520.0, 420.0)),
          Paper((232, 240, 244), None, 0.6, (30, 28, 26)), (32.0, 28.0), "ink", "photo",
          (30.0, 30.0), "line"),
    Style("bright", "bright white glossy 420 x 297 mm mat, ids 3 9 21 33; fish cut from "
          "photographs (30 x 40 mm sections); flat faces; objects on the back's colour",
          _mat("DICT_4X4_50", 36.0, {3: (28.0, 30.0), 9: (392.0, 26.0), 21: (394.0, 268.0),
                                     33: (24.0, 270.0)}, (420.0, 297.0)),
          Paper((252, 252, 252), None, 1.0, (12, 12, 12)), (30.0, 40.0), "photo", "flat",
          (25.0, 25.0), "like-back"),
    Style("cream", "cream matte 480 x 340 mm mat, 5x5 markers 11 52 73 94; photo fish "
          "(28 x 32 mm); dark low-contrast faces; line objects",
          _mat("DICT_5X5_100", 38.0, {11: (27.0, 27.0), 52: (452.0, 31.0), 73: (450.0, 311.0),
                                      94: (30.0, 313.0)}, (480.0, 340.0)),
          Paper((196, 228, 243), None, 0.15, (40, 36, 34)), (28.0, 32.0), "photo", "dark",
          (27.0, 27.0), "line"),
    Style("grey", "grey recycled paper, matte, the project's marker places on A3; ink fish "
          "(44 x 31.5 mm); dark faces; objects on the back's colour",
          standard("A3"), Paper((172, 176, 178), None, 0.2, (24, 24, 24)), (44.0, 31.5),
          "ink", "dark", (26.0, 26.0), "like-back"),
)}

TIERS: dict[str, Distortions] = {
    "easy": Distortions(tilt_deg=12, rotation_deg=180, fill=(0.8, 0.95), light=0.3,
                        cast=0.6, exposure=(0.0, 0.45), noise=2.0, jpeg=85, jitter_mm=1.5,
                        jitter_deg=1.5),
    "medium": Distortions(tilt_deg=22, rotation_deg=180, fill=(0.75, 0.95), barrel=0.02,
                          light=0.6, glare=0.4, veil=0.6, shadow=0.4, cast=1.0,
                          exposure=(-0.3, 0.5), noise=4.0, blur=1.0, jpeg=75, jitter_mm=2.0,
                          jitter_deg=2.0),
    "hard": Distortions(tilt_deg=30, rotation_deg=180, fill=(0.7, 0.95), barrel=0.04,
                        light=0.8, glare=0.8, veil=1.0, shadow=0.8, cast=1.0,
                        exposure=(-0.5, 0.6), noise=6.0, blur=1.5, jpeg=60, jitter_mm=3.0,
                        jitter_deg=3.0),
}
"""Easy: a phone held over a well lit table, exposed so bare paper may clip; medium adds
glare (spot and veil), shadows and any cast; hard is every distortion near its bound."""

_STEADY = Distortions(tilt_deg=10, rotation_deg=180, fill=(0.85, 0.95))
LIGHTS: dict[str, Distortions] = {
    "clipped": replace(_STEADY, exposure=(0.5, 0.7)),
    "veil": replace(_STEADY, veil=1.0),
    "spot": replace(_STEADY, glare=1.0),
    **{name: replace(_STEADY, cast=1.0, casts=(name,))
       for name in ("tungsten", "shade", "fluorescent")},
}
"""One light at a time, on a steady camera: for tests of each failure alone."""


@dataclass
class Table:
    """A style's files on disk and what its scenes are drawn from."""

    style: Style
    mat: Path
    deck: Path
    """deck.json (with an image per card)."""
    faces: Path
    """faces.json (with its images)."""
    deck_json: dict[str, Any]
    card_images: dict[str, np.ndarray]
    face_images: dict[str, list[np.ndarray]]
    unseen: Callable[[tuple[float, float], int], np.ndarray]

    def distortions(self, tier: str) -> Distortions:
        return TIERS[tier] if tier in TIERS else LIGHTS[tier]

    def shoal(self, seed: int, tier: str = "easy") -> synth.Scene:
        """A finished shoal on this table, through a tier or a light."""
        return synth.shoal_scene(self.deck_json, self.style.mat, seed,
                                 self.distortions(tier), self.card_images,
                                 paper=self.style.paper)

    def poodivers(self, seed: int, tier: str = "easy", layout: str = "square",
                  unseen_objects: float = 0.5) -> synth.Scene:
        """A Tokyo Poo Divers layout mid-game on this table."""
        return synth.poodivers_scene(self.face_images, self.style.card_mm, rows_of(layout),
                                     self.style.mat, seed, self.distortions(tier),
                                     unseen_objects=unseen_objects, paper=self.style.paper,
                                     unseen=self.unseen)


def write_table(style: Style, folder: Path) -> Table:
    """Write ``mat.json`` (with ``size_mm``), ``deck/`` and ``faces/`` for ``style``."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = style.mat
    mat_file = folder / "mat.json"
    mat_file.write_text(json.dumps({
        "dictionary": spec.dictionary, "marker_mm": spec.marker_mm,
        "markers": {str(k): list(v) for k, v in spec.markers.items()},
        "size_mm": list(spec.size_mm)}, indent=1) + "\n", encoding="utf-8")

    deck = load_deck("default").to_json()
    deck["section_mm"] = list(style.section_mm)
    kinds = tuple(sorted({k for c in deck["cards"] for r in c["sections"] for v in r
                          for k in v.split("+") if k != "empty"}))
    draw_card = art_styles.CARD_ART[style.card_art]
    (folder / "deck").mkdir(exist_ok=True)
    images: dict[str, np.ndarray] = {}
    for card in deck["cards"]:
        images[card["id"]] = draw_card(card["sections"], style.section_mm, card["id"], kinds)
        card["image"] = f"{card['id']}.png"
        cv2.imwrite(str(folder / "deck" / card["image"]), images[card["id"]])
    deck_file = folder / "deck" / "deck.json"
    deck_file.write_text(json.dumps(deck, indent=1) + "\n", encoding="utf-8")

    draw_face = art_styles.FACE_ART[style.face_art]
    (folder / "faces").mkdir(exist_ok=True)
    names: dict[str, list[str]] = {}
    faces: dict[str, list[np.ndarray]] = {}
    for face, count in (("closed", 1), ("blank", 1), ("sleeper", 1),
                        ("object", style.objects)):
        for i in range(count):
            name = f"{face}.png" if face != "object" else f"o{i + 1:02d}.png"
            img = draw_face(face, style.card_mm, i)
            cv2.imwrite(str(folder / "faces" / name), img)
            names.setdefault(face, []).append(name)
            faces.setdefault(face, []).append(img)
    faces_file = folder / "faces" / "faces.json"
    faces_file.write_text(json.dumps({"card_mm": list(style.card_mm), "faces": names},
                                     indent=1) + "\n", encoding="utf-8")

    unseen: Callable[[tuple[float, float], int], np.ndarray]
    if style.unseen == "line":
        unseen = art_styles.line_object
    elif style.unseen == "like-back":
        unseen = art_styles.like_back(faces["closed"][0])
    else:
        def unseen(card_mm: tuple[float, float], variant: int) -> np.ndarray:
            return draw_face("object", card_mm, variant)
    return Table(style, mat_file, deck_file, faces_file, deck, images, faces, unseen)
