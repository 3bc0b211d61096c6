"""Clapper latency: how late the clapper fires after a search's deadline.

Runs at least 200 short searches through the whole table timer (a Dr. Shark game in a
temporary database, the timer's worker thread, the backend) and prints JSON with the
delay between the host's deadline and the clapper pin going high, in milliseconds:

- ``gpio``: the gpio backend on gpiozero's mock pins (the pin's own record of the moment
  it went high);
- ``serial``: the serial backend through a pty to the virtual clapper box running the
  firmware logic (which keeps time itself, so this includes the START line's trip);
- ``serial_pico_quirks``: the same with the real Pico's quirks: bytes it kept from
  before the port was opened (a cut-off line), and a box slow to read (``--slow-ms``);
- ``late_plug``: a search started while no box is plugged in, the box plugged in
  ``--plug-ms`` later (the service was started before it): how long until the host is
  connected, and how late the clapper fires after the search's own deadline.

    python benchmarks/clapper_latency.py [--runs 200] [--search-ms 40] [--late-runs 20]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from companion.hardware import HardwareConfig, TableTimer
from companion.hardware.backend import Backend
from companion.hardware.gpio import GpioBackend
from companion.hardware.serial_box import SerialBackend
from companion.hardware.virtual_box import VirtualBox
from companion.store import Store
from companion.table import Table

PLAYERS = ["Ann", "Ben", "Cid"]


class StampedPin(MockPin):
    """A mock pin that notes the monotonic time of each rise."""

    rises: ClassVar[dict[str, list[float]]] = {}
    rose = threading.Condition()

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if changed and value:
            with self.rose:
                self.rises.setdefault(self.info.name, []).append(time.monotonic())
                self.rose.notify_all()
        return changed


def next_search(table: Table, sid: int | None) -> int:
    """Play the game on (end the turn, the next player moves) until a search may start;
    a new game after the last round. The session id."""
    while True:
        if sid is None or table.get(sid).game.is_over(table.get(sid).state):
            sid = table.create("drshark", PLAYERS, seed=1).id
        session = table.get(sid)
        legal = {item.type: item for item in session.game.legal(session.state)}
        if "start_search" in legal:
            return sid
        for kind in ("time_up", "end_turn", "skip_service", "move"):
            if kind in legal:
                choice = {k: next(iter(v)) for k, v in legal[kind].choices.items()}
                table.play(sid, {"type": kind, **choice})
                break
        else:  # the last round is over and the game waits for its tally: a new game
            sid = None


def measure(backend: Backend, runs: int, search_ms: int,
            clapped: Callable[[int], float]) -> list[float]:
    """Delays (ms) from deadline to clapper over ``runs`` searches."""
    config = HardwareConfig(duration_s=search_ms / 1000, warning_s=0, bounce_ms=1)
    delays = []
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        table = Table(store)
        timer = TableTimer(table, backend, config)
        expired = threading.Semaphore(0)
        timer.listen(lambda s: expired.release() if s["state"] == "expired" else None)
        sid = None
        try:
            for run in range(runs):
                sid = next_search(table, sid)
                table.play(sid, {"type": "start_search"})
                deadline = timer.timer.deadline
                assert deadline is not None, "the search ended before it was measured"
                delays.append((clapped(run) - deadline) * 1000)
                assert expired.acquire(timeout=5), "time_up was never logged"
        finally:
            timer.close()
    return delays


def gpio(runs: int, search_ms: int) -> list[float]:
    Device.pin_factory = MockFactory(pin_class=StampedPin)
    backend = GpioBackend(HardwareConfig(pulse_ms=5))
    rises = StampedPin.rises.setdefault(
        Device.pin_factory.pin(backend.pins["clapper"]).info.name, [])

    def clapped(run: int) -> float:
        with StampedPin.rose:
            assert StampedPin.rose.wait_for(lambda: len(rises) > run, 5), "no clap"
            return rises[run]
    try:
        return measure(backend, runs, search_ms, clapped)
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = None


def serial(runs: int, search_ms: int) -> list[float]:
    with VirtualBox(pulse_ms=5) as box:
        backend = SerialBackend(box.path, HardwareConfig())

        def clapped(run: int) -> float:
            return box.parts.wait_claps(run + 1)[run]
        return measure(backend, runs, search_ms, clapped)


# A search the box ran before the host opened the port, cut mid-word (MicroPython's USB
# serial hands over what it kept after the host cleared its input).
KEPT = b"NING 12000\nRUNNING 11000\nBUTTON ST"


def serial_quirks(runs: int, search_ms: int, slow_ms: int) -> list[float]:
    with VirtualBox(pulse_ms=5, buffered=KEPT, slow_ms=slow_ms) as box:
        backend = SerialBackend(box.path, HardwareConfig())

        def clapped(run: int) -> float:
            return box.parts.wait_claps(run + 1)[run]
        return measure(backend, runs, search_ms, clapped)


def late_plug(runs: int, search_ms: int, plug_ms: int,
              slow_ms: int) -> tuple[list[float], list[float]]:
    """(ms from plugging in to connected, ms from the deadline to the clapper) per run."""
    config = HardwareConfig(duration_s=search_ms / 1000, warning_s=0, bounce_ms=1)
    connects, delays = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
            table = Table(store)
            link = Path(tmp) / "clapperbox"
            backend = SerialBackend(str(link), config, keep_trying=True)
            with TableTimer(table, backend, config) as timer:
                table.play(next_search(table, None), {"type": "start_search"})
                deadline = timer.timer.deadline
                assert deadline is not None
                time.sleep(plug_ms / 1000)
                with VirtualBox(link, pulse_ms=5, buffered=KEPT, slow_ms=slow_ms) as box:
                    plugged = time.monotonic()
                    assert backend.wait_link("connected", 5), backend.error
                    connects.append((time.monotonic() - plugged) * 1000)
                    delays.append((box.parts.wait_claps(1)[0] - deadline) * 1000)
    return connects, delays


def summary(delays: list[float]) -> dict[str, Any]:
    ordered = sorted(delays)
    return {"runs": len(delays), "p50_ms": round(statistics.median(ordered), 3),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
            "max_ms": round(ordered[-1], 3), "min_ms": round(ordered[0], 3)}


def late_summary(args: argparse.Namespace) -> dict[str, Any]:
    connects, delays = late_plug(args.late_runs, args.late_search_ms, args.plug_ms,
                                 args.slow_ms)
    return {"search_ms": args.late_search_ms, "plugged_after_ms": args.plug_ms,
            "connect": summary(connects), "clapper_after_deadline": summary(delays)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--search-ms", type=int, default=40)
    parser.add_argument("--slow-ms", type=int, default=5)
    parser.add_argument("--late-runs", type=int, default=20)
    parser.add_argument("--late-search-ms", type=int, default=2000)
    parser.add_argument("--plug-ms", type=int, default=300)
    args = parser.parse_args()
    # the late plug's "cannot open … trying again" is expected: keep the JSON clean
    logging.getLogger("companion.hardware").setLevel(logging.ERROR)
    load_before = os.getloadavg()[0]
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "search_ms": args.search_ms,
        "gpio": summary(gpio(args.runs, args.search_ms)),
        "serial": summary(serial(args.runs, args.search_ms)),
        "serial_pico_quirks": summary(serial_quirks(args.runs, args.search_ms, args.slow_ms))
        | {"slow_ms": args.slow_ms},
        "late_plug": late_summary(args),
        "goal": {"gpio_p99_ms": 5, "serial_p99_ms": 20},
        # other work on the machine delays thread wake-ups: report how busy it was
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
