"""The topics and payloads tables and the hub exchange over MQTT (README, "Hub topics").

Every payload is a JSON object. A table publishes under ``companion/<table>/`` only (the
broker's ACL holds it to that); the hub writes only replay requests. Parsing checks the
shape at this boundary: :class:`BadMessage` says what is wrong, and nothing is applied.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

ROOT = "companion"
TABLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
KINDS = ("create", "play", "undo", "redo")
MAX_PAYLOAD = 512 * 1024


class BadMessage(ValueError):
    """A message the hub cannot use; the message says why (logged, never applied)."""


def check_table_name(name: str) -> str:
    """A table's name: its broker user and its topic level (letters, digits, - and _)."""
    if not isinstance(name, str) or not TABLE_NAME.match(name):
        raise ValueError(f"a table name is 1 to 40 letters, digits, '-' or '_' (starting "
                         f"with a letter or digit), not {name!r}")
    return name


def status_topic(table: str) -> str:
    return f"{ROOT}/{table}/status"


def events_topic(table: str, game_id: int) -> str:
    return f"{ROOT}/{table}/games/{game_id}/events"


def view_topic(table: str, game_id: int) -> str:
    return f"{ROOT}/{table}/games/{game_id}/view"


def replay_topic(table: str) -> str:
    return f"{ROOT}/{table}/replay"


SUBSCRIPTIONS = (f"{ROOT}/+/status", f"{ROOT}/+/games/+/events", f"{ROOT}/+/games/+/view")
"""What the hub follows."""


def message_id(table: str, game_id: int, n: int) -> str:
    """The id that makes a change unique across the night: table, game, sequence."""
    return f"{table}/{game_id}/{n}"


def dumps(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Topic:
    """A parsed topic: the table, what it is (``status``, ``events``, ``view``,
    ``replay``) and the game id where there is one."""

    table: str
    what: str
    game_id: int | None = None


def parse_topic(topic: str) -> Topic:
    parts = topic.split("/")
    if len(parts) < 3 or parts[0] != ROOT or not TABLE_NAME.match(parts[1]):
        raise BadMessage(f"not a companion topic: {topic!r}")
    table = parts[1]
    if len(parts) == 3 and parts[2] in ("status", "replay"):
        return Topic(table, parts[2])
    if len(parts) == 5 and parts[2] == "games" and parts[4] in ("events", "view"):
        digits = parts[3]
        if not (digits.isascii() and digits.isdigit()) or digits[0] == "0" \
                or int(digits) >= 2**63:
            raise BadMessage(f"{topic!r}: the game id must be a whole number")
        return Topic(table, parts[4], int(parts[3]))
    raise BadMessage(f"not a companion topic: {topic!r}")


def loads(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"the payload is {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise BadMessage(f"the payload is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise BadMessage("the payload is not a JSON object")
    return data


def _whole(data: dict[str, Any], key: str, low: int = 0) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < 2**63:
        raise BadMessage(f"{key!r} must be a whole number of at least {low}, not {value!r}")
    return value


@dataclass(frozen=True)
class Event:
    """One change of a game as published: ``n`` numbers the game's changes from 1 (the
    creation, which carries ``game``, ``players``, ``options``); ``seq`` is the number
    of actions applied after it, as in the table's own API."""

    table: str
    game_id: int
    n: int
    kind: str
    seq: int
    at: float
    action: dict[str, Any] | None = None
    game: str | None = None
    players: tuple[str, ...] = ()
    options: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return message_id(self.table, self.game_id, self.n)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "table": self.table, "game_id": self.game_id,
                               "n": self.n, "kind": self.kind, "seq": self.seq,
                               "at": self.at}
        if self.kind == "create":
            out.update(game=self.game, players=list(self.players), options=self.options)
        else:
            out["action"] = self.action
        return out


def parse_event(topic: Topic, data: dict[str, Any]) -> Event:
    """The event of an ``events`` message; :class:`BadMessage` if it cannot be one."""
    gid = topic.game_id
    assert gid is not None
    if data.get("table") != topic.table or data.get("game_id") != topic.game_id:
        raise BadMessage(f"the payload names table {data.get('table')!r} game "
                         f"{data.get('game_id')!r}, the topic {topic.table!r} game "
                         f"{topic.game_id}")
    n, seq = _whole(data, "n", 1), _whole(data, "seq")
    kind = data.get("kind")
    if kind not in KINDS:
        raise BadMessage(f"'kind' must be one of {', '.join(KINDS)}, not {kind!r}")
    if data.get("id") != message_id(topic.table, gid, n):
        raise BadMessage(f"'id' must be {message_id(topic.table, gid, n)!r}")
    at = data.get("at")
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise BadMessage("'at' must be a time in seconds")
    if kind == "create":
        players = data.get("players")
        if not isinstance(data.get("game"), str) or not isinstance(players, list) or not all(
                isinstance(p, str) for p in players) or not isinstance(data.get("options"),
                                                                        dict):
            raise BadMessage("a create event needs 'game' (text), 'players' (a list of "
                             "names) and 'options' (an object)")
        if n != 1 or seq != 0:
            raise BadMessage("a create event is change 1 with seq 0")
        return Event(topic.table, gid, n, kind, seq, float(at), game=data["game"],
                     players=tuple(players), options=data["options"])
    action = data.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise BadMessage("'action' must be an object with a 'type'")
    return Event(topic.table, gid, n, kind, seq, float(at), action=action)


@dataclass(frozen=True)
class View:
    """A game's retained view as the hub keeps it: how far the table says the game is
    (``n`` changes, ``seq`` actions) and what ``/api/tables`` lists of it."""

    table: str
    game_id: int
    n: int
    seq: int
    game: str
    players: tuple[str, ...]
    current: str | None
    over: bool
    scores: dict[str, int]
    winners: tuple[str, ...]


def _names(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadMessage(f"{key!r} must be a list of names")
    return tuple(value)


def parse_view(topic: Topic, data: dict[str, Any]) -> View:
    """The view of a ``view`` message; :class:`BadMessage` if it cannot be one."""
    assert topic.game_id is not None
    if data.get("table") != topic.table or data.get("id") != topic.game_id:
        raise BadMessage("the view names another table or game than its topic")
    n, seq = _whole(data, "n", 1), _whole(data, "seq")
    scores = data.get("scores")
    if not isinstance(scores, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in scores.values()):
        raise BadMessage("'scores' must be an object of whole numbers")
    current, over = data.get("current"), data.get("over")
    if not isinstance(data.get("game"), str) or not isinstance(over, bool) or not (
            current is None or isinstance(current, str)):
        raise BadMessage("a view needs 'game' (text), 'over' (true or false) and "
                         "'current' (a name or null)")
    return View(topic.table, topic.game_id, n, seq, data["game"], _names(data, "players"),
                current, over, dict(scores), _names(data, "winners"))


def probe(table: str) -> dict[str, Any]:
    """What ``companion doctor`` publishes (not retained) on a table's status topic to
    check the broker's ACL; the hub ignores it."""
    return {"table": table, "probe": True}


def parse_status(data: dict[str, Any]) -> bool | None:
    """Whether the table is online; ``None`` for the doctor's probe."""
    if data.get("probe") is True:
        return None
    online = data.get("online")
    if not isinstance(online, bool):
        raise BadMessage("a status needs 'online': true or false")
    return online


def parse_replay(data: dict[str, Any]) -> tuple[dict[int, int], bool]:
    """A replay request: ``{"games": {"7": 12}, "all": true}`` asks the table to publish
    again game 7's changes after 12 and, with ``all``, every other game's from 1."""
    games = data.get("games", {})
    if not isinstance(games, dict) or len(games) > 10_000:
        raise BadMessage("'games' must be an object of game id: changes the hub has")
    out: dict[int, int] = {}
    for key, have in games.items():
        if not (key.isascii() and key.isdigit()) or isinstance(have, bool) \
                or not isinstance(have, int) or have < 0:
            raise BadMessage(f"replay of game {key!r} from {have!r}: ids and counts are "
                             "whole numbers")
        out[int(key)] = have
    return out, data.get("all") is True
