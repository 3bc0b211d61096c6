"""The protocol every game's rules engine implements.

An engine is a set of pure functions over an immutable-by-convention state:

- ``new(players, options)`` validates the options and builds the initial state;
- ``apply(state, action)`` returns a new state or raises :class:`IllegalAction`;
  :class:`Game` does it once for every game: the action's ``type`` is looked up in the
  game's ``actions`` table of :class:`Rule` (the fields it takes and its handler), the
  fields are checked, a game that is over refuses, and the handler runs;
- ``legal(state)`` says what may happen next, for the dashboard's buttons;
- ``view(state)`` is the JSON-safe public state; ``scores``, ``current``, ``outcome``;
- ``describe(before, action, after)`` is the log's line for an action, in the
  rulebook's words; ``series(state)`` the chart series a game has (Shark's prices).

Refusals are typed: :class:`Malformed` (the action cannot be read), :class:`NotYourTurn`,
:class:`GameOver` and :class:`BrokenRule`, each with a ``kind`` the API reports.

Actions are JSON objects (``dict``) with a ``"type"`` field. Chance comes from the
table: actions carry their outcomes. Where the companion rolls or deals itself, the
session asks :meth:`Game.resolve` to fill the outcome in *before* the action is logged,
so every log replays exactly without a random generator; :func:`replay` is the one fold
of a log, used by the table, record files and the dashboard.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

Action = dict[str, Any]
State = TypeVar("State")


class IllegalAction(ValueError):
    """An action refused; the message says why, in table words. Engines raise one of the
    four kinds below; ``kind`` is what the API reports beside the message."""

    kind: ClassVar[str] = "rule"


class Malformed(IllegalAction):
    """The action cannot be read: not an object, an unknown type, a field it does not
    take, a value of the wrong shape or naming nothing in the game."""

    kind = "malformed"


class NotYourTurn(IllegalAction):
    """The action names a player who may not act now."""

    kind = "not_your_turn"


class GameOver(IllegalAction):
    """The game has ended: nothing more may be played."""

    kind = "game_over"


class BrokenRule(IllegalAction):
    """A readable action that the rules forbid now (the message names the rule)."""

    kind = "rule"


class BadSetup(ValueError):
    """Players or options a game cannot be started with; the message says what to fix."""


class Termination(StrEnum):
    """What ended a game (as a chess library names checkmate or stalemate)."""

    PLAYED_OUT = "played_out"      # every round played, every card laid
    TALLY = "tally"                # Dr. Shark: the dossiers were counted at the table
    LAST_PLAYER = "last_player"    # Shark: everyone else is bankrupt
    TOP_PRICE = "top_price"        # Shark: a company reached $15,000
    SUPPLY = "supply"              # a supply ran out (Shark's buildings or shares, turds)
    LAST_CARD = "last_card"        # Tokyo Poo Divers: the last closed card was flipped


@dataclass(frozen=True)
class Ending:
    """Why a game ended, as its state records it."""

    termination: Termination
    reason: str                    # in table words: "red reached $15,000"


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won (everyone tied for the best score) and why it ended."""

    winners: tuple[str, ...]
    termination: Termination
    reason: str


@dataclass(frozen=True)
class Rule(Generic[State]):
    """One entry of a game's action table: the fields the action takes (besides
    ``type``) and the handler that applies it; ``says`` is the action and ``labels`` its
    fields as a player reads them, in the rulebook's words (forms and buttons show them:
    "Forced sale: sell shares to cover a loss", ``{"count": "shares"}``)."""

    fields: Collection[str]
    handler: Callable[[State, Action], State]
    says: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Legal:
    """One kind of action that may be taken now, with the choices it allows.

    ``choices`` maps a field of the action to the values it may take, e.g.
    ``Legal("flip", {"cell": ["A1", "B1"]})``. An empty mapping means no argument. Every
    combination of the choices is meant to be accepted; where one choice limits another,
    the game lists the type once per value of the first (Shark: a buy per company, with
    the counts that company allows).
    """

    type: str
    choices: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    player: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.choices:
            out["choices"] = {k: list(v) for k, v in self.choices.items()}
        if self.player is not None:
            out["player"] = self.player
        return out


class Game(ABC, Generic[State]):
    """Base of the four engines. Subclasses set ``name``, ``title`` and ``actions``."""

    name: ClassVar[str]
    title: ClassVar[str]
    actions: ClassVar[Mapping[str, Rule[Any]]]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6

    def check_players(self, players: Sequence[str]) -> list[str]:
        """Validate a seat-ordered list of player names (shared by every game)."""
        if not isinstance(players, list | tuple) or not all(
            isinstance(p, str) for p in players
        ):
            raise BadSetup("players must be a list of names")
        names = [p.strip() for p in players]
        if any(not n for n in names):
            raise BadSetup("a player name is empty")
        if any(len(n) > 40 for n in names):
            raise BadSetup("a player name is longer than 40 characters")
        if len(set(names)) != len(names):
            raise BadSetup("two players have the same name")
        if not self.min_players <= len(names) <= self.max_players:
            raise BadSetup(
                f"{self.title} is played by {self.min_players} to {self.max_players} "
                f"players, not {len(names)}"
            )
        return names

    def prepare(
        self, players: Sequence[str], options: Mapping[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        """Options with any chance the companion deals at setup filled in (digital play).

        Called once when a session is created; the result is what gets stored, so a
        replay needs no random generator. Default: the options unchanged.
        """
        return dict(options)

    def resolve(self, state: State, action: Action, rng: random.Random) -> Action:
        """The action with any outcome the companion rolls or deals filled in.

        Called before an action is logged. Default: the action unchanged.
        """
        return action

    @abstractmethod
    def new(self, players: Sequence[str], options: Mapping[str, Any]) -> State: ...

    def rule(self, state: State, action: object) -> Rule[State]:
        """The table entry for ``action`` once it is readable and the game goes on;
        raises :class:`Malformed` or :class:`GameOver` (the one check for every game)."""
        kind = action_type(action)
        assert isinstance(action, dict)
        rule = self.actions.get(kind)
        if rule is None:
            raise Malformed(f"unknown action {kind!r}: {self.title} has "
                            f"{', '.join(self.actions)}")
        extra = sorted(set(action) - set(rule.fields) - {"type"})
        if extra:
            takes = f" (it takes {', '.join(sorted(rule.fields))})" if rule.fields else ""
            raise Malformed(f"{kind} does not take {extra[0]!r}{takes}")
        ending = self.ending(state)
        if ending is not None:
            raise GameOver(f"the game is over: {ending.reason}")
        return rule

    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raises an :class:`IllegalAction` (nothing changes)."""
        return self.rule(state, action).handler(state, action)

    def words(self) -> dict[str, dict[str, Any]]:
        """Each action as a player reads it: ``{type: {"says": ..., "fields": {field:
        words}}}`` from the action table (the type and field names where a rule has no
        words)."""
        return {kind: {"says": rule.says or kind.replace("_", " "),
                       "fields": {f: rule.labels.get(f, f) for f in sorted(rule.fields)}}
                for kind, rule in self.actions.items()}

    def describe(self, before: State, action: Action, after: State) -> str:
        """The log's line for ``action``, played in ``before`` and giving ``after``: who
        did what, in the rulebook's words ("Ann flipped C4: an object."). Games refine
        it; this fallback names the action and its fields."""
        args = ", ".join(f"{k} {v}" for k, v in action.items() if k != "type")
        who = self.current(before)
        text = str(action.get("type", "")).replace("_", " ") + (f" ({args})" if args else "")
        return f"{who}: {text}" if who else text

    def ledger(self, before: State, action: Action, after: State) -> list[dict[str, Any]]:
        """The money ``action`` moved between bank and players, in the order paid, each
        ``{"player", "kind", "amount", "why"}`` with ``why`` in the banker's words (Shark);
        none by default: games without a bank."""
        return []

    def series(self, state: State) -> dict[str, dict[str, int]]:
        """Chart series by name, each a mapping of label to value (Shark: ``{"prices":
        {"red": 3000, ...}}``); none by default."""
        return {}

    @abstractmethod
    def legal(self, state: State) -> list[Legal]: ...

    @abstractmethod
    def view(self, state: State) -> dict[str, Any]: ...

    @abstractmethod
    def scores(self, state: State) -> dict[str, int]: ...

    @abstractmethod
    def current(self, state: State) -> str | None:
        """The player (or team) to act, ``None`` when the game is over."""

    @abstractmethod
    def ending(self, state: State) -> Ending | None:
        """Why the game ended, ``None`` while it goes on."""

    def winners(self, state: State) -> tuple[str, ...]:
        """Everyone tied for the best score (games with eliminated players refine it)."""
        return best(self.scores(state))

    def outcome(self, state: State) -> Outcome | None:
        """Winners and termination once over; ``None`` while the game goes on."""
        ending = self.ending(state)
        if ending is None:
            return None
        return Outcome(self.winners(state), ending.termination, ending.reason)

    def is_over(self, state: State) -> bool:
        return self.ending(state) is not None

    def summary(self, state: State) -> dict[str, Any]:
        """The replay-shaped object of DESIGN.md: game, players, over, current, scores,
        winners, state."""
        result = self.outcome(state)
        return {
            "game": self.name,
            "players": list(self.players(state)),
            "over": result is not None,
            "current": None if result is not None else self.current(state),
            "scores": self.scores(state),
            "winners": list(result.winners) if result else [],
            "state": self.view(state),
        }

    @abstractmethod
    def players(self, state: State) -> Sequence[str]: ...


def best(scores: Mapping[str, int]) -> tuple[str, ...]:
    """Everyone tied for the highest score, in the mapping's order."""
    if not scores:
        return ()
    top = max(scores.values())
    return tuple(name for name, score in scores.items() if score == top)


def action_type(action: object) -> str:
    """The ``type`` of an action, checked at the text boundary."""
    if not isinstance(action, dict):
        raise Malformed("an action must be a JSON object with a \"type\"")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise Malformed("an action needs a \"type\" such as \"flip\"")
    return kind


class ReplayError(ValueError):
    """A logged action the rules refuse: ``index`` (0-based), the action and why."""

    def __init__(self, index: int, action: object, error: IllegalAction) -> None:
        super().__init__(f"action {index} is refused: {error}")
        self.index, self.action, self.error = index, action, error


Step = Callable[[int, Any, Action, Any], None]
"""Told ``(index, before, action, after)`` for every action :func:`replay` applies."""


def replay(game: Game[Any], state: Any, actions: Sequence[Action], *, first: int = 0,
           step: Step | None = None) -> Any:
    """The state after applying ``actions`` in order to ``state``: the one fold of a log.

    Raises :class:`ReplayError` at the first refused action; its index counts from
    ``first`` (the position of ``actions[0]`` in the whole log).
    """
    for index, action in enumerate(actions, first):
        try:
            after = game.apply(state, action)
        except IllegalAction as err:
            raise ReplayError(index, action, err) from err
        if step is not None:
            step(index, state, action, after)
        state = after
    return state
