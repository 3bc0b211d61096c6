// The hub's pages: every table (or one, data-follow) drawn from /api/tables and kept
// live by /api/events; the league from /api/league. Names are set as text, never HTML.
"use strict";
(function () {
  const root = document.getElementById("tables");
  const follow = root.dataset.follow;
  const league = document.getElementById("league-body");
  const live = document.getElementById("live");

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function gameBox(table, g) {
    const box = el("div", "game" + (g.over ? " over" : ""));
    box.dataset.game = table + "/" + g.id;
    box.dataset.seq = g.seq;
    const turn = g.over
      ? (g.winners.length ? g.winners.join(" and ") + (g.winners.length > 1 ? " tie" : " wins") : "Game over")
      : (g.current ? g.current + " to play" : "Waiting");
    box.append(el("div", "turn" + (g.over ? " over" : ""), turn));
    box.append(el("p", "muted", g.title + " #" + g.id + " · " + g.players.join(", ") +
      " · " + g.seq + (g.seq === 1 ? " action" : " actions")));
    const scores = el("table", "scores");
    for (const [who, score] of Object.entries(g.scores)) {
      const row = el("tr", who === g.current ? "current" : (g.winners.includes(who) ? "winner" : ""));
      row.append(el("th", "", who), el("td", "", String(score)));
      scores.append(row);
    }
    box.append(scores);
    if (g.replaying) {
      box.append(el("p", "muted replaying", "As the table last showed it: the hub is " +
        "fetching the game's log from the table."));
    } else if (follow) {
      box.append(logOf(table, g));
    }
    return box;
  }

  // The table page's logs, in the games' own words: fetched when a game's changes
  // (n) move on, kept between redraws; a finished game's log is folded away.
  const logs = new Map();
  const asked = new Map();
  const opened = new Set();

  function fillLog(list, lines) {
    list.replaceChildren(...lines.slice(-150).reverse().map(e => {
      const li = el("li", "", e.text);
      li.value = e.seq;
      return li;
    }));
  }

  function logOf(table, g) {
    const key = table + "/" + g.id;
    const list = el("ol", "log");
    list.reversed = true;
    const have = logs.get(key);
    if (have) fillLog(list, have.log);
    list.dataset.n = have ? have.n : 0;
    if (!have || have.n < g.n) fetchLog(table, g.id, g.n, key);
    if (!g.over) return list;
    const box = el("details", "log-box");
    box.open = opened.has(key);
    box.addEventListener("toggle", () => box.open ? opened.add(key) : opened.delete(key));
    box.append(el("summary", "", "Log"), list);
    return box;
  }

  async function fetchLog(table, id, n, key) {
    if ((asked.get(key) || 0) >= n) return;
    asked.set(key, n);
    try {
      const res = await fetch("/api/tables/" + encodeURIComponent(table) + "/games/" + id);
      if (!res.ok) throw new Error(res.status);
      const data = await res.json();
      if ((logs.get(key)?.n || 0) >= data.n || data.replaying) return;
      logs.set(key, data);
      const list = root.querySelector('[data-game="' + CSS.escape(key) + '"] ol.log');
      if (list) { fillLog(list, data.log); list.dataset.n = data.n; }
    } catch (err) {
      asked.delete(key);  // asked again at the next change
    }
  }

  function tableCard(t) {
    const card = el("article", "card table" + (t.online ? "" : " offline"));
    card.dataset.table = t.table;
    const head = el("h2");
    const link = el("a", "", t.table);
    link.href = "/tables/" + encodeURIComponent(t.table);
    head.append(link, " ", el("span", "state " + (t.online ? "on" : "off"), t.online ? "online" : "offline"));
    card.append(head);
    const games = t.games.slice().reverse();
    const shown = follow ? games : games.filter(g => !g.over);
    for (const g of shown) card.append(gameBox(t.table, g));
    const done = games.length - games.filter(g => !g.over).length;
    if (!follow) {
      card.append(el("p", "muted", shown.length ? (done ? done + " finished" : "")
        : "No game going on" + (done ? " · " + done + " finished" : "")));
    }
    return card;
  }

  function draw(t) {
    document.getElementById("no-tables")?.remove();
    const card = tableCard(t);
    const old = root.querySelector('[data-table="' + CSS.escape(t.table) + '"]');
    if (old) { old.replaceWith(card); return; }
    const after = [...root.children].find(c => c.dataset.table > t.table);
    root.insertBefore(card, after || null);
  }

  function leagueTable(rows, points) {
    const tab = el("table", "league");
    const head = el("tr");
    for (const h of ["", "Player", "Played", "Wins", "Shared"].concat(points ? ["Points"] : []))
      head.append(el("th", "", h));
    tab.append(head);
    for (const r of rows) {
      const tr = el("tr");
      tr.append(el("td", "place", String(r.place)), el("th", "", r.player),
        el("td", "", String(r.played)), el("td", "", String(r.wins)), el("td", "", String(r.shared)));
      if (points) tr.append(el("td", "", String(r.points)));
      tab.append(tr);
    }
    return tab;
  }

  let leagueTimer = null;
  function refreshLeague() {
    if (!league || leagueTimer) return;
    leagueTimer = setTimeout(async () => {
      leagueTimer = null;
      const res = await fetch("/api/league");
      if (!res.ok) return;
      const data = await res.json();
      const rules = document.getElementById("league-rules");
      rules.replaceChildren(...data.rules.map(r => el("li", "", r)));
      if (!data.finished) return;
      const parts = [el("h3", "", "Overall"), leagueTable(data.overall, false)];
      for (const g of data.games) parts.push(el("h3", "", g.title), leagueTable(g.players, true));
      league.replaceChildren(...parts);
    }, 300);
  }

  const source = new EventSource("/api/events" + (follow ? "?table=" + encodeURIComponent(follow) : ""));
  source.addEventListener("open", () => { live.className = "live on"; });
  source.addEventListener("error", () => { live.className = "live off"; });
  source.addEventListener("table", e => { draw(JSON.parse(e.data)); refreshLeague(); });
  refreshLeague();
})();
