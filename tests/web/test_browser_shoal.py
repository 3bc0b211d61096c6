"""Shoal in a real browser: every card of a two-player game laid by tapping the page."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import (
    PHONE,
    TABLET,
    Server,
    api_get,
    create_game,
    enter_pin,
    screenshot,
    wait_seq,
)


def test_play_shoal(server: Server, new_browser: Any) -> None:
    tablet = new_browser(TABLET).new_page()
    tablet.goto(server.url + "/")
    enter_pin(tablet)
    sid = create_game(tablet, server, "shoal", ["Ann", "Ben"],
                      setup=lambda page: page.select_option("#goal-select", "G1"))
    phone = new_browser(PHONE).new_page()
    phone.goto(f"{server.url}/games/{sid}")
    phone.wait_for_selector("#live.on")

    view = api_get(server, f"/api/games/{sid}")
    assert view["state"]["goal"]["id"] == "G1"
    seq = 0
    while not view["over"]:
        play = view["legal"][-1]          # the last card that fits, at its last spot
        card, (x, y) = play["choices"]["card"][0], play["choices"]["at"][-1]
        tablet.click(f'.sh-card[data-card="{card}"]')
        tablet.click(f'section[data-player="{play["player"]}"] [data-at="{x},{y}"]')
        seq += 1
        wait_seq(tablet, seq)
        view = api_get(server, f"/api/games/{sid}")
        assert view["seq"] == seq
        assert view["state"]["shoals"][play["player"]]["plays"][-1] == {"card": card,
                                                                       "at": [x, y]}
        if seq == 6:
            wait_seq(phone, seq)
            screenshot(phone, "shoal-phone-playing")
            screenshot(tablet, "shoal-tablet-playing")
    wait_seq(phone, seq)
    phone.wait_for_selector("#summary:not([hidden])")
    for player, score in view["scores"].items():
        heading = phone.inner_text(f'section[data-player="{player}"] h2')
        assert f"{player}: {score} points" in heading
    screenshot(phone, "shoal-phone-over")
    screenshot(tablet, "shoal-tablet-over")
