"""The Pi's own Wi-Fi for tables without a house network: ``companion hotspot``.

When the Pi is on no network, ``companion hotspot`` asks NetworkManager (``nmcli``) for
a hotspot profile, ``companion-hotspot``, WPA-secured, that comes back at every boot
but gives way to any known network in range (autoconnect priority below theirs). The
name and password are kept in ``~/.config/companion/hotspot.json`` so the start page
can show them as a Wi-Fi QR code (``WIFI:T:WPA;S:…;P:…;;``) before the dashboard's own.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.cli import UsageError

CONNECTION = "companion-hotspot"
DEFAULT_SSID = "TableCompanion"
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"   # no 0/o, 1/l/i to misread off a screen
NMCLI_SECONDS = 20.0
ONLINE = {"connected", "connected (externally)"}


class HotspotError(UsageError):
    """What went wrong, in words an installer can act on (exit 2)."""


@dataclass(frozen=True)
class Hotspot:
    ssid: str
    password: str
    ifname: str
    address: str | None = None       # the Pi's address on its own network (10.42.0.1)

    def wifi_code(self) -> str:
        """The text of the Wi-Fi QR code phones' cameras understand."""
        return f"WIFI:T:WPA;S:{_escape(self.ssid)};P:{_escape(self.password)};;"


def _escape(text: str) -> str:
    for mark in '\\;,:"':
        text = text.replace(mark, "\\" + mark)
    return text


def settings_file() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "companion" / "hotspot.json"


def nmcli(*args: str) -> str:
    """Run nmcli; its output, or :class:`HotspotError` with nmcli's own message."""
    if shutil.which("nmcli") is None:
        raise HotspotError("nmcli was not found: the hotspot needs NetworkManager "
                           "(Raspberry Pi OS bookworm has it; see hardware.md, 'The Pi's "
                           "own Wi-Fi')")
    try:
        done = subprocess.run(["nmcli", *args], capture_output=True, text=True,
                              timeout=NMCLI_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise HotspotError(f"nmcli {' '.join(args[:3])} did not answer within "
                           f"{NMCLI_SECONDS:.0f} s: is NetworkManager running?") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
        raise HotspotError(f"nmcli {' '.join(args[:3])} failed: {said}")
    return done.stdout


def _fields(line: str) -> list[str]:
    """One line of ``nmcli -t`` output: ``:``-separated, ``\\:`` inside a field."""
    out, field, escaped = [], "", False
    for ch in line:
        if escaped:
            field, escaped = field + ch, False
        elif ch == "\\":
            escaped = True
        elif ch == ":":
            out.append(field)
            field = ""
        else:
            field += ch
    return [*out, field]


def networks() -> list[tuple[str, str, str]]:
    """(device, type, connection) of every device that is on a network now."""
    out = []
    for line in nmcli("-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status").splitlines():
        parts = _fields(line)
        if len(parts) == 4 and parts[2] in ONLINE and parts[1] in ("wifi", "ethernet"):
            out.append((parts[0], parts[1], parts[3]))
    return out


def save(hotspot: Hotspot) -> Path:
    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"ssid": hotspot.ssid, "password": hotspot.password,
                                "ifname": hotspot.ifname}) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def saved() -> Hotspot | None:
    try:
        data = json.loads(settings_file().read_text(encoding="utf-8"))
        return Hotspot(str(data["ssid"]), str(data["password"]), str(data["ifname"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def open_hotspot(ssid: str, password: str, ifname: str, force: bool = False) -> Hotspot | str:
    """Open the hotspot, unless the Pi is on a network already (then say which)."""
    if len(password) < 8 or len(password) > 63:
        raise HotspotError("a WPA password has 8 to 63 characters")
    if not ssid or len(ssid.encode()) > 32:
        raise HotspotError("a Wi-Fi name has 1 to 32 bytes")
    on = [n for n in networks() if n[2] != CONNECTION]
    if on and not force:
        device, _, name = on[0]
        return (f"the Pi is on the network {name!r} ({device}): phones join that one, so "
                "no hotspot was opened (--force opens it anyway)")
    nmcli("device", "wifi", "hotspot", "ifname", ifname, "con-name", CONNECTION,
          "ssid", ssid, "password", password)
    # Back at every boot, but any known network in range wins (priority 0 > -10).
    nmcli("connection", "modify", CONNECTION, "connection.autoconnect", "yes",
          "connection.autoconnect-priority", "-10")
    hotspot = Hotspot(ssid, password, ifname, address())
    save(hotspot)
    return hotspot


def address() -> str | None:
    """The Pi's IPv4 address on the hotspot (NetworkManager shares 10.42.0.1/24)."""
    try:
        text = nmcli("-g", "IP4.ADDRESS", "connection", "show", CONNECTION)
    except HotspotError:
        return None
    first = text.strip().split("|")[0].strip()
    return first.split("/")[0] or None


@dataclass
class _Seen:
    at: float = -1e9
    value: Hotspot | None = None


_seen = _Seen()
CACHE_SECONDS = 10.0


def active() -> Hotspot | None:
    """The hotspot, when this companion opened one and it is up (asked at most every
    10 s: the start page calls this on every open)."""
    now = time.monotonic()
    if now - _seen.at < CACHE_SECONDS:
        return _seen.value
    value = None
    kept = saved()
    if kept is not None:
        try:
            names = [_fields(line)[0] for line in
                     nmcli("-t", "-f", "NAME", "connection", "show", "--active").splitlines()]
            if CONNECTION in names:
                value = Hotspot(kept.ssid, kept.password, kept.ifname, address())
        except HotspotError:
            value = None
    _seen.at, _seen.value = now, value
    return value


def cmd_hotspot(args: argparse.Namespace) -> int:
    if args.off:
        nmcli("connection", "modify", CONNECTION, "connection.autoconnect", "no")
        nmcli("connection", "down", CONNECTION)
        print("the hotspot is off and stays off at boot")
        return 0
    kept = saved()
    ssid = args.ssid or (kept.ssid if kept else DEFAULT_SSID)
    password = args.password or (kept.password if kept else
                                 "".join(secrets.choice(ALPHABET) for _ in range(12)))
    result = open_hotspot(ssid, password, args.ifname, args.force)
    if isinstance(result, str):
        print(result)
        return 0
    where = f"http://{result.address}:8000/" if result.address else "the Pi's address"
    print(f"hotspot {result.ssid!r} is on, password {result.password}\n"
          f"phones: scan the Wi-Fi code on the start page, then the dashboard's code "
          f"(the dashboard is at {where}); it comes back at boot when no known network "
          f"is in range ('companion hotspot --off' to stop it)")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("hotspot", help="open the Pi's own Wi-Fi when it is on no network",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ssid", help=f"the network's name (default {DEFAULT_SSID!r}, or the "
                                  "last one used)")
    p.add_argument("--password", help="its WPA password, 8 to 63 characters (default: "
                                      "the last one used, else a new random one)")
    p.add_argument("--ifname", default="wlan0", help="the Wi-Fi device (default wlan0)")
    p.add_argument("--force", action="store_true",
                   help="open the hotspot even when the Pi is on a network")
    p.add_argument("--off", action="store_true", help="close the hotspot, also at boot")
    p.set_defaults(func=cmd_hotspot)
