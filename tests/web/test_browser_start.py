"""The start page in a real browser: QR code, new-game errors, history with winners,
games going on kept live; a digital Tokyo Poo Divers game dealt by the companion."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.web.conftest import (
    PHONE,
    PIN,
    TABLET,
    Server,
    api_post,
    create_game,
    enter_pin,
    screenshot,
)


def test_start_page(server: Server, new_browser: Any) -> None:
    page = new_browser(PHONE).new_page()
    page.goto(server.url + "/")
    assert page.locator("img.qr").evaluate("img => img.naturalWidth") > 0
    assert PIN in page.inner_text("#table-pin")      # shown on the Pi's own screen
    enter_pin(page)
    page.select_option("#game-select", "poodivers")
    page.locator("#players input").nth(0).fill("Ann")
    page.click("#start-game")
    page.wait_for_selector("#new-error:has-text('2 to 8 players')")

    # A game finished elsewhere shows up live in the history, with its winner.
    game = api_post(server, "/api/games", {"game": "shoal", "players": ["Ann", "Ben"],
                                       "options": {"goal": "G2"}})
    page.wait_for_selector(f'#unfinished a[href="/games/{game["id"]}"]')
    while not game["over"]:
        play = game["legal"][0]
        game = api_post(server, f"/api/games/{game['id']}/actions",
                    {"action": {"type": "play", "card": play["choices"]["card"][0],
                                "at": play["choices"]["at"][0]}})
    page.wait_for_selector(f'#history a[href="/games/{game["id"]}"]')
    assert " and ".join(game["winners"]) in page.inner_text("#history")
    screenshot(page, "start-phone")
    tablet = new_browser(TABLET).new_page()
    tablet.goto(server.url + "/")
    screenshot(tablet, "start-tablet")


def test_digital_poodivers_deals_itself(server: Server, new_browser: Any) -> None:
    page = new_browser(PHONE).new_page()
    page.goto(server.url + "/")
    enter_pin(page)
    sid = create_game(page, server, "poodivers", ["Ann", "Ben"],
                      setup=lambda p: p.check('input[name="digital"]'))
    page.click('.pd-cell[data-cell="D4"]')             # no face to choose: it is dealt
    page.wait_for_selector('#log li[value="1"]')
    face = page.get_attribute('.pd-cell[data-cell="D4"]', "class")
    assert any(f in face for f in ("blank", "sleeper", "object", "diver"))
    view = json.load(urllib.request.urlopen(f"{server.url}/api/games/{sid}", timeout=10))
    assert "deal" not in view["options"]               # the hidden faces stay hidden
    assert view["log"][0]["action"]["face"] in ("blank", "sleeper", "object")
