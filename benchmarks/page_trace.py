"""Where a game page's milliseconds go: a Chromium performance trace of a page open and
of taps, on the same slow phone as ``page_speed.py`` (390 x 844 touch, CPU slowed 4x),
summed by what the page's main thread did (script, style, layout, paint, parsing, the
task machinery) and what it waited for (the network, the frames).

For each game: the same 200-action session as ``page_speed.py``, one warm-up open, then
``--opens`` traced opens (navigation to the board drawn and painted) and ``--taps``
traced taps (the finger down to the page showing the action). Prints JSON per game:
per phase the wall time, the main thread's busy time by kind (wall ms, thread ms: the
CPU it really used), the largest single events, and the requests with their times.

    python benchmarks/page_trace.py [--games shoal] [--opens 2] [--taps 3] [--save DIR]
    python benchmarks/page_trace.py --profile    # the opens' and taps' script functions
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.page_speed import GAMES, Heard, play_deep, taps_for
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE, PIN, Server
from tests.web.scripted import Client

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8",
              "blink.user_timing", "loading", "toplevel", "latencyInfo", "blink"]

# What a main-thread event's own time (its children's taken away) counts as: the kind
# of its nearest ancestor (or itself) with a name below; "other" is the task machinery,
# the loader and the messages between the processes.
KINDS = {
    "script": ("EvaluateScript", "v8.compile", "v8.compileModule", "FunctionCall",
               "v8.run", "v8.callFunction", "RunMicrotasks", "MajorGC", "MinorGC",
               "V8.GC_SCAVENGER", "V8.GC_MC_BACKGROUND_MARKING", "v8.parseOnBackground"),
    "style": ("UpdateLayoutTree", "Blink.Style.UpdateTime", "ParseAuthorStyleSheet"),
    "layout": ("Layout", "Blink.Layout.UpdateTime"),
    "paint": ("PrePaint", "Paint", "Layerize", "Commit", "Blink.Paint.UpdateTime",
              "Blink.PrePaint.UpdateTime", "Blink.CompositingCommit.UpdateTime",
              "LocalFrameView::RunCompositingInputsLifecyclePhase"),
    "html": ("ParseHTML", "DocumentLoader::BodyDataReceivedImpl"),
}
KIND_OF = {name: kind for kind, names in KINDS.items() for name in names}

# Marks: the tap's finger down and the page showing its action; the open's first drawing
# (said on the console too: the benchmark waits by listening, see page_speed.Heard).
PROBE = """
(() => {
  document.addEventListener("pointerdown", () => performance.mark("tc-down"), true);
  new MutationObserver(() => {
    const turn = document.getElementById("turn");
    const board = document.getElementById("board");
    const loading = !turn || turn.textContent === "Loading\\u2026";
    if (!window.__drawn && !loading && board && board.firstChild) {
      window.__drawn = true;
      requestAnimationFrame(() => setTimeout(() => {
        performance.mark("tc-drawn");
        console.debug("tc-drawn");
      }));
    }
    const top = document.querySelector("#log li");
    const seq = top ? Number(top.value) : 0;
    if (window.__seq !== undefined && seq > window.__seq) {
      requestAnimationFrame(() => setTimeout(() => {
        performance.mark("tc-tapped");
        console.debug("tc-tapped");
      }));
    }
    window.__seq = seq;
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


def main_thread(events: list[dict[str, Any]]) -> tuple[int, int]:
    """The (pid, tid) of the page's renderer main thread: the one that set our marks."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    for e in events:
        if e.get("cat", "").startswith("blink.user_timing") and e["name"].startswith("tc-"):
            key = (e["pid"], e["tid"])
            if names.get(key) == "CrRendererMain":
                return key
    for key, name in names.items():      # the mark's thread is not named: any renderer
        if name == "CrRendererMain":
            return key
    raise RuntimeError("no renderer main thread in the trace")


def cpu_ms(events: list[dict[str, Any]], start: float, end: float) -> float:
    """The CPU time (thread ms) the page's main thread used between ``start`` and
    ``end`` (trace us): its top-level tasks' thread time, a task across an end counted
    by the share of it inside. Less moved by the machine's load than the wall time: a
    thread waiting for a core is not counted."""
    pid, tid = main_thread(events)
    tasks = sorted((e for e in events if e.get("ph") == "X" and e["pid"] == pid
                    and e["tid"] == tid and e.get("dur") and "tdur" in e
                    and e["ts"] < end and e["ts"] + e["dur"] > start),
                   key=lambda e: (e["ts"], -e["dur"]))
    total = 0.0
    until = -1.0
    for e in tasks:
        if e["ts"] < until:       # inside a task already counted
            continue
        until = e["ts"] + e["dur"]
        inside = min(until, end) - max(e["ts"], start)
        total += e["tdur"] * inside / e["dur"]
    return total / 1000


def mark_time(events: list[dict[str, Any]], name: str) -> list[float]:
    return sorted(e["ts"] for e in events if e.get("name") == name
                  and "user_timing" in e.get("cat", ""))


def summarise(events: list[dict[str, Any]], start: float, end: float) -> dict[str, Any]:
    """The main thread's own time by kind between ``start`` and ``end`` (trace us)."""
    pid, tid = main_thread(events)
    spans = sorted((e for e in events if e.get("ph") == "X" and e["pid"] == pid
                    and e["tid"] == tid and "dur" in e
                    and e["ts"] < end and e["ts"] + e["dur"] > start),
                   key=lambda e: (e["ts"], -e["dur"]))
    own: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    by_name: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    stack: list[dict[str, Any]] = []
    busy = 0.0
    for e in spans:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        if stack:
            parent = stack[-1]
            parent["_self"] -= e["dur"]
            parent["_tself"] -= e.get("tdur", 0)
        else:
            busy += min(e["ts"] + e["dur"], end) - max(e["ts"], start)
        e["_self"] = e["dur"]
        e["_tself"] = e.get("tdur", 0)
        e["_kind"] = KIND_OF.get(e["name"]) or (stack[-1]["_kind"] if stack else "other")
        stack.append(e)
    for e in spans:
        kind = e["_kind"]
        own[kind][0] += max(0.0, e["_self"]) / 1000
        own[kind][1] += max(0.0, e["_tself"]) / 1000
        label = e["name"]
        if label == "FunctionCall" or label == "EvaluateScript":
            data = (e.get("args") or {}).get("data") or {}
            where = data.get("url") or ""
            label += " " + where.rsplit("/", 1)[-1] + (f":{data.get('functionName')}"
                                                       if data.get("functionName") else "")
        by_name[label][0] += max(0.0, e["_self"]) / 1000
        by_name[label][1] += max(0.0, e["_tself"]) / 1000
    top = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:14]
    requests = {}
    sent = {e["args"]["data"]["requestId"]: (e["ts"], e["args"]["data"]["url"])
            for e in events if e.get("name") == "ResourceSendRequest"}
    for e in events:
        if e.get("name") == "ResourceFinish":
            rid = e["args"]["data"]["requestId"]
            if rid in sent and start - 1e6 < sent[rid][0] < end:
                ts, url = sent[rid]
                requests[url.split("/", 3)[-1][:60]] = [round((ts - start) / 1000),
                                                        round((e["ts"] - ts) / 1000)]
    forced = sum(e["dur"] for e in spans if e["name"] == "Blink.ForcedStyleAndLayout.UpdateTime")
    return {"wall_ms": round((end - start) / 1000),
            "busy_ms": round(busy / 1000),
            "cpu_ms": round(cpu_ms(events, start, end)),
            "forced_layout_ms": round(forced / 1000),   # style and layout a script asked for
            "kinds": {k: [round(v[0]), round(v[1])] for k, v in sorted(own.items())},
            "top": {k: [round(v[0], 1), round(v[1], 1)] for k, v in top},
            "requests (start, took)": requests}


def trace(browser: Any, page: Any, run: Any, save: Path | None, name: str) -> list[dict[str, Any]]:
    browser.start_tracing(page=page, categories=CATEGORIES)
    run()
    raw = browser.stop_tracing()
    if save:
        save.mkdir(parents=True, exist_ok=True)
        (save / f"{name}.json").write_bytes(raw)
    data = json.loads(raw)
    return data["traceEvents"] if isinstance(data, dict) else data


def profiled(cdp: Any, run: Any) -> dict[str, dict[str, float]]:
    """The script functions by their own time (ms, sampled by V8's profiler) while
    ``run()`` runs, and the page's own functions by their total time (what they called
    counted in): where a script's milliseconds go, by function."""
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    cdp.send("Profiler.start")
    run()
    profile = cdp.send("Profiler.stop")["profile"]
    cdp.send("Profiler.disable")
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    gaps = profile["timeDeltas"]

    def named(node: int) -> str:
        frame = nodes[node]["callFrame"]
        where = frame["url"].rsplit("/", 1)[-1]
        return f"{frame['functionName'] or '(anonymous)'} {where}:{frame['lineNumber'] + 1}" \
            if where else frame["functionName"] or "(anonymous)"

    own: dict[str, float] = defaultdict(float)
    total: dict[str, float] = defaultdict(float)    # the page's own functions, callees in
    for sample, gap in zip(profile["samples"], [*gaps[1:], 0], strict=True):
        own[named(sample)] += gap / 1000
        seen = set()
        node: int | None = sample
        while node is not None:
            name = named(node)
            if nodes[node]["callFrame"]["url"].startswith("http") and name not in seen:
                seen.add(name)
                total[name] += gap / 1000
            node = parent.get(node)
    skip = ("(idle)", "(program)")
    return {"own": {k: round(v, 1) for k, v in sorted(own.items(), key=lambda kv: -kv[1])[:12]
                    if k not in skip},
            "total": {k: round(v, 1) for k, v in sorted(total.items(),
                                                        key=lambda kv: -kv[1])[:16]}}


def measure(server: Server, pw: Any, game: str, sid: int, opens: int, taps: int,
            rnd: random.Random, save: Path | None, profile: bool = False) -> dict[str, Any]:
    client = Client(server.url, PIN)
    out: dict[str, Any] = {"opens": [], "taps": []}
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        for i in range(opens + 1):
            ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                      extra_http_headers={"X-Table-Pin": PIN},
                                      bypass_csp=True)
            ctx.add_init_script(PROBE)
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            heard = Heard(page)

            def open_page(page: Any = page, heard: Heard = heard) -> None:
                page.goto(f"{server.url}/games/{sid}")
                heard.wait("tc-drawn")
                page.wait_for_selector("#live.on", timeout=60_000)

            if i == 0:
                open_page()
            elif profile:
                out["opens"].append({"functions": profiled(cdp, open_page)})
            else:
                events = trace(browser, page, open_page, save, f"{game}-open-{i}")
                nav = [e["ts"] for e in events if e.get("name") in (
                    "navigationStart", "NavigationStart") or (
                    e.get("name") == "ResourceSendRequest"
                    and e["args"]["data"]["url"].endswith(f"/games/{sid}"))]
                drawn = mark_time(events, "tc-drawn")
                if nav and drawn:
                    out["opens"].append(summarise(events, min(nav), drawn[0]))
            if i == opens:
                for t in range(taps):
                    view = client.call("GET", f"/api/games/{sid}")[1]
                    plan = taps_for(view, rnd) if not view["over"] else []
                    if not plan:
                        break
                    for selector in plan[:-1]:
                        page.locator(selector).first.tap(timeout=30_000)
                    page.wait_for_timeout(400)
                    done = heard.said["tc-tapped"]

                    def tap(page: Any = page, selector: str = plan[-1], done: int = done,
                            heard: Heard = heard) -> None:
                        page.locator(selector).first.tap(timeout=30_000)
                        heard.wait("tc-tapped", done + 1, timeout=30.0)
                        page.wait_for_timeout(300)

                    if profile:     # the functions instead of the trace
                        out["taps"].append({"functions": profiled(cdp, tap)})
                        continue
                    events = trace(browser, page, tap, save, f"{game}-tap-{t}")
                    down, tapped = mark_time(events, "tc-down"), mark_time(events, "tc-tapped")
                    if down and tapped:
                        out["taps"].append(summarise(events, down[-1], tapped[-1]))
            ctx.close()
    finally:
        browser.close()
        client.close()
    for phase in ("opens", "taps"):
        runs = out[phase]
        if runs:
            walls = [r["wall_ms"] for r in runs if "wall_ms" in r]
            if walls:
                out[f"{phase}_median_wall_ms"] = round(statistics.median(walls))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--opens", type=int, default=2)
    ap.add_argument("--taps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--save", type=Path, help="keep each raw trace here (Perfetto opens them)")
    ap.add_argument("--profile", action="store_true",
                    help="the opens' and taps' script functions by their own time, "
                         "not the trace")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    rnd = random.Random(args.seed)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as home:
        server = Server(Path(home))
        try:
            client = Client(server.url, PIN)
            sids = {g: play_deep(client, g, args.actions, rnd) for g in args.games}
            client.close()
            with sync_playwright() as pw:
                for game, sid in sids.items():
                    out[game] = measure(server, pw, game, sid, args.opens, args.taps, rnd,
                                        args.save, args.profile)
        finally:
            server.stop()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
