"""Camera scoring for ``companion score shoal``: one layout per photo."""

from __future__ import annotations

from pathlib import Path

from vision import matching, shoal
from vision.decks import load_deck
from vision.mat import mat_of, read_photo


def layouts_from_photos(photos: list[Path], deck: Path | None,
                        mat: Path | None) -> list[dict[tuple[int, int], str]]:
    """Read each photo's shoal: visible section value by (x, y), normalised to 0.

    ``deck`` is the deck.json (or folder) whose card images the reader matches, the
    shipped deck when ``None``; ``mat`` the mat.json, the project's A3 mat when ``None``.
    Raises :class:`vision.errors.VisionError` (a ``ValueError``) for anything unreadable.
    """
    loaded = load_deck(deck if deck is not None else "default")
    spec = mat_of(mat)
    templates = matching.shoal_templates(loaded)
    out = []
    for photo in photos:
        reading = shoal.read(read_photo(photo), loaded, spec, templates)
        out.append(shoal.layout_of(reading))
    return out
