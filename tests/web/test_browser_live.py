"""Live pages in Chromium: a page that only follows the changes (light events, patched
onto the view it loaded) shows exactly what a page loaded afresh shows, for every game."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.web.conftest import TABLET, Server, api_get, api_post, screenshot, wait_seq

PLAYERS = ["Ann", "Ben", "Cy"]


def pick(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    entry = rnd.choice(legal)
    action: dict[str, Any] = {"type": entry["type"]}
    for key, values in (entry.get("choices") or {}).items():
        if values:
            action[key] = rnd.choice(list(values))
    return action


def play(server: Server, sid: int, moves: int, rnd: random.Random) -> int:
    """Up to ``moves`` legal actions through the API, with an undo now and then."""
    for _ in range(moves * 10):
        view = api_get(server, f"/api/games/{sid}")
        if moves == 0 or view["over"]:
            return int(view["seq"])
        try:
            if view["seq"] and rnd.random() < 0.15:
                api_post(server, f"/api/games/{sid}/undo", {})
            else:
                api_post(server, f"/api/games/{sid}/actions",
                         {"action": pick(view["legal"], rnd)})
        except OSError:       # a refused pick (HTTP 400): the script picks again
            continue
        moves -= 1
    return int(api_get(server, f"/api/games/{sid}")["seq"])


@pytest.mark.parametrize("game", ["drshark", "shark", "poodivers", "shoal"])
def test_a_following_page_shows_what_a_fresh_one_shows(server: Server, new_browser: Any,
                                                        game: str) -> None:
    sid = api_post(server, "/api/games", {"game": game, "players": PLAYERS})["id"]
    browser = new_browser(TABLET)
    follower = browser.new_page()
    follower.goto(f"{server.url}/games/{sid}")
    follower.wait_for_selector("#live.on")
    seq = play(server, sid, 25, random.Random(5))
    wait_seq(follower, seq)
    fresh = browser.new_page()
    fresh.goto(f"{server.url}/games/{sid}")
    fresh.wait_for_selector("#live.on")
    wait_seq(fresh, seq)
    screenshot(follower, f"live-{game}-follower")
    assert shown(follower) == shown(fresh)


def shown(page: Any) -> str:
    """The page's text but the seconds of a running countdown (a clock, not the view)."""
    text: str = page.evaluate("""() => {
        const main = document.querySelector("main").cloneNode(true);
        main.querySelectorAll("#countdown").forEach((el) => el.remove());
        return main.innerText;
    }""")
    return text
