"""Random legal Dr. Shark games, chosen from ``legal()`` the way a table might play."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from companion.games.drshark import GAME, DrSharkState
from companion.games.drshark.dossier import formable

Action = dict[str, Any]


def random_action(state: DrSharkState, rnd: random.Random, late: float = 0.0) -> Action:
    """One legal action: search until the clock or a mistake, form what can be formed,
    use services now and then. With ``late`` > 0 the timer is sometimes started before
    the dive is entered (and the dive sometimes never is: a timer-only turn); such games
    end with a ``tally`` of the dossiers as they are."""
    legal = {leg.type: leg for leg in GAME.legal(state) if leg.type != "tally"}
    cat = state.catalogue
    dive_now = (rnd.random() >= late if state.phase == "move" else rnd.random() < 0.7)
    if "move" in legal and dive_now:
        return {"type": "move", "space": rnd.choice(list(legal["move"].choices["space"]))}
    if "start_search" in legal:
        return {"type": "start_search"}
    clock = [t for t in ("time_up", "stop") if t in legal]
    if clock and rnd.random() < 0.15:
        return {"type": rnd.choice(clock)}
    if "draw" in legal:
        return {"type": "draw", "clue": _pick(state, legal["draw"].choices["clue"], rnd)}
    if "fistful" in legal:
        bag = list(legal["fistful"].choices["clues"])
        return {"type": "fistful", "clues": rnd.sample(bag, min(len(bag), rnd.randint(1, 6)))}
    if "select" in legal:
        by_colour: dict[str, str] = {}
        for c in legal["select"].choices["clues"]:
            if rnd.random() < 0.7:
                by_colour.setdefault(cat.clue(c).category, c)
        return {"type": "select", "clues": list(by_colour.values())}
    if "take" in legal:
        return {"type": "take", "clue": _pick(state, legal["take"].choices["clue"], rnd)}
    if "service" in legal and rnd.random() < 0.7:
        return _service(state, legal["service"].choices, rnd)
    if "skip_service" in legal:
        return {"type": "skip_service"}
    if "form" in legal and rnd.random() < 0.9:
        can = formable(state.mine, cat)
        eid = rnd.choice(list(legal["form"].choices["evidence"]))
        return {"type": "form", "evidence": eid, "clues": can[eid]}
    if "end_turn" in legal:
        return {"type": "end_turn"}
    if clock:
        return {"type": clock[0]}
    if state.phase == "tally":
        return tally_of(state)
    raise AssertionError(f"no action to choose from {sorted(legal)}")


def _pick(state: DrSharkState, clues: Any, rnd: random.Random) -> str:
    """Often a clue that completes evidence the dossier has begun, as a spy would."""
    cat = state.catalogue
    have = {(cat.clue(c).evidence, cat.clue(c).part) for c in state.mine.clues}
    begun = {e for e, _ in have}
    wanted = [c for c in clues if cat.clue(c).evidence in begun
              and (cat.clue(c).evidence, cat.clue(c).part) not in have]
    return rnd.choice(wanted if wanted and rnd.random() < 0.6 else list(clues))


def tally_of(state: DrSharkState) -> Action:
    """The tally a table would count from the dossiers as they are."""
    return {"type": "tally", "dossiers": {
        owner: {"evidence": dict(Counter(d.evidence)), "clues": d.clue_count}
        for owner, d in state.dossiers.items()}}


def _service(state: DrSharkState, choices: Any, rnd: random.Random) -> Action:
    target = rnd.choice(list(choices["from"]))
    # Name the dossier by a member now and then: a service's "from" may be a player.
    members = [p for p in state.players if state.owner(p) == target]
    who = rnd.choice([target, *members])
    action: Action = {"type": "service", "from": who,
                      "take": rnd.choice(list(state.dossiers[target].clues))}
    if "give" in choices:
        action["give"] = rnd.sample(list(choices["give"]), 2)
    return action


def random_game(players: list[str], options: dict[str, Any], seed: int,
                late: float = 0.0) -> tuple[list[Action], list[DrSharkState]]:
    """Actions and every state of one random legal game, played to its end."""
    rnd = random.Random(seed)
    state = GAME.new(players, options)
    actions, states = [], [state]
    while not GAME.is_over(state):
        action = random_action(state, rnd, late)
        state = GAME.apply(state, action)
        actions.append(action)
        states.append(state)
    return actions, states


def every_clue(state: DrSharkState) -> Counter[str]:
    """Bag + dossiers + box + mat, as a multiset of clue ids."""
    where: Counter[str] = Counter(state.bag)
    for d in state.dossiers.values():
        where.update(d.clues)
    where.update(state.box)
    if state.search:
        where.update(state.search.clues)
    return where
