"""How fast a change reaches every open page: ``companion serve`` with 50 live pages.

Starts the server on a fresh database, opens 50 Server-Sent Events clients on one Tokyo
Poo Divers game, posts 200 actions one after the other (with undos whenever the game
nears its end, so it never ends; each undo is a change too) and prints JSON: the delivery
latency of every event to every client, from the moment its POST was sent to the moment
the client read it (p50, p95, max in ms), and the events that never arrived.

    python benchmarks/live_latency.py [--clients 50] [--actions 200]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PIN = "1357"
DECK = {"object": 42, "sleeper": 14, "blank": 14}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(home: Path, port: int, threads: int) -> subprocess.Popen[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--db", str(home / "bench.db"), "--pin", PIN, "--threads", str(threads)],
        env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "table PIN" in line:
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


class Poster:
    """Posts changes over one keep-alive connection and remembers when each was sent."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.sent: list[float] = []

    def post(self, path: str, body: dict[str, Any], timed: bool = True) -> dict[str, Any]:
        if timed:
            self.sent.append(time.perf_counter())
        self.conn.request("POST", path, json.dumps(body),
                          {"Content-Type": "application/json", "X-Table-Pin": PIN})
        res = self.conn.getresponse()
        data: dict[str, Any] = json.loads(res.read())
        if res.status >= 400:
            raise SystemExit(f"{path} {body}: {res.status} {data.get('error')}")
        return data


def next_action(view: dict[str, Any]) -> dict[str, Any]:
    legal = {entry["type"]: entry for entry in view["legal"]}
    state = view["state"]
    if "bank" in legal and state["turn_points"] >= 3:
        return {"type": "bank"}
    if "flip" not in legal:
        raise SystemExit(f"no flip in {view['legal']} at seq {view['seq']}")
    cell = legal["flip"]["choices"]["cell"][0]
    shown = {f: sum(1 for v in state["cells"].values() if v == f) for f in DECK}
    face = next(f for f in DECK if shown[f] < DECK[f])
    return {"type": "flip", "cell": cell, "face": face}


def play(poster: Poster, sid: int, actions: int) -> dict[str, int]:
    """Post ``actions`` actions; undo back to the start when the game ends or few cards are left."""
    path = f"/api/games/{sid}"
    conn = poster.conn
    conn.request("GET", path)
    view = json.loads(conn.getresponse().read())
    done = undos = 0
    while done < actions:
        if view["over"] or view["state"]["closed"] <= 6:
            while view["seq"] > 0:
                view = poster.post(f"{path}/undo", {"seq": view["seq"]})
                undos += 1
            continue
        view = poster.post(f"{path}/actions", {"action": next_action(view),
                                                "seq": view["seq"]})
        done += 1
    return {"actions": done, "undos": undos}


async def client(port: int, sid: int, ready: asyncio.Event, counter: list[int],
                 total: int, got: dict[int, float], stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    # HTTP/1.0: the stream comes without chunked framing and ends when the server closes.
    writer.write(f"GET /api/games/{sid}/events HTTP/1.0\r\nAccept: text/event-stream\r\n"
                 f"Host: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    first = True
    event_id = ""
    while not stop.is_set():
        line = await reader.readline()
        if not line:
            break
        text = line.decode().rstrip("\r\n")
        if text.startswith("id: "):
            event_id = text[4:]
        elif text == "" and event_id:
            n = int(event_id.rsplit("-", 1)[1])
            if first:
                first = False
                counter[0] += 1
                if counter[0] == total:
                    ready.set()
            else:
                got[n] = time.perf_counter()
            event_id = ""
    writer.close()


async def run(port: int, sid: int, clients: int, actions: int) -> dict[str, Any]:
    ready, stop = asyncio.Event(), asyncio.Event()
    counter = [0]
    received: list[dict[int, float]] = [{} for _ in range(clients)]
    tasks = [asyncio.create_task(client(port, sid, ready, counter, clients, received[i], stop))
             for i in range(clients)]
    await asyncio.wait_for(ready.wait(), 30)
    poster = Poster(port)
    counts = await asyncio.to_thread(play, poster, sid, actions)
    changes = len(poster.sent)
    # Change k (1-based) of the run is the session's change k + 1 (creating it was 1).
    expected = range(2, changes + 2)
    deadline = time.perf_counter() + 5
    while time.perf_counter() < deadline and any(len(r) < changes for r in received):
        await asyncio.sleep(0.02)
    stop.set()
    for task in tasks:
        task.cancel()
    latencies = [(r[n] - poster.sent[n - 2]) * 1000 for r in received for n in expected
                 if n in r]
    dropped = sum(1 for r in received for n in expected if n not in r)
    latencies.sort()
    return {
        "clients": clients, **counts, "changes": changes,
        "events_expected": changes * clients, "events_received": len(latencies),
        "dropped": dropped,
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
            "max": round(latencies[-1], 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--actions", type=int, default=200)
    args = parser.parse_args()
    threads = args.clients + 16
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(Path(tmp), port, threads)
        try:
            poster = Poster(port)
            game = poster.post("/api/games", {"game": "poodivers",
                                              "players": ["Ann", "Ben", "Cid"]}, timed=False)
            result = asyncio.run(run(port, game["id"], args.clients, args.actions))
        finally:
            proc.terminate()
            proc.wait(10)
    result.update(server="waitress", threads=threads, cpus=os.cpu_count(),
                  load_average=[round(x, 2) for x in os.getloadavg()],
                  machine=platform.machine(), python=platform.python_version())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
