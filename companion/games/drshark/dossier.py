"""Dossiers: unassigned clues and evidence tokens; forming evidence, the services of
Paoletta and Babanipoulos, the score, and the end-of-game tally.

Score = the points of every evidence token + 1 per unassigned clue. After a ``tally``
the clues are counted, not named: :attr:`Dossier.counted` holds their number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.engine import Action, BrokenRule, Malformed
from companion.games.drshark.catalogue import Catalogue, Evidence
from companion.games.drshark.search import clue_list


@dataclass(frozen=True)
class Dossier:
    clues: tuple[str, ...] = ()       # unassigned clues
    evidence: tuple[str, ...] = ()    # evidence ids, one per token (repeats allowed)
    counted: int | None = None        # tallied number of unassigned clues

    @property
    def clue_count(self) -> int:
        return len(self.clues) if self.counted is None else self.counted

    def points(self, catalogue: Catalogue) -> int:
        return sum(catalogue.evidence[e].points for e in self.evidence) + self.clue_count

    def to_json(self, catalogue: Catalogue) -> dict[str, Any]:
        return {"clues": list(self.clues), "evidence": list(self.evidence),
                "clue_count": self.clue_count, "points": self.points(catalogue)}


def form(dossier: Dossier, action: Action, catalogue: Catalogue) -> tuple[Dossier, Evidence]:
    """Complete one piece of evidence: one unassigned clue for each of its parts. The
    clues leave the dossier (to the box); the evidence token joins it."""
    eid = action.get("evidence")
    if not isinstance(eid, str) or eid not in catalogue.evidence:
        raise Malformed(f"there is no evidence {eid!r}: evidence is one of "
                            f"{', '.join(catalogue.evidence)}")
    evidence = catalogue.evidence[eid]
    ids = clue_list(action)
    parts: dict[str, str] = {}
    for c in ids:
        if c not in dossier.clues:
            raise BrokenRule(f"{c} is not an unassigned clue of this dossier")
        clue = catalogue.clue(c)
        if clue.evidence != eid:
            raise BrokenRule(f"{c} is part of {clue.evidence}, not of {eid}")
        if clue.part in parts:
            raise BrokenRule(f"{parts[clue.part]} and {c} are both part {clue.part} of "
                                f"{eid}: one clue per part")
        parts[str(clue.part)] = c
    missing = [p for p in evidence.parts if p not in parts]
    if missing:
        raise BrokenRule(f"{eid} needs one clue for each part {', '.join(evidence.parts)}; "
                            f"part {', '.join(missing)} is missing")
    left = tuple(c for c in dossier.clues if c not in ids)
    return replace(dossier, clues=left, evidence=(*dossier.evidence, eid)), evidence


def counted(dossiers: Mapping[str, Dossier]) -> dict[str, dict[str, Any]]:
    """The ``tally`` of the dossiers as they stand: evidence counts and loose clues."""
    return {owner: {"evidence": dict(Counter(d.evidence)), "clues": d.clue_count}
            for owner, d in dossiers.items()}


def formable(dossier: Dossier, catalogue: Catalogue) -> dict[str, list[str]]:
    """Evidence the dossier can form now, each with one choice of clues for its parts."""
    out = {}
    for e in catalogue.evidence.values():
        pick: dict[str, str] = {}
        for c in dossier.clues:
            clue = catalogue.clue(c)
            if clue.evidence == e.id and clue.part not in pick:
                pick[str(clue.part)] = c
        if len(pick) == len(e.parts):
            out[e.id] = [pick[p] for p in e.parts]
    return out


def serve(service: str, mine: Dossier, theirs: Dossier, action: Action,
          owner_name: str) -> tuple[Dossier, Dossier]:
    """Paoletta takes one unassigned clue from another dossier; Babanipoulos takes one
    and gives two of the spy's own unassigned clues (held before the trade) in return."""
    take = action.get("take")
    if not isinstance(take, str) or take not in theirs.clues:
        raise BrokenRule(f"{take!r} is not an unassigned clue of {owner_name}'s dossier: "
                            f"take one of {', '.join(theirs.clues) or '(none)'}")
    give = action.get("give", [])
    if service == "paoletta":
        if give:
            raise BrokenRule("Paoletta takes a clue and gives nothing back: leave out "
                                "\"give\"")
        return (replace(mine, clues=(*mine.clues, take)),
                replace(theirs, clues=tuple(c for c in theirs.clues if c != take)))
    if len(mine.clues) < 2:
        raise BrokenRule(f"Babanipoulos needs two of your unassigned clues to give in "
                            f"return and your dossier has {len(mine.clues)}: skip_service")
    given = clue_list({"type": "service", "give": give}, "give")
    if len(given) != 2:
        raise BrokenRule(f"Babanipoulos gives exactly two of your clues in return, not "
                            f"{len(given)}")
    for c in given:
        if c not in mine.clues:
            raise BrokenRule(f"{c} is not an unassigned clue of your dossier: give two "
                                "of your own")
    return (replace(mine, clues=(*(c for c in mine.clues if c not in given), take)),
            replace(theirs, clues=(*(c for c in theirs.clues if c != take), *given)))


def tally(action: Action, owners: list[str], owner_of: Callable[[object], str | None],
          catalogue: Catalogue) -> dict[str, Dossier]:
    """The final dossiers a timer-only table counted: ``{who: {"evidence": {id: n},
    "clues": n}}`` for every dossier (a player, or in team play a team or a member)."""
    raw = action.get("dossiers")
    if not isinstance(raw, dict):
        raise Malformed("tally needs \"dossiers\": {who: {\"evidence\": {evidence id: "
                            "count}, \"clues\": n}}")
    out: dict[str, Dossier] = {}
    for who, spec in raw.items():
        owner = owner_of(who)
        if owner is None:
            raise Malformed(f"{who!r} has no dossier: name one of {', '.join(owners)}")
        if owner in out:
            raise BrokenRule(f"{owner}'s dossier is counted twice in the tally")
        out[owner] = _counted(owner, spec, catalogue)
    missing = [o for o in owners if o not in out]
    if missing:
        raise BrokenRule(f"the tally must count every dossier; {', '.join(missing)} is "
                            "missing (give zeros for an empty one)")
    for eid in catalogue.evidence:
        tokens = sum(d.evidence.count(eid) for d in out.values())
        if tokens > catalogue.copies(eid):
            raise BrokenRule(f"the tally counts {tokens} {eid} evidence but the game "
                                f"has only {catalogue.copies(eid)}")
    pieces = sum(1 for c in catalogue.clues.values() if not c.shark)
    used = sum(d.clue_count + sum(len(catalogue.evidence[e].parts) for e in d.evidence)
               for d in out.values())
    if used > pieces:
        raise BrokenRule(f"the tally counts {used} clues in dossiers and evidence but "
                            f"the game has only {pieces}")
    return {o: out[o] for o in owners}


def _counted(owner: str, spec: object, catalogue: Catalogue) -> Dossier:
    if not isinstance(spec, dict) or set(spec) - {"evidence", "clues"}:
        raise Malformed(f"{owner}'s tally is {{\"evidence\": {{id: count}}, "
                            "\"clues\": n}")
    evidence = spec.get("evidence", {})
    clues = spec.get("clues", 0)
    if not isinstance(evidence, dict):
        raise Malformed(f"{owner}'s evidence is {{evidence id: count}}")
    tokens: list[str] = []
    for eid, n in evidence.items():
        if eid not in catalogue.evidence:
            raise Malformed(f"{owner}: there is no evidence {eid!r}; evidence is one of "
                                f"{', '.join(catalogue.evidence)}")
        if not _count(n):
            raise Malformed(f"{owner}: the count of {eid} must be a whole number >= 0")
        tokens += [eid] * n
    if not _count(clues):
        raise Malformed(f"{owner}: \"clues\" is the number of unassigned clues (>= 0)")
    return Dossier((), tuple(tokens), clues)


def _count(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 1000


def where(dossiers: Mapping[str, Dossier]) -> dict[str, str]:
    """Clue id -> the dossier it is in, for error messages."""
    return {c: f"in {owner}'s dossier" for owner, d in dossiers.items() for c in d.clues}
