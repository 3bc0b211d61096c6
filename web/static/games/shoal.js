// Shoal: every player's layout drawn from the engine; choose a card and tap where it
// goes; score from the camera with the recognised layout beside the computed one, or
// count a shoal laid on the table alone as the camera sees it (a tally).
"use strict";
(function () {
  const kept = window.GamePage.ctx.kept();
  let card = kept.card || null;   // the card chosen to play (kept across a refresh)
  let reading = null;    // the last camera reading {player, result}
  let photo = null;      // the photo chosen (kept when the page is redrawn)
  let reader = null;     // whose shoal the camera looks at
  let fixes = {};        // unsure cell -> the value a player tapped ("" for no card)
  const KIND_COLOURS = ["#ffd166", "#ef476f", "#06d6a0", "#118ab2", "#f78c6b", "#9b5de5",
    "#83c5be", "#e9c46a"];

  // A section as one capital per fish ("angel+angel" -> "AA"); the legend says which.
  function short(section) {
    if (!section || section === "empty") return "";
    return section.split("+").map((k) => k[0].toUpperCase()).join("");
  }

  function colourOf(v, section) {
    if (!section || section === "empty") return "#f4f8fa";
    const kinds = v.state.kinds || [];
    const i = kinds.indexOf(section.split("+")[0]);
    return KIND_COLOURS[(i < 0 ? 0 : i) % KIND_COLOURS.length];
  }

  function sectionEl(h, v, section, attrs) {
    const el = h("button", Object.assign({ type: "button", class: "sh-sec", disabled: true,
      title: section || "" }, attrs || {}), short(section));
    el.style.background = colourOf(v, section);
    return el;
  }

  // A layout as a grid of sections, each put in its row and column by CSS (no filler
  // between them), so choosing a card only adds its spots (legal top-left corners, "+")
  // and marks the sections that are spots: every section keeps its element, even when
  // the spots widen the grid.
  function drawLayout(h, v, cells, spots, onSpot, compare) {
    // Row by row, left to right (the order a screen reader reads them in), whatever
    // order the view's keys came in.
    const keys = Object.keys(cells).map((k) => k.split(",").map(Number))
      .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    const all = keys.concat(spots.flatMap(([x, y]) => [[x, y], [x + 1, y + 1]]));
    if (!all.length) all.push([0, 0], [1, 1]);
    const xs = all.map((c) => c[0]);
    const ys = all.map((c) => c[1]);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const spotSet = new Set(spots.map(([x, y]) => `${x},${y}`));
    const placed = (el, x, y) => {
      el.style.gridArea = `${y - y0 + 1} / ${x - x0 + 1}`;
      return el;
    };
    const grid = h("div", { class: "sh-grid" });
    grid.style.gridTemplateColumns = `repeat(${x1 - x0 + 1}, 36px)`;
    grid.style.gridTemplateRows = `repeat(${y1 - y0 + 1}, 36px)`;
    for (const [x, y] of keys) {
      const key = `${x},${y}`;
      const section = cells[key];
      const spot = spotSet.has(key) && onSpot;
      const el = sectionEl(h, v, section, spot ? { disabled: false, "data-at": key,
        onclick: () => onSpot([x, y]) } : { "data-cell": key });
      if (compare && compare[key] !== undefined && compare[key] !== section) el.classList.add("preview");
      grid.append(placed(el, x, y));
    }
    for (const [x, y] of onSpot ? spots : []) {
      const key = `${x},${y}`;
      if (cells[key] !== undefined) continue;
      grid.append(placed(h("button", { type: "button", class: "sh-sec spot", "data-at": key,
        "aria-label": `play at ${key}`, onclick: () => onSpot([x, y]) }, "+"), x, y));
    }
    return h("div", { class: "sh-shoal" }, grid);
  }

  // A hand card is one button: its sections are plain spans (a button inside a button
  // swallows the tap in Chromium), so a tap anywhere on the card chooses it.
  function drawCard(h, v, id, attrs) {
    const rows = v.state.cards[id] || [];
    const sections = rows.flat().map((section) => {
      const el = h("span", { class: "sh-sec", title: section || "" }, short(section));
      el.style.background = colourOf(v, section);
      return el;
    });
    return h("button", Object.assign({ type: "button", class: `sh-card${card === id ? " chosen" : ""}`,
      "data-card": id, "aria-label": `card ${id}`, "aria-pressed": card === id ? "true" : "false" },
    attrs), sections);
  }

  function normalise(cells) {
    const keys = Object.keys(cells).map((k) => k.split(",").map(Number));
    if (!keys.length) return {};
    const x0 = Math.min(...keys.map((c) => c[0]));
    const y0 = Math.min(...keys.map((c) => c[1]));
    const out = {};
    for (const [x, y] of keys) out[`${x - x0},${y - y0}`] = cells[`${x},${y}`];
    return out;
  }

  function cameraPanel(h, ctx, v) {
    if (!v.players.includes(reader)) reader = v.players[0];
    const who = h("select", { id: "camera-player", "aria-label": "whose shoal",
      onchange: (ev) => { reader = ev.currentTarget.value; } },
    v.players.map((p) => h("option", { value: p, selected: p === reader }, p)));
    const file = h("input", { type: "file", accept: "image/*", capture: "environment",
      id: "camera-photo", "aria-label": "photo of the shoal",
      onchange: (ev) => { photo = ev.currentTarget.files[0] || null; } });
    const go = h("button", { type: "button", class: "big", id: "camera-read", onclick: async () => {
      if (!photo) { ctx.flash("Take or choose a photo first."); return; }
      const form = new FormData();
      form.append("game", "shoal");
      form.append("photo", photo);
      try {
        reading = { player: reader, result: await window.TC.api("POST", "/api/vision/read", form) };
        fixes = {};
        ctx.rerender();
      } catch (err) { ctx.flash(err.message); }
    } }, "Score from camera");
    const parts = [h("h2", {}, "Score from the camera"), h("div", { class: "trade" }, who, file,
      photo ? h("span", { class: "muted" }, photo.name) : null, go)];
    if (reading) {
      const cam = window.CAMERA;
      const unsure = cam.open(reading.result, fixes);
      // Glare over the mat beside the layout: a card there was not read.
      if (reading.result.retake) {
        parts.push(h("p", { class: "pending", id: "camera-retake", role: "alert" }, reading.result.retake));
      }
      parts.push(cam.panel(h, reading.result, fixes,
        (value) => (!value || value === "no-card" ? "no card" : value),
        (cell, value) => { fixes[cell] = value; ctx.rerender(); }));
      // Both pictures shifted so their smallest x and y are 0, as the camera reports.
      const layout = { cells: normalise(v.state.shoals[reading.player].cells) };
      const seen = normalise(cam.resolved(reading.result, fixes));
      const differ = Object.keys(seen).filter((k) => seen[k] !== layout.cells[k]).length +
        Object.keys(layout.cells).filter((k) => !(k in seen)).length;
      // No score from a reading with an unsure cell nobody has settled. A shoal laid on
      // the table alone (or laid differently) is counted as the camera sees it: a
      // tally, scored with every other shoal by the game's goal card.
      const tally = !v.over && Object.keys(seen).length
        ? h("button", { type: "button", class: "big primary", id: "camera-tally",
          onclick: async (ev) => {
            const anchor = ev.currentTarget;
            // cards laid here are set aside by a tally, and no card is laid after it
            const laying = v.state.played.length &&
              !v.players.some((p) => v.state.shoals[p].tallied);
            if (laying && !(await ctx.confirm(`Count ${reading.player}'s shoal as the camera ` +
              "sees it? No card is laid here after that (undo takes it back)."))) return;
            const after = await ctx.act({ type: "tally", player: reading.player, cells: seen }, anchor);
            // the next photo is of the next shoal to count
            if (after && after.current) { reader = after.current; ctx.rerender(); }
          } },
        `Count ${reading.player}'s shoal as the camera sees it`)
        : null;
      const verdict = unsure.length
        ? h("p", { class: "pending", id: "camera-verdict" },
          "Settle the unsure cells above: no score is taken until then.")
        : differ
          ? h("div", { id: "camera-verdict" }, h("p", { class: "pending" },
            `${differ} section(s) differ (outlined): check the table or the photo`,
            tally ? ", or count the shoal as it lies on the table." : "."), tally)
          : h("p", { class: "muted", id: "camera-verdict" },
            "The photo matches the layout: the score stands, ",
            h("strong", { id: "camera-score" }, `${reading.player} ${v.scores[reading.player]} points`), ".");
      parts.push(h("div", { class: "sh-players" },
        h("div", {}, h("strong", {}, "The camera sees"), drawLayout(h, v, seen, [], null, layout.cells)),
        h("div", {}, h("strong", {}, `${reading.player}'s shoal here`), drawLayout(h, v, layout.cells, [], null, seen))),
      verdict);
      if (reading.result.overlay) {
        parts.push(h("img", { src: reading.result.overlay, class: "overlay", id: "camera-overlay",
          alt: "the photo with every recognised section outlined" }));
      }
    }
    return parts;
  }

  // Each goal with what was counted for it and its points, and the total.
  const pts = (n) => `${n > 0 ? "+" : n < 0 ? "\u2212" : ""}${Math.abs(n)} point${Math.abs(n) === 1 ? "" : "s"}`;
  function breakdown(h, goals, total, cells) {
    // Every fish in view is worth 1 point (the rulebook), the goal card adds or takes.
    const fish = Object.values(cells).reduce((n, sec) => n + (sec && sec !== "empty" ? sec.split("+").length : 0), 0);
    return h("table", { class: "breakdown" },
      h("tr", { class: "fish" }, h("td", {}, `Fish in view: ${fish}, 1 point each`), h("td", { class: "pts" }, pts(fish))),
      goals.map((b) => {
      const what = b.what === "empty" ? "empty section" : b.what;
      const counted = b.count === undefined ? "" : `${b.count} ${what}${b.count === 1 || what.endsWith("fish") ? "" : "s"} counted`;
      return h("tr", {}, h("td", {}, typeof b.goal === "string" ? b.goal : JSON.stringify(b.goal),
        counted ? h("div", { class: "muted" }, counted) : null), h("td", { class: "pts" }, pts(b.points)));
    }), h("tr", { class: "total" }, h("td", {}, "Total"), h("td", { class: "pts" }, `${total} point${total === 1 ? "" : "s"}`)));
  }

  function render(v, ctx, board, controls, camera) {
    const { h } = ctx;
    const s = v.state;
    // legal() lists each playable card with the offsets where it fits.
    const plays = v.legal.filter((l) => l.type === "play");
    const spotsOf = {};
    for (const l of plays) for (const id of l.choices.card) spotsOf[id] = l.choices.at;
    const play = plays.length ? { player: plays[0].player, choices: { card: Object.keys(spotsOf) } } : null;
    if (!ctx.past() && (!play || !(card in spotsOf))) card = null;
    const players = v.players.map((p) => {
      const mine = play && play.player === p;
      const shoal = s.shoals[p];
      const spots = mine && card ? spotsOf[card] : [];
      const shown = board.querySelector(`section[data-player="${CSS.escape(p)}"]`);
      // A player's part is made again only when what it shows changed: a move changes
      // the mover's and the next player's, the others stay as they are.
      return window.TC.reuse(shown, JSON.stringify([v.scores[p], mine, s.breakdown[p],
        shoal.cells, shoal.cards, shoal.tallied, spots]), () => h("section", { class: "card", "data-player": p },
        h("h2", {}, `${p}: ${v.scores[p]} point${v.scores[p] === 1 ? "" : "s"}`, mine ? " (to play)" : ""),
        // A shoal is drawn again only when it or its spots changed (one player's a turn).
        window.TC.reuse(shown && shown.querySelector(":scope > .sh-shoal"),
          JSON.stringify([shoal.cells, spots]),
          () => drawLayout(h, v, shoal.cells, spots,
            mine && card ? (at) => { const c = card; card = null; ctx.act({ type: "play", card: c, at }); } : null)),
        breakdown(h, s.breakdown[p] || [], v.scores[p], shoal.cells),
        h("p", { class: "muted" }, shoal.tallied ? "counted as it lies on the table"
          : `${shoal.cards} of ${s.cards_per_player} cards`)));
    });
    const legend = h("p", { class: "legend" }, (s.kinds || []).map((k) => {
      const key = h("span", { class: "key sh-key" }, short(k), ` ${k}`);
      key.style.background = colourOf(v, k);
      return key;
    }));
    window.TC.update(board, h("p", {}, "Goal card ", h("strong", {}, s.goal.id), ": ",
      (s.goal.text || []).join(" · ")), legend, h("div", { class: "sh-players" }, players));
    const parts = [];
    if (play) {
      parts.push(h("p", { class: "pending" }, card
        ? `${play.player}: tap a + (or a section) where card ${card}'s top-left goes`
        : `${play.player}: choose the card to play`));
      // A hand card is made again only when it is chosen or put back: a move takes the
      // card played away and keeps the others.
      const hand = controls.querySelector(".sh-hand");
      parts.push(h("div", { class: "sh-hand" }, play.choices.card.map((id) => window.TC.reuse(
        hand && hand.querySelector(`.sh-card[data-card="${CSS.escape(id)}"]`), `${id} ${card === id}`,
        () => drawCard(h, v, id, { onclick: () => { card = card === id ? null : id; ctx.rerender(); } })))));
    }
    window.TC.update(controls, parts);
    window.TC.update(camera, cameraPanel(h, ctx, v));
  }

  // A choice of the form of every legal move: where a card goes as its cell's numbers.
  const label = (field, value) => (field === "at" ? value.join(", ") : null);

  window.GAMES.shoal = { render, label, picks: () => ({ card }) };
})();
