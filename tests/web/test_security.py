"""Security of the dashboard: PIN guessing is throttled, user text is escaped on every
page, no request opens a file outside the data folder and the companion's own code,
and the Werkzeug debugger is never on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.store import Store
from companion.table import Table
from tests.web.conftest import PIN, Server
from tests.web.scripted import GAMES
from web import auth
from web.app import create_app

EVIL = ["<script>__pwned=1</script>", '"><img src=x onerror=__pwned=1>',
        "'><svg onload=__pwned=1>", "</textarea><script>__pwned=1</script>"]
"""Player names (at most 40 characters) that run a script if put in a page unescaped."""
HEADERS = {"X-Table-Pin": PIN}
REPO = Path(__file__).resolve().parents[2]


# PIN throttling ----------------------------------------------------------------------

def test_wrong_pins_in_the_header_are_throttled_per_address(client: FlaskClient,
                                                             monkeypatch: Any) -> None:
    guesser = {"REMOTE_ADDR": "192.168.1.66"}
    body = {"game": "shark", "players": ["Ann", "Ben"]}
    codes = [client.post("/api/games", json=body, headers={"X-Table-Pin": f"{i:04d}"},
                         environ_base=guesser).status_code for i in range(auth.MAX_FAILURES + 1)]
    assert codes == [403] * auth.MAX_FAILURES + [429]
    right = client.post("/api/games", json=body, headers=HEADERS, environ_base=guesser)
    assert right.status_code == 429 and "wait a minute" in right.get_json()["error"]
    assert client.get("/api/games").get_json() == []            # nothing was created
    # The players' own phones are not locked out by a guest guessing.
    phone = client.post("/api/games", json=body, headers=HEADERS,
                        environ_base={"REMOTE_ADDR": "192.168.1.20"})
    assert phone.status_code == 201
    # A quiet minute later the guesser may try again.
    now = auth.time.monotonic()
    monkeypatch.setattr(auth.time, "monotonic", lambda: now + auth.FAILURE_WINDOW + 1)
    again = client.post("/api/games", json=body, headers=HEADERS, environ_base=guesser)
    assert again.status_code == 201


# Escaping ------------------------------------------------------------------------------

def evil_games(call: Any) -> list[int]:
    """One game of each kind with hostile player names; hostile options and actions are
    sent too (the rules refuse them, and the refusal must be JSON)."""
    ids = []
    for i, game in enumerate(GAMES):
        players = [EVIL[i % len(EVIL)], EVIL[(i + 1) % len(EVIL)]]
        status, body = call("POST", "/api/games", {"game": game, "players": players,
                                                    "options": {EVIL[0]: EVIL[1]}})
        assert status == 400 and isinstance(body["error"], str)  # JSON, so inert
        status, body = call("POST", "/api/games", {"game": game, "players": players})
        assert status == 201, body
        ids.append(body["id"])
        for evil in EVIL:
            status, body = call("POST", f"/api/games/{body['id']}/actions",
                                {"action": {"type": evil, "cell": evil}})
            assert status == 400 and isinstance(body["error"], str)
            body = {"id": ids[-1]}
    return ids


def test_user_text_is_escaped_on_every_page_and_api(client: FlaskClient) -> None:
    def call(method: str, path: str, body: Any) -> tuple[int, Any]:
        res = client.open(path, method=method, json=body, headers=HEADERS)
        assert res.mimetype == "application/json"
        return res.status_code, res.get_json()

    ids = evil_games(call)
    pages = ["/"] + [f"/games/{sid}" for sid in ids]
    for page in pages:
        res = client.get(page)
        html = res.get_data(as_text=True)
        assert res.status_code == 200 and res.mimetype == "text/html"
        for evil in EVIL:
            assert evil not in html, (page, evil)
        assert "script-src 'self'" in res.headers["Content-Security-Policy"]
    assert "&lt;script&gt;__pwned=1&lt;/script&gt;" in client.get("/").get_data(
        as_text=True)
    for api in ["/api/games", *[f"/api/games/{sid}" for sid in ids]]:
        res = client.get(api)
        assert res.mimetype == "application/json"
        assert res.headers["X-Content-Type-Options"] == "nosniff"


def test_hostile_names_run_no_script_in_the_browser(server: Server,
                                                    new_browser: Any) -> None:
    def call(method: str, path: str, body: Any) -> tuple[int, Any]:
        req = urllib.request.Request(server.url + path, method=method,
                                     data=json.dumps(body).encode(),
                                     headers={**HEADERS, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, json.load(res)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    ids = evil_games(call)
    ctx = new_browser()
    # Record any script the payloads manage to inject, even one the CSP stops.
    ctx.add_init_script("window.__violations = [];"
                        "document.addEventListener('securitypolicyviolation',"
                        " e => window.__violations.push(e.violatedDirective));")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    for path in ["/"] + [f"/games/{sid}" for sid in ids]:
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        if path != "/":
            page.wait_for_selector("#live.on")
        shown = page.inner_text("body")
        assert EVIL[0] in shown or EVIL[1] in shown, path    # shown as text, not markup
        assert page.evaluate("window.__pwned") is None, path
        assert page.evaluate("window.__violations") == [], path
        injected = page.evaluate(
            "document.querySelectorAll('img[src=\"x\"], svg[onload], script:not([src])')"
            ".length")
        assert injected == 0, path
    assert errors == []


def test_browser_tests_wait_in_ways_the_pages_policy_allows(server: Server,
                                                             new_browser: Any) -> None:
    """The pages' content-security policy refuses eval, and a string predicate that
    Playwright has to poll (``wait_for_function("...")``) is eval: such a wait fails
    whenever the page is not ready at the first look. The browser tests wait with
    locators instead (``expect``, ``wait_for_selector``), the page showing what they wait
    for (a spy's count as ``html[data-...]``).

    The predicate waited for is false at Playwright's first look (made inside its own
    evaluation, which the policy lets through) and true at every later one, so the wait
    succeeds unless the policy refuses the polling: a timer that readied the page after
    300 ms was at times already run on a busy machine when the first look came."""
    from playwright.sync_api import Error, expect

    page = new_browser().new_page()
    page.goto(server.url + "/")
    try:
        page.wait_for_function("(window.__looks = (window.__looks || 0) + 1) > 1",
                               timeout=3000)
        refused = ""
    except Error as err:
        refused = str(err)
    assert "unsafe-eval" in refused
    page.evaluate("setTimeout(() => { document.body.dataset.later = 'yes'; }, 300)")
    expect(page.locator("body[data-later=yes]")).to_be_attached()
    mine = Path(__file__).name
    waits = [f.name for f in Path(__file__).parent.glob("test_*.py")
             if f.name != mine and ".wait_for_function(" in f.read_text("utf-8")]
    assert waits == []


# Files ---------------------------------------------------------------------------------

TRAVERSALS = ["../", "..%2f", "%2e%2e/", "%2e%2e%2f", "..\\", "....//", "%252e%252e/",
              "/", "//"]
TARGETS = ["companion.db", "table-pin", "etc/passwd", "web/__init__.py", "canary.txt"]


FIXED_SYSTEM_FILES = {"/etc/mime.types"}
"""Files libraries read by a fixed name (``mimetypes`` for a static file's type)."""


def allowed(path: str, data: Path) -> bool:
    """The data folder, the companion's own code (the camera reader's too) and templates,
    Python's own files."""
    real = os.path.realpath(path)
    if real in FIXED_SYSTEM_FILES:
        return True
    roots = [data, REPO / "web", REPO / "companion", REPO / "vision", Path(sys.prefix),
             Path(sys.base_prefix), Path("/usr/lib/python3")]
    return any(real == str(r) or real.startswith(str(r) + os.sep) for r in roots)


def test_no_request_reaches_a_file_outside_the_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "canary.txt").write_text("CANARY-SECRET")
    table = Table(Store(data / "companion.db"))
    app: Flask = create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "x"})
    client = app.test_client()
    sid = client.post("/api/games", json={"game": "shark", "players": ["A", "B"]},
                      headers=HEADERS).get_json()["id"]
    paths = []
    for up in TRAVERSALS:
        for target in TARGETS:
            escape = up * 8 + target
            paths += [f"/static/{escape}", f"/games/{escape}", f"/api/games/{escape}",
                      f"/api/games/{sid}/{escape}", f"/{escape}", f"/static/games/{escape}",
                      f"/qr.svg/{escape}"]
    options = [{"game": "shoal", "players": ["A", "B"], "options": {"deck": p}}
               for p in [str(tmp_path / "canary.txt"), "../../../../etc/passwd", "/etc",
                         str(data)]]
    options += [{"game": g, "players": ["A", "B"], "options": {"board": "../" * 8 + t}}
                for g in ("shark", "drshark") for t in TARGETS]
    options += [{"game": "poodivers", "players": ["A", "B"],
                 "options": {"layout": "../" * 8 + t}} for t in TARGETS]
    events: list[str] = []

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and armed and isinstance(args[0], str | bytes | Path):
            events.append(os.fsdecode(args[0]))

    armed = False
    sys.addaudithook(hook)  # cannot be removed; it records only while ``armed``
    try:
        armed = True
        for path in paths:
            res = client.get(path, follow_redirects=True)  # // is merged, then 404
            assert res.status_code == 404 and res.is_json, path
            assert b"CANARY" not in res.data and b"root:" not in res.data
        for body in options:
            res = client.post("/api/games", json=body, headers=HEADERS)
            assert res.status_code == 400 and res.is_json, body
            assert "CANARY" not in res.get_json()["error"]
        res = client.post("/api/vision/read", data={"game": "poodivers",
                                                    "layout": "../../etc/passwd"},
                          headers=HEADERS, content_type="multipart/form-data")
        assert res.status_code == 400 and res.is_json
        # The hook does see what requests open: a real static file is read.
        assert client.get("/static/app.css").status_code == 200
    finally:
        armed = False
    assert any(p.endswith("app.css") for p in events)
    outside = [p for p in events if not allowed(p, data)]
    assert outside == []
    table.store.close()


# The debugger -----------------------------------------------------------------------------

def test_the_debugger_is_off_whatever_the_config_says(table: Table) -> None:
    app = create_app(table, {"TABLE_PIN": PIN, "DEBUG": True})
    assert app.debug is False

    @app.get("/boom")
    def boom() -> Any:
        raise ZeroDivisionError("secret internals")

    res = app.test_client().get("/boom")
    assert res.status_code == 500 and res.is_json
    assert b"Traceback" not in res.data and b"secret internals" not in res.data


def test_serve_never_runs_the_debugger(tmp_path: Path) -> None:
    """Even with Flask's debug switches in the environment, ``companion serve`` answers
    the debugger's console and resource addresses with a plain JSON 404."""
    env = {"FLASK_DEBUG": "1", "FLASK_ENV": "development", "WERKZEUG_DEBUG_PIN": "off"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        server = Server(tmp_path)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        for path, code in [("/console", 404), ("/api/games/1?__debugger__=yes&cmd=x", 404),
                           ("/?__debugger__=yes&cmd=resource&f=debugger.js", 200)]:
            try:
                with urllib.request.urlopen(server.url + path, timeout=10) as res:
                    status, body, kind = res.status, res.read(), res.headers["Content-Type"]
            except urllib.error.HTTPError as err:
                status, body, kind = err.code, err.read(), err.headers["Content-Type"]
            # 404s are the API's JSON; the start page ignores the query: no debugger
            # script or console is ever served.
            assert status == code, path
            assert kind.startswith("application/json" if code == 404 else "text/html")
            assert b"CONSOLE_MODE" not in body and b"Werkzeug" not in body
            assert b"debugger" not in body.lower(), path
        out = subprocess.run(["ps", "-o", "args=", "-p", str(server.proc.pid)],
                             capture_output=True, text=True).stdout
        assert "serve" in out
    finally:
        server.stop()


# Behind a TLS proxy on the Pi ------------------------------------------------------------

def test_behind_a_local_proxy_the_pin_stays_on_the_pis_screen(client: FlaskClient) -> None:
    """Through a proxy on the Pi every visitor's peer is loopback: the PIN must still
    show only to the Pi's own screen, and a guesser be throttled alone."""
    phone = {"REMOTE_ADDR": "127.0.0.1"}
    own_screen = client.get("/", environ_base=phone).get_data(as_text=True)
    assert f'id="table-pin">{PIN}<' in own_screen
    proxied = client.get("/", environ_base=phone,
                         headers={"X-Forwarded-For": "192.168.1.66"}).get_data(as_text=True)
    assert 'id="table-pin"' not in proxied
    # A LAN client cannot pretend to be the Pi with the header.
    spoof = client.get("/", environ_base={"REMOTE_ADDR": "192.168.1.66"},
                       headers={"X-Forwarded-For": "127.0.0.1"}).get_data(as_text=True)
    assert f'id="table-pin">{PIN}<' not in spoof
    for i in range(auth.MAX_FAILURES):
        client.post("/api/pin", json={"pin": f"x{i}"}, environ_base=phone,
                    headers={"X-Forwarded-For": "192.168.1.66"})
    guesser = client.post("/api/pin", json={"pin": PIN}, environ_base=phone,
                          headers={"X-Forwarded-For": "192.168.1.66"})
    other = client.post("/api/pin", json={"pin": PIN}, environ_base=phone,
                        headers={"X-Forwarded-For": "192.168.1.20"})
    assert guesser.status_code == 429 and other.status_code == 200
