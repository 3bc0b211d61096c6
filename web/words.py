"""Actions told in words for the dashboard's log ("Ann flipped C4: an object")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Action = dict[str, Any]


def _list(value: object) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "nothing"
    return str(value)


def _at(value: object) -> str:
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"{value[0]},{value[1]}"
    return str(value)


def _roll(a: Action) -> str:
    if "company" not in a and "area" not in a:
        return "rolled the dice"
    return f"rolled {a.get('company')} and area {a.get('area')}"


def _service(a: Action) -> str:
    text = f"used {a.get('from')}'s service, taking {_list(a.get('take'))}"
    return text + (f" and giving {_list(a['give'])}" if a.get("give") else "")


def _flip(a: Action) -> str:
    face = a.get("face")
    shown = {"blank": "a blank", "sleeper": "a sleeper", "object": "an object"}
    return f"flipped {a.get('cell')}" + (f": {shown.get(face, face)}" if face else "")


PHRASES: dict[str, dict[str, Callable[[Action], str]]] = {
    "poodivers": {
        "flip": _flip,
        "bank": lambda a: "banked the turn's points",
        "peek": lambda a: f"peeked at {a.get('cell')}",
    },
    "shark": {
        "choose_stock": lambda a: f"chose a {a.get('company')} share",
        "roll": _roll,
        "place": lambda a: f"built {a.get('company')} at {a.get('cell')}",
        "remove_neutral": lambda a: f"removed the neutral building at {a.get('cell')}",
        "buy": lambda a: f"bought {a.get('count')} {a.get('company')}",
        "sell": lambda a: f"sold {a.get('count')} {a.get('company')}",
        "forced_sell": lambda a: (f"made {a.get('player')} sell {a.get('count')} "
                                  f"{a.get('company')}"),
        "end_turn": lambda a: "ended the turn",
    },
    "drshark": {
        "move": lambda a: f"moved to {a.get('space')}",
        "start_search": lambda a: "started a search",
        "draw": lambda a: f"drew {a.get('clue')}",
        "fistful": lambda a: f"grabbed a fistful: {_list(a.get('clues'))}",
        "select": lambda a: f"kept {_list(a.get('clues'))}",
        "take": lambda a: f"took {a.get('clue')}",
        "time_up": lambda a: "ran out of time",
        "stop": lambda a: "stopped the search",
        "form": lambda a: f"formed {a.get('evidence')} from {_list(a.get('clues'))}",
        "service": _service,
        "skip_service": lambda a: "skipped the services",
        "end_turn": lambda a: "ended the turn",
        "tally": lambda a: "entered the final tally",
    },
    "shoal": {
        "play": lambda a: f"played {a.get('card')} at {_at(a.get('at'))}",
    },
}


def describe(game: str, action: Action, who: str | None) -> str:
    """One log line: who did what, in the game's words."""
    kind = str(action.get("type"))
    phrase = PHRASES.get(game, {}).get(kind)
    if phrase is not None:
        text = phrase(action)
    else:
        args = ", ".join(f"{k} {_list(v)}" for k, v in action.items() if k != "type")
        text = kind.replace("_", " ") + (f" ({args})" if args else "")
    return f"{who}: {text}" if who else text
