"""``companion hub``: follow every table over MQTT and serve the hub's page.

::

    companion hub --broker mqtt://192.168.1.10:1883 [--host 0.0.0.0] [--port 8100]
                  [--db PATH] [--embedded-broker] [--username hub] [--password-file F]

The broker's address, user name and password may also come from config.toml (``hub``,
``hub_username``, ``hub_password``); flags win. ``--embedded-broker`` starts Mosquitto
itself, its config and persistence in the hub's data folder (beside ``--db``), listening
where ``--broker`` says (default ``mqtt://0.0.0.0:1883``).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path
from typing import Any

HUB_PORT = 8100
EMBEDDED = "mqtt://0.0.0.0:1883"


def _fail(message: str) -> int:
    print(f"companion hub: {message}", file=sys.stderr)
    return 2


def cmd_hub(args: argparse.Namespace) -> int:
    import waitress

    from companion.settings import ConfigError, Settings
    from hub import broker, mqtt
    from hub.app import create_app
    from hub.follow import Follower
    from hub.ledger import Ledger

    logging.basicConfig(level=logging.INFO, format="companion hub: %(message)s")
    try:
        conf = Settings.load(args.config)
    except ConfigError as err:
        return _fail(str(err))
    text = args.broker or conf.hub or (EMBEDDED if args.embedded_broker else None)
    if not text:
        return _fail("give the broker: --broker mqtt://HOST:PORT (or --embedded-broker to "
                     "start Mosquitto here)")
    try:
        url = mqtt.parse_url(text)
    except mqtt.BadBrokerURL as err:
        return _fail(str(err))
    if not 1 <= args.port <= 65535:
        return _fail(f"--port {args.port} is not a TCP port (1 to 65535)")
    username = args.username or conf.hub_username
    password = conf.hub_password
    if args.password_file:
        try:
            password = args.password_file.read_text("utf-8").strip()
        except OSError as err:
            return _fail(f"cannot read the password file: {err}")
    db = Path(args.db).expanduser() if args.db else conf.data_dir / "hub.db"
    child = None
    if args.embedded_broker:
        try:
            child, url = _embedded(db.parent / "mosquitto", url)
        except broker.BrokerError as err:
            return _fail(str(err))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        ledger = Ledger(db)
    except Exception as err:
        return _fail(f"cannot open the hub's database {db}: {err}")
    follower = Follower(ledger, url, username, password)
    app = create_app(ledger, {"BROKER": str(url)})

    def stop(*_: Any) -> None:
        # End the open live pages first: waitress stops on SystemExit but waits for its
        # threads, and a page's stream would otherwise hold one until its keepalive.
        app.extensions["feed"].close()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    follower.listen(app.extensions["feed"].changed)
    follower.start()
    shown = "localhost" if args.host in ("0.0.0.0", "::") else args.host
    print(f"companion hub: serving on http://{shown}:{args.port}/ following {url} "
          f"(database {db})", file=sys.stderr, flush=True)
    try:
        waitress.serve(app, host=args.host, port=args.port, threads=args.threads,
                       ident="companion-hub", connection_limit=max(100, 2 * args.threads),
                       channel_timeout=60, _quiet=True)
    except OSError as err:
        return _fail(f"cannot listen on {args.host}:{args.port}: {err}")
    finally:
        follower.close()
        ledger.close()
        if child is not None:
            child.terminate()
            child.wait(10)
    return 0


def _embedded(folder: Path, url: Any) -> tuple[Any, Any]:
    """Start Mosquitto for a single-room night; the process and the URL to reach it."""
    from hub import broker, mqtt

    passwd = folder / "passwd"
    acl = Path(__file__).with_name("companion.acl")
    secured = passwd.exists()
    conf = broker.write_config(folder, url.host, url.port,
                               password_file=passwd if secured else None,
                               acl_file=acl if secured else None)
    if not secured:
        logging.getLogger("companion.hub").warning(
            "the embedded broker lets anyone on the network publish as any table; to give "
            "each table its own user, run: mosquitto_passwd -c %s hub (then each table's "
            "name) and start the hub again", passwd)
    local = "127.0.0.1" if url.host in ("0.0.0.0", "::") else url.host
    proc = broker.start(conf, local, url.port, log=folder / "mosquitto.log")
    return proc, mqtt.BrokerURL(local, url.port, url.tls, url.ca)


def register(sub: Any) -> None:
    h = sub.add_parser("hub", help="follow every table over MQTT: one page for the room "
                       "and the league")
    h.add_argument("--broker", default=None,
                   help="the MQTT broker, mqtt://HOST:PORT or mqtts://HOST:PORT (default: "
                        "hub in config.toml)")
    h.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    h.add_argument("--port", type=int, default=HUB_PORT, help=f"TCP port (default {HUB_PORT})")
    h.add_argument("--db", default=None, help="the hub's SQLite file (default: hub.db in the "
                   "data folder)")
    h.add_argument("--embedded-broker", action="store_true",
                   help="start Mosquitto here, its config in the hub's data folder")
    h.add_argument("--username", default=None,
                   help="the hub's broker user (default: hub_username in config.toml)")
    h.add_argument("--password-file", type=Path, default=None,
                   help="a file holding the hub's broker password (default: hub_password "
                        "in config.toml)")
    h.add_argument("--config", type=Path, default=None,
                   help="config file (default ~/.config/companion/config.toml)")
    h.add_argument("--threads", type=int, default=64,
                   help="worker threads (each open live page holds one; default 64)")
    h.set_defaults(func=cmd_hub)
