"""Totals explained and table words on the pages, in chromium at a phone (touch) and a
tablet: Shoal's breakdown with what each goal counted, Dr. Shark's clue picker by look
(copies grouped, "passport round" filtering by shape and colour at once), area D after
the clapper, the final tally by token values confirmed before it ends the game, an
error shown next to the control that was tapped, the log's move numbers whole and
beside their move's first line, and Dr. Shark's clues and evidence by the names their
pieces carry."""

from __future__ import annotations

import random
import re
import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import expect

from companion import games as GAMES
from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table
from tests.support.driver import choose
from tests.support.words import CODE, drshark_clue
from tests.web.conftest import (
    DRAW_ALL,
    PHONE,
    TABLET,
    Server,
    api_get,
    api_post,
    enter_pin,
    screenshot,
)


def page_at(new_browser: Any, size: dict[str, int], url: str) -> Any:
    page = new_browser(size, has_touch=True, is_mobile=size is PHONE).new_page()
    page.goto(url)
    page.wait_for_selector("#live.on")
    return page


def play(server: Server, sid: int, *actions: dict[str, Any]) -> Any:
    view = None
    for action in actions:
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    return view


def played_until(server: Server, sid: int, seed: int, done: Callable[[Any], bool]) -> Any:
    """Random legal Dr. Shark moves but the tally (a refused one is picked again) until
    ``done(view)`` or the game is over; the last view."""
    view = api_get(server, f"/api/games/{sid}")
    rnd = random.Random(seed)
    while not done(view) and not view["over"]:
        action = choose([e for e in view["legal"] if e["type"] != "tally"], rnd)
        try:
            view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
        except urllib.error.HTTPError:
            continue
    return view


def catalogue_ids(catalogue: dict[str, Any]) -> set[str]:
    """The catalogue's ids that are not words: every clue's, and the evidence names of
    more than one word ("camera-pen")."""
    return ({c["id"] for c in catalogue["clues"]}
            | {e for e in catalogue["evidence"] if "-" in e})


def test_shoal_breakdown_says_what_each_goal_counted(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "shoal", "players": ["Ann", "Ben"],
                                          "options": {"goal": "G1"}})["id"]
    view = api_get(server, f"/api/games/{sid}")
    for _ in range(6):
        option = view["legal"][0]
        view = play(server, sid, {"type": "play", "card": option["choices"]["card"][0],
                                  "at": option["choices"]["at"][0]})
    for size in (PHONE, TABLET):
        page = page_at(new_browser, size, f"{server.url}/games/{sid}")
        page.evaluate(DRAW_ALL, True)       # every player's part, as when scrolled to
        for player, goals in view["state"]["breakdown"].items():
            rows = page.locator(f'section[data-player="{player}"] table.breakdown tr')
            assert rows.count() == len(goals) + 2
            cells = view["state"]["shoals"][player]["cells"].values()
            fish = sum(len(c.split("+")) for c in cells if c != "empty")
            assert rows.first.inner_text().startswith(f"Fish in view: {fish}, 1 point each")
            for row, goal in zip(rows.all()[1:], goals, strict=False):
                text = row.inner_text()
                assert goal["goal"] in text and f"{goal['count']} " in text
                assert "counted" in text
                assert re.search(rf"{abs(goal['points'])} points?", text)
            total = rows.last.inner_text()
            assert total.startswith("Total") and str(abs(view["scores"][player])) in total
            assert fish + sum(g["points"] for g in goals) == view["scores"][player]
        page.evaluate(DRAW_ALL, False)
        screenshot(page, f"words-shoal-{'phone' if size is PHONE else 'tablet'}-breakdown")


def test_the_clue_picker_groups_copies_and_filters_by_every_word(
        server: Server, new_browser: Any) -> None:
    for size in (PHONE, TABLET):
        sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"],
                                              "options": {}})["id"]
        play(server, sid, {"type": "move", "space": "A-light"}, {"type": "start_search"})
        page = page_at(new_browser, size, f"{server.url}/games/{sid}")
        enter_pin(page)
        bag = api_get(server, f"/api/games/{sid}")["state"]["bag"]
        looks = page.locator(".clues.pick button.clue")
        assert 0 < looks.count() < len(bag)                       # copies share a button
        page.fill(".clue-filter", "passport round")
        hits = page.locator(".clues.pick button.clue")
        assert hits.count() >= 1
        for text in hits.all_inner_texts():
            assert "passport" in text and "round" in text, text
        copies = int(hits.first.get_attribute("data-copies"))
        assert copies > 1 and f"\u00d7{copies}" in hits.first.inner_text()
        screenshot(page, f"words-drshark-{'phone' if size is PHONE else 'tablet'}-picker")
        hits.first.tap()
        page.wait_for_selector('#log li[value="3"]')
        drawn = api_get(server, f"/api/games/{sid}")["state"]["search"]["clues"]
        assert len(drawn) == 1 and drawn[0].startswith("passport")


def test_area_d_after_the_clapper_and_a_confirmed_tally(server: Server,
                                                        new_browser: Any) -> None:
    for size in (PHONE, TABLET):
        name = "phone" if size is PHONE else "tablet"
        sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"],
                                              "options": {}})["id"]
        view = play(server, sid, {"type": "move", "space": "D-light"}, {"type": "start_search"})
        catalogue = {c["id"]: c for c in view["state"]["catalogue"]["clues"]}
        fistful: list[str] = []
        colours: set[str] = set()
        for cid in next(e for e in view["legal"] if e["type"] == "fistful")["choices"]["clues"]:
            clue = catalogue[cid]
            if not clue.get("shark") and clue["category"] not in colours and len(fistful) < 3:
                fistful.append(cid)
                colours.add(clue["category"])
        view = play(server, sid, {"type": "fistful", "clues": fistful}, {"type": "time_up"})
        page = page_at(new_browser, size, f"{server.url}/games/{sid}")
        enter_pin(page)
        page.wait_for_selector("#after-clapper")
        assert "only the clues picked before it" in page.inner_text("#after-clapper")
        screenshot(page, f"words-drshark-{name}-after-clapper")
        page.tap("#nothing-in-time")
        page.wait_for_selector('#log li[value="5"]')
        view = api_get(server, f"/api/games/{sid}")
        assert view["log"][-1]["action"] == {"type": "end_turn"}
        assert view["state"]["dossiers"]["Ann"]["clues"] == []

        # The tally by the tokens' printed values, confirmed before the game ends.
        page.click(".tally-box summary")
        ann = page.locator('fieldset.tally[data-owner="Ann"]')
        ann.locator('input[data-category="documents"]').fill("1")
        ann.locator('input[data-clues="Ann"]').fill("3")
        ben = page.locator('fieldset.tally[data-owner="Ben"]')
        ben.locator('input[data-category="gadgets"]').fill("1")
        assert ann.locator(".tally-total").inner_text() == "15 points"
        assert ben.locator(".tally-total").inner_text() == "7 points"
        page.tap("#tally-go")
        assert "Ann 15 points, Ben 7 points" in page.inner_text("#confirm-text")
        page.tap("#confirm-no")
        page.wait_for_timeout(500)
        assert api_get(server, f"/api/games/{sid}")["over"] is False
        page.tap("#tally-go")
        page.tap("#confirm-yes")
        page.wait_for_selector("#summary:not([hidden])")
        assert api_get(server, f"/api/games/{sid}")["scores"] == {"Ann": 15, "Ben": 7}
        screenshot(page, f"words-drshark-{name}-tally")


GENERIC_STARTS = {
    "shark": [],
    "drshark": [{"type": "move", "space": "A-light"}, {"type": "start_search"}],
    "poodivers": [{"type": "flip", "cell": "C3", "face": "blank"}],
    "shoal": [],
}
"""A few moves into each game, so the form of every legal move offers several kinds."""


@pytest.mark.parametrize("game", sorted(GENERIC_STARTS))
def test_every_move_form_speaks_the_rulebook(server: Server, new_browser: Any,
                                             game: str) -> None:
    """The form of every legal move names each action and field as the game's action
    table says them (the rulebook's words), never by the code's names."""
    sid = api_post(server, "/api/games", {"game": game, "players": ["Ann", "Ben"]})["id"]
    play(server, sid, *GENERIC_STARTS[game])
    words = GAMES.get(game).words()
    view = api_get(server, f"/api/games/{sid}")
    for size in (PHONE, TABLET):
        page = page_at(new_browser, size, f"{server.url}/games/{sid}")
        page.click("#all-moves summary")
        forms = page.locator("form.legal[data-type]")
        forms.first.wait_for()
        assert forms.count() == len(view["legal"])
        for form in forms.all():
            kind = form.get_attribute("data-type")
            assert form.locator("strong").inner_text() == words[kind]["says"]
            named = [el.evaluate("el => el.firstChild.textContent.trim()")
                     for el in form.locator("label:not(.check), legend").all()]
            fields = [el.get_attribute("data-field") for el in form.locator("[data-field]").all()]
            assert named == [words[kind]["fields"][f] for f in fields], (kind, named)
            said = form.inner_text()
            assert not CODE.search(said), (kind, said)
            assert "{" not in said and "None" not in said, (kind, said)
        screenshot(page, f"words-{game}-{'phone' if size is PHONE else 'tablet'}-every-move")


def test_an_error_shows_next_to_the_control_tapped(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    for size in (PHONE, TABLET):
        page = page_at(new_browser, size, f"{server.url}/games/{sid}")
        enter_pin(page)
        page.click("#all-moves summary")
        page.fill('textarea[aria-label="action as JSON"]', '{"type": "bank"}')
        page.locator("form.custom button").tap()
        error = page.locator("form.custom + .tap-error")
        error.wait_for()
        assert "nothing to bank" in error.inner_text()
        assert not page.is_visible("#flash")
        box, button = error.bounding_box(), page.locator("form.custom button").bounding_box()
        assert 0 <= box["y"] - (button["y"] + button["height"]) < 80   # right below it
        screenshot(page, f"words-error-{'phone' if size is PHONE else 'tablet'}")


# Scrolls the element to the middle of the screen (clear of the pinned status at the top)
# and resolves with its box once it is inside the screen and has held still for a frame.
SHOWN_BOX = """(el) => new Promise((done) => {
  let last = "";
  const look = () => {
    const r = el.getBoundingClientRect();
    const now = [r.x, r.y, r.width, r.height].join();
    const inside = r.top >= 0 && r.bottom <= innerHeight;
    if (inside && now === last) {
      done({ x: r.x, y: r.y, width: r.width, height: r.height });
      return;
    }
    if (!inside) el.scrollIntoView({ block: "center" });
    last = inside ? now : "";
    requestAnimationFrame(look);
  };
  el.scrollIntoView({ block: "center" });
  look();
})"""


def shown_box(element: Any) -> dict[str, float]:
    """The element's box on the screen, scrolled to and staying put."""
    box: dict[str, float] = element.evaluate(SHOWN_BOX)
    return box


def test_log_numbers_are_whole_and_by_the_first_line_of_their_move(
        tmp_path: Path, new_browser: Any) -> None:
    # A long Shark game (trading back and forth), stored before the server starts: the
    # log's numbers are 3 digits wide and the moves wrap on a phone.
    store = Store(tmp_path / "companion.db")
    table = Table(store)
    session = table.create("shark", ["Ann", "Ben", "Cid"], {"starting_cash": 20000})
    rnd = random.Random(2)
    shark = GAMES.get("shark")
    while session.seq < 400 and not shark.is_over(session.state):
        action = choose([o.to_json() for o in shark.legal(session.state)], rnd,
                        weights={"buy": 40, "sell": 40, "end_turn": 0.1})
        try:
            session = table.play(session.id, action or {"type": "end_turn"})
        except IllegalAction:
            continue
    store.close()
    assert session.seq >= 100
    server = Server(tmp_path)
    try:
        for size, viewport in (("phone", PHONE), ("tablet", TABLET)):
            page = page_at(new_browser, viewport, f"{server.url}/games/{session.id}")
            page.wait_for_selector(f'#log li[value="{session.seq}"]')
            log = page.locator("#log")
            padding = float(log.evaluate("el => parseFloat(getComputedStyle(el).paddingLeft)"))
            widest = log.evaluate("""el => {
              const li = el.querySelector("li");
              const pen = document.createElement("canvas").getContext("2d");
              pen.font = getComputedStyle(li).font;
              return pen.measureText("9999. ").width; }""")
            # Room for a number of 4 digits, as the longest games reach.
            assert widest <= padding, f"{size}: {widest:.1f} px of number, {padding} px room"
            # On the screen: the number of a move that wraps is drawn whole, inside the
            # log, beside the move's first line.
            wrapped = next(li for li in log.locator("li").all()[:40]
                           if li.bounding_box()["height"] > 40)
            # Every card drawn first: one drawn as it comes near the screen (CSS
            # content-visibility: auto) takes its own height instead of an estimate and
            # moves what is below it, frames after a scroll on a busy machine, under the
            # picture being taken.
            page.evaluate(DRAW_ALL, True)
            line = shown_box(wrapped)
            left = log.bounding_box()["x"]
            shot = page.screenshot(clip={"x": left, "y": line["y"], "width": line["x"] - left,
                                         "height": line["height"]})
            page.evaluate(DRAW_ALL, False)
            grey = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_GRAYSCALE)
            assert grey is not None
            ink = np.argwhere(grey < 128)
            assert len(ink), f"{size}: no number beside the move"
            assert ink[:, 1].min() >= 2, f"{size}: the number touches the log's edge (cut)"
            first_line = float(wrapped.evaluate("el => parseFloat(getComputedStyle(el)"
                                                ".lineHeight) || 1.4 * parseFloat("
                                                "getComputedStyle(el).fontSize)"))
            assert ink[:, 0].max() <= first_line + 4, \
                f"{size}: the number is {ink[:, 0].max()} px down a {line['height']} px move"
            screenshot(page, f"words-{size}-log-numbers")
    finally:
        server.stop()


@pytest.mark.parametrize("size", [PHONE, TABLET])
def test_dr_shark_clues_and_evidence_by_name_not_by_catalogue_id(
        server: Server, new_browser: Any, size: dict[str, int]) -> None:
    """The dossiers say "treasure map c · heart Maps", as the pieces read, not the
    catalogue's "treasure-map-3c"; formed evidence is "camera pen", not "camera-pen"."""
    sid = api_post(server, "/api/games", {"game": "drshark",
                                          "players": ["Ann", "Ben", "Cid"]})["id"]
    view = played_until(server, sid, 4, lambda v: sum(
        len(d["clues"]) for d in v["state"]["dossiers"].values()) >= 4)
    catalogue = view["state"]["catalogue"]
    ids = catalogue_ids(catalogue)
    page = page_at(new_browser, size, f"{server.url}/games/{sid}")
    dossiers = page.locator(".dossier").all_inner_texts()
    assert len(dossiers) == len(view["state"]["dossiers"])
    said = " ".join(dossiers)
    assert not [i for i in ids if re.search(rf"\b{re.escape(i)}\b", said)], said
    names = {c["id"]: c for c in catalogue["clues"]}
    for owner, dossier in view["state"]["dossiers"].items():
        text = next(t for t in dossiers if t.startswith(f"{owner}:"))
        for clue in (names[c] for c in dossier["clues"]):
            category = catalogue["categories"][clue["category"]]["name"]
            looks = ("shark!" if clue.get("shark") else
                     f"{clue['evidence'].replace('-', ' ')} {clue['part']}")
            assert f"{looks} · {clue['shape']} {category}" in text, (clue, text)
    screenshot(page, f"words-drshark-{'phone' if size is PHONE else 'tablet'}-dossiers")


@pytest.mark.parametrize("size", [PHONE, TABLET])
def test_dr_shark_board_says_what_the_table_is_doing(
        server: Server, new_browser: Any, size: dict[str, int]) -> None:
    sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"]})["id"]
    view = api_get(server, f"/api/games/{sid}")
    page = page_at(new_browser, size, f"{server.url}/games/{sid}")
    heading = page.locator("#board > p")
    rounds = view["state"]["rounds"]
    expect(heading).to_have_text(f"Round 1 of {rounds} · moving")
    space = next(e for e in view["legal"] if e["type"] == "move")["choices"]["space"][0]
    play(server, sid, {"type": "move", "space": space}, {"type": "start_search"})
    expect(heading).to_have_text(f"Round 1 of {rounds} · searching")
    play(server, sid, {"type": "stop"})
    expect(heading).to_have_text(f"Round 1 of {rounds} · sorting the dossier")
    screenshot(page, f"words-drshark-{'phone' if size is PHONE else 'tablet'}-phase")


@pytest.mark.parametrize("size", [PHONE, TABLET])
def test_dr_shark_log_names_clues_as_their_pieces_read(
        server: Server, new_browser: Any, size: dict[str, int]) -> None:
    """The log says "Ann drew treasure map c (heart, Maps)" and "formed the camera pen
    evidence", not the catalogue's "treasure-map-3c" and "camera-pen"."""
    sid = api_post(server, "/api/games", {"game": "drshark",
                                          "players": ["Ann", "Ben", "Cid"]})["id"]
    view = played_until(server, sid, 6, lambda v: sum(
        " drew " in e["text"] for e in v["log"]) >= 4)
    catalogue = view["state"]["catalogue"]
    ids = catalogue_ids(catalogue)
    page = page_at(new_browser, size, f"{server.url}/games/{sid}")
    lines = page.locator("#log li").all_text_contents()      # the last 40 moves
    assert len(lines) == min(view["seq"], 40) and [t for t in lines if " drew " in t]
    said = "\n".join(lines)
    assert not [i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", said)], said
    names = [drshark_clue(catalogue, c["id"]) for c in catalogue["clues"]]
    for line in (t for t in lines if " drew " in t):
        assert any(f" drew {n}" in line for n in names), line
    screenshot(page, f"words-drshark-{'phone' if size is PHONE else 'tablet'}-log")
