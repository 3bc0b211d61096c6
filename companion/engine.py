"""The protocol every game's rules engine implements.

An engine is a set of pure functions over an immutable-by-convention state:

- ``new(players, options)`` validates the options and builds the initial state;
- ``apply(state, action)`` returns a new state or raises :class:`IllegalAction`;
- ``legal(state)`` says what may happen next, for the dashboard's buttons;
- ``view(state)`` is the JSON-safe public state; ``scores``, ``current``, ``outcome``.

Actions are JSON objects (``dict``) with a ``"type"`` field. Chance comes from the
table: actions carry their outcomes. Where the companion rolls or deals itself, the
session asks :meth:`Game.resolve` to fill the outcome in *before* the action is logged,
so every log replays exactly without a random generator.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

Action = dict[str, Any]
State = TypeVar("State")


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says which rule, in table words."""


class BadSetup(ValueError):
    """Players or options a game cannot be started with; the message says what to fix."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won (everyone tied for the best score) and why it ended."""

    winners: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Legal:
    """One kind of action that may be taken now, with the choices it allows.

    ``choices`` maps a field of the action to the values it may take, e.g.
    ``Legal("flip", {"cell": ["A1", "B1"]})``. An empty mapping means no argument.
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
    """Base of the four engines. Subclasses set ``name`` and ``title``."""

    name: ClassVar[str]
    title: ClassVar[str]
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

    @abstractmethod
    def apply(self, state: State, action: Action) -> State: ...

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
    def outcome(self, state: State) -> Outcome | None:
        """``None`` while the game goes on."""

    def is_over(self, state: State) -> bool:
        return self.outcome(state) is not None

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
        raise IllegalAction("an action must be a JSON object with a \"type\"")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise IllegalAction("an action needs a \"type\" such as \"flip\"")
    return kind


def fold(game: Game[Any], players: Sequence[str], options: Mapping[str, Any],
         actions: Sequence[Action]) -> Any:
    """The state after applying every action in order (raises at the first illegal one)."""
    state = game.new(players, options)
    for action in actions:
        state = game.apply(state, action)
    return state
