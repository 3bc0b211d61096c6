"""The log's lines for Dr. Shark, in the rulebook's words.

``PHRASES`` maps an action type to a function of (state before, action, state after)
that says what happened after the player's name; :func:`describe` adds the name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.engine import Action
from companion.words import listed, plural

if TYPE_CHECKING:
    from companion.games.drshark.catalogue import Catalogue
    from companion.games.drshark.rules import DrSharkState

METHOD = {"shape": "every clue a new shape", "different": "every clue a new texture",
          "same": "every clue the first one's texture", "fistful": "the fistful",
          "observation": "observation: one clue of choice"}
SERVICE = {"paoletta": "Paoletta", "babanipoulos": "Babanipoulos"}


def _space(name: object) -> str:
    area, _, shade = str(name).partition("-")
    return f"the {shade} space of area {area}" if shade else str(name)


def _clue(catalogue: Catalogue, clue_id: object) -> str:
    """A clue as its piece reads, as the page names it: ``"treasure map c (heart,
    Maps)"``, ``"a shark (star, Maps)"``; an id the catalogue lacks as it was given."""
    clue = catalogue.clues.get(str(clue_id))
    if clue is None:
        return str(clue_id)
    category = catalogue.categories.get(clue.category)
    return (f"{catalogue.piece(clue.id)} ({clue.shape}, "
            f"{category.name if category else clue.category})")


def _evidence(evidence_id: object) -> str:
    """Evidence by its name: the catalogue's ids join words with "-"."""
    return str(evidence_id).replace("-", " ")


def _clues(catalogue: Catalogue, value: object) -> str:
    return listed([_clue(catalogue, c) for c in value] if isinstance(value, list) else [])


def _ended(after: DrSharkState) -> str:
    """How the search ended, if it did with this action."""
    search = after.search
    if search is None or search.ended is None:
        return ""
    kept = f"{plural(len(search.kept), 'clue')} to" if search.kept else "nothing for"
    note = f" ({search.note})" if search.note else ""
    return f"; the search ends{note}, {kept} the dossier"


def _move(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return f"dived onto {_space(action.get('space'))}"


def _start_search(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    search = after.search
    if search is None or search.method is None:
        return "started the timer"
    return f"started the search of area {search.area} ({METHOD[search.method]})"


def _draw(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return f"drew {_clue(before.catalogue, action.get('clue'))}{_ended(after)}"


def _fistful(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    clues = action.get("clues")
    n = len(clues) if isinstance(clues, list) else 0
    return (f"pulled out a fistful of {plural(n, 'clue')}: {_clues(before.catalogue, clues)}"
            f"{_ended(after)}")


def _select(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return f"selected {_clues(before.catalogue, action.get('clues'))}{_ended(after)}"


def _take(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return f"took {_clue(before.catalogue, action.get('clue'))}{_ended(after)}"


def _clock(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    said = "ran out of time" if action.get("type") == "time_up" else "stopped the search"
    if after.search is not None and after.search.clock and after.search.ended is None:
        return f"{said}; now says which clues were selected in time"
    return said + _ended(after)


def _form(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    eid = str(action.get("evidence"))
    evidence = before.catalogue.evidence.get(eid)
    points = f" ({plural(evidence.points, 'point')})" if evidence else ""
    text = f"formed the {_evidence(eid)} evidence{points}"
    if after.service and not before.service:
        text += f", which calls {SERVICE.get(after.service, after.service)}'s service"
    return _unselected(before, after) + text


def _service(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    name = SERVICE.get(str(before.service), str(before.service))
    take = _clue(before.catalogue, action.get("take"))
    text = f"used {name}'s service: took {take} from {action.get('from')}"
    give = action.get("give")
    return text + (f" and gave {_clues(before.catalogue, give)}" if give else "")


def _skip_service(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return f"declined {SERVICE.get(str(before.service), str(before.service))}'s service"


def _end_turn(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return _unselected(before, after) + "ended the turn"


def _unselected(before: DrSharkState, after: DrSharkState) -> str:
    """Area D after the clock without a select: the fistful went back to the bag."""
    search = before.search
    if before.phase == "search" and search is not None and search.clock:
        return "selected nothing in time (the fistful goes back to the bag) and "
    return ""


def _tally(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    return "counted the dossiers at the table"


PHRASES: dict[str, Callable[[DrSharkState, Action, DrSharkState], str]] = {
    "move": _move, "start_search": _start_search, "draw": _draw, "fistful": _fistful,
    "select": _select, "take": _take, "time_up": _clock, "stop": _clock, "form": _form,
    "service": _service, "skip_service": _skip_service, "end_turn": _end_turn,
    "tally": _tally,
}


def describe(before: DrSharkState, action: Action, after: DrSharkState) -> str:
    """``"Ann drew treasure map c (heart, Maps); the search ends, 1 clue to the
    dossier."``"""
    text = f"{before.player} {PHRASES[str(action.get('type'))](before, action, after)}."
    if after.ended and not before.ended:
        text += f" The game is over: {after.ended.reason}."
    return text
