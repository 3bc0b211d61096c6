"""``companion serve``: the dashboard behind waitress, a production WSGI server.

Settings come from config.toml (:mod:`companion.settings` lists the keys; ``--config``
names another file); flags win. Without a PIN one is generated on first start, kept in
the data folder (beside the database) and printed, so it stays the same across restarts.
Flask, waitress and the timer hardware are imported when the command runs, not when the
``companion`` command line is built.
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.settings import ConfigError, Settings

KEEPALIVE_IDLE_S, KEEPALIVE_PROBES = 2, 2
"""TCP keepalive: a quiet connection is probed after 2 s, once a second; a phone that
answers 2 probes in a row no more is gone (about 4 s after it left the Wi-Fi)."""
UNACKED_MS = 5000
"""A connection whose sent data nobody acknowledges for 5 s is gone too."""


def server(app: Any, conf: Settings) -> Any:
    """The waitress server of ``companion serve`` (call ``run()``). A live stream holds a
    worker thread, so a stream whose phone is gone must give it back at once
    (web/live.py): with a request lookahead waitress keeps reading the connection while
    the stream runs and sees a phone close it; TCP keepalive and a user timeout on every
    connection find a phone that vanished without closing."""
    import waitress
    made = waitress.create_server(app, host=conf.host, port=conf.port, threads=conf.threads,
                                  ident="companion", channel_timeout=60,
                                  connection_limit=max(100, 2 * conf.threads),
                                  channel_request_lookahead=1)
    tcp = socket.IPPROTO_TCP
    options = [(tcp, socket.TCP_NODELAY, 1), (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE_S), ("TCP_KEEPINTVL", 1),
                        ("TCP_KEEPCNT", KEEPALIVE_PROBES), ("TCP_USER_TIMEOUT", UNACKED_MS)):
        if hasattr(socket, name):   # Linux has them all; elsewhere the system's defaults
            options.append((tcp, getattr(socket, name), value))
    made.adj.socket_options = options   # set on each accepted connection
    return made


def settings(args: argparse.Namespace) -> Settings:
    """Defaults, then the config file, then the flags given on the command line."""
    return Settings.load(args.config, host=args.host, port=args.port, db=args.db,
                         pin=args.pin, timer=args.timer, camera=args.camera,
                         threads=args.threads, hub=args.hub, table=args.table)


def secret_key(data_dir: Path) -> str:
    """The cookie signing key, kept so entered PINs survive a restart."""
    file = data_dir / "dashboard-secret"
    if file.exists():
        return file.read_text("utf-8").strip()
    key = secrets.token_hex(32)
    file.write_text(key + "\n", "utf-8")
    file.chmod(0o600)
    return key


def open_timer(spec: str, table: Any, hardware: Mapping[str, Any],
               state_file: Path | None = None) -> tuple[Any, str | None]:
    """The table timer of ``spec`` on the ``hardware`` table of config.toml
    (``state_file`` keeps its binding and countdown over a restart), or ``None`` and why
    not."""
    from companion.hardware import HardwareError, open_timer
    try:
        return open_timer(spec, table, hardware, state_file=state_file), None
    except (HardwareError, OSError, ValueError, RuntimeError) as err:
        return None, f"cannot open the {spec} timer: {err}"


def start_publishing(table: Any, conf: Settings) -> tuple[Any, str | None]:
    """With ``hub`` set, the hub package's publisher of this table's games (or why not)."""
    if not conf.hub:
        return None, None
    try:
        from hub.publish import start_publisher
    except ImportError as err:
        return None, f"--hub needs the hub package ({err})"
    try:
        publisher = start_publisher(table, conf.hub, conf.table, conf.hub_username,
                                    conf.hub_password)
    except ValueError as err:
        return None, str(err)
    print(f"companion: publishing every game to {publisher.url} as table {publisher.name}",
          file=sys.stderr, flush=True)
    return publisher, None


def loud(*lines: str) -> str:
    """``lines`` framed for the service's log, where a plain line scrolls past unread."""
    rule = "companion: " + "!" * 60
    return "\n".join([rule, *(f"companion: WARNING: {line}" for line in lines), rule])


def gpio_fallback(timer: Any) -> str | None:
    """A loud warning when gpiozero fell back from lgpio for the ``gpio`` timer."""
    from companion.hardware import pins
    device = timer.status()["device"]
    why = device.get("pin_factory_fallbacks", [])
    problem = pins.fallback(device.get("pin_factory", ""), why)
    return loud(problem, f"fix: {pins.fix(why)}") if problem else None


def cmd_serve(args: argparse.Namespace) -> int:
    from companion.store import Store, StoreError
    from companion.table import Table
    try:
        conf = settings(args)
        db = conf.db_path
        table = Table(Store(db))
        pin, new = conf.table_pin()
        key = secret_key(conf.data_dir)
    except (ConfigError, OSError, StoreError) as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    spec = conf.timer
    state_file = conf.data_dir / "timer-state.json"
    timer, problem = open_timer(spec, table, conf.hardware, state_file)
    if problem and spec != "browser":  # hardware that fails must not stop the game night
        timer, still = open_timer("browser", table, conf.hardware, state_file)
        if still is None:
            print(loud(f"the {spec} timer is NOT in use: {problem}",
                       "using the browser timer instead: the dashboard counts down and "
                       "plays the clapper, the buttons and the solenoid do nothing",
                       "`companion doctor` says what to fix"), file=sys.stderr)
            spec = "browser"
    elif timer is not None and spec == "gpio":
        warning = gpio_fallback(timer)
        if warning:
            print(warning, file=sys.stderr)
    if timer is None:
        print(f"companion: {problem}; the dashboard runs without a timer", file=sys.stderr)
    elif timer.status().get("device", {}).get("connection") == "reconnecting":
        print(f"companion: {timer.status()['device']['error']} (the timer uses the box as "
              "soon as it answers)", file=sys.stderr)
    publisher, trouble = start_publishing(table, conf)
    if trouble:
        print(f"companion: {trouble}", file=sys.stderr)
        if timer is not None and hasattr(timer, "close"):
            timer.close()
        return 2
    from web.app import create_app
    app = create_app(table, {
        "TABLE_PIN": pin, "SECRET_KEY": key, "TIMER": timer, "TIMER_SPEC": spec,
        "TIMER_PROBLEM": problem, "CAMERA": conf.camera, "VISION": dict(conf.vision),
        "SHOW_PIN": conf.show_pin,
    })
    shown = "localhost" if conf.host in ("0.0.0.0", "::") else conf.host
    print(f"companion: serving on http://{shown}:{conf.port}/ (database {db})",
          file=sys.stderr, flush=True)
    print(f"companion: table PIN {pin}" + (f" (new, kept in {conf.data_dir})" if new else ""),
          file=sys.stderr, flush=True)
    try:
        server(app, conf).run()
    except OSError as err:
        print(f"companion: cannot listen on {conf.host}:{conf.port}: {err}", file=sys.stderr)
        return 2
    finally:
        if timer is not None and hasattr(timer, "close"):
            timer.close()
        if publisher is not None:
            publisher.close()
    return 0


def register(sub: Any) -> None:
    s = sub.add_parser("serve", help="serve the dashboard to the table")
    s.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0)")
    s.add_argument("--port", type=int, default=None, help="TCP port (default 8000)")
    s.add_argument("--db", default=None,
                   help="the SQLite file (default: $COMPANION_DB or "
                        "~/.local/share/companion/companion.db)")
    s.add_argument("--pin", default=None, help="the table PIN for writes (default: one "
                   "generated on first start and kept)")
    s.add_argument("--timer", default=None,
                   help="browser (default), gpio or serial:URL (serial:/dev/ttyACM0)")
    s.add_argument("--camera", default=None, help="camera source for score-from-camera")
    s.add_argument("--config", type=Path, default=None,
                   help="config file (default ~/.config/companion/config.toml)")
    s.add_argument("--threads", type=int, default=None,
                   help="worker threads (default 64)")
    s.add_argument("--hub", default=None, help="publish every game to the hub's MQTT broker, "
                   "mqtt://HOST:PORT (default: none)")
    s.add_argument("--table", default=None, help="this table's name at the hub (and its "
                   "broker user)")
    s.set_defaults(func=cmd_serve)
