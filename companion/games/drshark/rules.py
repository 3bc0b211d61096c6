"""Dr. Shark: the companion as referee of the search and keeper of the dossiers.

A turn: ``move`` to an empty space in another area, ``start_search`` (the timer), the
search of that area (``search.py``), then the dossier: ``form`` evidence,
``service``/``skip_service`` after evidence that calls Paoletta or Babanipoulos, and
``end_turn``. The turn marker advances after the last seat; the game ends after the last
round. Rulings: ``rules/RULINGS.md``; the table's choices where the rules are silent are
in ``docs/drshark.md``.

Timer-only tables: ``start_search`` is allowed before a ``move``. If no move is recorded
by the time the clock ends the search (``time_up``/``stop``), the turn was timer-only
and passes on by itself; after the last round such a game waits for a ``tally`` of the
dossiers counted at the table. A ``tally`` may also be given at any time before the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from companion.engine import (
    Action,
    BadSetup,
    BrokenRule,
    Ending,
    Game,
    Legal,
    Malformed,
    Rule,
    Termination,
)
from companion.games.drshark import board as boards
from companion.games.drshark import catalogue as catalogues
from companion.games.drshark import dossier as dossiers
from companion.games.drshark import words
from companion.games.drshark.board import DARK_FROM, Board
from companion.games.drshark.catalogue import Catalogue
from companion.games.drshark.dossier import Dossier
from companion.games.drshark.search import METHODS, Bag, Search, Step, started, waiting

ROUNDS = {2: 10, 3: 10, 4: 8, 5: 8, 6: 6}
TEAM_ROUNDS = {4: 6, 6: 6}
SERVICE_NAMES = {"paoletta": "Paoletta", "babanipoulos": "Babanipoulos"}


@dataclass(frozen=True)
class DrSharkState:
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...]     # () in individual play
    board: Board
    catalogue: Catalogue
    rounds: int
    positions: Mapping[str, str | None]
    dossiers: Mapping[str, Dossier]        # by owner: player, or team "Ann+Cid"
    bag: frozenset[str]
    box: tuple[str, ...] = ()
    round: int = 1
    seat: int = 0
    phase: str = "move"                    # move, search, dossier, tally, over
    moved: bool = False
    search: Search | None = None
    service: str | None = None             # a service waiting to be used or skipped
    service_used: bool = False
    untracked: bool = False                # a timer-only turn was played
    ended: Ending | None = None

    @property
    def player(self) -> str:
        return self.players[self.seat]

    def owner(self, player: str) -> str:
        """The dossier a player builds: their own, or their team's."""
        for team in self.teams:
            if player in team:
                return "+".join(team)
        return player

    @property
    def mine(self) -> Dossier:
        return self.dossiers[self.owner(self.player)]

    def owner_of(self, name: object) -> str | None:
        """The dossier ``name`` means: a player, or in team play a team or a member."""
        if isinstance(name, str) and name in self.dossiers:
            return name
        if isinstance(name, str) and name in self.players:
            return self.owner(name)
        return None

    def bag_view(self) -> Bag:
        elsewhere = dossiers.where(self.dossiers)
        elsewhere.update(dict.fromkeys(self.box, "in the box"))
        if self.search:
            elsewhere.update(dict.fromkeys(self.search.clues, "on the mat"))
        return Bag(self.bag, self.catalogue, elsewhere)


def teams_of(players: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Pairs sitting alternately: [P1..P4] -> P1+P3, P2+P4; six -> P1+P4, P2+P5, P3+P6."""
    half = len(players) // 2
    return tuple((players[i], players[i + half]) for i in range(half))


class DrShark(Game[DrSharkState]):
    name = "drshark"
    title = "Dr. Shark"
    min_players, max_players = 2, 6
    actions: ClassVar[Mapping[str, Rule[DrSharkState]]]

    def new(self, players: Sequence[str], options: Mapping[str, Any]) -> DrSharkState:
        unknown = set(options) - {"teams", "catalogue", "board"}
        if unknown:
            raise BadSetup(f"unknown option {sorted(unknown)[0]!r}: Dr. Shark takes teams, "
                           "catalogue and board")
        names = tuple(self.check_players(players))
        teams = options.get("teams", False)
        if not isinstance(teams, bool):
            raise BadSetup("\"teams\" is true or false")
        if len(names) == 6:
            teams = True        # six spies always play as teams of two
        if teams and len(names) != 4 and len(names) != 6:
            raise BadSetup(f"team play needs 4 or 6 spies, not {len(names)}")
        if teams and any("+" in n for n in names):
            raise BadSetup("in team play a name may not contain \"+\" (it joins team names)")
        board = boards.load(options.get("board", "default"))
        boards.check_room(board, len(names))
        catalogue = catalogues.load(options.get("catalogue", "default"))
        pairs = teams_of(names) if teams else ()
        owners = ["+".join(t) for t in pairs] if pairs else list(names)
        return DrSharkState(
            players=names, teams=pairs, board=board, catalogue=catalogue,
            rounds=(TEAM_ROUNDS if teams else ROUNDS)[len(names)],
            positions=dict.fromkeys(names), dossiers={o: Dossier() for o in owners},
            bag=frozenset(catalogue.clues),
        )

    # Queries -------------------------------------------------------------------

    def legal(self, state: DrSharkState) -> list[Legal]:
        """What may happen next. ``start_search`` is listed exactly when the hardware
        START may begin a search; ``time_up`` and ``stop`` exactly while the clock runs."""
        p = state.player
        out: list[Legal] = []
        if state.phase == "move":
            if not state.moved:
                out.append(Legal("move", {"space": free_spaces(state)}, p))
            out.append(Legal("start_search", player=p))
        elif state.phase == "search":
            assert state.search is not None
            search = state.search
            if search.method is None and not state.moved:
                out.append(Legal("move", {"space": free_spaces(state)}, p))
            if search.method is not None:
                method = METHODS[search.method]
                out += [replace(leg, player=p)
                        for leg in method.legal(search, state.bag_view())]
            if waiting(search):
                out += [Legal("time_up", player=p), Legal("stop", player=p)]
            elif search.ended is None:    # area D after the clock: select, or nothing
                out += self._dossier_legal(_unselected(state))
        elif state.phase == "dossier":
            out += self._dossier_legal(state)
        if state.phase != "over":
            out.append(Legal("tally", {"dossiers": [dossiers.counted(state.dossiers)]}))
        return out

    def _dossier_legal(self, state: DrSharkState) -> list[Legal]:
        p = state.player
        if state.service is not None:
            out = [Legal("skip_service", player=p)]
            takers = service_targets(state)
            if takers and (state.service == "paoletta" or len(state.mine.clues) >= 2):
                choices: dict[str, list[Any]] = {
                    "from": list(takers),
                    "take": [c for t in takers for c in state.dossiers[t].clues]}
                if state.service == "babanipoulos":
                    choices["give"] = list(state.mine.clues)
                out.insert(0, Legal("service", choices, p))
            return out
        out = []
        can = dossiers.formable(state.mine, state.catalogue)
        if can:
            clues = [c for chosen in can.values() for c in chosen]
            out.append(Legal("form", {"evidence": list(can), "clues": clues}, p))
        out.append(Legal("end_turn", player=p))
        return out

    def view(self, state: DrSharkState) -> dict[str, Any]:
        cat = state.catalogue
        return {
            "round": state.round,
            "rounds": state.rounds,
            "phase": state.phase,
            "player": None if state.phase == "over" else state.player,
            "positions": dict(state.positions),
            "dossiers": {o: d.to_json(cat) for o, d in state.dossiers.items()},
            "bag": cat.in_order(state.bag),
            "box": list(state.box),
            "search": state.search.to_json() if state.search else None,
            "teams": {"+".join(t): list(t) for t in state.teams} or None,
            "service": state.service,
            "service_used": state.service_used,
            "moved": state.moved,
            "untracked": state.untracked,
            "ended": state.ended.reason if state.ended else None,
            "board": state.board.to_json(),
            "catalogue": cat.to_json(),
        }

    def scores(self, state: DrSharkState) -> dict[str, int]:
        return {o: d.points(state.catalogue) for o, d in state.dossiers.items()}

    def describe(self, before: DrSharkState, action: Action, after: DrSharkState) -> str:
        return words.describe(before, action, after)

    def current(self, state: DrSharkState) -> str | None:
        return None if state.phase == "over" else state.player

    def ending(self, state: DrSharkState) -> Ending | None:
        return state.ended

    def players(self, state: DrSharkState) -> Sequence[str]:
        return state.players


# The turn -------------------------------------------------------------------------


def free_spaces(state: DrSharkState) -> list[str]:
    """Empty usable spaces in another area than the current player's token."""
    here = state.positions[state.player]
    area = state.board.spaces[here].area if here else None
    taken = set(state.positions.values())
    return [s.id for s in state.board.usable(len(state.players))
            if s.id not in taken and s.area != area]


def _move(state: DrSharkState, action: Action) -> DrSharkState:
    searching = state.phase == "search" and state.search and state.search.method is None
    if state.phase != "move" and not searching:
        raise BrokenRule("a spy dives at the start of the turn, before searching")
    if state.moved:
        raise BrokenRule(f"{state.player} has dived this turn already (undo to change it)")
    space = action.get("space")
    spaces = state.board.spaces
    if not isinstance(space, str) or space not in spaces:
        raise Malformed(f"there is no space {space!r}: spaces are {', '.join(spaces)}")
    if spaces[space].dark and len(state.players) < DARK_FROM:
        raise BrokenRule(f"{space} is a dark space: they are only used with "
                            f"{DARK_FROM} or more spies")
    holder = next((p for p, s in state.positions.items() if s == space), None)
    if holder is not None:
        raise BrokenRule(f"{space} is taken by {holder}: dive onto an empty space")
    here = state.positions[state.player]
    area = spaces[space].area
    if here is not None and spaces[here].area == area:
        raise BrokenRule(f"{state.player} is in area {area} already: dive into "
                            "another area")
    state = replace(state, positions={**state.positions, state.player: space}, moved=True)
    if searching:   # the timer was started before the dive was entered
        return replace(state, search=started(area, state.board.methods[area]))
    return state


def _start_search(state: DrSharkState, action: Action) -> DrSharkState:
    if state.phase != "move":
        raise BrokenRule(f"{state.player} has searched this turn already"
                            if state.phase != "tally" else "all rounds are played: tally")
    if not state.moved:
        return replace(state, phase="search", search=started(None, None))
    here = state.positions[state.player]
    assert here is not None
    area = state.board.spaces[here].area
    return replace(state, phase="search", search=started(area, state.board.methods[area]))


def _search(state: DrSharkState, action: Action) -> DrSharkState:
    search = _running(state, action["type"])
    if search.method is None:
        raise BrokenRule("record the dive (move) first: the search method is the "
                            "area's")
    step = METHODS[search.method].act(search, action, state.bag_view())
    return _stepped(state, step)


def _clock(state: DrSharkState, action: Action) -> DrSharkState:
    search = _running(state, action["type"])
    if not waiting(search):
        raise BrokenRule(f"the clock has stopped ({search.clock}): say which clues "
                            "were selected in time (select)")
    if search.method is None:     # timer-only turn: nothing to organise
        state = replace(state, search=search.end(action["type"]), untracked=True)
        return _next_turn(state)
    return _stepped(state, METHODS[search.method].clock(search, action["type"]))


def _running(state: DrSharkState, kind: str) -> Search:
    if state.phase == "move":
        raise BrokenRule(f"{kind} comes during a search: start the search first")
    if state.phase != "search" or state.search is None:
        raise BrokenRule(f"{state.player}'s search is over: organise the dossier or "
                            "end_turn")
    return state.search


def _stepped(state: DrSharkState, step: Step) -> DrSharkState:
    """Move the clues of one search step; at the search's end the mat joins the dossier."""
    bag = (state.bag - set(step.drawn)) | set(step.back)
    state = replace(state, bag=bag, search=step.search)
    if step.search.ended is None:
        return state
    owner = state.owner(state.player)
    mine = state.dossiers[owner]
    mine = replace(mine, clues=(*mine.clues, *step.search.kept))
    return replace(state, phase="dossier", dossiers={**state.dossiers, owner: mine})


def _unselected(state: DrSharkState) -> DrSharkState:
    """Area D after the clock, when the dossier phase begins without a ``select``:
    nothing was selected in time and the whole fistful goes back to the bag
    (RULINGS.md). Any other state is returned as it is."""
    search = state.search
    if state.phase != "search" or search is None or search.clock is None:
        return state
    ended = replace(search, clues=()).end(
        search.clock, "nothing was selected in time: the fistful goes back to the bag",
        search.clues)
    return _stepped(state, Step(ended, (), search.clues))


def _in_dossier(state: DrSharkState, kind: str) -> DrSharkState:
    state = _unselected(state)
    if state.phase != "dossier":
        raise BrokenRule(f"{kind} comes after the search, when the dossier is organised")
    return state


def _form(state: DrSharkState, action: Action) -> DrSharkState:
    state = _in_dossier(state, "form")
    if state.service is not None:
        raise BrokenRule(f"first use {SERVICE_NAMES[state.service]}'s service or "
                            "skip it")
    mine, evidence = dossiers.form(state.mine, action, state.catalogue)
    owner = state.owner(state.player)
    state = replace(state, dossiers={**state.dossiers, owner: mine},
                    box=(*state.box, *action["clues"]))
    if evidence.service and not state.service_used:
        state = replace(state, service=evidence.service)
    return state


def service_targets(state: DrSharkState) -> list[str]:
    me = state.owner(state.player)
    return [o for o, d in state.dossiers.items() if o != me and d.clues]


def _service(state: DrSharkState, action: Action) -> DrSharkState:
    state = _in_dossier(state, "service")
    if state.service is None:
        why = ("one service per turn: this evidence's service is ignored"
               if state.service_used else "no evidence formed this turn calls a service")
        raise BrokenRule(why)
    target = state.owner_of(action.get("from"))
    me = state.owner(state.player)
    if target is None:
        raise Malformed(f"{action.get('from')!r} has no dossier: take from one of "
                            f"{', '.join(o for o in state.dossiers if o != me)}")
    if target == me:
        raise BrokenRule("a service takes a clue from another spy's dossier")
    mine, theirs = dossiers.serve(state.service, state.dossiers[me], state.dossiers[target],
                                  action, target)
    return replace(state, dossiers={**state.dossiers, me: mine, target: theirs},
                   service=None, service_used=True)


def _skip_service(state: DrSharkState, action: Action) -> DrSharkState:
    state = _in_dossier(state, "skip_service")
    if state.service is None:
        raise BrokenRule("there is no service to skip")
    return replace(state, service=None)


def _end_turn(state: DrSharkState, action: Action) -> DrSharkState:
    state = _unselected(state)
    if state.phase in ("move", "search"):
        raise BrokenRule(f"{state.player} must dive and search before ending the turn")
    if state.phase == "tally":
        raise BrokenRule("all rounds are played: count the dossiers and enter the final tally")
    if state.service is not None:
        raise BrokenRule(f"use {SERVICE_NAMES[state.service]}'s service or skip it "
                            "first")
    return _next_turn(state)


def _next_turn(state: DrSharkState) -> DrSharkState:
    """Pass to the next seat; the first seat moves the turn marker; after the last
    round the game ends (or waits for a tally if turns went untracked)."""
    seat = (state.seat + 1) % len(state.players)
    rnd = state.round + (1 if seat == 0 else 0)
    state = replace(state, seat=seat, phase="move", moved=False, search=None,
                    service=None, service_used=False)
    if rnd <= state.rounds:
        return replace(state, round=rnd)
    if state.untracked:
        return replace(state, phase="tally")
    return replace(state, phase="over",
                   ended=Ending(Termination.PLAYED_OUT, f"all {state.rounds} rounds are played"))


def _tally(state: DrSharkState, action: Action) -> DrSharkState:
    counted = dossiers.tally(action, list(state.dossiers), state.owner_of, state.catalogue)
    return replace(state, dossiers=counted, phase="over", search=None, service=None,
                   ended=Ending(Termination.TALLY,
                                "the dossiers were counted at the table"))


DrShark.actions = {
    "move": Rule({"space"}, _move, "Dive into the pool", {"space": "onto the space"}),
    "start_search": Rule((), _start_search, "Start the search"),
    "draw": Rule({"clue"}, _search, "Draw a clue"),
    "fistful": Rule({"clues"}, _search, "Grab a fistful of clues",
                    {"clues": "clues in the fistful"}),
    "select": Rule({"clues"}, _search, "Keep the clues sorted in time",
                   {"clues": "clues kept"}),
    "take": Rule({"clue"}, _search, "Take a clue of your choice"),
    "time_up": Rule((), _clock, "Time is up"),
    "stop": Rule((), _clock, "Stop searching"),
    "form": Rule({"evidence", "clues"}, _form, "Form a piece of evidence",
                 {"clues": "clues it takes"}),
    "service": Rule({"from", "take", "give"}, _service, "Call on the special agent's service",
                    {"from": "from the dossier of", "take": "clue taken",
                     "give": "two clues given in return"}),
    "skip_service": Rule((), _skip_service, "Skip the service"),
    "end_turn": Rule((), _end_turn, "End the turn"),
    "tally": Rule({"dossiers"}, _tally, "Enter the final tally",
                  {"dossiers": "the dossiers"}),
}

GAME = DrShark()
