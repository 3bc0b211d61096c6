"""``companion score shoal``: score finished shoals from layout text or photos.

::

    companion score shoal --goal G1 --layout ann.txt ben.txt [--deck DECK] [--json]
    companion score shoal --goal G1 --deck DECK [--mat MAT] ann.jpg ben.jpg

One file per player, named by the file's stem (``ann.txt`` → ``ann``). Layout text is
DESIGN.md's (a ``legend:`` line, then rows of sections). Photos are read by the camera
scoring that an installed package provides as the ``shoal`` entry point of the
``companion.photo_scoring`` group (see :data:`PHOTO_SCORING`). ``--goal`` is a goal-card id
of the deck, a JSON file holding a goal card, or the goal card as inline JSON. Without
``--json`` each player's total and breakdown are printed with an ASCII picture of the
layout, so a person can check what the companion saw.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from companion.cli import UsageError
from companion.engine import best
from companion.games.shoal.deck import BadDeck, Deck, GoalCard, load_deck, parse_goal_card
from companion.games.shoal.layout import (
    BadLayout,
    Layout,
    ascii_art,
    check_section,
    foreign_fish,
    parse_text,
)
from companion.games.shoal.scoring import score

MAX_LAYOUT_BYTES = 1024 * 1024
PHOTO_SCORING = "companion.photo_scoring"
"""Entry-point group of photo scorers by game: ``shoal`` names a function
``(photos, deck, mat) -> [layout, ...]``, one ``{(x, y): section}`` per photo, that raises
``ValueError`` or ``OSError`` with a message for a photo it cannot read."""

PhotoScorer = Callable[[list[Path], Path | None, Path | None], list[dict[Any, str]]]


def register(sub: Any) -> None:
    s = sub.add_parser("score", help="score finished layouts (Shoal)")
    games = s.add_subparsers(dest="game", required=True, metavar="GAME")
    p = games.add_parser(
        "shoal", help="score Shoal layouts from layout text files or photos",
        description="Score one layout per player: text files with --layout, or photos.")
    p.add_argument("photos", nargs="*", type=Path, metavar="PHOTO",
                   help="one photo of each player's shoal (camera scoring)")
    p.add_argument("--goal", required=True,
                   help="goal-card id of the deck (G1), a goal-card JSON file, or inline JSON")
    p.add_argument("--layout", nargs="+", action="extend", type=Path, default=[],
                   metavar="FILE", help="layout text files, one per player (name = file stem)")
    p.add_argument("--deck", default=None,
                   help="deck.json or its folder (default: the shipped deck)")
    p.add_argument("--mat", type=Path, default=None, help="mat.json or its folder (photos)")
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    p.set_defaults(func=cmd_score_shoal)


def cmd_score_shoal(args: argparse.Namespace) -> int:
    if not args.layout and not args.photos:
        raise UsageError("nothing to score: give --layout FILE... or photos, one per player")
    deck = _deck(args.deck)
    # Layout text names its fish in the legend: only a deck given (or photos, which are
    # read with the deck) checks them against a deck's fish (RULINGS.md).
    kinds = deck.kinds if args.deck is not None or args.photos else None
    goal = _goal(args.goal, deck, kinds)
    names = [p.stem for p in [*args.layout, *args.photos]]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise UsageError(f"two files are both named {twice!r}: players are named by the "
                         "file stem, so give each player's file its own name")
    layouts = [_read_layout(path, kinds) for path in args.layout]
    if args.photos:
        deck_path = Path(args.deck) if args.deck not in (None, "default") else None
        layouts += _from_photos(args.photos, deck_path, args.mat, deck)
    by_player = dict(zip(names, layouts, strict=True))
    scored = score(by_player, goal)
    if args.json:
        print(json.dumps(scored, ensure_ascii=False))
        return 0
    print(f"goal card {goal.id}")
    for name, result in scored.items():
        print(f"\n{name}: {result['total']} points ({result['fish']} fish)")
        for line in result["breakdown"]:
            print(f"  {line['points']:+4d}  {line['goal']}  (counted {line['count']})")
        print("".join(f"    {row}\n" for row in ascii_art(by_player[name]).splitlines()),
              end="")
    winners = best({n: r["total"] for n, r in scored.items()})
    print(f"\n{'winners' if len(winners) > 1 else 'winner'}: {', '.join(winners)}")
    return 0


def _deck(option: str | None) -> Deck:
    try:
        return load_deck(option or "default")
    except BadDeck as err:
        raise UsageError(_one_line(err)) from None


def _goal(option: str, deck: Deck, kinds: tuple[str, ...] | None) -> GoalCard:
    try:
        if option in deck.goals:
            return deck.goals[option]
        if option.lstrip().startswith("{"):
            return parse_goal_card(json.loads(option), kinds)
        path = Path(option)
        if path.is_file():
            return parse_goal_card(json.loads(path.read_text("utf-8")), kinds)
    except json.JSONDecodeError as err:
        raise UsageError(f"the goal card {option!r} is not JSON: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read the goal card {option}: {err}") from None
    except BadDeck as err:
        raise UsageError(_one_line(err)) from None
    known = ", ".join(deck.goals) or "none"
    raise UsageError(f"no goal card {option!r}: give an id of the deck's ({known}), a goal "
                     "card JSON file, or the goal card as JSON")


def _read_layout(path: Path, kinds: tuple[str, ...] | None) -> Layout:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_LAYOUT_BYTES + 1)
        if len(raw) > MAX_LAYOUT_BYTES:
            raise UsageError(f"{path} is too large for a layout")
        layout = parse_text(raw.decode("utf-8"), str(path))
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text file (UTF-8 layout text)") from None
    except BadLayout as err:
        raise UsageError(_one_line(err)) from None
    if kinds is not None:
        _check_kinds(layout, kinds, str(path))
    return layout


def _check_kinds(layout: Mapping[tuple[int, int], str], kinds: tuple[str, ...],
                 source: str) -> None:
    foreign = foreign_fish(layout, kinds)
    if foreign is not None:
        (x, y), fish = foreign
        raise UsageError(f"{source}: section [{x}, {y}] shows {fish!r}, which no "
                         f"card of the deck shows ({', '.join(kinds)}); give "
                         "--deck for another deck, or leave --deck out")


def photo_scorer() -> PhotoScorer:
    """The installed camera scoring of Shoal photos."""
    for point in entry_points(group=PHOTO_SCORING, name="shoal"):
        try:
            scorer: PhotoScorer = point.load()
        except ImportError as err:
            raise UsageError(f"camera scoring is not available ({err}): score layout text "
                             "with --layout instead") from None
        return scorer
    raise UsageError("camera scoring is not installed: score layout text with --layout "
                     "instead")


def _from_photos(photos: list[Path], deck: Path | None, mat: Path | None,
                 loaded: Deck) -> list[Layout]:
    scorer = photo_scorer()
    try:
        layouts = scorer(photos, deck, mat)
    except (ValueError, OSError) as err:
        raise UsageError(_one_line(err)) from None
    if not isinstance(layouts, list) or len(layouts) != len(photos):
        raise UsageError("the camera scoring did not return one layout per photo")
    out = []
    for photo, layout in zip(photos, layouts, strict=True):
        try:
            checked = {(int(x), int(y)): check_section(v) for (x, y), v in layout.items()}
        except (BadLayout, TypeError, ValueError) as err:
            raise UsageError(f"{photo}: the camera read a section that is not one: "
                             f"{_one_line(err)}") from None
        if not checked:
            raise UsageError(f"{photo}: no card was recognised: is the shoal on the mat?")
        _check_kinds(checked, loaded.kinds, str(photo))
        out.append(checked)
    return out


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())
