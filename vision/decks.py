"""The files vision reads besides the mat: a Shoal ``deck.json`` (read by the Shoal
engine's loader) and a Tokyo Poo Divers ``faces.json`` (DESIGN.md, "Files for decks,
goals, mats").

Either may be named by the JSON file or by the folder that holds it; image paths inside
are relative to the JSON file. Anything unusable is a :class:`VisionError` that says what
to fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.shoal import deck as shoal_deck
from companion.games.shoal.deck import Deck
from vision.errors import VisionError

POO_FACES = ("closed", "blank", "sleeper", "object")


@dataclass(frozen=True)
class Faces:
    path: Path
    """The faces.json file."""
    card_mm: tuple[float, float]
    faces: dict[str, tuple[Path, ...]]


def _read_json(path: Path, name: str, hint: str) -> tuple[Path, Any]:
    path = Path(path)
    file = path / name if path.is_dir() else path
    try:
        return file, json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VisionError(f"no {name} at {file}: {hint}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise VisionError(f"{file} is not a {name} file ({err})") from None


def _size(value: object, what: str) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int | float) and v > 0 for v in value)):
        raise ValueError(f"{what} must be [width, height] in millimetres, got {value!r}")
    return float(value[0]), float(value[1])


def load_deck(path: Path | str) -> Deck:
    """The Shoal deck (the Shoal engine's own loader), as a :class:`VisionError` if bad."""
    try:
        return shoal_deck.load_deck(path)
    except shoal_deck.BadDeck as err:
        raise VisionError(f"the deck does not load: {' '.join(str(err).split())}") from None


def missing_images(deck: Deck) -> list[str]:
    """Ids of the cards that have no image file vision can use."""
    return [c.id for c in deck.cards.values() if c.image is None or not c.image.is_file()]


def load_faces(path: Path) -> Faces:
    """Read a Tokyo Poo Divers faces.json: card size and the images of each face."""
    file, data = _read_json(path, "faces.json", "give the faces JSON file or its folder")
    try:
        card_mm = _size(data.get("card_mm"), "card_mm")
        faces: dict[str, tuple[Path, ...]] = {}
        for face in POO_FACES:
            names = data["faces"].get(face, [])
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ValueError(f"faces.{face} must be a list of image file names")
            faces[face] = tuple(file.parent / n for n in names)
        for face in ("closed", "blank", "sleeper"):
            if not faces[face]:
                raise ValueError(f"it needs at least one image of the {face!r} face")
        unknown = set(data["faces"]) - set(POO_FACES)
        if unknown:
            raise ValueError(f"unknown face {sorted(unknown)[0]!r}: faces are "
                             f"{', '.join(POO_FACES)}")
        missing = [str(p) for ps in faces.values() for p in ps if not p.is_file()]
        if missing:
            raise ValueError(f"image {missing[0]} is missing")
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        msg = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise VisionError(f"the faces file {file} does not load: {msg}") from None
    return Faces(file, card_mm, faces)
