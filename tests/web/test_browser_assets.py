"""What a page open asks the companion for, in chromium at a phone (390 x 844, touch) and a
tablet (1280 x 800, touch): a game page's scripts in one request and its style in
another, and, opened again, both from the browser's own cache (not asked again)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import DEVICES, Server, api_post, screenshot, touch_page


@pytest.mark.parametrize("size", list(DEVICES))
@pytest.mark.parametrize("game", ["shark", "poodivers"])
def test_a_game_page_comes_in_three_requests_then_from_the_cache(
        server: Server, new_browser: Any, size: str, game: str) -> None:
    sid = api_post(server, "/api/games", {"game": game, "players": ["Ann", "Ben", "Cid"],
                                          "options": {}})["id"]
    page = touch_page(new_browser, size)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    asked: dict[str, str] = {}          # request id -> address, as the page asks
    cached: set[str] = set()            # request ids the browser answered itself
    cdp.on("Network.requestWillBeSent",
           lambda e: asked.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    kinds: list[tuple[str, str]] = []
    page.on("request", lambda r: kinds.append((r.resource_type, r.url)))

    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    expect(page.locator("#turn")).to_have_text("Ann to play")
    scripts = [url for kind, url in kinds if kind == "script"]
    styles = [url for kind, url in kinds if kind == "stylesheet"]
    assert len(scripts) == 1 and scripts[0].endswith(f"/{game}.js"), scripts
    assert len(styles) == 1 and styles[0].endswith("/app.css"), styles

    page.goto(f"{server.url}/")                  # the start page, then the game again
    page.wait_for_selector("#game-select")
    asked.clear()
    cached.clear()
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    expect(page.locator("#turn")).to_have_text("Ann to play")
    assert page.locator("#board *").count() > 10
    assets = {rid: url for rid, url in asked.items() if "/assets/" in url}
    assert sorted(u.rsplit("/", 1)[1] for u in assets.values()) == ["app.css", f"{game}.js"]
    assert set(assets) <= cached, "the page's script and style were asked for again"
    screenshot(page, f"assets-{game}-{size}-opened-again")
