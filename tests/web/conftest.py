"""Fixtures of the dashboard tests: an app on a fresh database (Flask test client), a
real ``companion serve`` subprocess, and Debian's chromium driven by Playwright."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.store import Store
from companion.table import Table
from web.app import create_app

PIN = "2468"
CHROMIUM = Path("/usr/bin/chromium")
# Chromium 156 builds its omnibox popup as a web page (about 200 scripts) in a renderer of
# its own for every new window, headless too, where no window shows it: one to two seconds
# of a core at each page open, taken from the page and the rest of the machine.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1280, "height": 800}
DEVICES = {"phone": PHONE, "tablet": TABLET}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    store = Store(tmp_path / "companion.db")
    yield Table(store)
    store.close()


@pytest.fixture
def app(table: Table) -> Flask:
    return create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "test", "SSE_KEEPALIVE": 0.05})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def writer(client: FlaskClient) -> Callable[..., Any]:
    """``writer("post", url, json=...)``: a request with the table PIN header."""

    def call(method: str, url: str, **kw: Any) -> Any:
        headers = {"X-Table-Pin": PIN, **kw.pop("headers", {})}
        return getattr(client, method)(url, headers=headers, **kw)

    return call


class Server:
    """A ``companion serve`` subprocess on a free localhost port."""

    def __init__(self, home: Path, *extra: str, env: dict[str, str] | None = None,
                 code: Path | None = None) -> None:
        """``code``: run the service from another checkout of the project (a benchmark
        comparing two versions), not the installed one."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = home / "companion.db"
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
               "PYTHONUNBUFFERED": "1", **(env or {})}
        if code is not None:
            env["PYTHONPATH"] = str(code)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--db", str(self.db), "--pin", PIN, *extra],
            env=env, stderr=subprocess.PIPE, text=True, cwd=code)
        self.lines: list[str] = []
        ready = threading.Event()
        threading.Thread(target=self._read, args=(ready,), daemon=True).start()
        if not ready.wait(30):
            self.stop()
            raise RuntimeError("companion serve did not start:\n" + "".join(self.lines))
        self._wait_listening()

    def _read(self, ready: threading.Event) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "table PIN" in line:
                ready.set()
        ready.set()

    def _wait_listening(self) -> None:
        # waitress binds right after the banner; connect until it accepts (bounded).
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                threading.Event().wait(0.05)
        raise RuntimeError("companion serve is not listening:\n" + "".join(self.lines))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("serve"))
    yield srv
    srv.stop()


def _need_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = ("Debian's chromium is missing at /usr/bin/chromium: install it with "
               "'apt-get install -y chromium' (make test does this as root)")
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def playwright_driver() -> Iterator[Any]:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def chromium(playwright_driver: Any) -> Iterator[Any]:
    """One chromium for a test module; each test gets contexts of its own from it."""
    browser = playwright_driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def new_browser(chromium: Any) -> Iterator[Callable[..., Any]]:
    """``new_browser(viewport)``: a fresh chromium context, as a new browser profile is:
    no cookies, storage or cache shared with any other context. Launching a chromium for
    each took about a second of a core, a context a small part of that."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None, **kw: Any) -> Any:
        ctx = chromium.new_context(viewport=viewport or PHONE, **kw)
        ctx.set_default_timeout(10_000)
        contexts.append(ctx)
        return ctx

    yield make
    for ctx in contexts:
        ctx.close()


def touch_page(new_browser: Callable[..., Any], size: str) -> Any:
    """A page of a fresh chromium at ``size`` (a key of DEVICES), with touch."""
    return new_browser(DEVICES[size], has_touch=True, is_mobile=size == "phone").new_page()


# The page leaves parts off the screen undrawn until they come near it (CSS
# content-visibility: auto); a whole-page picture shows them drawn.
DRAW_ALL = """(on) => {
  if (on) {
    window.__undrawn = [...document.querySelectorAll("*")].filter(
      (el) => getComputedStyle(el).contentVisibility === "auto");
  }
  for (const el of window.__undrawn || []) el.style.contentVisibility = on ? "visible" : "";
}"""


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot of the whole page under artifacts/ (kept by CI, ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}.png"
    page.evaluate(DRAW_ALL, True)
    page.screenshot(path=str(path), full_page=True)
    page.evaluate(DRAW_ALL, False)
    return path


def api_get(server: Server, path: str) -> Any:
    """Read the API the way a script would (reads need no PIN)."""
    with urllib.request.urlopen(server.url + path, timeout=10) as res:
        return json.load(res)


def api_post(server: Server, path: str, body: dict[str, Any]) -> Any:
    """POST JSON to a running server with the table PIN; the decoded answer."""
    req = urllib.request.Request(server.url + path, json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "X-Table-Pin": PIN})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.load(res)


def enter_pin(page: Any) -> None:
    """Unlock writes with the PIN dialog of the page's header."""
    page.click("#pin-button")
    page.fill("#pin-input", PIN)
    page.click("#pin-submit")
    page.wait_for_selector("#pin-button.ok")

def play_photographed_shoal(server: Server, scene: Any) -> Any:
    """A two-player Shoal game (goal G3) played to its end: Ann lays the photographed
    shoal card by card, Ben whatever fits his; the last view."""
    game = api_post(server, "/api/games", {"game": "shoal", "players": ["Ann", "Ben"],
                                           "options": {"goal": "G3"}})
    first = scene.placements[0]["at"]
    ann = [(p["card"], [p["at"][0] - first[0], p["at"][1] - first[1]])
           for p in scene.placements]
    taken = {c for c, _ in ann}
    for card, at in ann:
        game = api_post(server, f"/api/games/{game['id']}/actions",
                        {"action": {"type": "play", "card": card, "at": at}})
        if game["over"]:
            break
        play = next(e for e in game["legal"] if e["choices"]["card"][0] not in taken)
        game = api_post(server, f"/api/games/{game['id']}/actions",
                        {"action": {"type": "play", "card": play["choices"]["card"][0],
                                    "at": play["choices"]["at"][0]}})
    return game


def read_from_camera(page: Any, server: Server, game_id: int, photo: Path) -> None:
    """Open the game's page, unlock it and send ``photo`` to the camera view as Ann's."""
    page.goto(f"{server.url}/games/{game_id}")
    enter_pin(page)
    page.select_option("#camera-player", "Ann")
    page.set_input_files("#camera-photo", str(photo))
    page.click("#camera-read")


def create_game(page: Any, server: Server, game: str, players: list[str],
                setup: Callable[[Any], None] | None = None) -> int:
    """Start a game from the start page's form (the PIN already entered); its id."""
    page.goto(server.url + "/")
    page.select_option("#game-select", game)
    while page.locator("#players input").count() < len(players):
        page.click("#add-player")
    for i, name in enumerate(players):
        page.locator("#players input").nth(i).fill(name)
    if setup:
        setup(page)
    page.click("#start-game")
    page.wait_for_url("**/games/*")
    page.wait_for_selector("#live.on")
    return int(page.url.rsplit("/", 1)[1])


def new_game(server: Server, game: str, players: list[str],
             options: dict[str, Any] | None = None,
             actions: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """A game started through the API with ``actions`` played; its latest view."""
    view = api_post(server, "/api/games", {"game": game, "players": players,
                                           "options": options or {}})
    sid = view["id"]
    for action in actions:
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    return view


def open_game(new_browser: Callable[..., Any], server: Server, sid: int, size: str,
              pin: bool = False, script: str | None = None, **kw: Any) -> Any:
    """A page of a fresh chromium at ``size`` (a key of DEVICES, with touch) on game
    ``sid``, its live events on; ``pin``: writes unlocked with the PIN dialog;
    ``script`` runs in the page before its own; ``kw`` goes to the browser's context
    (``extra_http_headers``)."""
    page = new_browser(DEVICES[size], has_touch=True, is_mobile=size == "phone",
                       **kw).new_page()
    if script:
        page.add_init_script(script)
    page.goto(f"{server.url}/games/{sid}")
    if pin:
        enter_pin(page)
    page.wait_for_selector("#live.on")
    return page


def wait_seq(page: Any, seq: int) -> None:
    """Wait until the page's log shows ``seq`` actions."""
    if seq == 0:
        page.wait_for_selector("#log li", state="detached")
    else:
        page.wait_for_selector(f'#log li[value="{seq}"]:first-child')
