// Tokyo Poo Divers: the grid of cards; tap a card to flip it and say its face, follow
// the diver, bank the turn's points; supply and holdings.
"use strict";
(function () {
  const ARROWS = { N: "↑", NE: "↗", E: "→", SE: "↘", S: "↓", SW: "↙", W: "←", NW: "↖" };
  const FACE_TEXT = { closed: "", blank: "blank", sleeper: "zzz", object: "poo" };
  let picking = window.GamePage.ctx.kept().picking || null;   // the cell being told
  let peeking = false;
  let photo = null;     // a photo of the table to check the grid against
  let seen = null;      // what the camera read: {cells, unsure, overlay}
  let fixes = {};       // unsure cell -> the face a player tapped
  let checking = false; // the camera check opened by hand (stays open through redraws)
  let peeked = null;    // {cell, face}: a digital peek, shown on this phone for a while
  const PEEK_MS = 6000;
  const FACE_WORDS = { blank: "a blank", sleeper: "a sleeper", object: "an object (poo)" };

  function cellName(col, row) {
    return String.fromCharCode(65 + col) + (row + 1);
  }

  function legalOf(v, type) {
    return v.legal.find((l) => l.type === type);
  }

  function render(v, ctx, board, controls, camera) {
    const { h } = ctx;
    const s = v.state;
    const flip = legalOf(v, "flip");
    const peek = legalOf(v, "peek");
    const bank = legalOf(v, "bank");
    const flippable = new Set(flip ? flip.choices.cell : []);
    if (!ctx.past()) {
      if (!peek) peeking = false;
      if (picking && !flippable.has(picking)) picking = null;
    }

    // The grid is drawn again only when a card, the diver or what may be tapped changed.
    const key = JSON.stringify([s.cells, s.diver, [...flippable], peeking, picking, peeked]);
    window.TC.update(board, window.TC.reuse(board.firstElementChild, key,
      () => drawGrid(h, v, ctx, flippable, board.firstElementChild)));
    drawControls(h, v, ctx, controls, flip, peek, bank);
    window.TC.update(camera, cameraCheck(v, ctx));
  }

  // Each card is made again only when what it shows changed (shown: the grid on the
  // page): a flip makes one or two cards, not the grid's 64.
  function drawGrid(h, v, ctx, flippable, shown) {
    const s = v.state;
    let i = 0;
    const width = Math.max(...s.layout.map((r) => r.length));
    const cells = [];
    s.layout.forEach((row, r) => {
      [...row].forEach((mark, c) => {
        const was = shown && shown.children[i++];
        if (mark !== "#") { cells.push(window.TC.reuse(was, "gap", () => h("div", { class: "pd-gap" }))); return; }
        const name = cellName(c, r);
        const face_ = s.cells[name];
        const secret = peeked && peeked.cell === name && face_ === "closed";
        const face = secret ? peeked.face : s.cells[name];
        const isDiver = s.diver && s.diver.cell === name;
        const target = peeking ? face === "closed" : flippable.has(name);
        const key = `${name} ${face} ${secret} ${target} ${isDiver && (s.diver.direction || "")} ${picking === name}`;
        cells.push(window.TC.reuse(was, key, () => h("button", {
          type: "button", class: `pd-cell ${face}${secret ? " peeked" : ""}${target ? " target" : ""}` +
            `${isDiver ? " diver" : ""}${picking === name ? " picking" : ""}`,
          "data-cell": name, "aria-label": `${name} ${face}`, disabled: !target,
          onclick: () => tap(name, v, ctx),
        }, h("span", { class: "pd-name" }, name),
        h("span", { class: "pd-face" }, isDiver
          ? `◉${s.diver.direction ? ARROWS[s.diver.direction] : ""}` : FACE_TEXT[face]))));
      });
    });
    const grid = h("div", { class: "pd-grid fit", role: "grid", "aria-label": "the cards" }, cells);
    grid.style.gridTemplateColumns = `repeat(${width}, minmax(0, 1fr))`;
    grid.style.setProperty("--cols", width);
    grid.style.setProperty("--rows", s.layout.length);
    return grid;
  }

  function drawControls(h, v, ctx, controls, flip, peek, bank) {
    const s = v.state;

    const parts = [];
    if (peeked) {
      parts.push(h("p", { class: "pending", id: "peeked", role: "status" },
        `${peeked.cell} is ${FACE_WORDS[peeked.face] || peeked.face}. Only this phone shows it; it closes again in a moment.`));
    }
    if (picking) {
      parts.push(h("div", { class: "pd-pick", role: "group", "aria-label": "face" },
        h("strong", {}, `${picking}: what does it show?`),
        h("div", { class: "row" }, flip.choices.face.map((f) => h("button", {
          type: "button", class: `big face-${f}`, "data-face": f,
          onclick: () => { const cell = picking; picking = null; ctx.act({ type: "flip", cell, face: f }); },
        }, f)), h("button", { type: "button", class: "big", onclick: () => { picking = null; ctx.rerender(); } }, "Cancel"))));
    }
    const phase = { flip: "Flip any closed card", dive: "Dive on, or bank", over: "Game over" }[s.phase];
    parts.push(h("div", { class: "pd-turn" },
      h("div", { class: "stat" }, h("span", {}, "Turn points"), h("strong", { id: "turn-points" }, s.turn_points)),
      h("div", { class: "stat" }, h("span", {}, "Objects this turn"), h("strong", {}, s.found)),
      h("div", { class: "stat" }, h("span", {}, "Cards closed"), h("strong", {}, s.closed)),
      h("p", { class: "phase" }, v.over ? "" : `${v.current}: ${phase}` +
        (s.diver && s.diver.direction ? ` (diving ${s.diver.direction})` : ""))));
    const buttons = [];
    if (bank) {
      buttons.push(h("button", { type: "button", class: "big primary", id: "bank",
        onclick: () => ctx.act({ type: "bank" }) }, `Bank ${s.turn_points} point${s.turn_points === 1 ? "" : "s"}`));
    }
    if (peek) {
      buttons.push(h("button", { type: "button", class: `big${peeking ? " primary" : ""}`, id: "peek",
        onclick: () => { peeking = !peeking; picking = null; ctx.rerender(); } },
      peeking ? "Tap the card to peek at" : `${peek.player} may peek`));
    }
    if (buttons.length) parts.push(h("div", { class: "row" }, buttons));
    // The supply and the holdings follow once the browser is idle (ctx.soon).
    parts.push(ctx.soon("pd-tokens", () => [h("div", { class: "pd-supply" },
      h("span", { class: "token brown" }, `Supply: ${s.supply.brown} brown`),
      h("span", { class: "token golden" }, `${s.supply.golden} golden`)),
    h("table", { class: "holdings" },
      h("tr", {}, h("th", {}, "Player"), h("th", {}, "Brown"), h("th", {}, "Golden")),
      window.TC.seated(v, Object.keys(s.holdings)).map((p) => [p, s.holdings[p]]).map(([p, got]) => h("tr", { class: p === v.current ? "current" : "" },
        h("th", { scope: "row" }, p), h("td", {}, got.brown), h("td", {}, got.golden))))]));
    window.TC.update(controls, parts);
  }

  // The grid as the camera sees it, against the game's: every card that differs.
  function cameraCheck(v, ctx) {
    const { h } = ctx;
    const file = h("input", { type: "file", accept: "image/*", capture: "environment",
      id: "pd-photo", "aria-label": "photo of the grid",
      onchange: (ev) => { photo = ev.currentTarget.files[0] || null; } });
    const go = h("button", { type: "button", id: "pd-read", onclick: async () => {
      if (!photo) { ctx.flash("Take or choose a photo first."); return; }
      const form = new FormData();
      form.append("game", "poodivers");
      form.append("layout", JSON.stringify(v.state.layout));
      form.append("photo", photo);
      try {
        seen = await window.TC.api("POST", "/api/vision/read", form);
        fixes = {};
        ctx.rerender();
      } catch (err) { ctx.flash(err.message); }
    } }, "Check the grid");
    const out = [h("summary", {}, "Check the grid with the camera"),
      h("div", { class: "trade" }, file, photo ? h("span", { class: "muted" }, photo.name) : null, go)];
    if (seen) {
      const cam = window.CAMERA;
      out.push(cam.panel(h, seen, fixes, (face) => face,
        (cell, face) => { fixes[cell] = face; ctx.rerender(); }));
      const cells = cam.resolved(seen, fixes);
      const differ = Object.entries(v.state.cells).filter(([c, face]) => cells[c] !== face);
      // No verdict from a reading with an unsure cell nobody has settled.
      out.push(cam.open(seen, fixes).length
        ? h("p", { id: "pd-verdict", class: "pending" },
          "Settle the unsure cards above: the grid is checked once every card is known.")
        : h("p", { id: "pd-verdict", class: differ.length ? "pending" : "muted" }, differ.length
          ? `${differ.length} card(s) differ: ` + differ.slice(0, 12).map(([c, face]) =>
            `${c} is ${cells[c] || "not seen"} on the table, ${face} here`).join("; ")
          : "The table matches the game."));
      if (seen.overlay) out.push(h("img", { src: seen.overlay, class: "overlay", alt: "the photo, read" }));
    }
    return h("details", { class: "camera", open: !!seen || checking,
      ontoggle: (ev) => { checking = ev.currentTarget.open; } }, out);
  }

  function tap(cell, v, ctx) {
    if (peeking) {
      peeking = false;
      ctx.act({ type: "peek", cell }).then((answer) => {
        if (!answer || !answer.peeked) return;
        peeked = answer.peeked;
        ctx.rerender();
        if (navigator.vibrate) navigator.vibrate(60);
        setTimeout(() => { peeked = null; ctx.rerender(); }, PEEK_MS);
      });
      return;
    }
    if (v.state.digital) { ctx.act({ type: "flip", cell }); return; }
    picking = cell;
    ctx.rerender();
  }

  window.GAMES.poodivers = { render, picks: () => ({ picking }) };
})();
