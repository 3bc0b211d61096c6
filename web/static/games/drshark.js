// Dr. Shark: the big countdown (synced from the table's timer), START/STOP, the board's
// spaces and tokens, the search panel for the area's method, dossiers and services,
// and the clapper sound when the timer is the browser's.
"use strict";
(function () {
  const METHOD_TEXT = {
    shape: "draw clues one by one, each a shape not yet on the mat",
    different: "draw clues one by one, each a texture not yet on the mat",
    same: "draw clues one by one, all of the first clue's texture",
    fistful: "grab one fistful, then keep one clue of each colour",
    observation: "take clues from those laid open",
  };
  // How a search ended, in the rulebook's words ("End of the Search").
  const ENDED = { time_up: "time ran out", stop: "the spy stopped searching",
    mistake: "the spy made a mistake", shark: "a shark was drawn", done: "a clue was taken" };
  let timer = null;        // the last status from the server
  let deadline = 0;        // performance.now() when a running timer ends
  let frame = 0;
  let lastState = null;
  const kept = window.GamePage.ctx.kept();
  let picked = new Set(kept.picked || []);  // clues chosen for a fistful or a selection
  let audio = null;
  let timerNote = "";      // why there is no timer, when there is none
  let filter = kept.filter || "";             // narrows long clue lists
  let giving = new Set(kept.giving || []);    // Babanipoulos: the two clues given back
  let serviceFrom = kept.serviceFrom || null; // the dossier a service takes from
  let serviceTake = kept.serviceTake || null; // and the clue it takes
  const SERVICES = {
    paoletta: { name: "Paoletta", says: "take one clue from another spy's dossier." },
    babanipoulos: { name: "Babanipoulos", says: "take one clue from another spy's dossier and give two of yours in return." },
  };

  // The clapper: a sharp noise burst and a low knock, made with WebAudio (no file).
  function clap() {
    if (!audio) return;
    const now = audio.currentTime;
    const length = Math.floor(audio.sampleRate * 0.25);
    const buffer = audio.createBuffer(1, length, audio.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * Math.exp(-i / (length / 12));
    const noise = audio.createBufferSource();
    noise.buffer = buffer;
    const knock = audio.createOscillator();
    knock.frequency.setValueAtTime(180, now);
    knock.frequency.exponentialRampToValueAtTime(50, now + 0.2);
    const gain = audio.createGain();
    gain.gain.setValueAtTime(0.9, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.3);
    noise.connect(audio.destination);
    knock.connect(gain).connect(audio.destination);
    noise.start(now);
    knock.start(now);
    knock.stop(now + 0.3);
    window.lastClap = Date.now();   // for the page's own tests and curious players
  }
  // Made only where the clapper is the browser's, and after the first tap has been
  // answered (making one takes a fifth of a second on a slow phone): once the player has
  // touched the page the browser lets a context made later play. The tap's answer is
  // drawn first (ctx.afterDraw): idle time while the answer is on its way is not enough.
  const wake = () => {
    if (!audio && window.AudioContext) audio = new AudioContext();
    if (audio && audio.state === "suspended") audio.resume().catch(() => {});
  };
  document.addEventListener("pointerdown", () => {
    if (window.GamePage.ctx.browserTimer && (!audio || audio.state === "suspended")) {
      window.GamePage.ctx.afterDraw(wake);
    }
  });

  const sid = Number(window.GamePage.ctx.sid);
  const plural = (n, one) => `${n} ${one}${n === 1 ? "" : "s"}`;
  // The table's timer serves one game (the hardware buttons follow it): this page shows
  // its countdown only when that game is this one, never another game's.
  const here = () => timer && (timer.game === undefined || timer.game === sid);

  function showClock() {
    const el = document.getElementById("countdown");
    if (!el || !timer) return;
    const mine = here();
    let ms = mine && timer.state !== "idle" ? timer.ms_left : timer.duration_ms;
    if (mine && timer.state === "running") ms = Math.max(0, deadline - performance.now());
    // Called at every frame while the timer runs: only what changed is written (a text
    // set again, even the same, has the browser lay out and paint it again, and a tap's
    // answer waits behind that work).
    set(el, "textContent", (Math.ceil(ms / 100) / 10).toFixed(1));
    const warning = mine && timer.state === "running" && ms <= (timer.warning_ms || 0);
    set(el, "className", `countdown ${mine ? timer.state : "elsewhere"}${warning ? " warning" : ""}`);
    set(document.getElementById("timer-state"), "textContent", timer.error ? `timer: ${timer.error}`
      : mine ? `${TIMER_WORDS[timer.state] || timer.state} · ${timer.backend} timer`
        : timer.game ? `the timer is on game #${timer.game}` : "the timer is free");
    set(document.getElementById("timer-here"), "hidden", mine);
    set(document.getElementById("timer-stop"), "disabled", !mine);
    if (mine && timer.state === "running") frame = requestAnimationFrame(showClock);
  }
  function set(el, key, value) {
    if (el && el[key] !== value) el[key] = value;
  }
  const TIMER_WORDS = { idle: "ready", running: "running", paused: "paused", expired: "time is up",
    stopped: "stopped" };

  function onTimer(status, ctx) {
    const was = lastState;
    timer = status;
    lastState = here() ? status.state : null;
    deadline = performance.now() + status.ms_left;
    cancelAnimationFrame(frame);
    showClock();
    if (here() && status.state === "expired" && was && was !== "expired" && status.backend === "browser") clap();
  }

  // START starts this page's game (the timer moves here); STOP stops it; "Use the timer
  // here" moves the timer (and the hardware buttons) to this game without starting.
  async function timerButton(ctx, what, ev) {
    const anchor = ev && ev.currentTarget;
    const body = what === "stop" ? {} : { game: sid };
    try {
      onTimer(await window.TC.api("POST", `/api/timer/${what}`, body), ctx);
    } catch (err) {
      if (err.status === 503) {     // no timer on this companion: log the action directly
        if (what !== "bind") ctx.act({ type: what === "start" ? "start_search" : "stop" }, anchor);
      } else if (err.message !== "no PIN entered") ctx.complain(err.message, anchor);
    }
  }

  // A clue as its piece reads ("treasure map c · heart Maps"), not its catalogue id.
  function clueLabel(v, id) {
    const clue = (v.state.catalogue.clues || []).find((c) => c.id === id);
    return clue ? groupLabel(v, clue, 1) : id;
  }

  // What the table is doing, in the rulebook's words (the engine's phase names).
  const PHASES = { move: "moving", search: "searching", dossier: "sorting the dossier",
    tally: "counting the dossiers", over: "the game is over" };

  // A piece of evidence by its name: the catalogue's ids join words with "-".
  const evidenceName = (id) => String(id).replace(/-/g, " ");

  // Identical copies of a clue (same evidence, part, shape and colour) are one button.
  function lookOf(clue) {
    return clue.shark ? `shark/${clue.shape}/${clue.category}`
      : `${clue.evidence}/${clue.part}/${clue.shape}/${clue.category}`;
  }

  function groupLabel(v, clue, n) {
    const cat = (v.state.catalogue.categories || {})[clue.category];
    const what = clue.shark ? "shark!" : `${evidenceName(clue.evidence)} ${clue.part}`;
    return `${what} · ${clue.shape || ""} ${cat ? cat.name : clue.category || ""}${n > 1 ? ` ×${n}` : ""}`;
  }

  // Every word typed must match: "passport round" finds the round passports.
  function matches(text, words) {
    const low = text.toLowerCase();
    return words.every((w) => low.includes(w));
  }

  // A long list of clues to pick from: a filter box and a scrolling list, one button per
  // look. ``tap(ids)`` gets the ids of the copies of the look tapped.
  function cluePicker(h, ctx, v, ids, tap) {
    const box = h("input", { type: "search", placeholder: "filter: passport round, maps…",
      "aria-label": "filter clues", class: "clue-filter", value: filter, oninput: (ev) => {
        filter = ev.currentTarget.value;
        window.TC.update(ev.currentTarget.parentNode.querySelector(".clues.pick"), draw());
      } });
    const byId = Object.fromEntries((v.state.catalogue.clues || []).map((c) => [c.id, c]));
    const groups = new Map();
    for (const id of ids) {
      const clue = byId[id] || { id };
      const key = byId[id] ? lookOf(clue) : id;
      if (!groups.has(key)) groups.set(key, { clue, ids: [] });
      groups.get(key).ids.push(id);
    }
    const cats = v.state.catalogue.categories || {};
    const draw = () => {
      const words = filter.toLowerCase().split(/\s+/).filter((w) => w);
      return [...groups.values()].filter((g) => matches(`${groupLabel(v, g.clue, 1)} ${g.ids.join(" ")}`, words))
        .map((g) => {
          const colour = g.clue.shark ? "shark" : (cats[g.clue.category] || {}).colour || "";
          const chosen = g.ids.filter((id) => picked.has(id)).length;
          return h("button", { type: "button", "data-clue": g.ids.find((id) => !picked.has(id)) || g.ids[0],
            "data-copies": g.ids.length, class: `clue ${colour}${chosen ? " chosen" : ""}`,
            onclick: (ev) => tap(g.ids, ev) },
          groupLabel(v, g.clue, g.ids.length), chosen ? ` (${chosen} chosen)` : "");
        });
    };
    return h("div", {}, box, h("div", { class: "clues pick" }, draw()));
  }

  function clueButtons(h, v, ids, attrs, chosen) {
    const cats = v.state.catalogue.categories || {};
    const marked = chosen || picked;
    return h("div", { class: "clues" }, ids.map((id) => {
      const clue = (v.state.catalogue.clues || []).find((c) => c.id === id) || {};
      const colour = clue.shark ? "shark" : (cats[clue.category] || {}).colour || "";
      return h("button", Object.assign({ type: "button", "data-clue": id,
        class: `clue ${colour}${marked.has(id) ? " chosen" : ""}` }, attrs(id)), clueLabel(v, id));
    }));
  }

  // A fistful: each tap on a look adds one more of its copies; past the last, none.
  function addCopy(ctx, ids) {
    const next = ids.find((id) => !picked.has(id));
    if (next) picked.add(next); else ids.forEach((id) => picked.delete(id));
    ctx.rerender();
  }

  function toggler(ctx, id) {
    return () => { if (picked.has(id)) picked.delete(id); else picked.add(id); ctx.rerender(); };
  }

  function searchPanel(h, ctx, v, legal) {
    const s = v.state;
    const search = s.search;
    const parts = [];
    if (search && search.ended) {
      // What the search was is no longer to do: what it came to.
      const kept = search.kept.length;
      parts.push(h("p", { id: "search-over" }, h("strong", {}, `Area ${search.area}: `),
        `the search is over (${ENDED[search.ended] || search.ended}), `,
        kept ? `${plural(kept, "clue")} to the dossier` : "nothing for the dossier"));
      if (search.note) parts.push(h("p", { class: "pending" }, search.note));
    } else if (search) {
      parts.push(h("p", {}, h("strong", {}, `Area ${search.area}: `),
        search.method ? METHOD_TEXT[search.method] || search.method : "choose a space"));
      if (search.clues.length) {
        parts.push(h("p", {}, "On the mat: "), clueButtons(h, v, search.clues, () => ({ disabled: true })));
      }
      if (search.note) parts.push(h("p", { class: "pending" }, search.note));
      // What ends the search comes before the clue list, which can be long: in sight on
      // a tablet without scrolling the controls' box.
      const end = simpleButtons(h, ctx, legal, ["time_up", "stop"]);
      if (end) end.classList.add("search-end");
      parts.push(end);
      if (search.method === "fistful" && search.clock && legal.select) {
        parts.push(h("p", { class: "pending", id: "after-clapper" },
          "The clapper went while the fistful was sorted: tap only the clues picked before it, " +
          "then keep them. If none was picked in time, nothing is kept: the fistful goes back."));
        if (legal.end_turn) {
          parts.push(h("button", { type: "button", class: "big", id: "nothing-in-time",
            onclick: (ev) => ctx.act({ type: "end_turn" }, ev.currentTarget) }, "Nothing was picked in time"));
        }
      }
    }
    if (legal.draw) {
      parts.push(h("p", {}, "Tap the clue just drawn:"),
        cluePicker(h, ctx, v, legal.draw.choices.clue, (ids, ev) => ctx.act({ type: "draw", clue: ids[0] }, ev.currentTarget)));
    }
    if (legal.take) {
      parts.push(h("p", {}, "Tap the clue taken:"),
        cluePicker(h, ctx, v, legal.take.choices.clue, (ids, ev) => ctx.act({ type: "take", clue: ids[0] }, ev.currentTarget)));
    }
    for (const kind of ["fistful", "select"]) {
      if (!legal[kind]) continue;
      parts.push(h("p", {}, kind === "fistful" ? "Tap every clue in the fistful:" : "Tap the clues to keep:"),
        kind === "fistful"
          ? cluePicker(h, ctx, v, legal[kind].choices.clues, (ids) => addCopy(ctx, ids))
          : clueButtons(h, v, legal[kind].choices.clues, (id) => ({ onclick: toggler(ctx, id) })),
        h("button", { type: "button", class: "big primary", id: `${kind}-go`, onclick: () => {
          const clues = [...picked];
          picked = new Set();
          ctx.act({ type: kind, clues });
        } }, kind === "fistful" ? `Grab ${plural(picked.size, "clue")}` : `Keep ${plural(picked.size, "clue")}`));
    }
    return parts;
  }

  function dossierPanel(h, ctx, v, legal) {
    const s = v.state;
    const parts = [];
    if (legal.form) {
      const mine = s.dossiers[s.player] || Object.values(s.dossiers).find(() => true);
      const owner = Object.keys(s.dossiers).find((o) => o === s.player || o.split("+").includes(s.player));
      const clues = (s.dossiers[owner] || mine).clues;
      parts.push(h("p", {}, "Form evidence:"), h("div", { class: "row" },
        legal.form.choices.evidence.map((e) => h("button", { type: "button", class: "big",
          "data-evidence": e, onclick: () => ctx.act({ type: "form", evidence: e,
            clues: pickParts(s, e, clues) }) }, `${evidenceName(e)} (${plural(s.catalogue.evidence[e].points, "point")})`))));
    }
    if (legal.service) parts.push(servicePanel(h, ctx, v, legal.service.choices));
    // The search's own ending buttons are in the search panel, when there is a search.
    parts.push(simpleButtons(h, ctx, legal, ["skip_service", "end_turn",
      ...(s.search && !s.search.ended ? [] : ["time_up", "stop"]), "start_search"]));
    return parts;
  }

  // The actions without choices, each a button, in the order of ``kinds``.
  const SIMPLE = { skip_service: "Skip the service", end_turn: "End the turn", time_up: "Time is up",
    stop: "Stop searching", start_search: "Start the search (no timer)" };
  function simpleButtons(h, ctx, legal, kinds) {
    const buttons = kinds.filter((k) => legal[k]).map((k) => h("button", { type: "button",
      class: "big", id: `do-${k}`, onclick: () => ctx.act({ type: k }) }, SIMPLE[k]));
    return buttons.length ? h("div", { class: "row" }, buttons) : null;
  }

  // Paoletta takes one clue from another dossier; Babanipoulos takes one and gives two
  // of the spy's own. "take" lists only the clues of the dossier "from" names.
  function servicePanel(h, ctx, v, opt) {
    const s = v.state;
    const who = SERVICES[s.service] || { name: s.service, says: "" };
    if (!opt.from.includes(serviceFrom)) serviceFrom = opt.from[0];
    const takes = narrow(v, { type: "service", choices: opt }, { from: serviceFrom }).take;
    if (!takes.includes(serviceTake)) serviceTake = takes[0];
    const from = h("select", { id: "service-from", "aria-label": "from", onchange: (ev) => {
      serviceFrom = ev.currentTarget.value;
      ctx.rerender();
    } }, opt.from.map((f) => h("option", { value: f, selected: f === serviceFrom }, f)));
    const take = h("select", { id: "service-take", "aria-label": "take", onchange: (ev) => {
      serviceTake = ev.currentTarget.value;
    } }, takes.map((c) => h("option", { value: c, selected: c === serviceTake }, clueLabel(v, c))));
    let give = null;
    if (opt.give) {
      for (const c of [...giving]) if (!opt.give.includes(c)) giving.delete(c);
      give = clueButtons(h, v, opt.give, (id) => ({
        "aria-pressed": giving.has(id) ? "true" : "false",
        onclick: () => {
          if (giving.has(id)) giving.delete(id);
          else if (giving.size < 2) giving.add(id);
          ctx.rerender();
        } }), giving);
      give.id = "service-give";
    }
    return h("div", { class: "service" }, h("p", {}, h("strong", {}, `${who.name}'s service: `), who.says),
      h("div", { class: "trade" }, h("label", {}, "from ", from), h("label", {}, "take ", take)),
      give ? h("p", {}, `Give two of your clues (${giving.size} of 2 chosen):`) : null, give,
      h("button", { type: "button", class: "big primary", id: "service-go",
        disabled: !!opt.give && giving.size !== 2, onclick: (ev) => {
          const action = { type: "service", from: serviceFrom, take: serviceTake };
          if (opt.give) action.give = [...giving];
          ctx.act(action, ev.currentTarget);
        } }, "Use the service"));
  }

  // A service takes from the dossier "from" names: "take" offers only its clues (the
  // service panel and the generic form of every legal move).
  function narrow(v, option, picked) {
    if (option.type !== "service" || picked.from == null) return {};
    const theirs = new Set((v.state.dossiers[picked.from] || { clues: [] }).clues);
    return { take: option.choices.take.filter((c) => theirs.has(c)) };
  }

  // For each part of the evidence, the first clue of the dossier that completes it.
  function pickParts(s, evidence, clues) {
    const wanted = [...s.catalogue.evidence[evidence].parts];
    const out = [];
    for (const id of clues) {
      const clue = s.catalogue.clues.find((c) => c.id === id);
      if (clue && clue.evidence === evidence && wanted.includes(clue.part)) {
        wanted.splice(wanted.indexOf(clue.part), 1);
        out.push(id);
      }
    }
    return out;
  }

  // The final tally counted on the table: per dossier, the evidence tokens by their
  // printed value and colour, and the loose clues; the total shows as it is typed, and
  // the game ends only once the table confirms it.
  function tallyPanel(h, ctx, v) {
    const s = v.state;
    const cats = s.catalogue.categories || {};
    const byCat = {};
    for (const [eid, e] of Object.entries(s.catalogue.evidence)) {
      const cat = e.category || eid;
      (byCat[cat] = byCat[cat] || []).push(eid);
    }
    const points = (cat) => (cats[cat] && cats[cat].points) || s.catalogue.evidence[byCat[cat][0]].points;
    const order = Object.keys(byCat).sort((a, b) => points(b) - points(a));
    const sum = (fs) => [...fs.querySelectorAll("input[data-category]")].reduce(
      (n, i) => n + Math.max(0, Number(i.value) || 0) * points(i.dataset.category), 0) +
      Math.max(0, Number(fs.querySelector("input[data-clues]").value) || 0);
    const rows = window.TC.seated(v, Object.keys(s.dossiers)).map((owner) => {
      // What was typed stays when the page is drawn again: so does its total.
      const typed = document.querySelector(`fieldset.tally[data-owner="${CSS.escape(owner)}"]`);
      const total = h("strong", { class: "tally-total", "data-total": owner },
        plural(typed ? sum(typed) : 0, "point"));
      const fs = h("fieldset", { class: "tally", "data-owner": owner, oninput: (ev) => {
        ev.currentTarget.querySelector(".tally-total").textContent = plural(sum(ev.currentTarget), "point");
      } },
        h("legend", {}, owner.includes("+") ? `Team ${owner.split("+").join(" & ")}` : owner, " · ", total),
        h("div", { class: "row" }, order.map((cat) => h("label", { class: `token-count clue ${(cats[cat] || {}).colour || ""}` },
          h("span", { class: "token-value" }, points(cat)), ` ${(cats[cat] || {}).name || cat} tokens `,
          h("input", { type: "number", min: 0, value: 0, inputmode: "numeric", "data-category": cat, class: "count" })))),
        h("label", {}, "Loose clues (1 point each) ",
          h("input", { type: "number", min: 0, value: 0, inputmode: "numeric", "data-clues": owner, class: "count" })));
      return fs;
    });
    const go = h("button", { type: "button", class: "big primary", id: "tally-go", onclick: async (ev) => {
      const anchor = ev.currentTarget;
      const left = {};     // copies of each evidence still to hand out
      for (const [eid, e] of Object.entries(s.catalogue.evidence)) left[eid] = e.copies || 1;
      const dossiers = {};
      const said = [];
      for (const fs of document.querySelectorAll("fieldset.tally")) {
        const evidence = {};
        for (const input of fs.querySelectorAll("input[data-category]")) {
          let n = Math.max(0, Number(input.value) || 0);
          for (const eid of byCat[input.dataset.category]) {     // a token's value is its colour's
            const take = Math.min(n, left[eid]);
            if (take) { evidence[eid] = (evidence[eid] || 0) + take; left[eid] -= take; n -= take; }
          }
          if (n) { const eid = byCat[input.dataset.category][0]; evidence[eid] = (evidence[eid] || 0) + n; }
        }
        dossiers[fs.dataset.owner] = { evidence,
          clues: Math.max(0, Number(fs.querySelector("input[data-clues]").value) || 0) };
        said.push(`${fs.dataset.owner} ${plural(sum(fs), "point")}`);
      }
      if (!(await ctx.confirm(`End the game with this tally: ${said.join(", ")}?`))) return;
      ctx.act({ type: "tally", dossiers }, anchor);
    } }, "Enter the tally and end the game");
    return h("details", { class: "tally-box", open: s.phase === "tally" },
      h("summary", {}, "Final tally (counted on the table)"), rows, go);
  }

  function render(v, ctx, board, controls) {
    const { h } = ctx;
    const s = v.state;
    const legal = Object.fromEntries(v.legal.map((l) => [l.type, l]));
    if (!ctx.past() && !legal.fistful && !legal.select) picked = new Set();
    if (!ctx.past() && !legal.service) { giving = new Set(); serviceFrom = serviceTake = null; }
    const movable = new Set(legal.move ? legal.move.choices.space : []);
    const tokens = {};
    for (const p of window.TC.seated(v, Object.keys(s.positions))) if (s.positions[p]) (tokens[s.positions[p]] = tokens[s.positions[p]] || []).push(p);
    const spaces = h("div", { class: "spaces" }, s.board.spaces.map((sp) => h("button", {
      type: "button", class: `space${sp.dark ? " dark" : ""}${movable.has(sp.id) ? " target" : ""}`,
      "data-space": sp.id, disabled: !movable.has(sp.id),
      onclick: () => ctx.act({ type: "move", space: sp.id }),
    }, `${sp.id}`, h("span", { class: "tokens" }, (tokens[sp.id] || []).join(", ")))));
    // The countdown sits in the pinned status bar: in sight while clues are entered.
    const clock = h("section", { class: "clock", "aria-label": "the table's timer" },
      h("div", { class: "countdown-box" },
        h("p", { id: "countdown", class: "countdown", "aria-live": "off" }, "30.0"),
        h("p", { id: "timer-state", class: "muted" }, timerNote || "timer")),
      v.over ? null : h("div", { class: "row timer-buttons" },
        h("button", { type: "button", class: "primary", id: "timer-start", onclick: (ev) => timerButton(ctx, "start", ev) }, "START"),
        h("button", { type: "button", id: "timer-stop", onclick: (ev) => timerButton(ctx, "stop", ev) }, "STOP"),
        h("button", { type: "button", id: "timer-here", class: "here", hidden: here() !== false,
          onclick: (ev) => timerButton(ctx, "bind", ev) }, "Use the timer here")));
    window.TC.update(document.getElementById("clock-slot"), v.over ? null : clock);
    window.TC.update(board, h("p", {}, `Round ${s.round} of ${s.rounds} · ${PHASES[s.phase] || s.phase}`), spaces);
    showClock();

    const parts = [...searchPanel(h, ctx, v, legal), ...dossierPanel(h, ctx, v, legal)];
    // The dossiers, the pool and the final tally follow once the browser is idle.
    parts.push(ctx.soon("ds-dossiers", () => [h("h2", {}, "Dossiers"),
      window.TC.seated(v, Object.keys(s.dossiers)).map((owner) => {
        const d = s.dossiers[owner];
        return h("div", { class: "dossier" }, h("strong", {}, `${owner}: ${plural(d.points, "point")}`),
          h("div", {}, "Evidence: ", d.evidence.map(evidenceName).join(", ") || "none"),
          h("div", { class: "muted" }, `${plural(d.clue_count, "loose clue")}`, d.clues.length ? `: ${d.clues.map((c) => clueLabel(v, c)).join("; ")}`
            : d.clue_count ? " (counted at the table)" : ""));
      }),
      h("p", { class: "muted" }, `${plural(s.bag.length, "clue")} in the pool.`),
      legal.tally ? tallyPanel(h, ctx, v) : null]));
    window.TC.update(controls, parts);
  }

  async function first(ctx) {
    try { onTimer(await window.TC.api("GET", "/api/timer"), ctx); } catch (err) {
      timerNote = `${err.message} START and STOP below log the search directly.`;
      const el = document.getElementById("timer-state");
      if (el) el.textContent = timerNote;
    }
  }
  let started = false;
  window.GAMES.drshark = {
    render(v, ctx, board, controls) {
      render(v, ctx, board, controls);
      if (!started) { started = true; first(ctx); }
    },
    timer: onTimer,
    narrow,
    // The clue drawn or taken, in the form of every legal move: one choice per look, as
    // the picker shows them (a player cannot tell identical copies apart).
    offer(field, values, v) {
      if (field !== "clue" && field !== "take") return null;
      const byId = Object.fromEntries((v.state.catalogue.clues || []).map((c) => [c.id, c]));
      const looks = new Map();
      for (const id of values) {
        const key = byId[id] ? lookOf(byId[id]) : id;
        if (!looks.has(key)) looks.set(key, []);
        looks.get(key).push(id);
      }
      return [...looks.values()].map((ids) => [ids[0], byId[ids[0]]
        ? groupLabel(v, byId[ids[0]], ids.length) : ids[0]]);
    },
    // A choice of the form of every legal move: a clue by its look, the tally by points.
    label(field, value, v) {
      if (["clue", "clues", "take", "give"].includes(field)) return clueLabel(v, value);
      if (field === "evidence") return evidenceName(value);
      if (field === "dossiers") {
        return Object.entries(value).map(([owner, d]) => `${owner}: ${plural(
          Object.values(d.evidence || {}).reduce((n, k) => n + k, 0), "evidence token")}, ${plural(d.clues || 0, "loose clue")}`).join("; ");
      }
      return null;
    },
    picks: () => ({ picked: [...picked], filter, giving: [...giving], serviceFrom, serviceTake }),
  };
})();
