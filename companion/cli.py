"""The ``companion`` command line: the composition root.

Exit codes: 0 done, 1 an illegal action in a record, 2 input that cannot be used (with a
one-line message on stderr). The commands beyond the four here (``serve``, ``score``,
``hw``, ``doctor``, camera scoring, ...) come from the ``companion.commands`` entry points
of pyproject.toml: each is named after its command and names a ``register(subparsers)``
function, so this package knows no other package by name and a new one plugs in by
declaring its own entry point.

Only what the command line asks for is imported: ``companion replay`` and ``--version``
load no entry point, ``companion serve`` only the one named ``serve`` (all of them for
``--help`` or a word that is no command), and the registering modules import their heavy
libraries when their command runs. So the command answers at once, also on a Pi.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import __version__

if TYPE_CHECKING:
    from companion.table import Table

COMMANDS = "companion.commands"
"""Entry-point group of ``register(subparsers)`` functions, each named after the command
it adds."""
CORE = ("replay", "export", "games", "backup")


class UsageError(Exception):
    """Input a command cannot use; printed as one line, exit 2 (raise it from any
    command's function)."""


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=None,
                        help="the SQLite file (default: $COMPANION_DB or "
                             "~/.local/share/companion/companion.db)")


def open_table(db: Path | None) -> Table:
    from companion.store import Store, default_path
    from companion.table import Table
    return Table(Store(db or default_path()))


def cmd_replay(args: argparse.Namespace) -> int:
    from companion import record
    rec = record.load(args.record)
    out, code = record.replay(rec)
    if args.json or code:
        print(json.dumps(out, ensure_ascii=False))
    else:
        _print_summary(out)
    return code


def _print_summary(out: dict[str, Any]) -> None:
    print(f"{out['game']}: {', '.join(out['players'])}")
    for name, score in out["scores"].items():
        mark = " (winner)" if name in out["winners"] else ""
        print(f"  {name}: {score}{mark}")
    print("game over" if out["over"] else f"to play: {out['current']}")


def cmd_export(args: argparse.Namespace) -> int:
    from companion.table import NoSuchSession
    table = open_table(args.db)
    try:
        session = table.get(args.session_id)
    except NoSuchSession as err:
        raise UsageError(f"{err}; `companion games` lists them") from None
    text = json.dumps(session.record(), ensure_ascii=False, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    table = open_table(args.db)
    rows = table.list()
    if args.json:
        print(json.dumps([{"id": r.id, "game": r.game, "players": r.players,
                           "over": r.over, "updated": r.updated} for r in rows]))
        return 0
    if not rows:
        print("no games yet")
    for r in rows:
        status = "over" if r.over else "playing"
        print(f"{r.id:4d}  {r.game:10s} {status:8s} {', '.join(r.players)}")
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    from companion.store import Store, default_path
    store = Store(args.db or default_path())
    store.backup(args.out)
    print(f"backed up {store.path} to {args.out}")
    return 0


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line for ``argv`` (default ``sys.argv``): the core commands and the
    plugins it may need (see the module docstring)."""
    p = argparse.ArgumentParser(prog="companion", description="The table companion: rules, "
                                "timer, camera scoring and a dashboard for four board games.")
    p.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("replay", help="play a record file through the rules")
    r.add_argument("record", type=Path)
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(func=cmd_replay)

    e = sub.add_parser("export", help="write the record of a stored game")
    e.add_argument("session_id", type=int)
    e.add_argument("--out", type=Path, help="file to write (default: stdout)")
    add_db_option(e)
    e.set_defaults(func=cmd_export)

    g = sub.add_parser("games", help="list stored games")
    g.add_argument("--json", action="store_true")
    add_db_option(g)
    g.set_defaults(func=cmd_games)

    b = sub.add_parser("backup", help="write a consistent copy of the database, also "
                       "while the service runs")
    b.add_argument("out", type=Path, help="the new file to write")
    add_db_option(b)
    b.set_defaults(func=cmd_backup)

    words = list(sys.argv[1:] if argv is None else argv)
    command = next((w for w in words if not w.startswith("-")), None)
    if command in CORE or (command is None and "--version" in words
                           and not {"-h", "--help"} & set(words)):
        return p
    from importlib.metadata import entry_points
    points = sorted(entry_points(group=COMMANDS), key=lambda ep: ep.name)
    named = [ep for ep in points if ep.name == command]
    for point in named or points:
        point.load()(sub)
    return p


def _input_errors() -> tuple[type[Exception], ...]:
    """What a command raises for input it cannot use; imported only when a command
    raised something (a camera read needs neither the record nor the store module)."""
    from companion.record import BadRecord
    from companion.store import StoreError
    return UsageError, BadRecord, StoreError


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command of ``argv``; without ``argv``, the process's own command line, and
    the process then ends: what the command built is left to the operating system
    (``gc.freeze``), not traversed and freed by the interpreter's last collections
    (20-30 ms once numpy and OpenCV are loaded; atexit handlers still run)."""
    args = parser(argv).parse_args(argv)
    try:
        code: int = args.func(args)
    except _input_errors() as err:
        print(f"companion: {' '.join(str(err).split())}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    if argv is None:
        gc.freeze()
    return code


if __name__ == "__main__":
    # ``python -m companion.cli`` runs this file as ``__main__``; the commands raise the
    # UsageError of the module ``companion.cli``, so run that module's main.
    from companion.cli import main as run
    sys.exit(run())
