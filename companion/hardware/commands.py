"""``companion hw``: check the wiring, find the clapper box, run a virtual one.

- ``companion hw test --timer gpio`` (or ``serial:/dev/ttyACM0``) walks a person through
  pressing each button and hearing the buzzer and the clapper;
- ``companion hw list-ports`` lists serial ports, marking Raspberry Pi Picos;
- ``companion hw virtual-box`` runs the box firmware on a pty and prints its path.
"""

from __future__ import annotations

import argparse
import json
import queue
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.settings import ConfigError, Settings

if TYPE_CHECKING:
    from companion.hardware import HardwareConfig
    from companion.hardware.backend import Backend

PICO_VID = 0x2E8A  # Raspberry Pi's USB vendor id


def steps() -> list[tuple[str, str]]:
    """The wiring check's steps: each button event and what to do for it."""
    from companion.hardware.timer import HOLD, NEXT, START, STOP
    return [(START, "Press START"), (STOP, "Press STOP"),
            (NEXT, "Press NEXT briefly"), (HOLD, "Hold NEXT down until it beeps (3 s)")]


def _interrupt_on_sigterm() -> None:
    """Let ``finally`` blocks run (clapper off) when systemd or kill stops us."""
    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def load_config(path: Path | None) -> HardwareConfig:
    """The ``[hardware]`` table of config.toml (the defaults when the file is missing)."""
    from companion.hardware import HardwareConfig, HardwareError
    try:
        settings = Settings.load(path)
    except ConfigError as err:
        raise HardwareError(str(err)) from None
    try:
        return HardwareConfig.from_mapping(settings.hardware)
    except HardwareError as err:
        raise HardwareError(f"{settings.path}: {err}") from None


def cmd_test(args: argparse.Namespace) -> int:
    from companion.hardware import HardwareError, open_backend
    _interrupt_on_sigterm()
    try:
        backend = open_backend(args.timer, load_config(args.config))
    except HardwareError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    presses: queue.Queue[str] = queue.Queue()
    backend.attach(presses.put, lambda: presses.put("expired"))
    failed = []
    try:
        print(f"Wiring check on {args.timer}. Ctrl-C to stop.", flush=True)
        for expected, prompt in steps():
            print(f"{prompt} ...", flush=True)
            if _wait_for(presses, expected, args.timeout):
                print(f"  ok: {expected.upper()} works", flush=True)
            else:
                print(f"  nothing heard from {expected.upper()} within {args.timeout:g} s:"
                      " check that button's wire and its pin", flush=True)
                failed.append(expected)
        for part, question in _sound_checks(backend, presses, args.countdown_ms):
            if not args.yes and input(f"{question} [y/n] ").strip().lower()[:1] != "y":
                failed.append(part)
    except KeyboardInterrupt:
        return 130
    finally:
        backend.close()
    print("all parts work" if not failed else f"check: {', '.join(failed)}", flush=True)
    return 1 if failed else 0


def _wait_for(presses: queue.Queue[str], expected: str, timeout: float) -> bool:
    try:
        while True:
            got = presses.get(timeout=timeout)
            if got == expected:
                return True
            print(f"  (that was {got.upper()})", flush=True)
    except queue.Empty:
        return False


def _sound_checks(backend: Backend, presses: queue.Queue[str],
                  countdown_ms: int) -> list[tuple[str, str]]:
    """Sound the buzzer and fire the clapper; the questions to ask about them."""
    if backend.name == "serial":
        print(f"The box now counts down {countdown_ms / 1000:g} s: a beep each second, "
              "then the clapper.", flush=True)
        backend.running(countdown_ms, countdown_ms)
        _wait_for(presses, "expired", countdown_ms / 1000 + 5)
        return [("buzzer and clapper", "Did you hear the beeps, then the clapper?")]
    print("Buzzer: three short beeps now.", flush=True)
    backend.refused("wiring check")
    print("Clapper: one pulse now.", flush=True)
    backend.clap()
    return [("buzzer", "Did the buzzer beep?"), ("clapper", "Did the clapper slam shut?")]


def cmd_list_ports(args: argparse.Namespace) -> int:
    from serial.tools import list_ports
    ports = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        pico = port.vid == PICO_VID
        ports.append({"device": port.device, "description": port.description,
                      "vid": port.vid, "pid": port.pid, "serial": port.serial_number,
                      "pico": pico})
    if args.json:
        print(json.dumps(ports))
        return 0
    if not ports:
        print("no serial ports: is the clapper box plugged in?")
    for p in ports:
        mark = "  <- a Raspberry Pi Pico: probably the clapper box" if p["pico"] else ""
        print(f"{p['device']}  {p['description']}{mark}")
    return 0


KEYS = {"s": "START", "x": "STOP", "n": "NEXT"}


def cmd_virtual_box(args: argparse.Namespace) -> int:
    from companion.hardware.virtual_box import VirtualBox

    _interrupt_on_sigterm()
    with VirtualBox(args.link, pulse_ms=args.pulse_ms, hold_ms=args.hold_ms) as box:
        print(box.path, flush=True)
        print(f"virtual clapper box on {box.tty}: companion serve --timer serial:{box.path}\n"
              "keys + Enter: s START, x STOP, n NEXT, h hold NEXT, q quit",
              file=sys.stderr, flush=True)
        threading.Thread(target=_report_parts, args=(box,), daemon=True).start()
        try:
            for line in sys.stdin:
                key = line.strip().lower()
                if key == "q":
                    return 0
                if key == "h":
                    box.press("NEXT", box.hold_ms + 200)
                elif key in KEYS:
                    box.press(KEYS[key])
            threading.Event().wait()  # no keyboard: serve until stopped
        except KeyboardInterrupt:
            return 0
    return 0


def _report_parts(box: Any) -> None:
    parts, shown = box.parts, 1
    with parts.changed:
        while True:
            parts.changed.wait()
            for _, on in parts.solenoid_log[shown:]:
                print("CLAP!" if on else "(clapper released)", file=sys.stderr, flush=True)
            shown = len(parts.solenoid_log)


def register(sub: Any) -> None:
    hw = sub.add_parser("hw", help="timer and clapper hardware")
    cmds = hw.add_subparsers(dest="hw_command", required=True)

    t = cmds.add_parser("test", help="wiring check: press each button, hear each part")
    t.add_argument("--timer", default="gpio", help="gpio or serial:URL (default gpio)")
    t.add_argument("--config", type=Path, default=None,
                   help="config.toml whose [hardware] table gives the pins "
                        "(default ~/.config/companion/config.toml)")
    t.add_argument("--timeout", type=float, default=30.0,
                   help="seconds to wait for each button (default 30)")
    t.add_argument("--countdown-ms", type=int, default=3000,
                   help="length of the clapper box's test countdown (default 3000)")
    t.add_argument("--yes", action="store_true",
                   help="do not ask whether the buzzer and clapper were heard")
    t.set_defaults(func=cmd_test)

    p = cmds.add_parser("list-ports", help="serial ports; the clapper box is a Pico")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list_ports)

    v = cmds.add_parser("virtual-box", help="run the box firmware on a pty; prints its path")
    v.add_argument("--link", type=Path, default=None,
                   help="also make this path a symlink to the pty (re-pointed on replug)")
    v.add_argument("--pulse-ms", type=int, default=80)
    v.add_argument("--hold-ms", type=int, default=3000)
    v.set_defaults(func=cmd_virtual_box)
