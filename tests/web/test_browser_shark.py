"""Shark in a real browser: starting shares, dice entered and rolled, buildings placed on
the board, shares bought and sold, to the end of the game."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import (
    PHONE,
    TABLET,
    Server,
    api_get,
    api_post,
    create_game,
    enter_pin,
    screenshot,
    touch_page,
    wait_seq,
)


def step(page: Any, view: dict[str, Any], turn: int) -> str:
    """Take the next action through the page; what kind of action it was."""
    legal = {entry["type"]: entry for entry in view["legal"]}
    controls = page.locator("#controls")
    if "choose_stock" in legal:
        controls.locator('button.chip[data-company="red"]').click()
        return "choose_stock"
    if "forced_sell" in legal:
        page.click("#forced-go")
        return "forced_sell"
    if "roll" in legal:
        if turn == 0:
            page.click("#roll-for-me")
        else:
            area = view["state"]["area_die"][turn % len(view["state"]["area_die"])]
            page.click('[data-die="red"]')
            page.click(f'[data-area="{area}"]')
            page.click("#enter-roll")
        return "roll"
    if "place" in legal or "remove_neutral" in legal:
        if page.locator(".sk-cell.target").count() == 0:
            controls.locator("button.chip[data-company]").first.click()
        page.locator(".sk-cell.target").first.click()
        return "place"
    if "buy" in legal and view["state"]["turn"]["bought"] == 0 and turn % 3 == 1:
        page.select_option("#buy-count", "1")
        page.click("#buy-go")
        return "buy"
    if "sell" in legal and turn % 5 == 4:
        page.click("#sell-go")
        return "sell"
    page.click("#end-turn")
    return "end_turn"


def test_play_shark(server: Server, new_browser: Any) -> None:
    tablet = new_browser(TABLET).new_page()
    tablet.goto(server.url + "/")
    enter_pin(tablet)
    sid = create_game(tablet, server, "shark", ["Ann", "Ben", "Cid"],
                      setup=lambda page: page.select_option('select[name="board"]', "classic"))
    phone = new_browser(PHONE).new_page()
    phone.goto(f"{server.url}/games/{sid}")
    phone.wait_for_selector("#live.on")

    view = api_get(server, f"/api/games/{sid}")
    done: list[str] = []
    turn = 0
    while not view["over"]:
        assert len(done) < 300, "the game should have ended"
        kind = step(tablet, view, turn)
        done.append(kind)
        if kind == "end_turn":
            turn += 1
        wait_seq(tablet, len(done))
        view = api_get(server, f"/api/games/{sid}")
        assert view["seq"] == len(done), (kind, view["legal"])
        if len(done) == 14:
            wait_seq(phone, len(done))
            screenshot(phone, "shark-phone-playing")
            screenshot(tablet, "shark-tablet-playing")
    assert {"choose_stock", "roll", "place", "buy", "sell", "end_turn"} <= set(done)
    wait_seq(phone, len(done))
    phone.wait_for_selector("#summary:not([hidden])")
    assert view["state"]["ended"] in phone.inner_text("#summary")
    built = view["state"]["board"]
    assert phone.locator(".sk-cell.red").count() == sum(1 for b in built.values() if b == "red")
    assert phone.locator("#price-chart polyline").count() == 4
    screenshot(phone, "shark-phone-over")
    screenshot(tablet, "shark-tablet-over")


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_the_buildings_to_place_are_in_the_companies_order(server: Server, new_browser: Any,
                                                           size: str) -> None:
    """A black die face with the joker lets any building go: the page offers them as the
    rulebook lists the companies, then black, both when it loads (its game data has the
    keys sorted) and when it follows the roll live (the engine's order, patched on)."""
    sid = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben"],
                                          "options": {"variants": ["joker"]}})["id"]
    follower = touch_page(new_browser, size)
    follower.goto(f"{server.url}/games/{sid}")
    follower.wait_for_selector("#live.on")
    for company in ("red", "blue"):
        api_post(server, f"/api/games/{sid}/actions",
                 {"action": {"type": "choose_stock", "company": company}})
    view = api_post(server, f"/api/games/{sid}/actions",
                    {"action": {"type": "roll", "company": "yellow", "area": "1"}})
    cell = view["state"]["pending"]["choices"]["yellow"][0]
    for action in ({"type": "place", "cell": cell, "company": "yellow"},
                   {"type": "end_turn"}, {"type": "roll", "company": "black", "area": "2"}):
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    assert set(view["state"]["pending"]["choices"]) == {"red", "blue", "green", "yellow",
                                                        "black"}
    fresh = touch_page(new_browser, size)
    fresh.goto(f"{server.url}/games/{sid}")
    fresh.wait_for_selector("#live.on")
    wait_seq(follower, view["seq"])
    for page in (fresh, follower):
        chips = page.locator("#controls button.chip[data-company]")
        expect(chips).to_have_count(5)
        assert [c.get_attribute("data-company") for c in chips.all()] == [
            "red", "blue", "green", "yellow", "black"]
    screenshot(fresh, f"shark-{size}-buildings-order")
