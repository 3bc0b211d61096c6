"""What a player sees without scrolling, in chromium at a phone (390 x 844, touch) and a
tablet (1280 x 800, touch): a long name keeps the turn bar to one line, and Dr. Shark's
"Time is up" and "Stop searching" are in sight during a search, not at the foot of a
controls box that runs off a tablet's screen."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import DEVICES, Server, api_get, api_post, screenshot, touch_page

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
