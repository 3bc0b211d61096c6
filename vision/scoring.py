"""Camera scoring for ``companion score shoal``: one layout per photo. The reader is
imported when photos are scored, after BLAS is told one thread
(:func:`vision.threads.one_thread_from_start`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vision import threads
from vision.errors import VisionError

if TYPE_CHECKING:
    from vision.reading import Reading


def layouts_from_photos(photos: list[Path], deck: Path | None,
                        mat: Path | None) -> list[dict[tuple[int, int], str]]:
    """Read each photo's shoal: visible section value by (x, y), normalised to 0.

    ``deck`` is the deck.json (or folder) whose card images the reader matches, the
    shipped deck when ``None``; ``mat`` the mat.json, the project's A3 mat when ``None``.
    Raises :class:`vision.errors.VisionError` (a ``ValueError``) for anything unreadable,
    and for a photo with a cell the reader is unsure of: no score is taken from a reading
    nobody has settled (the dashboard's camera view asks; here the players check). A photo
    whose glare hides cells beside the shoal is scored, with a warning on stderr naming
    them (a card may lie there unread: the players look and take the photo again if so).
    """
    threads.one_thread_from_start()
    from vision.mat import read_photo
    from vision.shoal import ShoalReader, layout_of
    reader = ShoalReader.from_files(deck, mat)
    out = []
    for photo in photos:
        reading = reader.read(read_photo(photo))
        _settled(reading, photo)
        if reading.retake():
            print(f"warning: {photo}: {reading.retake()}", file=sys.stderr)
        out.append(layout_of(reading))
    return out


def _settled(reading: Reading, photo: Path) -> None:
    """:class:`VisionError` naming each unsure cell of ``reading`` and what it may be."""
    from vision.templates import NO_CARD
    unsure = reading.unsure()
    if not unsure:
        return
    said = []
    for cell in unsure[:4]:
        options = reading.doubtful.get(cell) or reading.candidates.get(cell) or {}
        values = ["no card" if v == NO_CARD else v for v in list(options)[:2]]
        said.append(f"{cell}: {' or '.join(values)}" if values else cell)
    more = f" and {len(unsure) - 4} more" if len(unsure) > 4 else ""
    raise VisionError(
        f"{photo}: the camera is unsure of {len(unsure)} cell{'s' if len(unsure) > 1 else ''} "
        f"({'; '.join(said)}{more}): see them with `companion vision read shoal {photo} "
        "--overlay seen.png` and score the layout as text with --layout, or take the photo "
        "again")
