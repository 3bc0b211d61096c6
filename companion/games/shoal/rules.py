"""Shoal: the companion checks every card laid and keeps the score.

Players take turns in seat order; a turn is ``play {card, at: [x, y]}`` (the draw from
the piles happens on the table and is not logged). Each player lays 10 cards; then the
game is over and the score is visible fish plus the goal card's three goals
(``scoring.py``). Placement rules are in ``placement.py``; unclear points are decided in
``rules/RULINGS.md`` and ``docs/shoal.md``.

A table that lays its cards without the companion has its shoals counted instead:
``tally {player, cells: {"x,y": section}}`` gives one player's shoal as it lies (read by
the camera view, or typed), in place of the cards laid here. The first tally ends the
laying (no card is laid after it); the game is over when every shoal is tallied, and
each score is taken from the shoals as tallied (comparative goals across all of them).
A player's shoal may be tallied again while the game goes on (a better photo); once
over, undo takes the last tally back.

Options: ``deck`` (``"default"`` or an inline deck object) and ``goal`` (a goal-card id of
the deck, or an inline goal card). When a session is created without a goal, the
companion draws one (``prepare``), so the stored options always name it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any, ClassVar

from companion.engine import (
    Action,
    BadSetup,
    BrokenRule,
    Ending,
    Game,
    Legal,
    Malformed,
    NotYourTurn,
    Rule,
    Termination,
)
from companion.games.shoal import placement, words
from companion.games.shoal.deck import BadDeck, Card, Deck, GoalCard, load_deck
from companion.games.shoal.layout import (
    FISH,
    BadLayout,
    Layout,
    ascii_art,
    count,
    foreign_fish,
    from_cells,
    is_connected,
    normalise,
    to_cells,
)
from companion.games.shoal.scoring import score

CARDS_EACH = 10
MOST_SECTIONS = 4 + 3 * (CARDS_EACH - 1)
"""Sections a shoal can show: the first card's four, and at most three more a card (every
later card covers one at least)."""


@dataclass(frozen=True)
class Play:
    card: str
    at: tuple[int, int]


@dataclass(frozen=True)
class ShoalState:
    """The cards laid, in the order they were laid (seat order, round after round);
    everything else is derived from them."""

    players: tuple[str, ...]
    deck: Deck
    deck_name: str                          # "default" or "inline"
    goal: GoalCard
    laid: tuple[Play, ...] = ()
    tallied: Mapping[str, Layout] = field(default_factory=dict)
    """Shoals counted on the table (``tally``), by player, in the order tallied."""

    @property
    def seat(self) -> int:
        """The seat of the player whose turn it is."""
        return len(self.laid) % len(self.players)

    @property
    def player(self) -> str:
        """The player to act: the one whose turn it is to lay a card or, once shoals are
        being tallied, the first in seat order whose shoal is not."""
        if self.tallied:
            return next((p for p in self.players if p not in self.tallied), self.players[0])
        return self.players[self.seat]

    @property
    def over(self) -> bool:
        if self.tallied:
            return len(self.tallied) == len(self.players)
        return len(self.laid) >= CARDS_EACH * len(self.players)

    @cached_property
    def plays(self) -> Mapping[str, tuple[Play, ...]]:
        """Each player's cards, bottom to top."""
        n = len(self.players)
        return {p: self.laid[seat::n] for seat, p in enumerate(self.players)}

    @cached_property
    def played(self) -> Mapping[str, str]:
        """Card id -> the player who laid it."""
        n = len(self.players)
        return {play.card: self.players[i % n] for i, play in enumerate(self.laid)}

    @cached_property
    def shoals(self) -> Mapping[str, Layout]:
        """Each player's visible sections: as tallied, or as the cards laid here show."""
        out = {}
        for player, plays in self.plays.items():
            layout: Layout = {}
            for play in plays:
                layout = placement.place(layout, self.deck.cards[play.card], play.at)
            out[player] = self.tallied.get(player, layout)
        return out


@cache
def default_deck() -> Deck:
    return load_deck("default")


class Shoal(Game[ShoalState]):
    name = "shoal"
    title = "Shoal"
    min_players, max_players = 2, 4
    actions: ClassVar[Mapping[str, Rule[ShoalState]]]

    def prepare(self, players: Sequence[str], options: Mapping[str, Any],
                rng: random.Random) -> dict[str, Any]:
        """Draw a goal card from the deck when the options name none."""
        out = dict(options)
        if "goal" not in out:
            try:
                deck = _deck(out.get("deck", "default"))
            except BadSetup:
                return out  # new() reports it
            if deck.goals:
                out["goal"] = rng.choice(sorted(deck.goals))
        return out

    def new(self, players: Sequence[str], options: Mapping[str, Any]) -> ShoalState:
        unknown = set(options) - {"deck", "goal"}
        if unknown:
            raise BadSetup(f"unknown option {sorted(unknown)[0]!r}: Shoal takes deck and goal")
        names = tuple(self.check_players(players))
        deck_option = options.get("deck", "default")
        deck = _deck(deck_option)
        if "goal" not in options:
            raise BadSetup("choose a goal card: \"goal\" is the id of one of the deck's ("
                           f"{', '.join(deck.goals) or 'none'}) or an inline goal card")
        try:
            goal = deck.goal_card(options["goal"])
        except BadDeck as err:
            raise BadSetup(str(err)) from None
        need = CARDS_EACH * len(names)
        if len(deck.cards) < need:
            raise BadSetup(f"{len(names)} players lay {need} cards but the deck has only "
                           f"{len(deck.cards)}")
        return ShoalState(
            players=names, deck=deck,
            deck_name="default" if deck_option == "default" else "inline", goal=goal,
        )

    # Queries -------------------------------------------------------------------

    def legal(self, state: ShoalState) -> list[Legal]:
        """One entry per card not yet laid that fits the shoal of the player to act,
        with every offset where it fits: ``Legal("play", {"card": ["F07"], "at": [[1, 0],
        ...]})``. (With cards that show a fish, some offset always fits: lay a fish
        section of the card on the shoal's outermost fish in that corner's direction.)
        Once shoals are tallied: a ``tally`` of each shoal not tallied yet that has cards
        laid here, as they lie (a tally takes any cells: the camera view sends what it
        read, for shoals laid on the table alone too)."""
        if state.over:
            return []
        if state.tallied:  # each shoal not tallied yet with cards laid here, as it stands
            return [Legal("tally", {"player": [p], "cells": [to_cells(state.shoals[p])]},
                          player=p) for p in state.players
                    if p not in state.tallied and state.shoals[p]]
        layout = state.shoals[state.player]
        out = []
        for card in state.deck.cards.values():
            if card.id in state.played:
                continue
            spots = placement.allowed(layout, card)
            if spots:
                out.append(Legal("play", {"card": [card.id], "at": [list(s) for s in spots]},
                                 player=state.player))
        return out

    def breakdown(self, state: ShoalState) -> dict[str, dict[str, Any]]:
        return score(state.shoals, state.goal)

    def view(self, state: ShoalState) -> dict[str, Any]:
        scored = self.breakdown(state)
        return {
            "deck": state.deck_name,
            "goal": {**state.goal.to_json(), "text": [g.describe() for g in state.goal.goals]},
            "shoals": {p: {
                "cells": to_cells(state.shoals[p]),
                "cards": len(state.plays[p]),
                "tallied": p in state.tallied,
                "plays": [{"card": pl.card, "at": list(pl.at)} for pl in state.plays[p]],
                "fish": count(state.shoals[p], FISH),
                "ascii": ascii_art(state.shoals[p]),
            } for p in state.players},
            "breakdown": {p: scored[p]["breakdown"] for p in state.players},
            "cards_per_player": CARDS_EACH,
            "played": list(state.played),
            "unplayed": [c for c in state.deck.cards if c not in state.played],
            "cards": {c.id: [list(r) for r in c.sections] for c in state.deck.cards.values()},
            "kinds": list(state.deck.kinds),
        }

    def scores(self, state: ShoalState) -> dict[str, int]:
        return {p: s["total"] for p, s in self.breakdown(state).items()}

    def describe(self, before: ShoalState, action: Action, after: ShoalState) -> str:
        return words.describe(before, action, after)

    def current(self, state: ShoalState) -> str | None:
        return None if state.over else state.player

    def ending(self, state: ShoalState) -> Ending | None:
        if not state.over:
            return None
        if state.tallied:
            return Ending(Termination.TALLY, "every shoal was counted at the table")
        return Ending(Termination.PLAYED_OUT, f"every player has laid {CARDS_EACH} cards")

    def players(self, state: ShoalState) -> Sequence[str]:
        return state.players


# Actions ------------------------------------------------------------------------


def _play(state: ShoalState, action: Action) -> ShoalState:
    if state.tallied:
        raise BrokenRule("the shoals are being counted (tallied): no card is laid after "
                         "the first tally; undo the tallies to go on laying")
    who = state.player
    if action.get("player", who) != who:
        raise NotYourTurn(f"it is {who}'s turn, not {action['player']}'s")
    if action.get("rotation", 0) != 0:
        raise BrokenRule("fish cards cannot be rotated: fish always swim to the left (lay "
                         "the card as printed, rotation 0)")
    card = _card(state, action.get("card"))
    at = _at(action.get("at"))
    placement.check(state.shoals[who], card, at, f"{who}'s")
    return replace(state, laid=(*state.laid, Play(card.id, at)))


def _tally(state: ShoalState, action: Action) -> ShoalState:
    who = action.get("player")
    if who not in state.players:
        raise Malformed(f"tally names the player whose shoal it counts: one of "
                        f"{', '.join(state.players)}, not {who!r}")
    layout = _tallied_shoal(action.get("cells"), state.deck.kinds, f"{who}'s shoal")
    return replace(state, tallied={**{p: v for p, v in state.tallied.items() if p != who},
                                   who: layout})


def _tallied_shoal(cells: object, kinds: Sequence[str], whose: str) -> Layout:
    """A shoal as counted on the table, from ``{"x,y": section}`` cells: one piece, no
    more sections than :data:`CARDS_EACH` cards show, fish of the deck's ``kinds``;
    shifted so its smallest x and y are 0 (as the camera names cells)."""
    if isinstance(cells, Mapping) and not cells:
        raise Malformed(f"{whose} has no sections: a tally gives the cells it shows, "
                        "like {\"0,0\": \"angel\", \"1,0\": \"empty\"}")
    try:
        layout = from_cells(cells)
    except BadLayout as err:
        raise Malformed(f"{whose}: {err}") from None
    foreign = foreign_fish(layout, kinds)
    if foreign is not None:
        (x, y), fish = foreign
        raise Malformed(f"{whose}: section {x},{y} shows {fish!r}, which no card of this "
                        f"game's deck shows ({', '.join(kinds)})")
    if not is_connected(layout):
        raise BrokenRule(f"{whose} is in pieces: every card lies on the shoal, so its "
                         "sections touch side by side; check the cells apart from the rest")
    if len(layout) > MOST_SECTIONS:
        raise BrokenRule(f"{whose} shows {len(layout)} sections, but {CARDS_EACH} cards show "
                         f"{MOST_SECTIONS} at most (each covers one of the shoal's)")
    return normalise(layout)


Shoal.actions = {
    "play": Rule({"card", "at", "player", "rotation"}, _play, "Layer a fish card",
                 {"card": "fish card", "at": "its top-left section at",
                  "rotation": "turned by"}),
    "tally": Rule({"player", "cells"}, _tally, "Count a shoal as it lies on the table",
                  {"player": "whose shoal", "cells": "its sections"}),
}


# Helpers ------------------------------------------------------------------------


def _deck(option: object) -> Deck:
    if option == "default":
        return default_deck()
    if not isinstance(option, dict):
        raise BadSetup("\"deck\" is \"default\" or an inline deck object with cards and goals")
    try:
        return load_deck(option)
    except BadDeck as err:
        raise BadSetup(str(err)) from None


def _card(state: ShoalState, cid: object) -> Card:
    if not isinstance(cid, str) or cid not in state.deck.cards:
        ids = list(state.deck.cards)
        span = f"{ids[0]} to {ids[-1]}" if len(ids) > 1 else ids[0]
        raise Malformed(f"there is no card {cid!r} in the deck ({span})")
    if cid in state.played:
        raise BrokenRule(f"each card is played once per game: {cid} is already in "
                            f"{state.played[cid]}'s shoal")
    return state.deck.cards[cid]


def _at(at: object) -> tuple[int, int]:
    if (not isinstance(at, list | tuple) or len(at) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in at)):
        raise Malformed(f"cards go at whole-section offsets: \"at\" is two whole numbers "
                            f"[x, y] (x right, y down), not {at!r}")
    return int(at[0]), int(at[1])


GAME = Shoal()
