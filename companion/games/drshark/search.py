"""The five search methods of Dr. Shark, one small class each.

A search starts with ``start_search`` and runs until a method ends it (a mistake, a
shark, the select of area D, the take of area E) or the clock does (``time_up``, or
``stop`` when the searcher gives up). Each method turns one action into a :class:`Step`:
the new :class:`Search`, the clues that came out of the bag and those that went back.
The engine moves the clues; when the search has ended, what is on the mat goes to the
dossier.

- A ``shape``, B ``different``, C ``same``: ``draw`` one clue at a time; a shark or a clue
  that breaks the area's rule goes back to the bag and ends the search.
- D ``fistful``: ``fistful`` names everything pulled out; sharks and every clue of a
  colour a shark has go back; ``select`` keeps at most one clue per colour left.
- E ``observation``: ``take`` one clue of choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from companion.engine import Action, BrokenRule, Legal, Malformed
from companion.games.drshark.catalogue import Catalogue, Clue


@dataclass(frozen=True)
class Search:
    """The search of this turn. ``clues`` are the clues on the mat (for D: the fistful
    spread on the table); ``kept`` went to the dossier when it ended; ``returned`` went
    back to the bag. ``clock`` is set when the clock stopped area D's sorting: the
    searcher then says what had been selected in time."""

    area: str | None                  # None: a timer-only turn (no move recorded)
    method: str | None
    step: str                         # draw, fistful, select, take, timer, over
    clues: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()
    ended: str | None = None          # mistake, shark, time_up, stop, done
    clock: str | None = None
    note: str = ""

    def end(self, why: str, note: str = "", back: Sequence[str] = ()) -> Search:
        return replace(self, step="over", ended=why, kept=self.clues, clues=(),
                       returned=self.returned + tuple(back), note=note or self.note)

    def to_json(self) -> dict[str, Any]:
        return {"area": self.area, "method": self.method, "step": self.step,
                "clues": list(self.clues), "kept": list(self.kept),
                "returned": list(self.returned), "ended": self.ended, "clock": self.clock,
                "note": self.note}


@dataclass(frozen=True)
class Step:
    search: Search
    drawn: tuple[str, ...] = ()       # out of the bag
    back: tuple[str, ...] = ()        # into the bag


@dataclass(frozen=True)
class Bag:
    """The clues in the bag, and where every other clue is (for the error messages)."""

    clues: frozenset[str]
    catalogue: Catalogue
    elsewhere: Mapping[str, str]      # clue id -> "in Ann's dossier", "in the box", ...

    def take(self, raw: object) -> Clue:
        """The clue called ``raw``, which must be in the bag."""
        if not isinstance(raw, str) or raw not in self.catalogue.clues:
            raise Malformed(f"there is no clue {raw!r} in this game's catalogue")
        if raw not in self.clues:
            raise BrokenRule(f"{raw} is not in the bag: it is "
                                f"{self.elsewhere.get(raw, 'out of the game')}")
        return self.catalogue.clue(raw)

    def sorted(self) -> list[str]:
        return self.catalogue.in_order(self.clues)


def clue_list(action: Action, key: str = "clues") -> list[str]:
    raw = action.get(key)
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        raise Malformed(f"{action['type']} needs \"{key}\", a list of clue ids")
    if len(set(raw)) != len(raw):
        raise Malformed(f"{action['type']} names a clue twice")
    return raw


class Method:
    """A search method: which actions it takes and what they do."""

    name: ClassVar[str]
    first: ClassVar[str]              # the step a search starts in

    def legal(self, search: Search, bag: Bag) -> list[Legal]:
        raise NotImplementedError

    def act(self, search: Search, action: Action, bag: Bag) -> Step:
        raise NotImplementedError

    def clock(self, search: Search, why: str) -> Step:
        """Time is up or the searcher stops: whatever is on the mat is kept."""
        return Step(search.end(why))


class OneByOne(Method):
    """Areas A, B, C: clues drawn one by one, each checked against the mat."""

    first = "draw"

    def fits(self, clue: Clue, mat: list[Clue], catalogue: Catalogue) -> str | None:
        """``None`` when ``clue`` may join the mat, else the mistake in table words."""
        raise NotImplementedError

    def legal(self, search: Search, bag: Bag) -> list[Legal]:
        return [Legal("draw", {"clue": bag.sorted()})]

    def act(self, search: Search, action: Action, bag: Bag) -> Step:
        if action["type"] != "draw":
            raise BrokenRule(f"area {search.area} is searched by drawing clues one by "
                                "one (draw), not with " + action["type"])
        clue = bag.take(action.get("clue"))
        if clue.shark:
            return Step(search.end("shark", "the sharks are getting too close: out of "
                                   "the pool!",
                                   (clue.id,)), (clue.id,), (clue.id,))
        mat = [bag.catalogue.clue(c) for c in search.clues]
        mistake = self.fits(clue, mat, bag.catalogue)
        if mistake:
            return Step(search.end("mistake", mistake, (clue.id,)), (clue.id,), (clue.id,))
        return Step(replace(search, clues=(*search.clues, clue.id)), (clue.id,))


def texture(clue: Clue, catalogue: Catalogue) -> str:
    """A clue's texture for messages: "stripes, Fake Documents", or its category."""
    category = catalogue.categories.get(clue.category)
    if category and category.texture:
        return f"{category.texture}, {category.name}"
    return clue.category


class ByShape(OneByOne):
    """Area A: every clue a shape not yet on the mat."""

    name = "shape"

    def fits(self, clue: Clue, mat: list[Clue], catalogue: Catalogue) -> str | None:
        if any(c.shape == clue.shape for c in mat):
            return f"{catalogue.piece(clue.id)} is {clue.shape}, a shape already on the mat"
        return None


class DifferentTextures(OneByOne):
    """Area B: every clue a texture (category) not yet on the mat."""

    name = "different"

    def fits(self, clue: Clue, mat: list[Clue], catalogue: Catalogue) -> str | None:
        if any(c.category == clue.category for c in mat):
            return (f"{catalogue.piece(clue.id)} has a texture ({texture(clue, catalogue)}) "
                    "already on the mat")
        return None


class SameTexture(OneByOne):
    """Area C: every clue the texture (category) of the first."""

    name = "same"

    def fits(self, clue: Clue, mat: list[Clue], catalogue: Catalogue) -> str | None:
        if mat and mat[0].category != clue.category:
            return (f"{catalogue.piece(clue.id)} has texture {texture(clue, catalogue)}, not "
                    f"{texture(mat[0], catalogue)} like the first clue")
        return None


class ByFistful(Method):
    """Area D: one fistful; a shark sends its whole colour back; then one clue per
    colour left is selected, the rest go back."""

    name = "fistful"
    first = "fistful"

    def legal(self, search: Search, bag: Bag) -> list[Legal]:
        if search.step == "fistful":
            return [Legal("fistful", {"clues": bag.sorted()})]
        return [Legal("select", {"clues": list(search.clues)})]

    def act(self, search: Search, action: Action, bag: Bag) -> Step:
        if action["type"] != search.step:
            raise BrokenRule(f"area {search.area} is searched by the fistful: "
                                f"{search.step} comes next, not {action['type']}")
        if search.step == "fistful":
            return self._fistful(search, action, bag)
        return self._select(search, action, bag.catalogue)

    def _fistful(self, search: Search, action: Action, bag: Bag) -> Step:
        ids = clue_list(action)
        if not ids:
            raise BrokenRule("a fistful holds at least one clue")
        clues = [bag.take(c) for c in ids]
        colours = {c.category for c in clues if c.shark}
        back = tuple(c.id for c in clues if c.category in colours)
        spread = tuple(c.id for c in clues if c.category not in colours)
        names = sorted(bag.catalogue.categories[c].name if c in bag.catalogue.categories
                       else c for c in colours)
        note = (f"shark! back to the bag: every {' and every '.join(names)} clue"
                if colours else "")
        if not spread:
            return Step(search.end("shark", note, back), tuple(ids), back)
        found = replace(search, step="select", clues=spread,
                        returned=search.returned + back, note=note)
        return Step(found, tuple(ids), back)

    def _select(self, search: Search, action: Action, catalogue: Catalogue) -> Step:
        ids = clue_list(action)
        for c in ids:
            if c not in search.clues:
                raise BrokenRule(f"{c} is not among the sorted clues: select from "
                                    f"{', '.join(search.clues)}")
        seen: dict[str, str] = {}
        for c in ids:
            colour = catalogue.clue(c).category
            if colour in seen:
                raise BrokenRule(f"{seen[colour]} and {c} have the same colour "
                                    f"({colour}): select one clue per colour")
            seen[colour] = c
        back = tuple(c for c in search.clues if c not in ids)
        kept = replace(search, clues=tuple(ids))
        return Step(kept.end(search.clock or "done", back=back), (), back)

    def clock(self, search: Search, why: str) -> Step:
        if search.step == "select":
            # The clues are sorted: the searcher says which were selected in time.
            return Step(replace(search, clock=why))
        return Step(search.end(why))


class ByObservation(Method):
    """Area E: look in the bag and take one clue of choice."""

    name = "observation"
    first = "take"

    def legal(self, search: Search, bag: Bag) -> list[Legal]:
        clues = [c for c in bag.sorted() if not bag.catalogue.clue(c).shark]
        return [Legal("take", {"clue": clues})]

    def act(self, search: Search, action: Action, bag: Bag) -> Step:
        if action["type"] != "take":
            raise BrokenRule(f"area {search.area} is searched by observation: take one "
                                f"clue, not {action['type']}")
        clue = bag.take(action.get("clue"))
        if clue.shark:
            raise BrokenRule("a shark is not a clue: take a clue")
        taken = replace(search, clues=(clue.id,))
        return Step(taken.end("done"), (clue.id,))


METHODS: dict[str, Method] = {
    m.name: m for m in (ByShape(), DifferentTextures(), SameTexture(), ByFistful(),
                        ByObservation())
}


def started(area: str | None, method: str | None) -> Search:
    """A search at its start; ``area`` None for a timer-only turn."""
    if method is None:
        return Search(None, None, "timer")
    return Search(area, method, METHODS[method].first)


def waiting(search: Search) -> bool:
    """Whether the clock still runs: ``time_up`` and ``stop`` are allowed."""
    return search.ended is None and search.clock is None
