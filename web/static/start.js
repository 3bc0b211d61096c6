// The start page: new game, games going on, history with winners; kept live.
"use strict";
(function () {
  const { h, api } = window.TC;
  const form = document.getElementById("new-game");
  const select = document.getElementById("game-select");
  const players = document.getElementById("players");

  function showOptions() {
    for (const fs of form.querySelectorAll(".opts")) {
      fs.hidden = fs.dataset.game !== select.value;
    }
  }
  select.addEventListener("change", showOptions);
  showOptions();

  function renumber() {
    [...players.children].forEach((li, i) => {
      const input = li.querySelector("input");
      input.placeholder = `Player ${i + 1}`;
      input.setAttribute("aria-label", `Player ${i + 1}`);
    });
  }
  document.getElementById("add-player").addEventListener("click", () => {
    if (players.children.length >= 8) return;
    players.append(h("li", {}, h("input", { name: "player", maxlength: 40 })));
    renumber();
  });
  document.getElementById("remove-player").addEventListener("click", () => {
    if (players.children.length > 2) players.lastElementChild.remove();
  });

  function options(game) {
    const fs = form.querySelector(`.opts[data-game="${game}"]`);
    const out = {};
    if (game === "poodivers") {
      out.layout = fs.querySelector('[name="layout"]').value;
      if (fs.querySelector('[name="digital"]').checked) out.digital = true;
    } else if (game === "shark") {
      out.board = fs.querySelector('[name="board"]').value;
      out.variants = [...fs.querySelectorAll('[name="variant"]:checked')].map((c) => c.value);
      const cash = parseInt(fs.querySelector('[name="starting_cash"]').value, 10);
      if (cash > 0) out.starting_cash = cash;
    } else if (game === "drshark") {
      if (fs.querySelector('[name="teams"]').checked) out.teams = true;
    } else if (game === "shoal") {
      const goal = fs.querySelector('[name="goal"]').value.trim();
      if (goal) out.goal = goal;
    }
    const extra = form.querySelector('[name="extra"]').value.trim();
    if (extra) Object.assign(out, JSON.parse(extra));
    return out;
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const error = document.getElementById("new-error");
    error.textContent = "";
    const names = [...players.querySelectorAll("input")].map((i) => i.value.trim())
      .filter((n) => n);
    let opts;
    try { opts = options(select.value); } catch (e) {
      error.textContent = "More options is not valid JSON: " + e.message;
      return;
    }
    try {
      const game = await api("POST", "/api/games", { game: select.value, players: names,
        options: opts });
      location.href = `/games/${game.id}`;
    } catch (err) {
      error.textContent = err.message;
    }
  });

  // Abandon a game going on, or delete one from the history: asked first; the game
  // stays in the database either way (and in the server's log).
  function ask(text) {
    const dialog = document.getElementById("close-dialog");
    document.getElementById("close-text").textContent = text;
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((resolve) => dialog.addEventListener("close",
      () => resolve(dialog.returnValue === "yes"), { once: true }));
  }

  function closer(g, how) {
    const title = `#${g.id} ${g.title || g.game} (${g.players.join(", ")})`;
    const text = how === "abandon"
      ? `Abandon ${title}? It moves to the history as abandoned; nothing more can be played in it.`
      : `Delete ${title} from the start page? It stays in the companion's database and can still be exported.`;
    const button = h("button", { type: "button", class: "small", "data-close": how,
      "data-game": g.id, onclick: async () => {
        if (!(await ask(text))) return;
        try {
          await api(how === "abandon" ? "POST" : "DELETE",
            how === "abandon" ? `/api/games/${g.id}/abandon` : `/api/games/${g.id}`, {});
          refresh().catch(() => {});
        } catch (err) {
          if (err.message !== "no PIN entered") {
            button.after(h("span", { class: "error", role: "alert" }, ` ${err.message}`));
          }
        }
      } }, how === "abandon" ? "Abandon" : "Delete");
    return button;
  }

  async function refresh() {
    const list = await api("GET", "/api/games");
    const going = document.getElementById("unfinished");
    const history = document.getElementById("history");
    going.replaceChildren();
    history.replaceChildren();
    for (const g of list) {
      const when = new Date(g.updated * 1000).toLocaleString();
      const link = h("a", { href: `/games/${g.id}` }, `#${g.id} ${g.title || g.game} — `,
        g.players.join(", "));
      if (!g.over) {
        going.append(h("li", { "data-game": g.id }, link, h("span", { class: "muted" },
          g.current ? ` · ${g.current} to play` : "", ` · ${when}`), " ", closer(g, "abandon")));
      } else {
        history.append(h("li", { "data-game": g.id }, link, g.closed
          ? h("span", { class: "muted closed" }, ` · ${g.closed}`)
          : h("span", { class: "winners" }, " · won by ", window.TC.names(g.winners || []) || "nobody"),
        h("span", { class: "muted" }, ` · ${when}`), " ", closer(g, "delete")));
      }
    }
    if (!going.children.length) going.append(h("li", { class: "none" }, "No unfinished games."));
    if (!history.children.length) history.append(h("li", { class: "none" }, "No finished games yet."));
  }
  refresh().catch(() => {});
  const events = new EventSource("/api/events");
  let timer = null;
  events.addEventListener("change", () => {
    clearTimeout(timer);
    timer = setTimeout(() => refresh().catch(() => {}), 150);
  });
})();
