"""What a page open asks the companion for and brings, in chromium at a phone (390 x 844,
touch) and a tablet (1280 x 800, touch): a game page's scripts in one request and its
style in another, and, opened again, both from the browser's own cache (not asked
again); the game inside the page, enough for everything the page shows of its past."""

from __future__ import annotations

import random
import urllib.error
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import (
    DEVICES,
    Server,
    api_get,
    api_post,
    enter_pin,
    screenshot,
    touch_page,
    wait_seq,
)
from tests.web.scripted import choose


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


@pytest.mark.parametrize("size", list(DEVICES))
def test_a_page_opened_late_in_a_game_shows_its_history(
        server: Server, new_browser: Any, size: str) -> None:
    """The page brings the log's words, not each line's scores again (it has them in the
    score history): the log, the charts, the bank's last payments, looking back and the
    undo's question all come from that."""
    sid = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben", "Cid"],
                                          "options": {"starting_cash": 4000}})["id"]
    view = api_get(server, f"/api/games/{sid}")
    rnd = random.Random(3)
    while view["seq"] < 60 and not view["over"]:
        action = choose([e for e in view["legal"] if e["type"] != "forced_sell"], rnd)
        try:
            view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
        except urllib.error.HTTPError:
            continue        # a choice the rules refuse (a buy the cash does not cover)
    paid = [line for line in view["log"] if line.get("paid")]
    assert paid, "no payment in the game"
    while view["seq"] > paid[-1]["seq"]:      # back to the last move that paid
        api_post(server, f"/api/games/{sid}/undo", {})
        view = api_get(server, f"/api/games/{sid}")
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    enter_pin(page)
    page.wait_for_selector("#live.on")
    wait_seq(page, view["seq"])
    shown = page.locator("#log li button").all_text_contents()   # drawn off the screen too
    assert shown == [line["text"] for line in view["log"][::-1][:40]]
    assert page.locator("ul.payments li").all_text_contents() == [
        f"{p['player']} {'pays' if p['amount'] < 0 else 'gets'} ${abs(p['amount']):,}: "
        f"{p['why']}" for p in view["log"][-1]["paid"]]
    # Each player's line of the score chart ends at the score now, and each company's
    # line of the price chart at its price now.
    ends = page.locator("#chart polyline, #price-chart polyline").evaluate_all(
        "lines => lines.map((l) => [l.dataset.line, l.getAttribute('points').split(' ').length])")
    assert ends and all(points == view["seq"] + 1 for _, points in ends), ends
    back = view["seq"] - 5
    page.locator(f'#log li[value="{back}"] button').scroll_into_view_if_needed()
    page.tap(f'#log li[value="{back}"] button')
    expect(page.locator("#past")).to_contain_text(
        f"After move {back} of {view['seq']}: {view['log'][back - 1]['text']}")
    page.tap("#past-now")
    page.tap("#undo")
    expect(page.locator("#confirm-text")).to_have_text(f'Undo "{view["log"][-1]["text"]}"?')
    screenshot(page, f"assets-shark-{size}-undo-asked")
    page.tap("#confirm-no")
