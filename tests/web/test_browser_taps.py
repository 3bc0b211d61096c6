"""Play that the pages got wrong, each checked in chromium at a phone (390 x 844, touch)
and a tablet (1280 x 800, touch): a Shoal hand card taken by a tap anywhere on it, the
start page as wide as the phone, Babanipoulos' two clues (in the service panel and in the
form of every legal move, whose "take" follows "from" and which stays as wide as the
phone), what each turn needs on one tablet screen, and a digital peek shown to the
peeking phone only."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from companion.games.poodivers.layout import card_cells, rows_of
from tests.web.conftest import (
    ARTIFACTS,
    DEVICES,
    PHONE,
    Server,
    api_get,
    api_post,
    enter_pin,
    screenshot,
    touch_page,
    wait_seq,
)

# The middle of the element once the page has laid it out where it stays: where it is
# after one frame is where it was the frame before (a scroll brings parts near the screen
# that the page then lays out and draws, content-visibility: auto, and what is below them
# moves).
SETTLED = """(el) => new Promise((done) => {
  let last = "";
  const look = () => {
    const r = el.getBoundingClientRect();
    const now = [r.x, r.y, r.width, r.height].join(" ");
    if (now === last) done([r.x + r.width / 2, r.y + r.height / 2]);
    else { last = now; requestAnimationFrame(look); }
  };
  requestAnimationFrame(look);
})"""


def tap_at(page: Any, selector: str) -> None:
    """A finger on the middle of the element (whatever lies on top there gets it), once
    the page's layout has settled around it."""
    element = page.locator(selector).first
    element.scroll_into_view_if_needed()
    x, y = element.evaluate(SETTLED)
    page.touchscreen.tap(x, y)


# A page that moves its button a frame after it is scrolled to, as a part that comes near
# the screen and is then laid out (content-visibility: auto) moves what is below it.
SHIFTING = """<!doctype html><meta name="viewport" content="width=device-width">
<style>html { overflow-anchor: none; }</style>
<div style="height: 1500px">top</div><div id="grow"></div>
<button id="aim" style="height: 60px; width: 200px">aim</button>
<div style="height: 1500px">foot</div>
<script>
  let taps = 0, grown = false;
  document.getElementById("aim").addEventListener("click", () => { taps += 1;
    document.title = String(taps); });
  addEventListener("scroll", () => requestAnimationFrame(() => {
    if (grown) return;
    grown = true;
    document.getElementById("grow").style.height = "300px";
  }));
</script>"""


def test_a_finger_tap_waits_for_the_layout_to_settle(new_browser: Any) -> None:
    for size in DEVICES:
        page = touch_page(new_browser, size)
        page.set_content(SHIFTING)
        tap_at(page, "#aim")
        expect(page).to_have_title("1", timeout=3000)


def play(server: Server, sid: int, *actions: dict[str, Any]) -> Any:
    view = None
    for action in actions:
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    return view


def test_a_shoal_card_is_chosen_by_tapping_any_of_its_sections(
        server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "shoal", "players": ["Ann", "Ben"],
                                          "options": {"goal": "G1"}})["id"]
    for size in DEVICES:
        page = touch_page(new_browser, size)
        page.goto(f"{server.url}/games/{sid}")
        enter_pin(page)
        card = page.locator(".sh-card").first.get_attribute("data-card")
        for quarter in range(4):      # each of the card's four sections takes the tap
            tap_at(page, f'.sh-card[data-card="{card}"] .sh-sec >> nth={quarter}')
            page.wait_for_selector(f'.sh-card[data-card="{card}"].chosen')
            tap_at(page, f'.sh-card[data-card="{card}"] .sh-sec >> nth={quarter}')
            page.wait_for_selector(f'.sh-card[data-card="{card}"]:not(.chosen)')
        tap_at(page, f'.sh-card[data-card="{card}"] .sh-sec')
        screenshot(page, f"taps-shoal-{size}-card-chosen")
        tap_at(page, 'section[data-player="Ann"] [data-at]')
        wait_seq(page, 1)
        assert api_get(server, f"/api/games/{sid}")["state"]["shoals"]["Ann"]["cards"] == 1
        api_post(server, f"/api/games/{sid}/undo", {})
        wait_seq(page, 0)


def test_the_start_page_stays_as_wide_as_the_phone(server: Server, new_browser: Any) -> None:
    page = touch_page(new_browser, "phone")
    page.goto(server.url + "/")
    for game in ("shoal", "shark", "poodivers", "drshark"):
        page.select_option("#game-select", game)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{game}: the start page is {width} px wide"
    page.select_option("#game-select", "shoal")
    select = page.locator("#goal-select").bounding_box()
    assert select["x"] + select["width"] <= PHONE["width"]
    screenshot(page, "taps-start-phone-shoal")


CATALOGUE = {
    "evidence": {
        "watch": {"category": "gadgets", "points": 7, "parts": ["a", "b"],
                  "service": "babanipoulos"},
        "map": {"category": "maps", "points": 10, "parts": ["a", "b"], "service": None},
        "key": {"category": "gadgets", "points": 5, "parts": ["a", "b"], "service": None}},
    "clues": [
        {"id": "watch-1a", "evidence": "watch", "part": "a", "shape": "round",
         "category": "gadgets"},
        {"id": "watch-1b", "evidence": "watch", "part": "b", "shape": "star",
         "category": "gadgets"},
        {"id": "map-1a", "evidence": "map", "part": "a", "shape": "moon", "category": "maps"},
        {"id": "map-1b", "evidence": "map", "part": "b", "shape": "heart", "category": "maps"},
        {"id": "key-1a", "evidence": "key", "part": "a", "shape": "square",
         "category": "gadgets"},
        {"id": "key-1b", "evidence": "key", "part": "b", "shape": "drop",
         "category": "gadgets"},
        {"id": "shark-1", "shark": True, "shape": "star", "category": "maps"}]}


def babanipoulos_waits(server: Server) -> int:
    """A game where Cid formed the watch (Babanipoulos) holding key-1a and key-1b, Ann
    holds map-1a and Ben map-1b."""
    sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben", "Cid"],
                                          "options": {"catalogue": CATALOGUE}})["id"]
    turns = [("A-light", ["map-1a"]), ("B-light", ["map-1b"]),
             ("C-light", ["watch-1a", "watch-1b", "key-1a", "key-1b"])]
    for i, (space, clues) in enumerate(turns):
        play(server, sid, {"type": "move", "space": space}, {"type": "start_search"},
             *({"type": "draw", "clue": c} for c in clues), {"type": "stop"},
             *([{"type": "end_turn"}] if i < 2 else []))
    play(server, sid, {"type": "form", "evidence": "watch", "clues": ["watch-1a", "watch-1b"]})
    return int(sid)


def test_babanipoulos_takes_one_and_gives_two(server: Server, new_browser: Any) -> None:
    for size in DEVICES:
        sid = babanipoulos_waits(server)
        seq = api_get(server, f"/api/games/{sid}")["seq"]
        page = touch_page(new_browser, size)
        page.goto(f"{server.url}/games/{sid}")
        enter_pin(page)
        # "take" offers only the clues of the dossier "from" names.
        page.select_option("#service-from", "Ben")
        assert page.eval_on_selector_all("#service-take option", "os => os.map(o => o.value)") \
            == ["map-1b"]
        page.select_option("#service-from", "Ann")
        assert page.eval_on_selector_all("#service-take option", "os => os.map(o => o.value)") \
            == ["map-1a"]
        # Two clues to give, tapped like every other clue.
        page.tap('#service-give button[data-clue="key-1a"]')
        page.tap('#service-give button[data-clue="key-1b"]')
        screenshot(page, f"taps-drshark-{size}-babanipoulos")
        page.tap("#service-go")
        wait_seq(page, seq + 1)
        dossiers = api_get(server, f"/api/games/{sid}")["state"]["dossiers"]
        assert dossiers["Cid"]["clues"] == ["map-1a"]
        assert sorted(dossiers["Ann"]["clues"]) == ["key-1a", "key-1b"]



def test_every_move_form_takes_only_from_the_dossier_named_and_is_tapped(
        server: Server, new_browser: Any) -> None:
    # The generic form of every legal move: "take" follows "from", Babanipoulos' two
    # clues are ticked, and the form is sent, all by a finger on the screen.
    for size in DEVICES:
        sid = babanipoulos_waits(server)
        seq = api_get(server, f"/api/games/{sid}")["seq"]
        page = touch_page(new_browser, size)
        page.goto(f"{server.url}/games/{sid}")
        enter_pin(page)
        tap_at(page, "#all-moves summary")
        form = 'form.legal[data-type="service"]'
        page.wait_for_selector(form)
        takes = f'{form} select[data-field="take"] option'
        values = "os => os.map(o => JSON.parse(o.value))"
        assert page.input_value(f'{form} select[data-field="from"]') == '"Ann"'
        assert page.eval_on_selector_all(takes, values) == ["map-1a"]
        page.select_option(f'{form} select[data-field="from"]', '"Ben"')
        assert page.eval_on_selector_all(takes, values) == ["map-1b"]
        # As wide as the screen with the form open (the tally's long choice once made a
        # phone's page 1008 px wide, and taps then landed on other sections).
        assert page.evaluate("document.documentElement.scrollWidth") <= DEVICES[size]["width"]
        # Every control the browser scrolls to (as focus does) is itself under the finger,
        # not the pinned status bar.
        covered = page.evaluate("""form => [...document.querySelectorAll(
            `${form} select, ${form} input, ${form} button`)].filter((el) => {
              el.scrollIntoView({ block: "start" });
              const r = el.getBoundingClientRect();
              const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return !(top && (el.contains(top) || top.contains(el)));
            }).map((el) => el.outerHTML.slice(0, 50))""", form)
        assert covered == [], f"{size}: {covered}"
        for clue in ("key-1a", "key-1b"):
            box = f'{form} fieldset[data-field="give"] input[value=\'"{clue}"\']'
            page.tap(box, timeout=3000)      # fails when anything else would get the tap
            assert page.is_checked(box), f"{size}: the tap on {clue} did not reach its box"
        screenshot(page, f"taps-drshark-{size}-every-move")
        page.tap(f"{form} button[type=submit]", timeout=3000)
        wait_seq(page, seq + 1)
        dossiers = api_get(server, f"/api/games/{sid}")["state"]["dossiers"]
        assert dossiers["Cid"]["clues"] == ["map-1b"]
        assert sorted(dossiers["Ben"]["clues"]) == ["key-1a", "key-1b"]


def on_screen(page: Any, selector: str) -> bool:
    """The element is entirely inside the window, without scrolling the page."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] \
        and box["x"] + box["width"] <= size["width"]


def test_each_turn_fits_one_tablet_screen(server: Server, new_browser: Any) -> None:
    shark = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben", "Cid"],
                                            "options": {}})["id"]
    play(server, shark, *({"type": "choose_stock", "company": c} for c in
                          ("red", "blue", "green")))
    poo = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    play(server, poo, {"type": "flip", "cell": "D4", "face": "object"})
    drshark = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"],
                                              "options": {}})["id"]
    play(server, drshark, {"type": "move", "space": "A-light"}, {"type": "start_search"})
    wanted = {shark: ["#turn", "#pending", "#roll-for-me", ".sk-board"],
              poo: ["#turn", "#bank", ".pd-grid"],
              drshark: ["#turn", "#countdown", "#timer-stop", ".clue-filter", ".spaces"]}
    page = touch_page(new_browser, "tablet")
    for sid, selectors in wanted.items():
        page.goto(f"{server.url}/games/{sid}")
        page.wait_for_selector("#live.on")
        page.wait_for_selector(selectors[1])
        screenshot(page, f"taps-tablet-fold-{sid}")
        off = [s for s in selectors if not on_screen(page, s)]
        assert not off, f"game {sid}: {off} below the fold of an 800 px tablet"

    # On a phone the countdown stays in sight while the searcher scrolls to a clue.
    phone = touch_page(new_browser, "phone")
    phone.goto(f"{server.url}/games/{drshark}")
    phone.wait_for_selector("#live.on")
    phone.locator(".clues.pick button.clue").last.scroll_into_view_if_needed()
    assert on_screen(phone, "#countdown") and on_screen(phone, "#timer-stop")
    phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert on_screen(phone, "#countdown") and on_screen(phone, "#timer-stop")
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "taps-drshark-phone-scrolled.png"))


def test_a_digital_peek_shows_the_face_on_the_peeking_phone_only(
        server: Server, new_browser: Any) -> None:
    cells = card_cells(rows_of("square"))
    faces = ["blank", "object"] + ["object"] * 40 + ["sleeper"] * 14 + ["blank"] * 8
    deal = dict(zip(map(str, cells), faces, strict=True))
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {"digital": True, "deal": deal}})["id"]
    ann = touch_page(new_browser, "phone")
    ann.goto(f"{server.url}/games/{sid}")
    enter_pin(ann)
    tablet = touch_page(new_browser, "tablet")
    tablet.goto(f"{server.url}/games/{sid}")
    tablet.wait_for_selector("#live.on")
    ann.tap('button.pd-cell[data-cell="A1"]')     # a blank: Ann may peek
    wait_seq(ann, 1)
    ann.tap("#peek")
    ann.tap('button.pd-cell[data-cell="B1"]')
    ann.wait_for_selector("#peeked:has-text('B1')")
    assert "object" in ann.inner_text("#peeked")
    assert ann.inner_text('button.pd-cell[data-cell="B1"]').find("poo") >= 0
    wait_seq(tablet, 2)
    screenshot(ann, "taps-poodivers-phone-peek")
    screenshot(tablet, "taps-poodivers-tablet-peek")
    for page in (tablet,):
        assert page.locator("#peeked").count() == 0 or not page.is_visible("#peeked")
        assert "poo" not in page.inner_text('button.pd-cell[data-cell="B1"]')
    view = api_get(server, f"/api/games/{sid}")
    assert view["state"]["cells"]["B1"] == "closed"
    assert "object" not in str(view["log"][-1])
    ann.wait_for_selector("#peeked", state="hidden", timeout=15_000)
    assert "poo" not in ann.inner_text('button.pd-cell[data-cell="B1"]')


def test_start_starts_this_pages_game_and_every_page_shows_where_the_timer_is(
        server: Server, new_browser: Any) -> None:
    first, second = (api_post(server, "/api/games", {"game": "drshark", "players": players,
                                                     "options": {}})["id"]
                     for players in (["Ann", "Ben"], ["Cid", "Dan"]))
    for sid in (first, second):
        play(server, sid, {"type": "move", "space": "B-light"})
    phone = touch_page(new_browser, "phone")            # the first game, opened first
    phone.goto(f"{server.url}/games/{first}")
    enter_pin(phone)
    tablet = touch_page(new_browser, "tablet")          # the game touched last
    tablet.goto(f"{server.url}/games/{second}")
    enter_pin(tablet)
    phone.tap("#timer-start")
    wait_seq(phone, 2)
    phone.wait_for_selector("#countdown.running")
    assert api_get(server, f"/api/games/{first}")["log"][-1]["action"] == {"type": "start_search"}
    assert api_get(server, f"/api/games/{second}")["seq"] == 1
    assert api_get(server, "/api/timer")["game"] == first
    # The other page says where the timer is and shows no countdown of its own.
    tablet.wait_for_selector(f"#timer-state:has-text('game #{first}')")
    assert "running" not in tablet.get_attribute("#countdown", "class")
    assert tablet.inner_text("#countdown") == "30.0"
    screenshot(tablet, "taps-drshark-tablet-timer-elsewhere")
    tablet.tap("#timer-here")                            # take it over
    tablet.wait_for_selector("#timer-here", state="hidden")
    assert api_get(server, "/api/timer")["game"] == second
    phone.wait_for_selector(f"#timer-state:has-text('game #{second}')")
    assert phone.is_disabled("#timer-stop")
    tablet.tap("#timer-start")
    wait_seq(tablet, 2)
    assert api_get(server, f"/api/games/{second}")["log"][-1]["action"] == {"type": "start_search"}
    tablet.tap("#timer-stop")
    wait_seq(tablet, 3)
    # A new game shows a fresh clock, not the last game's ("0.0 expired").
    third = api_post(server, "/api/games", {"game": "drshark", "players": ["Eve", "Fay"],
                                            "options": {}})["id"]
    fresh = touch_page(new_browser, "phone")
    fresh.goto(f"{server.url}/games/{third}")
    fresh.wait_for_selector("#timer-state:has-text('ready')")   # the timer came along
    assert fresh.inner_text("#countdown") == "30.0"
    assert fresh.locator("#countdown.stopped, #countdown.expired, #countdown.running").count() == 0
    screenshot(fresh, "taps-drshark-phone-new-game-clock")


def test_a_fresh_page_has_the_games_own_order_as_a_live_one_does(
        server: Server, new_browser: Any) -> None:
    # The page brings the game inside it: with its keys in the engine's order, not sorted,
    # so the form of every legal move names Babanipoulos' fields as a live page does.
    sid = babanipoulos_waits(server)
    service = next(o for o in api_get(server, f"/api/games/{sid}")["legal"]
                   if o["type"] == "service")
    assert list(service["choices"]) == ["from", "take", "give"]
    for size in DEVICES:
        page = touch_page(new_browser, size)
        page.goto(f"{server.url}/games/{sid}")
        page.wait_for_selector("#live.on")
        tap_at(page, "#all-moves summary")
        form = 'form.legal[data-type="service"]'
        page.wait_for_selector(form)
        fields = page.eval_on_selector_all(
            f"{form} [data-field]", "els => els.map((el) => el.dataset.field)")
        screenshot(page, f"taps-drshark-{size}-fresh-order")
        assert fields == ["from", "take", "give"], size
