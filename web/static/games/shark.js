// Shark: the board coloured by company, the dice, the stock index, cash and shares, the
// trading panel (limits from the engine's legal moves), forced sales, the price chart.
"use strict";
(function () {
  const COMPANIES = ["red", "blue", "green", "yellow"];
  const DIE = [...COMPANIES, "black", "grey"];
  const BUILDINGS = DIE;  // a building of each company die face, in the rulebook's order
  const COLOURS = { red: "#d7263d", blue: "#1b6ec2", green: "#2f9e44", yellow: "#f2c200",
    black: "#222", grey: "#8a8f93" };
  const kept = window.GamePage.ctx.kept();
  let building = kept.building || null;   // the building chosen to place
  let removing = !!kept.removing;         // tapping a grey building removes it
  const dice = Object.assign({ company: null, area: null }, kept.dice);
  // The company and count chosen in each trading panel ("buy", "sell", "forced_sell").
  const trading = {};
  const money = (n) => `$${window.TC.number(n)}`;

  function cellName(col, row) { return String.fromCharCode(65 + col) + (row + 1); }

  function chip(h, name, attrs, label) {
    return h("button", Object.assign({ type: "button", class: `chip ${name}`,
      "data-company": name }, attrs), label || name);
  }

  // Each cell is made again only when what it shows changed (shown: the board on the
  // page): a placement makes one cell, a roll the cells it makes targets.
  function drawBoard(v, ctx, targets, shown) {
    const { h } = ctx;
    const s = v.state;
    const was = shown ? shown.children : [];
    let i = 0;
    const kept = (key, make) => window.TC.reuse(was[i++], key, make);
    const width = Math.max(...s.layout.map((r) => r.length));
    // Columns lettered and rows numbered at the edges, as the log names cells ("C4").
    const cells = [kept("corner", () => h("span", { class: "sk-label" })),
      ...Array.from({ length: width }, (_, c) => kept(`col ${c}`,
        () => h("span", { class: "sk-label col" }, String.fromCharCode(65 + c))))];
    s.layout.forEach((row, r) => {
      cells.push(kept(`row ${r}`, () => h("span", { class: "sk-label row" }, r + 1)));
      [...row].forEach((area, c) => {
        if (area === ".") { cells.push(kept("none", () => h("div", { class: "sk-cell none" }))); return; }
        const name = cellName(c, r);
        const built = s.board[name];
        const target = targets.has(name);
        cells.push(kept(`${name} ${area} ${built} ${target}`, () => h("button", {
          type: "button", disabled: !target, "data-cell": name,
          class: `sk-cell area-${area} ${built || ""}${target ? " target" : ""}`,
          "aria-label": `${name} area ${area}${built ? ` ${built} building` : ""}`,
          title: `${name} (area ${area})`,
          onclick: () => {
            if (removing) { removing = false; ctx.act({ type: "remove_neutral", cell: name }); }
            else ctx.act({ type: "place", cell: name, company: building });
          },
        }, built ? "" : area)));
      });
    });
    const grid = h("div", { class: "sk-board fit", role: "grid", "aria-label": "the board" }, cells);
    grid.style.gridTemplateColumns = `1.4em repeat(${width}, minmax(0, 1fr))`;
    grid.style.setProperty("--cols", width + 0.5);
    grid.style.setProperty("--rows", s.layout.length + 0.5);
    return grid;
  }

  // The engine lists a trade once per company, with the counts that company allows
  // (what the cash, the turn's 5 and the bank's supply allow), and a placement once per
  // building: one option per type here, its companies together and their counts kept.
  function byType(legal) {
    const out = {};
    for (const l of legal) {
      const o = out[l.type] || (out[l.type] = { type: l.type, player: l.player, choices: {}, counts: {} });
      for (const [field, values] of Object.entries(l.choices || {})) {
        o.choices[field] = [...new Set([...(o.choices[field] || []), ...values])];
      }
      const c = l.choices || {};
      if (c.company && c.count) c.company.forEach((name) => { o.counts[name] = c.count; });
    }
    return out;
  }

  // The company and the count a panel shows: the ones chosen, while still allowed.
  function choice(kind, option) {
    const was = trading[kind] || {};
    const company = option.choices.company.includes(was.company) ? was.company : option.choices.company[0];
    const counts = option.counts[company] || [];
    const count = counts.includes(was.count) ? was.count : counts[0];
    return { company, count, counts };
  }
  function choose(ctx, kind, field) {
    return (ev) => {
      const value = ev.currentTarget.value;
      trading[kind] = Object.assign({}, trading[kind], { [field]: field === "count" ? Number(value) : value });
      ctx.rerender();
    };
  }
  const shares = (n) => `${n} share${n === 1 ? "" : "s"}`;

  function tradePanel(h, ctx, v, option, kind) {
    if (ctx.past() || !option) return null;
    const s = v.state;
    const cash = s.cash[option.player] || 0;
    const { company, count, counts } = choice(kind, option);
    return h("div", { class: "trade", id: `${kind}-panel` }, h("strong", {}, kind === "buy" ? "Buy" : "Sell"),
      h("select", { "aria-label": `${kind} count`, id: `${kind}-count`, onchange: choose(ctx, kind, "count") },
        counts.map((n) => h("option", { value: n, selected: n === count }, shares(n)))),
      h("select", { "aria-label": `${kind} company`, id: `${kind}-company`, onchange: choose(ctx, kind, "company") },
        option.choices.company.map((c) => h("option", { value: c, selected: c === company },
          `${c} at ${money(s.prices[c])}`))),
      h("span", { class: "muted" }, count !== undefined ? ` = ${money(s.prices[company] * count)}`
        : ` ${option.player} has ${money(cash)}: not enough for one`),
      h("button", { type: "button", class: "primary", id: `${kind}-go`, disabled: count === undefined,
        onclick: (ev) => ctx.act({ type: kind, company, count }, ev.currentTarget) },
      kind === "buy" ? "Buy" : "Sell"));
  }

  function dicePanel(h, ctx, v) {
    const areas = [...new Set(v.state.area_die)];
    const pick = (field, value) => { dice[field] = value; ctx.rerender(); };
    return h("div", { class: "dice" },
      h("div", { class: "row" },
        h("button", { type: "button", class: "big primary", id: "roll-for-me",
          onclick: () => ctx.act({ type: "roll" }) }, "Roll the dice for me")),
      h("p", {}, "…or enter the dice rolled at the table:"),
      h("div", { class: "row" }, DIE.map((c) => chip(h, c, {
        class: `chip ${c}${dice.company === c ? " chosen" : ""}`, "data-die": c,
        onclick: () => pick("company", c) }))),
      h("div", { class: "row" }, areas.map((a) => h("button", { type: "button",
        class: `chip${dice.area === a ? " chosen" : ""}`, "data-area": a,
        onclick: () => pick("area", a) }, a === "S" ? "Shark" : `Area ${a}`))),
      h("button", { type: "button", class: "big", id: "enter-roll",
        disabled: !(dice.company && dice.area), onclick: () => {
          const action = { type: "roll", company: dice.company, area: dice.area };
          dice.company = dice.area = null;
          ctx.act(action);
        } }, "Enter the roll"));
  }

  // Why the player must sell, in the game's words: the loss, the cash there is, what
  // the loss is for (the banker's words, pending.for) and the rulebook's forced price.
  function forcedPanel(h, ctx, v, option) {
    const p = v.state.pending;
    const cash = v.state.cash[option.player] || 0;
    const { company, count, counts } = choice("forced_sell", option);
    return h("div", { class: "pending forced", id: "forced" },
      h("p", { id: "forced-why" }, h("strong", {},
        `${option.player} must sell to cover a ${money(p.owed)} loss: ${money(cash)} in cash`),
      "."),
      p.for ? h("p", {}, `The loss: ${p.for}.`) : null,
      h("p", { class: "muted" }, `${money(p.short)} to raise. A forced sale pays half the `,
        "price of each share, rounded down to a whole $1,000."),
      h("div", { class: "trade" },
        h("select", { id: "forced-count", "aria-label": "shares to sell", onchange: choose(ctx, "forced_sell", "count") },
          counts.map((n) => h("option", { value: n, selected: n === count }, shares(n)))),
        h("select", { id: "forced-company", "aria-label": "company to sell", onchange: choose(ctx, "forced_sell", "company") },
          option.choices.company.map((c) => h("option", { value: c, selected: c === company },
            `${c} at ${money(p.forced_prices[c])}`))),
        h("button", { type: "button", class: "primary", id: "forced-go", onclick: () =>
          ctx.act({ type: "forced_sell", player: option.player, company, count }) }, "Sell at the forced price")));
  }

  function market(h, v) {
    const s = v.state;
    return h("table", { class: "market" },
      h("tr", {}, h("th", {}, "Company"), h("th", {}, "Price"), h("th", {}, "Shares left"),
        h("th", {}, "Buildings left")),
      COMPANIES.map((c) => h("tr", {}, h("td", {}, h("span", { class: `chip ${c}` }, c)),
        h("td", { "data-price": c }, money(s.prices[c])), h("td", {}, s.supply.shares[c]),
        h("td", {}, s.supply.buildings[c]))));
  }

  function holdings(h, v) {
    const s = v.state;
    return h("table", { class: "market" },
      h("tr", {}, h("th", {}, "Player"), h("th", {}, "Cash"),
        COMPANIES.map((c) => h("th", {}, h("span", { class: `chip ${c}` }, c[0].toUpperCase())))),
      v.players.map((p) => h("tr", { class: p === v.current ? "current" : "" },
        h("td", {}, p, s.bankrupt.includes(p) ? " (bankrupt)" : ""),
        h("td", { "data-cash": p }, money(s.cash[p])),
        COMPANIES.map((c) => h("td", {}, s.shares[p][c])))));
  }

  function render(v, ctx, board, controls) {
    const { h } = ctx;
    const s = v.state;
    const legal = byType(v.legal);
    const options = (s.pending && s.pending.choices) || {};
    // In the rulebook's order (the companies, then black, grey), not the keys' order:
    // a live patch keeps a key's place where a whole view would put it elsewhere.
    const buildings = BUILDINGS.filter((b) => b in options);
    if (!ctx.past()) {   // looking back keeps what was chosen for now
      if (!legal.place) building = null;
      if (!legal.remove_neutral) removing = false;
      if (building && !buildings.includes(building)) building = null;
    }
    if (!building && buildings.length === 1) building = buildings[0];
    const targets = new Set(removing ? options.remove_neutral || []
      : building ? options[building] || [] : []);
    // A forced sale comes first, above the board, where the debtor sees it at once.
    window.TC.update(board, legal.forced_sell ? forcedPanel(h, ctx, v, legal.forced_sell) : null,
      window.TC.reuse(board.querySelector(".sk-board"), JSON.stringify([s.board, [...targets]]),
        () => drawBoard(v, ctx, targets, board.querySelector(".sk-board"))));

    const parts = [];
    if (s.pending && !legal.forced_sell) {
      parts.push(h("p", { class: "pending", id: "pending" }, s.pending.says));
    }
    if (legal.choose_stock) {
      parts.push(h("div", { class: "row" }, legal.choose_stock.choices.company.map((c) =>
        chip(h, c, { onclick: () => ctx.act({ type: "choose_stock", company: c }) },
          `Take a ${c} share`))));
    }
    if (legal.place || legal.remove_neutral) {
      const roll = s.pending.roll;
      parts.push(h("p", {}, `Rolled ${roll.company}, area ${roll.area}: `,
        building ? `tap a highlighted cell for ${building}` : "choose the building"));
      parts.push(h("div", { class: "row" },
        buildings.map((b) => chip(h, b, { class: `chip ${b}${b === building ? " chosen" : ""}`,
          onclick: () => { building = b; removing = false; ctx.rerender(); } })),
        legal.remove_neutral ? h("button", { type: "button", class: `chip grey${removing ? " chosen" : ""}`,
          id: "remove-grey", onclick: () => { removing = true; building = null; ctx.rerender(); } },
        "Remove a grey building") : null));
    }
    if (legal.roll) parts.push(dicePanel(h, ctx, v));
    parts.push(tradePanel(h, ctx, v, legal.buy, "buy"), tradePanel(h, ctx, v, legal.sell, "sell"));
    if (legal.end_turn) {
      parts.push(h("button", { type: "button", class: "big primary", id: "end-turn",
        onclick: () => ctx.act({ type: "end_turn" }) }, "End the turn"));
    }
    // What the bank paid and was paid for the last move, with the banker's reasons.
    const last = v.log && v.log.length ? v.log[v.log.length - 1] : null;
    const paid = ((last && last.paid) || []).map((p) => h("li", {},
      h("strong", {}, `${p.player} ${p.amount < 0 ? "pays" : "gets"} ${money(Math.abs(p.amount))}`),
      `: ${p.why}`));
    if (paid.length) parts.push(h("ul", { class: "payments" }, paid));
    // The tables no turn acts on follow once the browser is idle (ctx.soon).
    parts.push(ctx.soon("sk-tables", () => [h("h2", {}, "Stock index"), market(h, v),
      h("h2", {}, "Cash and shares"), holdings(h, v),
      h("h2", {}, "Stock prices over time"), priceChart(h, v), ledgerBox(h, ctx, v)]));
    window.TC.update(controls, parts);
  }

  // The price chart, drawn again only when a price line changed (at its end: a move adds
  // a point, an undo takes the last away).
  let drawnFor = "";
  function priceChart(h, v) {
    const series = v.series || [];
    const key = JSON.stringify([series.length, series.length && series[series.length - 1].prices]);
    const shown = document.getElementById("price-chart");
    if (shown && key === drawnFor) return shown;
    const chart = h("div", { class: "chart", id: "price-chart" });
    if (v.series) window.Chart.draw(chart, COMPANIES, series.map((x) => x.prices), COLOURS, money);
    drawnFor = key;
    return chart;
  }

  // The money, player by player (as 18xx tables keep it): every payment with its reason
  // and the cash after it. Fetched only while the section is open.
  let ledgerOpen = false;
  let ledger = null;     // {seq, rows}
  function ledgerBox(h, ctx, v) {
    // A box drawn open fires "toggle" too: only a change of the player's choice redraws.
    const box = h("details", { class: "ledger", id: "ledger", open: ledgerOpen, ontoggle: (ev) => {
      if (ev.currentTarget.open === ledgerOpen) return;
      ledgerOpen = ev.currentTarget.open;
      if (ledgerOpen) ctx.rerender();
    } }, h("summary", {}, "Money, player by player"));
    if (!ledgerOpen) return box;
    if (!ledger || ledger.seq !== v.seq) {
      const seq = v.seq;
      window.TC.api("GET", `${ctx.base}/ledger`).then((rows) => {
        ledger = { seq, rows };
        ctx.rerender();
      }).catch((err) => ctx.flash(err.message));
      if (!ledger) return box;
    }
    const start = (v.options && v.options.starting_cash) || 0;
    for (const p of v.players) {
      let cash = start;
      const rows = ledger.rows.filter((r) => r.player === p).map((r) => {
        cash += r.amount;
        return h("tr", {}, h("td", {}, `#${r.seq}`), h("td", {}, r.why),
          h("td", { class: r.amount < 0 ? "out" : "in" }, `${r.amount < 0 ? "−" : "+"}${money(Math.abs(r.amount))}`),
          h("td", {}, money(cash)));
      });
      box.append(h("h3", {}, `${p}: ${money(v.state.cash[p])}`), rows.length
        ? h("table", { class: "market ledger-table", "data-ledger": p },
          h("tr", {}, h("th", {}, "Move"), h("th", {}, "Why"), h("th", {}, "Amount"), h("th", {}, "Cash")), rows)
        : h("p", { class: "muted" }, `No money moved yet (${money(start)} to start).`));
    }
    return box;
  }

  // The end: each player's net worth, cash plus every share at its final price.
  function summary(v, ctx) {
    const { h } = ctx;
    const s = v.state;
    return h("table", { class: "market networth", id: "net-worth" },
      h("tr", {}, h("th", {}, "Player"), h("th", {}, "Cash"), h("th", {}, "Shares at price"),
        h("th", {}, "Net worth")),
      window.TC.seated(v, Object.keys(v.scores)).map((p) => h("tr", { "data-worth": p }, h("td", {}, p), h("td", {}, money(s.cash[p])),
        h("td", { class: "held" }, COMPANIES.filter((c) => (s.shares[p] || {})[c]).map((c) =>
          h("div", { "data-held": c }, h("span", { class: `chip ${c}` }, c),
            ` ${s.shares[p][c]} × ${money(s.prices[c])} = ${money(s.shares[p][c] * s.prices[c])}`)),
        COMPANIES.some((c) => (s.shares[p] || {})[c]) ? null : "none"),
        h("td", {}, h("strong", {}, money(v.scores[p]))))));
  }

  window.GAMES.shark = { format: money, summary, render, picks: () => ({ building, removing, dice }) };
})();
