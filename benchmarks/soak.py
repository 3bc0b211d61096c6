"""A long game night through the HTTP API, watched by live pages, with power cuts.

Starts ``companion serve`` on a fresh database, opens 20 Server-Sent Events viewers on
the game being played, and sends N scripted requests (plays chosen from the API's
``legal`` list over the four games, undos, redos, new games; see tests/web/scripted.py).
The server is killed with SIGKILL a few times at random moments and restarted on the
same database; after each restart every acknowledged change is checked for. Prints
JSON: requests and acknowledged actions per second (time in restarts left out), server
RSS at start and end, restarts survived, acknowledged actions lost (must be 0), the
events the viewers read, and the machine.

    python benchmarks/soak.py --actions 3000 [--viewers 20] [--kills 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.store import Store
from tests.web.scripted import Client, Ledger, Lost, Pending, Script

PIN = "8642"


class Server:
    """A ``companion serve`` process on a free port over ``db``."""

    def __init__(self, home: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--db", str(home / "soak.db"), "--pin", PIN],
            env=env, stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if "table PIN" in line:
                break
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("companion serve did not start")

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0


class Viewers:
    """``n`` start pages following every game's changes (``/api/events``), reconnecting
    when the server restarts. (Following each game's own stream and switching at every
    new game would leave the old streams holding a server thread until the keepalive
    notices the closed connection, so the viewers stay on the one stream.)"""

    def __init__(self, n: int) -> None:
        self.target: tuple[int, int] | None = None   # (port, session id)
        self.events = 0
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(n)]
        for t in self.threads:
            t.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            target = self.target
            if target is None:
                time.sleep(0.05)
                continue
            port = target[0]
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=0.5)
            try:
                conn.request("GET", "/api/events")
                res = conn.getresponse()
                while not self.stop.is_set() and self.target is not None \
                        and self.target[0] == port:
                    try:
                        line = res.fp.readline()
                    except TimeoutError:
                        continue
                    if not line:
                        break
                    if line.startswith(b"data:"):
                        with self._lock:
                            self.events += 1
            except (OSError, http.client.HTTPException):
                time.sleep(0.05)
            finally:
                conn.close()

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(2)


def lost_actions(ledger: Ledger, db: Path) -> int:
    """Acknowledged actions the database no longer holds."""
    lost = 0
    with Store(db) as store:
        for sid, mine in ledger.actions.items():
            theirs = store.actions(sid)
            same = 0
            while same < min(len(mine), len(theirs)) and mine[same] == theirs[same]:
                same += 1
            lost += len(mine) - same
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    script = Script(seed=args.seed)
    kill_at = sorted(rnd.sample(range(1, args.actions), min(args.kills, args.actions - 1)))
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        db = home / "soak.db"
        server = Server(home)
        rss_start = rss_run_start = server.rss_kb()
        client = Client(server.url, PIN)
        viewers = Viewers(args.viewers)
        busy = 0.0
        restarts = lost = mismatches = 0
        load = os.getloadavg()
        for sent in range(args.actions):
            timer = None
            if kill_at and sent >= kill_at[0]:
                kill_at.pop(0)
                timer = threading.Timer(rnd.uniform(0, 0.01), os.kill,
                                        (server.proc.pid, signal.SIGKILL))
                timer.start()
            started = time.perf_counter()
            pending: Pending | None
            try:
                script.step(client)
                pending = None
            except Lost:
                pending = script.pending
            busy += time.perf_counter() - started
            if script.sid is not None:
                viewers.target = (server.port, script.sid)
            if timer is None:
                continue
            timer.join()
            server.proc.wait(10)
            client.close()
            lost += lost_actions(script.ledger, db)
            try:
                script.ledger.check(db, pending)
            except AssertionError:
                mismatches += 1
            server = Server(home)
            rss_run_start = server.rss_kb()
            restarts += 1
            client = Client(server.url, PIN)
            script.resume(client)
        rss_end = server.rss_kb()
        viewers.close()
        client.close()
        server.proc.terminate()
        server.proc.wait(10)
        lost += lost_actions(script.ledger, db)
        with Store(db) as store:
            integrity = store.integrity()
    ledger = script.ledger
    print(json.dumps({
        "requests": args.actions,
        "acknowledged": ledger.acknowledged,
        "refused_by_the_rules": ledger.refused,
        "games": script.games,
        "requests_per_second": round(args.actions / busy, 1),
        "acknowledged_per_second": round(ledger.acknowledged / busy, 1),
        "viewers": args.viewers,
        "events_read_by_viewers": viewers.events,
        # "end" is the server started last (after the last kill), at the end of the run;
        # "last_start" is that same server just after it started.
        "server_rss_kb": {"start": rss_start, "last_start": rss_run_start, "end": rss_end},
        "restarts_survived": restarts,
        "acknowledged_lost": lost,
        "ledger_mismatches": mismatches,
        "integrity": integrity,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "loadavg_at_start": load},
    }, indent=2))


if __name__ == "__main__":
    main()
