"""``companion serve``: the dashboard behind waitress, a production WSGI server."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import waitress

from companion.store import Store, default_path
from companion.table import Table
from web import create_app


def cmd_serve(args: argparse.Namespace) -> int:
    db: Path = args.db or default_path()
    table = Table(Store(db))
    app = create_app(table)
    print(f"companion: serving on http://{args.host}:{args.port}/ (database {db})",
          file=sys.stderr, flush=True)
    waitress.serve(app, host=args.host, port=args.port, threads=args.threads,
                   ident="companion", _quiet=True)
    return 0


def register(sub: Any) -> None:
    s = sub.add_parser("serve", help="serve the dashboard to the table")
    s.add_argument("--host", default="0.0.0.0")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--db", type=Path, default=None)
    s.add_argument("--threads", type=int, default=32,
                   help="worker threads (each open live page holds one)")
    s.set_defaults(func=cmd_serve)
