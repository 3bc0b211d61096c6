"""Camera scoring for ``companion score shoal``: one layout per photo."""

from __future__ import annotations

from pathlib import Path

from vision.mat import read_photo
from vision.shoal import ShoalReader, layout_of


def layouts_from_photos(photos: list[Path], deck: Path | None,
                        mat: Path | None) -> list[dict[tuple[int, int], str]]:
    """Read each photo's shoal: visible section value by (x, y), normalised to 0.

    ``deck`` is the deck.json (or folder) whose card images the reader matches, the
    shipped deck when ``None``; ``mat`` the mat.json, the project's A3 mat when ``None``.
    Raises :class:`vision.errors.VisionError` (a ``ValueError``) for anything unreadable.
    """
    reader = ShoalReader.from_files(deck, mat)
    return [layout_of(reader.read(read_photo(photo))) for photo in photos]
