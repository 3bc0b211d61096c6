"""``companion vision …``: print the mat, read photos, calibrate to a deck.

::

    companion vision mat --out mat.png --json mat.json [--paper A3|A4] [--dpi 200]
    companion vision read shoal PHOTO --deck DECK [--mat MAT] [--json] [--overlay OUT.png]
    companion vision read poodivers PHOTO --faces FACES [--mat MAT] --layout square [--json]
    companion vision capture-deck PHOTO --deck DECK [--mat MAT] [--start F01]

``--mat`` defaults to the project's A3 mat. Unusable input exits 2 with one line on
stderr that says what to do. OpenCV and the readers are imported when a command runs,
not when the ``companion`` command line is built, and numpy's BLAS is then told one
thread before it loads (:func:`vision.threads.one_thread_from_start`).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision import threads
from vision.errors import VisionError

if TYPE_CHECKING:
    from vision.reading import Reading


def register(sub: Any) -> None:
    v = sub.add_parser("vision", help="camera scoring: the mat, reading photos, card images")
    cmds = v.add_subparsers(dest="vision_command", required=True, metavar="COMMAND")

    m = cmds.add_parser("mat", help="write the printable mat and its mat.json")
    m.add_argument("--out", type=Path, required=True, help="the PNG to print")
    m.add_argument("--json", type=Path, default=None, help="where to write mat.json")
    m.add_argument("--paper", default="A3", help="A3 (default) or A4")
    m.add_argument("--dpi", type=float, default=200.0, help="print resolution (default 200)")
    m.set_defaults(func=_guarded(cmd_mat))

    r = cmds.add_parser("read", help="read a photo of a game on the mat")
    games = r.add_subparsers(dest="game", required=True, metavar="GAME")
    s = games.add_parser("shoal", help="a finished Shoal layout")
    s.add_argument("photo", type=Path)
    s.add_argument("--deck", type=Path, default=None,
                   help="deck.json or its folder, with card images (default: shipped deck)")
    _common(s)
    s.set_defaults(func=_guarded(cmd_read_shoal))
    p = games.add_parser("poodivers", help="a Tokyo Poo Divers layout")
    p.add_argument("photo", type=Path)
    p.add_argument("--faces", type=Path, required=True, help="faces.json or its folder")
    p.add_argument("--layout", default="square",
                   help="a named layout (square, donut, …) or rows such as "
                        "'[\"####\", \"#..#\"]' (JSON) or ####/#..#")
    _common(p)
    p.set_defaults(func=_guarded(cmd_read_poodivers))

    c = cmds.add_parser("capture-deck",
                        help="cut card images out of a photo of the cards laid apart on the mat")
    c.add_argument("photo", type=Path)
    c.add_argument("--deck", type=Path, required=True, help="deck.json or its folder")
    c.add_argument("--mat", type=Path, default=None, help="mat.json or its folder")
    c.add_argument("--start", default=None,
                   help="id of the first card in the photo (default: first without image)")
    c.set_defaults(func=_guarded(cmd_capture_deck))


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mat", type=Path, default=None,
                   help="mat.json or its folder (default: the project's A3 mat)")
    p.add_argument("--json", action="store_true", help="print the vision contract's JSON")
    p.add_argument("--overlay", type=Path, default=None,
                   help="write the photo with what was recognised drawn over it")


def _guarded(func: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        threads.one_thread_from_start()
        # a command makes little garbage in cycles: collecting it while numpy and OpenCV
        # import, and then over all they made, is 10-20 ms of a command-line read
        collecting = gc.isenabled()
        gc.disable()
        try:
            code: int = func(args)
        except VisionError as err:
            print(f"companion: {' '.join(str(err).split())}", file=sys.stderr)
            return 2
        finally:
            if collecting:
                gc.enable()
        return code
    return run


def cmd_mat(args: argparse.Namespace) -> int:
    from vision.mat import standard, write
    if not 50 <= args.dpi <= 1200:
        raise VisionError(f"--dpi {args.dpi:g} is not a print resolution: use 50 to 1200")
    spec = standard(args.paper)
    try:
        write(spec, args.out, args.json, args.dpi)
    except OSError as err:
        raise VisionError(f"cannot write the mat: {err}") from None
    print(f"wrote {args.out} ({args.paper} at {args.dpi:g} dpi: print at 100 %, no scaling)"
          + (f" and {args.json}" if args.json else ""))
    return 0


def _finish(reading: Reading, args: argparse.Namespace, photo: Any) -> int:
    if args.overlay:
        reading.write_overlay(photo, args.overlay)
    if args.json:
        print(json.dumps(reading.to_json(), ensure_ascii=False))
        return 0
    print(f"{reading.game}: {len(reading.cells)} cells read in {reading.ms} ms")
    unsure = set(reading.unsure())
    for cell, value in reading.cells.items():
        flag = ""
        if cell in unsure:
            others = [v for v in reading.candidates.get(cell, {}) if v != value][:2]
            flag = "   (unsure: check it" + (f"; or {' or '.join(others)}" if others else "") + ")"
        print(f"  {cell:>6}  {value}{flag}")
    from vision.templates import NO_CARD
    for cell, options in reading.doubtful.items():
        others = [v for v in options if v != NO_CARD][:2]
        print(f"  {cell:>6}  (no card seen: check it; glare may hide {' or '.join(others)})")
    note = reading.retake()
    if note:
        print(note)
    return 0


def cmd_read_shoal(args: argparse.Namespace) -> int:
    from vision.mat import read_photo
    from vision.shoal import ShoalReader
    photo = read_photo(args.photo)
    reading = ShoalReader.from_files(args.deck, args.mat).read(photo)
    return _finish(reading, args, photo)


def layout_rows(option: str) -> tuple[str, ...]:
    """A --layout option: a name, JSON rows, or rows joined by "/"."""
    from companion.engine import BadSetup
    from companion.games.poodivers.layout import rows_of
    text = option.strip()
    value: object = text
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise VisionError(f"--layout {option!r} is not JSON rows: {err}") from None
    elif "/" in text or "#" in text:
        value = text.split("/")
    try:
        return rows_of(value)
    except BadSetup as err:
        raise VisionError(str(err)) from None


def cmd_read_poodivers(args: argparse.Namespace) -> int:
    from vision.mat import read_photo
    from vision.poodivers import PooDiversReader
    photo = read_photo(args.photo)
    rows = layout_rows(args.layout)
    reading = PooDiversReader.from_files(args.faces, args.mat, rows).read(photo)
    return _finish(reading, args, photo)


def cmd_capture_deck(args: argparse.Namespace) -> int:
    from vision import calibration, capture
    from vision.decks import load_deck, missing_images
    from vision.mat import mat_of, read_photo
    photo = read_photo(args.photo, whole=True)  # card pictures are cut at 4 px a mm
    deck_file = args.deck / "deck.json" if args.deck.is_dir() else args.deck
    load_deck(deck_file)  # refuse a deck the game would refuse
    written = capture.capture_deck(photo, mat_of(args.mat), deck_file, args.start)
    print(f"saved {len(written)} card images ({written[0]} to {written[-1]}) next to "
          f"{deck_file}")
    deck = load_deck(deck_file)
    if not missing_images(deck):
        for line in calibration.alike_messages(deck=deck):
            print(f"warning: {line}")
    return 0
