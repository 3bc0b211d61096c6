"""How fast each game page draws and answers a tap on a slow phone, and how many bytes it
costs: Debian's chromium at 390 x 844 (touch) with the CPU slowed 4x, against
``companion serve`` on a fresh database.

For each game: a session played 200 actions deep through the API (as far as the game
goes; then a few undone so it is live), then ``--opens`` fresh page opens (no cache) and
``--taps`` taps on the page's own controls. Prints JSON per game: draw time (navigation
to the turn and the board drawn and painted, median ms; and to the whole page, its log
too), tap-to-update (the finger down to the
page showing the action in its log, median and max ms; and the elements the page made
or took away for it, median), bytes per page open (every
response as sent: gzip where the server packs it) and per change event (the live
stream's message, as sent), and the goals: draw < 800 ms, tap < 150 ms, open < 60 KB,
event < 4 KB.

    python benchmarks/page_speed.py [--actions 200] [--opens 3] [--taps 5] [--seed 7]

Two versions compared (the old one a plain copy, ``git archive main | tar -x -C old``):
each runs its own server, and they are measured in turns, ``--rounds`` times each, with
the load average after every round (min and median over the rounds):

    python benchmarks/page_speed.py --code old . --rounds 3

``--cpu`` traces each timed open and tap lightly (Chromium's tasks and the page's marks)
and adds the page's main-thread CPU time in the same windows (``draw_cpu_ms``,
``tap_cpu_ms``): a thread waiting for a core on a busy machine is not counted in it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE, PIN, Server
from tests.web.scripted import Client, Lost, choose

GOALS = {"draw_ms": 800, "tap_ms": 150, "open_kb": 60, "event_kb": 4}
GAMES: dict[str, tuple[list[str], dict[str, Any]]] = {"shark": (["Ann", "Ben", "Cid", "Dan"], {}),
         "drshark": (["Ann", "Ben", "Cid", "Dan"], {}),
         "poodivers": (["Ann", "Ben", "Cid"], {}),
         "shoal": (["Ann", "Ben", "Cid", "Dan"], {})}

# Marks the page's first drawing (the turn and the board), the whole page (the log too)
# and, after a tap, the log showing the new action (each followed by the next frame, so
# layout and paint are counted). Each mark is also said on the console, which is how the
# benchmark waits for it: Playwright's waiting for a condition would run its own script
# in the page at every frame (tens of ms on the slowed page, in the middle of the drawing).
PROBE = """
(() => {
  const painted = (name) => requestAnimationFrame(() => setTimeout(() => {
    performance.mark(name);
    console.debug(name);
  }));
  window.__taps = [];
  window.__nodes = [];      // per tap: the elements made or taken away, the tap to its update
  let nodes = 0;
  const size = (n) => (n.nodeType === 1 ? 1 + n.getElementsByTagName("*").length : 0);
  document.addEventListener("pointerdown", () => {
    window.__down = performance.now();
    performance.mark("tc-down");
  }, true);
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) nodes += size(n);
      for (const n of r.removedNodes) nodes += size(n);
    }
    const log = document.getElementById("log");
    const turn = document.getElementById("turn");
    const board = document.getElementById("board");
    const ready = turn && turn.textContent !== "Loading\u2026" && board && board.firstChild;
    if (!window.__drawn && ready) {
      window.__drawn = true;
      painted("tc-drawn");
    }
    const top = log && log.firstElementChild;
    if (!window.__whole && top) {
      window.__whole = true;
      painted("tc-whole");
    }
    const seq = top ? Number(top.value) : 0;
    if (window.__seq !== undefined && seq > window.__seq && window.__down) {
      const down = window.__down;
      window.__down = 0;
      window.__nodes.push(nodes);
      requestAnimationFrame(() => setTimeout(() => {
        window.__taps.push(performance.now() - down);
        performance.mark("tc-tapped");
        console.debug("tc-tapped");
      }));
    }
    window.__seq = seq;
    if (!window.__down) nodes = 0;
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


class Heard:
    """The marks the page said on its console (``PROBE``), counted as they come: waiting
    for one runs nothing in the page."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.said: Counter[str] = Counter()
        page.on("console", lambda message: self.said.update([message.text]))

    def wait(self, mark: str, count: int = 1, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while self.said[mark] < count:
            if time.monotonic() > end:
                raise TimeoutError(f"the page did not reach {mark} in {timeout:.0f} s")
            self.page.wait_for_timeout(20)      # Playwright's own timer, not the page's


def play_deep(client: Client, game: str, actions: int, rnd: random.Random) -> int:
    players, options = GAMES[game]
    status, view = client.call("POST", "/api/games", {"game": game, "players": players,
                                                      "options": options})
    assert status == 201, view
    sid = view["id"]
    tries = 0
    while view["seq"] < actions and not view["over"] and tries < actions * 20:
        tries += 1
        legal = [e for e in view["legal"] if e["type"] != "tally"]
        action = choose(legal, rnd)
        if action is None:
            break
        status, answer = client.call("POST", f"/api/games/{sid}/actions", {"action": action})
        if status == 200:
            view = answer
    while view["over"] or not [e for e in view["legal"] if e["type"] != "tally"]:
        client.call("POST", f"/api/games/{sid}/undo", {})
        view = client.call("GET", f"/api/games/{sid}")[1]
    for _ in range(6):      # room for the taps before the game could end
        client.call("POST", f"/api/games/{sid}/undo", {})
    return int(sid)


def taps_for(view: dict[str, Any], rnd: random.Random) -> list[str]:
    """The taps a player makes on the page for one action of ``view``'s legal list."""
    legal = {e["type"]: e for e in view["legal"]}
    game = view["game"]
    if game == "poodivers":
        if "flip" in legal and (rnd.random() < 0.8 or "bank" not in legal):
            cell = rnd.choice(legal["flip"]["choices"]["cell"])
            faces = legal["flip"]["choices"].get("face", ["object"])
            face = "object" if "object" in faces else faces[0]
            return [f'button.pd-cell[data-cell="{cell}"]', f'button[data-face="{face}"]']
        return ["#bank"] if "bank" in legal else []
    if game == "shoal":
        play = legal["play"]
        card, (x, y) = play["choices"]["card"][0], play["choices"]["at"][0]
        return [f'.sh-card[data-card="{card}"]',
                f'section[data-player="{play["player"]}"] [data-at="{x},{y}"]']
    if game == "shark":
        for kind, tap in (("forced_sell", "#forced-go"), ("choose_stock", "button.chip"),
                          ("roll", "#roll-for-me"), ("end_turn", "#end-turn")):
            if kind in legal:
                return [tap]
        if "place" in legal:      # a black face without the joker: choose the building
            buildings = [b for b in view["state"]["pending"]["choices"] if b != "remove_neutral"]
            chip = [f'#controls button.chip[data-company="{buildings[0]}"]:not([data-die])']
            return (chip if len(buildings) > 1 else []) + [".sk-cell.target"]
        return []
    for kind, tap in (("move", "button.space.target"), ("start_search", "#timer-start"),
                      ("draw", ".clues.pick button.clue"), ("take", ".clues.pick button.clue"),
                      ("skip_service", "#do-skip_service"), ("end_turn", "#do-end_turn"),
                      ("stop", "#timer-stop")):
        if kind in legal:
            return [tap]
    return []


# What a trace for the CPU time needs: the tasks (with their thread time) and our marks.
CPU_CATEGORIES = ["toplevel", "blink.user_timing"]


class CpuTrace:
    """With ``on``: a light Chromium trace around each timed open and tap, and the page's
    main-thread CPU time inside the same window as its wall time (from the navigation
    or the last finger down to the mark): what the page itself cost, less moved by the
    other work on the machine than the wall time."""

    def __init__(self, browser: Any, on: bool) -> None:
        self.browser = browser
        self.on = on

    def start(self, page: Any) -> None:
        if self.on:
            self.browser.start_tracing(page=page, categories=CPU_CATEGORIES)

    def stop(self, first: str, last: str) -> float | None:
        """The CPU ms between the last ``first`` mark (or the navigation) before the
        last ``last`` mark."""
        if not self.on:
            return None
        from benchmarks.page_trace import cpu_ms, mark_time

        raw = json.loads(self.browser.stop_tracing())
        events = raw["traceEvents"] if isinstance(raw, dict) else raw
        ends = mark_time(events, last)
        starts = [t for t in mark_time(events, first) if ends and t < ends[-1]]
        if not ends or not starts:
            return None
        return cpu_ms(events, starts[-1], ends[-1])


def stalled(page: Any, server: Server, game: str, sid: int, plan: list[str],
            view: dict[str, Any]) -> str:
    """What a tap that went unanswered was doing: the game, the taps, what the rules
    offered, what the page said (an error by the tap, its turn bar, its live dot), the
    table now, the timer and the load, and the server's last lines."""
    said = page.evaluate("""() => [...document.querySelectorAll(
      "#turn, #flash:not([hidden]), .tap-error, #live")].map(
      (el) => `${el.id || el.className}${el.id === "live" ? ` (${el.className})` : ""}: ` +
        el.textContent.trim().slice(0, 120))""")
    client = Client(server.url, PIN, timeout=5)
    try:
        now = client.call("GET", f"/api/games/{sid}")[1]
        timer = client.call("GET", "/api/timer")[1]
    except Lost as err:
        now, timer = {"seq": f"no answer ({err})"}, {}
    finally:
        client.close()
    return (f"{game} (game {sid}): the taps {plan} at move {view['seq']} (the rules offered "
            f"{sorted({e['type'] for e in view['legal']})}) had no answer in 30 s; the page "
            f"said {said}; the table is at move {now.get('seq')}, the timer "
            f"{timer.get('state')} on game {timer.get('game')}; load "
            f"{os.getloadavg()}; the server's last lines: {server.lines[-5:]}")


def measure(server: Server, pw: Any, game: str, sid: int, opens: int, taps: int,
            rnd: random.Random, cpu: bool = False) -> dict[str, list[float]]:
    """One browser: ``opens`` timed page opens (after one that warms the server), then
    ``taps`` taps on the last; the raw figures (with ``cpu``, the page's CPU time of
    each too). The taps are undone afterwards, so the next call measures the same game."""
    client = Client(server.url, PIN)
    seq = client.call("GET", f"/api/games/{sid}")[1]["seq"]
    client.close()
    out: dict[str, list[float]] = {"draw": [], "whole": [], "open_bytes": [], "events": [],
                                   "tap": [], "changed": [], "draw_cpu": [], "tap_cpu": []}
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    traced = CpuTrace(browser, cpu)
    try:
        for i in range(opens + 1):
            ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                      extra_http_headers={"X-Table-Pin": PIN},
                                      bypass_csp=True)   # for the probes' polling
            ctx.add_init_script(PROBE)
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            finished: dict[str, int] = {}     # request id -> bytes received, all told
            streamed: dict[str, int] = {}     # the live stream never finishes
            cdp.on("Network.loadingFinished", lambda e, f=finished: f.__setitem__(
                e["requestId"], int(e["encodedDataLength"])))
            cdp.on("Network.dataReceived", lambda e, d=streamed: d.__setitem__(
                e["requestId"], d.get(e["requestId"], 0) + int(e["encodedDataLength"])))
            messages: list[int] = []
            cdp.on("Network.eventSourceMessageReceived",
                   lambda e, messages=messages: messages.append(
                       len(f"event: {e['eventName']}\nid: {e['eventId']}\n".encode())
                       + len(e["data"].encode()) + 8 * (e["data"].count("\n") + 1))
                   if e["eventName"] == "change" else None)
            heard = Heard(page)
            if i:
                traced.start(page)
            page.goto(f"{server.url}/games/{sid}")
            heard.wait("tc-drawn")
            heard.wait("tc-whole")
            page.wait_for_selector("#live.on", timeout=60_000)
            page.wait_for_timeout(1500)
            if i and (used := traced.stop("navigationStart", "tc-drawn")) is not None:
                out["draw_cpu"].append(used)
            if i:       # the first open warms the server's caches, like a table's first
                out["draw"].append(page.evaluate(
                    "performance.getEntriesByName('tc-drawn')[0].startTime"))
                out["whole"].append(page.evaluate(
                    "performance.getEntriesByName('tc-whole')[0].startTime"))
                out["open_bytes"].append(sum(finished.values()) + sum(
                    n for rid, n in streamed.items() if rid not in finished))
            if i == opens:
                messages.clear()
                client = Client(server.url, PIN)
                for _ in range(taps):
                    view = client.call("GET", f"/api/games/{sid}")[1]
                    if view["over"]:
                        break
                    plan = taps_for(view, rnd)
                    if not plan:
                        break
                    before = heard.said["tc-tapped"]
                    traced.start(page)
                    try:
                        for selector in plan:
                            page.locator(selector).first.tap(timeout=30_000)
                        heard.wait("tc-tapped", before + 1, timeout=30.0)
                    except Exception as err:    # Playwright's or ours: say what was tapped
                        raise RuntimeError(stalled(page, server, game, sid, plan, view)) \
                            from err
                    page.wait_for_timeout(300)
                    if (used := traced.stop("tc-down", "tc-tapped")) is not None:
                        out["tap_cpu"].append(used)
                out["tap"] = page.evaluate("window.__taps")
                out["changed"] = page.evaluate("window.__nodes")
                out["events"] = [float(n) for n in messages]
            ctx.close()
    finally:
        browser.close()
        client.close()
        client = Client(server.url, PIN)
        while client.call("GET", f"/api/games/{sid}")[1]["seq"] > seq:
            client.call("POST", f"/api/games/{sid}/undo", {})
        client.close()
    return out


def summary(server: Server, sid: int, runs: list[dict[str, list[float]]]) -> dict[str, Any]:
    """The figures of one game on one version of the code, over every run."""
    every = {k: [x for run in runs for x in run[k]] for k in runs[0]}
    draws, taps = every["draw"], every["tap"]
    result = {
        "sid": sid, "actions": Client(server.url, PIN).call("GET", f"/api/games/{sid}")[1]["seq"],
        "draw_ms": round(statistics.median(draws)), "draw_min_ms": round(min(draws)),
        "whole_ms": round(statistics.median(every["whole"])),
        "tap_ms": round(statistics.median(taps)) if taps else None,
        "tap_min_ms": round(min(taps)) if taps else None,
        "tap_max_ms": round(max(taps)) if taps else None, "taps": len(taps),
        "tap_elements": round(statistics.median(every["changed"])) if every["changed"] else None,
        "open_kb": round(statistics.median(every["open_bytes"]) / 1024, 1),
        "event_kb": round(max(every["events"]) / 1024, 2) if every["events"] else None,
    }
    for kind in ("draw", "tap"):      # with --cpu: the page's own CPU time, median (min)
        if every[f"{kind}_cpu"]:
            result[f"{kind}_cpu_ms"] = round(statistics.median(every[f"{kind}_cpu"]))
            result[f"{kind}_cpu_min_ms"] = round(min(every[f"{kind}_cpu"]))
    result["meets_goals"] = all(
        result[k] is not None and result[k] < v for k, v in GOALS.items())
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--opens", type=int, default=3)
    ap.add_argument("--taps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--code", nargs="*", type=Path, default=[],
                    help="checkouts of the project to compare (default: this one)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of each version, taken in turns")
    ap.add_argument("--cpu", action="store_true",
                    help="trace each timed open and tap: the page's main-thread CPU time "
                         "beside the wall time (the trace costs the page a little)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    codes: list[Path | None] = list(args.code) or [None]
    names = [str(c) if c else "this" for c in codes]
    out: dict[str, Any] = {"goals": GOALS, "load": [os.getloadavg()]}
    runs: dict[str, dict[str, list[Any]]] = {n: {g: [] for g in args.games} for n in names}
    with tempfile.TemporaryDirectory() as home:
        servers: dict[str, Server] = {}
        sids: dict[str, dict[str, int]] = {}
        try:
            for i, (name, code) in enumerate(zip(names, codes, strict=True)):
                (Path(home) / str(i)).mkdir()
                servers[name] = Server(Path(home) / str(i), code=code)
                client = Client(servers[name].url, PIN)
                rnd = random.Random(args.seed)      # the same games for every version
                sids[name] = {g: play_deep(client, g, args.actions, rnd) for g in args.games}
                client.close()
            with sync_playwright() as pw:
                for r in range(args.rounds):
                    # In turns, the order turned each round: a slow minute hits both.
                    for name in names[r % len(names):] + names[:r % len(names)]:
                        for game in args.games:
                            runs[name][game].append(measure(
                                servers[name], pw, game, sids[name][game], args.opens,
                                args.taps, random.Random(args.seed + r), args.cpu))
                    out["load"].append(os.getloadavg())
            for name in names:
                out[name] = {g: summary(servers[name], sids[name][g], runs[name][g])
                             for g in args.games}
        finally:
            for server in servers.values():
                server.stop()
    if len(names) == 1:
        out["games"] = out.pop(names[0])
    out["machine"] = {"cpu": platform.processor() or platform.machine(),
                      "cores": os.cpu_count(), "python": platform.python_version(),
                      "throttle": 4, "viewport": PHONE}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
