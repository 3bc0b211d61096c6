"""``companion hub`` stops promptly on SIGTERM even with live pages open: their streams
end at once instead of holding the server until their next keepalive (15 s)."""

from __future__ import annotations

import contextlib
import http.client
import signal
import time
from pathlib import Path

from tests.hub.conftest import Hub, Mosquitto

BOUND = 4.0
"""Seconds: waitress gives up on busy threads after 5 s, a keepalive comes after 15 s;
a stop that waits for either fails, a loaded machine's slow exit does not."""


def test_sigterm_stops_the_hub_promptly_with_open_streams(tmp_path: Path,
                                                          mosquitto: Mosquitto) -> None:
    hub = Hub(tmp_path / "hub", mosquitto.url)
    try:
        pages = []
        for path in ("/api/events", "/api/events?table=t1"):
            conn = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30)
            conn.request("GET", path)
            res = conn.getresponse()
            assert res.status == 200
            assert res.readline().startswith(b"retry:")  # the stream is open and waiting
            pages.append(res)
        began = time.monotonic()
        hub.proc.send_signal(signal.SIGTERM)
        code = hub.proc.wait(30)
        took = time.monotonic() - began
        assert code == 0, "".join(hub.lines)
        print(f"stopped in {took:.2f} s")
        assert took < BOUND, f"the hub took {took:.1f} s to stop"
        for res in pages:  # each page sees its stream end (a browser then retries)
            with contextlib.suppress(http.client.IncompleteRead):
                res.read()
    finally:
        hub.stop()
