"""Running Debian's Mosquitto: ``companion hub --embedded-broker`` for a single-room night
(and the tests and the benchmark, which start their own on a free loopback port).

The configuration is written to a folder (the hub's data folder) with persistence in the
same folder, so what the broker holds for an absent hub or table survives a restart of
the broker. With a password file and an ACL (``deploy/mosquitto/``) every table may
publish only under its own topic.
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import time
from pathlib import Path

INSTALL = "install Mosquitto: sudo apt-get install mosquitto (Debian, Raspberry Pi OS)"


class BrokerError(RuntimeError):
    """Mosquitto is missing or would not start; the message says what to do."""


def mosquitto() -> str:
    """The ``mosquitto`` program (Debian puts it in /usr/sbin)."""
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/sbin")
    if not found:
        raise BrokerError(f"the embedded broker needs Mosquitto: {INSTALL}")
    return found


def write_config(folder: Path, host: str, port: int, *, password_file: Path | None = None,
                 acl_file: Path | None = None) -> Path:
    """``folder/mosquitto.conf`` for a broker on ``host:port``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Written by companion hub; changes are overwritten at the next start.",
        f"listener {port} {host}",
        "persistence true",
        f"persistence_location {folder}/",
        "autosave_interval 10",
        "max_queued_messages 100000",
        "max_inflight_messages 100",
        f"user {getpass.getuser()}",  # as root Mosquitto would switch to 'mosquitto'
        "log_dest stderr",
        "log_type error",
        "log_type warning",
    ]
    if password_file is not None:
        lines += ["allow_anonymous false", f"password_file {password_file}"]
    else:
        lines.append("allow_anonymous true")
    if acl_file is not None:
        lines.append(f"acl_file {acl_file}")
    conf = folder / "mosquitto.conf"
    conf.write_text("\n".join(lines) + "\n", "utf-8")
    return conf


def start(conf: Path, host: str, port: int, log: Path | None = None,
          timeout: float = 10.0) -> subprocess.Popen[bytes]:
    """Start Mosquitto with ``conf`` and wait until it accepts connections."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the child keeps it)
    proc = subprocess.Popen([mosquitto(), "-c", str(conf)], stdout=out,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BrokerError(f"Mosquitto stopped at once (exit {proc.returncode}): "
                              f"see {log or 'its output'}; is port {port} taken?")
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise BrokerError(f"Mosquitto did not listen on {host}:{port} within {timeout:.0f} s")


def add_user(password_file: Path, user: str, password: str) -> None:
    """Add (or change) a user in a Mosquitto password file (``mosquitto_passwd -b``)."""
    tool = shutil.which("mosquitto_passwd") or shutil.which("mosquitto_passwd",
                                                            path="/usr/bin:/usr/sbin")
    if not tool:
        raise BrokerError(f"mosquitto_passwd is missing: {INSTALL}")
    args = [tool, "-b"] + ([] if password_file.exists() else ["-c"])
    subprocess.run([*args, str(password_file), user, password], check=True,
                   capture_output=True)
