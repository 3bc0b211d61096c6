"""Dr. Shark in a real browser: moves, START/STOP, a search of each kind of area on
screen, the dossier, the final tally that ends the game, and six spies in teams (the
chart plots the teams)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.words import drshark_clue
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

SIX = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"]

def draw_list(page: Any) -> Any:
    return page.locator("button.clue:not(.shark):not([disabled])")


def test_play_drshark(server: Server, new_browser: Any) -> None:
    phone = new_browser(PHONE).new_page()
    phone.goto(server.url + "/")
    enter_pin(phone)
    sid = create_game(phone, server, "drshark", ["Ann", "Ben"])
    tablet = new_browser(TABLET).new_page()
    tablet.goto(f"{server.url}/games/{sid}")
    tablet.wait_for_selector("#live.on")

    # Ann: area A (by shape), START, one clue, STOP, end the turn.
    phone.click('button.space[data-space="A-light"]')
    wait_seq(phone, 1)
    phone.click("#timer-start")
    wait_seq(phone, 2)
    phone.wait_for_selector("#countdown.running")      # the table's timer runs
    tablet.wait_for_selector("#countdown.running")
    first = draw_list(phone).first.get_attribute("data-clue")
    draw_list(phone).first.click()
    wait_seq(tablet, 3)
    catalogue = api_get(server, f"/api/games/{sid}")["state"]["catalogue"]
    assert f"Ann drew {drshark_clue(catalogue, first)}" in tablet.inner_text("#log")
    screenshot(phone, "drshark-phone-search")
    screenshot(tablet, "drshark-tablet-search")
    phone.click("#timer-stop")
    wait_seq(phone, 4)
    assert api_get(server, f"/api/games/{sid}")["state"]["dossiers"]["Ann"]["clues"] == [first]
    phone.click("#do-end_turn")
    wait_seq(phone, 5)

    # Ben: area E (observation) takes one clue and the search ends by itself.
    phone.click('button.space[data-space="E-light"]')
    phone.click("#timer-start")
    wait_seq(phone, 7)
    taken = draw_list(phone).first.get_attribute("data-clue")
    draw_list(phone).first.click()
    wait_seq(phone, 8)
    assert "Ben took" in phone.inner_text("#log")
    phone.click("#do-end_turn")
    wait_seq(tablet, 9)
    view = api_get(server, f"/api/games/{sid}")
    assert view["state"]["dossiers"]["Ben"]["clues"] == [taken]

    # The table counts up and enters the tally: the game is over.
    phone.click(".tally-box summary")
    phone.fill('input[data-clues="Ann"]', "1")
    phone.fill('input[data-clues="Ben"]', "1")
    phone.click("#tally-go")
    phone.click("#confirm-yes")                 # the tally is confirmed before it ends
    wait_seq(tablet, 10)
    tablet.wait_for_selector("#summary:not([hidden])")
    assert api_get(server, f"/api/games/{sid}")["over"] is True
    screenshot(phone, "drshark-phone-over")
    screenshot(tablet, "drshark-tablet-over")


@pytest.fixture
def quick_timer(tmp_path: Path) -> Iterator[Server]:
    """A server whose searches last 1.5 s, to hear the clapper without waiting 30."""
    config = tmp_path / "config.toml"
    config.write_text("[hardware]\nduration_s = 1.5\nwarning_s = 0.5\n", "utf-8")
    srv = Server(tmp_path, "--config", str(config))
    yield srv
    srv.stop()


def test_the_browser_claps_when_time_runs_out(quick_timer: Server, new_browser: Any) -> None:
    page = new_browser(TABLET).new_page()
    page.goto(quick_timer.url + "/")
    enter_pin(page)
    sid = create_game(page, quick_timer, "drshark", ["Ann", "Ben"])
    assert api_get(quick_timer, "/api/timer")["backend"] == "browser"
    page.click('button.space[data-space="B-light"]')
    wait_seq(page, 1)
    page.click("#timer-start")
    page.wait_for_selector("#log li:has-text('Ann ran out of time')")
    page.wait_for_selector("#countdown.expired")
    assert page.evaluate("window.lastClap") > 0
    assert page.inner_text("#countdown") == "0.0"
    assert api_get(quick_timer, f"/api/games/{sid}")["log"][-1]["action"] == {"type": "time_up"}


CATALOGUE = {
    "evidence": {
        "watch": {"category": "gadgets", "points": 7, "parts": ["a", "b"],
                  "service": "paoletta"},
        "map": {"category": "maps", "points": 10, "parts": ["a", "b"], "service": None}},
    "clues": [
        {"id": "watch-1a", "evidence": "watch", "part": "a", "shape": "round",
         "category": "gadgets"},
        {"id": "watch-1b", "evidence": "watch", "part": "b", "shape": "star",
         "category": "gadgets"},
        {"id": "map-1a", "evidence": "map", "part": "a", "shape": "moon", "category": "maps"},
        {"id": "map-1b", "evidence": "map", "part": "b", "shape": "heart", "category": "maps"},
        {"id": "shark-1", "shark": True, "shape": "star", "category": "maps"}]}


def test_evidence_and_a_service(server: Server, new_browser: Any) -> None:
    page = new_browser(PHONE).new_page()
    page.goto(server.url + "/")
    enter_pin(page)

    def inline_catalogue(p: Any) -> None:
        p.click("details summary:has-text('More options')")
        p.fill('textarea[name="extra"]', json.dumps({"catalogue": CATALOGUE}))

    sid = create_game(page, server, "drshark", ["Ann", "Ben"], setup=inline_catalogue)
    seq = 0

    def tap(selector: str) -> None:
        nonlocal seq
        page.click(selector)
        seq += 1
        wait_seq(page, seq)

    tap('button.space[data-space="A-light"]')
    tap("#timer-start")
    tap('button.clue[data-clue="map-1a"]:not([disabled])')
    tap("#timer-stop")
    tap("#do-end_turn")
    tap('button.space[data-space="C-light"]')             # area C: the same texture
    tap("#timer-start")
    tap('button.clue[data-clue="watch-1a"]:not([disabled])')
    tap('button.clue[data-clue="watch-1b"]:not([disabled])')
    tap("#timer-stop")
    tap('button[data-evidence="watch"]')                   # Paoletta's service follows
    page.select_option("#service-from", "Ann")
    page.select_option("#service-take", "map-1a")
    tap("#service-go")
    view = api_get(server, f"/api/games/{sid}")
    assert view["state"]["dossiers"]["Ben"]["evidence"] == ["watch"]
    assert view["state"]["dossiers"]["Ben"]["clues"] == ["map-1a"]
    assert view["state"]["dossiers"]["Ann"]["clues"] == []
    assert view["scores"]["Ben"] == 8
    assert "Ben formed the watch evidence" in page.inner_text("#log")
    screenshot(page, "drshark-phone-service")
    # The log in the rulebook's words, on the phone that played and on a tablet.
    tablet = new_browser(TABLET, has_touch=True).new_page()
    tablet.goto(f"{server.url}/games/{sid}")
    wait_seq(tablet, seq)
    for shown in (page, tablet):
        log = shown.text_content("#log") or ""     # drawn or not (content-visibility)
        assert "which calls Paoletta's service" in log, log
        assert re.search(r"Ben used Paoletta's service: took map a \(moon, \w+\) from Ann",
                         log), log
    screenshot(tablet, "drshark-tablet-service")


def test_six_spies_play_in_teams_and_the_chart_plots_the_teams(
        server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "drshark", "players": SIX,
                                          "options": {}})["id"]
    teams = ["Ann+Dan", "Ben+Eve", "Cid+Fay"]
    api_post(server, f"/api/games/{sid}/actions", {"action": {"type": "move",
                                                              "space": "A-light"}})
    api_post(server, f"/api/games/{sid}/actions", {"action": {"type": "tally", "dossiers": {
        "Ann+Dan": {"evidence": {}, "clues": 3}, "Ben+Eve": {"evidence": {}, "clues": 1},
        "Cid+Fay": {"evidence": {}, "clues": 0}}}})
    view = api_get(server, f"/api/games/{sid}")
    assert list(view["scores"]) == teams and view["scores"]["Ann+Dan"] == 3
    for size, viewport in (("phone", PHONE), ("tablet", TABLET)):
        page = new_browser(viewport, has_touch=True, is_mobile=size == "phone").new_page()
        page.goto(f"{server.url}/games/{sid}")
        page.wait_for_selector("#chart polyline")
        lines = page.locator("#chart polyline")
        assert [lines.nth(i).get_attribute("data-line") for i in range(lines.count())] == teams
        assert [t.strip() for t in page.locator("#chart .legend .key").all_inner_texts()] == [
            "Team Ann & Dan", "Team Ben & Eve", "Team Cid & Fay"]
        # Each team's line ends at its score: the highest for Ann and Dan's 3.
        ends = [float(lines.nth(i).get_attribute("points").split()[-1].split(",")[1])
                for i in range(3)]
        assert ends[0] < ends[1] < ends[2]
        assert page.locator("#chart text.tick").first.text_content() == "3"
        # A phone leaves out "Game over: " (the summary below says it): the team whole.
        assert page.text_content("#turn") == "Game over: Team Ann & Dan wins"
        assert page.inner_text("#turn") == ("Team Ann & Dan wins" if size == "phone"
                                            else "Game over: Team Ann & Dan wins")
        assert page.locator("#summary .ranking li").first.inner_text() == \
            "Team Ann & Dan: 3 points"
        screenshot(page, f"drshark-{size}-team-chart")


def test_every_move_form_offers_each_look_of_clue_once(server: Server,
                                                       new_browser: Any) -> None:
    """The form of every legal move offers the clue drawn once per look, as the picker
    does ("passport a · round Fake Documents" and how many copies), not once per copy in
    the bag: a player cannot tell identical copies apart."""
    for size in (PHONE, TABLET):
        sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"]})["id"]
        for action in ({"type": "move", "space": "A-light"}, {"type": "start_search"}):
            api_post(server, f"/api/games/{sid}/actions", {"action": action})
        view = api_get(server, f"/api/games/{sid}")
        clues = {c["id"]: c for c in view["state"]["catalogue"]["clues"]}
        looks = {(c.get("shark"), c.get("evidence"), c.get("part"), c["shape"], c["category"])
                 for c in (clues[i] for i in view["state"]["bag"])}
        page = new_browser(size, has_touch=True, is_mobile=size is PHONE).new_page()
        page.goto(f"{server.url}/games/{sid}")
        enter_pin(page)
        page.click("#all-moves summary")
        select = page.locator('form.legal[data-type="draw"] select[data-field="clue"]')
        select.locator("option").first.wait_for(state="attached")   # drawn on the toggle
        said = select.locator("option").all_inner_texts()
        assert len(said) == len(set(said)) == len(looks) < len(view["state"]["bag"])
        assert any(text.endswith("\u00d73") for text in said), said
        copies = [json.loads(v) for v in select.locator("option").evaluate_all(
            "os => os.map(o => o.value)")]
        pick = copies[1]
        select.select_option(json.dumps(pick))
        page.locator('form.legal[data-type="draw"] button[type="submit"]').tap()
        wait_seq(page, 3)
        catalogue = view["state"]["catalogue"]
        assert f"Ann drew {drshark_clue(catalogue, pick)}" in page.inner_text("#log")
        screenshot(page, f"drshark-{'phone' if size is PHONE else 'tablet'}-every-move-draw")


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_the_area_prompt_goes_when_the_search_ends(server: Server, new_browser: Any,
                                                   size: str) -> None:
    """While Ann searches area A the page says how ("draw clues one by one..."); once
    she stops it says the search is over and what it came to, not what to do in it."""
    sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"]})["id"]
    for action in ({"type": "move", "space": "A-light"}, {"type": "start_search"}):
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    controls = page.locator("#controls")
    expect(controls).to_contain_text("Area A: draw clues one by one")
    clue = next(c for c in view["state"]["catalogue"]["clues"]
                if c["id"] in view["state"]["bag"] and not c.get("shark"))
    for action in ({"type": "draw", "clue": clue["id"]}, {"type": "stop"}):
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    wait_seq(page, view["seq"])
    expect(page.locator("#search-over")).to_have_text(
        "Area A: the search is over (the spy stopped searching), 1 clue to the dossier")
    expect(controls).not_to_contain_text("draw clues one by one")
    screenshot(page, f"drshark-{size}-search-over")


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_the_team_whose_turn_it_is_is_marked_in_the_scoreboard(
        server: Server, new_browser: Any, size: str) -> None:
    sid = api_post(server, "/api/games", {"game": "drshark", "players": SIX,
                                          "options": {}})["id"]
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    current = page.locator("#scores tr.current")
    expect(current).to_have_count(1)
    expect(current).to_contain_text("Team Ann & Dan")
    expect(current).to_contain_text("Ann's turn")
    for action in ({"type": "move", "space": "A-light"}, {"type": "start_search"},
                   {"type": "stop"}, {"type": "end_turn"}):
        api_post(server, f"/api/games/{sid}/actions", {"action": action})
    expect(current).to_contain_text("Team Ben & Eve")        # live, the next team's turn
    expect(current).to_contain_text("Ben's turn")
    expect(current).to_have_count(1)
    screenshot(page, f"drshark-{size}-team-turn")
