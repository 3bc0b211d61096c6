"""Record files: a whole game as JSON, and replaying them.

A record is ``{"game", "players", "options", "actions"}`` (DESIGN.md). :func:`load`
checks the shape and raises :class:`BadRecord` with a one-line message; :func:`replay`
folds the actions and reports either the replay-shaped summary or the first illegal one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import games
from companion.engine import Action, BadSetup, ReplayError
from companion.engine import replay as fold_log


class BadRecord(ValueError):
    """A record file that cannot be read as a game; the message says what is wrong."""


@dataclass(frozen=True)
class Record:
    game: str
    players: list[str]
    options: dict[str, Any]
    actions: list[Action]


MAX_RECORD_BYTES = 16 * 1024 * 1024


def load(path: str | Path) -> Record:
    """Read and check a record file."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as err:
        raise BadRecord(f"cannot read {path}: {err.strerror or err}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise BadRecord(f"{path} is larger than {MAX_RECORD_BYTES // 2**20} MiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise BadRecord(f"{path} is not a JSON record: {err}") from None
    return parse(data)


def parse(data: object) -> Record:
    """Check the shape of a decoded record."""
    if not isinstance(data, dict):
        raise BadRecord("a record is a JSON object with game, players, options and actions")
    try:
        games.get(data.get("game"))
    except games.UnknownGame as err:
        raise BadRecord(str(err)) from None
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadRecord("\"players\" must be a list of names")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadRecord("\"options\" must be a JSON object")
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise BadRecord("\"actions\" must be a list of action objects")
    return Record(data["game"], players, options, actions)


def replay(record: Record) -> tuple[dict[str, Any], int]:
    """The replay output and its exit code: 0 played through, 1 an illegal action.

    Raises :class:`BadRecord` for players or options the game cannot start with.
    """
    game = games.get(record.game)
    try:
        players = game.check_players(record.players)
        state = game.new(players, record.options)
    except BadSetup as err:
        raise BadRecord(str(err)) from None
    try:
        state = fold_log(game, state, record.actions)
    except ReplayError as err:
        return {"error": {"index": err.index, "action": err.action,
                          "message": str(err.error), "kind": err.error.kind}}, 1
    return game.summary(state), 0
