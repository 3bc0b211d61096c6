"""What a player sees without scrolling, in chromium at a phone (390 x 844, touch) and a
tablet (1280 x 800, touch): a long name keeps the turn bar to one line, Dr. Shark's
"Time is up" and "Stop searching" are in sight during a search, not at the foot of a
controls box that runs off a tablet's screen, and every game's page, in the middle of a
game and at its end, is no wider than the screen, its winner named whole."""

from __future__ import annotations

import random
import urllib.error
from typing import Any

import pytest

from tests.support.driver import choose
from tests.web.conftest import (
    DEVICES,
    DRAW_ALL,
    Server,
    api_get,
    api_post,
    screenshot,
    touch_page,
)

LONG = "Maximiliana Theodora Wilhelmina"


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not drawn"
    return dict(found)


def test_a_long_name_keeps_the_turn_bar_to_one_line(server: Server, new_browser: Any) -> None:
    short = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben"],
                                            "options": {}})["id"]
    long = api_post(server, "/api/games", {"game": "shark", "players": [LONG, "Ben"],
                                           "options": {}})["id"]
    for size in DEVICES:
        page = touch_page(new_browser, size)
        page.goto(f"{server.url}/games/{short}")
        page.wait_for_selector("#live.on")
        one_line = box(page, "#turn")["height"]
        page.goto(f"{server.url}/games/{long}")
        page.wait_for_selector("#live.on")
        screenshot(page, f"screen-{size}-long-name")
        turn = box(page, "#turn")
        assert turn["height"] == one_line, f"{size}: the turn bar wraps ({turn['height']} px)"
        # The words after the name are all shown; the name, cut short or not, is whole in
        # the text and the title.
        words = box(page, "#turn .then")
        assert words["x"] + words["width"] <= turn["x"] + turn["width"], size
        assert page.text_content("#turn") == f"{LONG} to play"
        assert page.get_attribute("#turn", "title") == f"{LONG} to play"
        assert page.inner_text("#turn") == f"{LONG} to play"     # one line, read aloud too


def test_the_search_is_ended_from_controls_in_sight(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    for action in ({"type": "move", "space": "A-light"}, {"type": "start_search"}):
        api_post(server, f"/api/games/{sid}/actions", {"action": action})
    clues = [c for c in api_get(server, f"/api/games/{sid}")["legal"][0]["choices"]["clue"]
             if not c.startswith("shark")]
    api_post(server, f"/api/games/{sid}/actions", {"action": {"type": "draw", "clue": clues[0]}})
    for size, screen in DEVICES.items():
        page = touch_page(new_browser, size)
        page.goto(f"{server.url}/games/{sid}")
        page.wait_for_selector("#live.on")
        screenshot(page, f"screen-{size}-drshark-search")
        picker = box(page, ".clues.pick")
        for button in ("#do-time_up", "#do-stop"):
            # Before the clue list, however long it is ...
            assert box(page, button)["y"] < picker["y"], f"{size}: {button} after the clues"
        if size != "tablet":
            continue
        # ... and on a tablet inside the controls' box, which ends on the screen.
        card = box(page, "#controls-card")
        assert card["y"] + card["height"] <= screen["height"], f"the box ends at {card}"
        for button in ("#do-time_up", "#do-stop"):
            b = box(page, button)
            assert card["y"] <= b["y"] and b["y"] + b["height"] <= card["y"] + card["height"]
            assert b["y"] + b["height"] <= screen["height"], f"{button} is below the fold"


# Names of a table's usual length; the Shark game's cash runs to six figures.
TABLES = {"shark": ["Ann", "Benedetta", "Cid"], "drshark": ["Ann", "Ben", "Cid", "Dan"],
          "poodivers": ["Ann", "Benedetta"], "shoal": ["Ann", "Ben", "Cid"]}
OPTIONS = {"shoal": {"goal": "G2"}}


def played(server: Server, game: str, moves: int | None, seed: int) -> int:
    """A game of ``TABLES[game]`` played with random legal moves, ``moves`` of them or
    (``None``) to its end; its id. Dr. Shark's final tally only once nothing else is
    legal (it ends the game whenever it is made)."""
    view = api_post(server, "/api/games", {"game": game, "players": TABLES[game],
                                           "options": OPTIONS.get(game, {})})
    sid, rnd = view["id"], random.Random(seed)
    for _ in range(20_000):
        if view["over"] or (moves is not None and view["seq"] >= moves):
            return int(sid)
        try:
            legal = [e for e in view["legal"] if e["type"] != "tally"] or view["legal"]
            view = api_post(server, f"/api/games/{sid}/actions",
                            {"action": choose(legal, rnd)})
        except urllib.error.HTTPError:      # refused by the rules: another pick
            continue
    raise AssertionError(f"{game} did not end")


def spoken(names: list[str]) -> str:
    """Names as a sentence says them: "Ann", "Ann and Ben", "Ann, Ben and Cid"."""
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


@pytest.mark.parametrize("size", list(DEVICES))
def test_every_game_page_fits_the_screen_mid_game_and_at_the_end(
        server: Server, new_browser: Any, size: str) -> None:
    width = DEVICES[size]["width"]
    for game in TABLES:
        mid, over = played(server, game, 25, 3), played(server, game, None, 3)
        if game == "drshark":       # the timer on another game: "Use the timer here" too
            elsewhere = api_post(server, "/api/games", {"game": game,
                                                        "players": ["Eve", "Fay"]})["id"]
            api_post(server, "/api/timer/bind", {"game": elsewhere})
        for sid, when in ((mid, "mid"), (over, "over")):
            page = touch_page(new_browser, size)
            page.goto(f"{server.url}/games/{sid}")
            page.wait_for_selector("#live.on")
            page.wait_for_selector("#log li")
            if game == "drshark" and when == "mid":
                page.wait_for_selector("#timer-here:visible")
            page.evaluate(DRAW_ALL, True)     # every part drawn, as when scrolled to
            wide = page.evaluate("document.documentElement.scrollWidth")
            page.evaluate(DRAW_ALL, False)
            screenshot(page, f"screen-{size}-{game}-{when}")
            assert wide <= width, f"{game} {when}: the {size}'s page is {wide} px wide"
            cut = page.eval_on_selector_all("#status button", """els => els.filter(
                (el) => el.offsetParent && el.scrollWidth > el.clientWidth).map(
                (el) => el.textContent)""")
            assert cut == [], f"{game} {when}: {cut} cut short on the {size}"
            if when == "over":
                # The winner named whole in the turn bar, not "Game\u2026 wins" (a phone
                # leaves out "Game over: ", which the summary below says).
                winners = spoken(api_get(server, f"/api/games/{sid}")["winners"])
                page.wait_for_selector('#turn[style*="--then"]')    # the bar laid out
                assert page.text_content("#turn").startswith(f"Game over: {winners}")
                lead = "" if size == "phone" else "Game over: "
                assert page.inner_text("#turn").startswith(f"{lead}{winners} ")
                assert not page.is_visible("#me")      # no turn to mark: room for the names
                cut = page.locator("#turn .who").evaluate(
                    "el => el.scrollWidth > el.clientWidth")
                assert not cut, f"{game}: {page.inner_text('#turn')!r} cut short"
