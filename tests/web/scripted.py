"""Scripted play for the reliability tests: a seeded table that picks its next action
from the ``legal`` list the API returns with the one driver's ``choose`` (a choice per
field, plural fields a few of them). Some picks are refused by the rules (a hostile
takeover, a clue set that does not fit): that is part of the script, a refused action
must change nothing."""

from __future__ import annotations

import http.client
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.store import Store
from tests.support.driver import choose

GAMES = ("poodivers", "shark", "drshark", "shoal")
__all__ = ["GAMES", "PLAYERS", "Client", "Ledger", "Lost", "Pending", "Script", "choose"]
PLAYERS = ["Ann", "Ben", "Cy"]


class Lost(Exception):
    """The server went away before answering (killed, or not listening)."""


class Client:
    """The JSON API over one keep-alive HTTP connection, with the table PIN."""

    def __init__(self, url: str, pin: str, timeout: float = 30.0) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        self.pin = pin

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"X-Table-Pin": self.pin}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            res = self.conn.getresponse()
            raw = res.read()
        except (OSError, http.client.HTTPException) as err:
            self.conn.close()
            raise Lost(str(err)) from err
        return res.status, json.loads(raw)

    def close(self) -> None:
        self.conn.close()


@dataclass
class Pending:
    """The request in flight: what it would change if it was committed."""

    kind: str                      # "create", "play", "undo", "redo"
    sid: int | None = None
    action: dict[str, Any] | None = None


@dataclass
class Ledger:
    """What the server acknowledged (HTTP 200/201 received): per session, the active
    actions as the answer showed them, and how many rows its history holds."""

    actions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    rows: dict[int, int] = field(default_factory=dict)
    acknowledged: int = 0
    refused: int = 0

    def check(self, db: Path, pending: Pending | None) -> bool:
        """Compare the database with the ledger; the request in flight when the server
        died may have been committed (its answer lost) or not, nothing else may differ.
        Adopts the in-flight change if it was committed; whether it was."""
        with Store(db) as store:
            assert store.integrity() == "ok"
            sessions = {row.id for row in store.sessions()}
            stored = {sid: store.actions(sid) for sid in sessions}
            rows = {sid: len(store.history(sid)) for sid in sessions}
        extra = sessions - set(self.actions)
        assert set(self.actions) <= sessions, "an acknowledged game is missing"
        if pending is None or pending.kind != "create":
            assert not extra, f"games nobody asked for: {extra}"
        committed = False
        for sid in sorted(sessions):
            if sid in extra:  # the game being created when the server died
                assert len(extra) == 1 and stored[sid] == [] and rows[sid] == 0
                self.actions[sid], self.rows[sid] = [], 0
                committed = True
                continue
            mine, theirs = self.actions[sid], stored[sid]
            if pending is not None and pending.sid == sid and (mine, self.rows[sid]) != (
                    theirs, rows[sid]):
                self._adopt(pending, mine, theirs, self.rows[sid], rows[sid])
                self.actions[sid], self.rows[sid] = theirs, rows[sid]
                committed = True
                continue
            assert theirs == mine, f"game {sid}: the log differs from what was acknowledged"
            assert rows[sid] == self.rows[sid], f"game {sid}: history rows differ"
        return committed

    @staticmethod
    def _adopt(pending: Pending, mine: list[dict[str, Any]], theirs: list[dict[str, Any]],
               my_rows: int, their_rows: int) -> None:
        """The only difference allowed: exactly the in-flight change, committed."""
        if pending.kind in ("play", "redo"):
            assert theirs[:-1] == mine and their_rows == my_rows + 1
            if pending.action is not None:
                assert all(theirs[-1].get(k) == v for k, v in pending.action.items())
        elif pending.kind == "undo":
            assert theirs == mine[:-1] and their_rows == my_rows
        else:
            raise AssertionError(f"unexpected change after a lost {pending.kind}")


class Script:
    """The seeded table: creates games in turn, plays from ``legal``, undoes and redoes
    now and then, and books every acknowledged change in the ledger."""

    def __init__(self, seed: int, game_length: int = 120) -> None:
        self.rnd = random.Random(seed)
        self.ledger = Ledger()
        self.game_length = game_length
        self.sid: int | None = None
        self.view: dict[str, Any] = {}
        self.games = 0
        self.pending: Pending | None = None
        self.stuck = 0

    def step(self, client: Client) -> Pending:
        """Send one request; returns it. If the server does not answer, :class:`Lost`
        is raised and ``pending`` is the request in flight (for :meth:`Ledger.check`)."""
        if self.sid is None or not self.view.get("legal") or self.stuck >= 6 or \
                self.view["seq"] >= self.game_length:
            return self._create(client)
        roll = self.rnd.random()
        if roll < 0.08 and self.view["seq"] > 0:
            return self._send(client, Pending("undo", self.sid), "undo",
                              {"seq": self.view["seq"]})
        if roll < 0.11:
            return self._send(client, Pending("redo", self.sid), "redo", None)
        action = choose(self.view["legal"], self.rnd)
        assert action is not None
        return self._send(client, Pending("play", self.sid, action), "actions",
                          {"action": action, "seq": self.view["seq"]})

    def resume(self, client: Client) -> None:
        """After a restart: read the current game afresh."""
        if self.sid is not None:
            status, self.view = client.call("GET", f"/api/games/{self.sid}")
            assert status == 200

    def _create(self, client: Client) -> Pending:
        game = GAMES[self.games % len(GAMES)]
        pending = self.pending = Pending("create")
        status, body = client.call("POST", "/api/games", {"game": game, "players": PLAYERS})
        assert status == 201, body
        self.games += 1
        self.stuck = 0
        self.sid, self.view = body["id"], body
        self.ledger.actions[self.sid], self.ledger.rows[self.sid] = [], 0
        return pending

    def _send(self, client: Client, pending: Pending, verb: str, body: Any) -> Pending:
        assert self.sid is not None
        self.pending = pending
        status, answer = client.call("POST", f"/api/games/{self.sid}/{verb}", body)
        if status == 200:
            before = len(self.ledger.actions[self.sid])
            self.ledger.actions[self.sid] = [e["action"] for e in answer["log"]]
            if verb != "undo":
                assert len(answer["log"]) == before + 1
                self.ledger.rows[self.sid] += 1
            self.ledger.acknowledged += 1
            self.stuck = 0
            self.view = answer
        else:
            assert status in (400, 409), answer
            assert isinstance(answer.get("error"), str) and answer["error"]
            self.ledger.refused += 1
            self.stuck += 1
        return pending
