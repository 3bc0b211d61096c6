"""Forming evidence, the services of Paoletta (weapons) and Babanipoulos (gadgets),
scoring and the tally. Default evidence: passport (documents, 12 points, parts a-d),
moustache (disguises, 8, a-c), watch (gadgets, 7, a-c, Babanipoulos), umbrella-gun
(weapons, 7, a-c, Paoletta)."""

from __future__ import annotations

import pytest

from companion.engine import IllegalAction
from companion.games.drshark import GAME
from tests.games.drshark.helpers import FOUR, give, organising, play, types

WATCH_1 = ["watch-1a", "watch-1b", "watch-1c"]
WATCH_2 = ["watch-2a", "watch-2b", "watch-2c"]
GUN = ["umbrella-gun-1a", "umbrella-gun-1b", "umbrella-gun-1c"]


def form(evidence: str, clues: list[str]) -> dict:
    return {"type": "form", "evidence": evidence, "clues": clues}


def test_forming_sends_the_clues_to_the_box_and_takes_the_token() -> None:
    state = play(organising([*WATCH_1, "wig-1a"]), form("watch", WATCH_1))
    assert state.dossiers["Ann"].clues == ("wig-1a",)
    assert state.dossiers["Ann"].evidence == ("watch",)
    assert state.box == tuple(WATCH_1)
    assert not set(WATCH_1) & state.bag
    assert GAME.scores(state)["Ann"] == 7 + 1


def test_two_copies_of_the_same_evidence_can_be_formed() -> None:
    state = organising([*WATCH_1, *WATCH_2])
    state = play(state, form("watch", ["watch-2c", "watch-1a", "watch-2b"]),
                 {"type": "skip_service"}, form("watch", ["watch-1b", "watch-2a", "watch-1c"]),
                 {"type": "skip_service"})
    assert state.dossiers["Ann"].evidence == ("watch", "watch")
    assert state.dossiers["Ann"].clues == ()
    assert GAME.scores(state)["Ann"] == 14


@pytest.mark.parametrize("action,message", [
    (form("watch", ["watch-1a", "watch-1b"]), "part c is missing"),
    (form("watch", ["watch-1a", "watch-2a", "watch-1b"]), "both part a"),
    (form("watch", ["watch-1a", "watch-1b", "wig-1a"]), "part of wig, not of watch"),
    (form("watch", ["watch-1a", "watch-1b", "watch-3c"]), "not an unassigned clue"),
    (form("rocket", WATCH_1), "no evidence 'rocket'"),
    ({"type": "form", "evidence": "watch", "clues": "watch-1a"}, "list of clue ids"),
])
def test_forming_needs_one_clue_of_the_dossier_per_part(action: dict, message: str) -> None:
    state = organising(["watch-1a", "watch-1b", "watch-2a", "wig-1a"])
    with pytest.raises(IllegalAction, match=message):
        GAME.apply(state, action)


def test_forming_comes_after_the_search() -> None:
    state = play(GAME.new(["Ann", "Ben"], {}), {"type": "move", "space": "A-light"})
    with pytest.raises(IllegalAction, match="after the search"):
        GAME.apply(state, form("watch", WATCH_1))


def test_rulebook_example_dossier_scores_42() -> None:
    passport = ["passport-1a", "passport-1b", "passport-1c", "passport-1d"]
    moustache = ["moustache-1a", "moustache-1b", "moustache-1c"]
    loose = ["wig-1a", "wig-2a", "city-plan-1a", "camera-pen-1b", "passport-2a",
             "microfilm-1a", "treasure-map-1b", "lipstick-laser-1a"]
    state = organising([*passport, *moustache, *WATCH_1, *WATCH_2, *loose])
    state = play(state, form("passport", passport), form("moustache", moustache),
                 form("watch", WATCH_1), {"type": "skip_service"},
                 form("watch", WATCH_2), {"type": "skip_service"})
    dossier = GAME.view(state)["dossiers"]["Ann"]
    assert sorted(dossier["evidence"]) == ["moustache", "passport", "watch", "watch"]
    assert dossier["clue_count"] == 8
    assert GAME.scores(state)["Ann"] == 12 + 8 + 14 + 8 == 42


# Services -------------------------------------------------------------------------


def test_paoletta_takes_a_clue_from_another_dossier() -> None:
    state = give(organising(GUN), "Ben", ["wig-1a", "wig-2b"])
    state = play(state, form("umbrella-gun", GUN))
    assert state.service == "paoletta"
    assert types(state) == ["service", "skip_service", "tally"]
    with pytest.raises(IllegalAction, match="or skip it first"):
        GAME.apply(state, {"type": "end_turn"})
    with pytest.raises(IllegalAction, match="gives nothing"):
        GAME.apply(state, {"type": "service", "from": "Ben", "take": "wig-1a",
                           "give": ["x", "y"]})
    state = play(state, {"type": "service", "from": "Ben", "take": "wig-2b"})
    assert state.dossiers["Ann"].clues == ("wig-2b",)
    assert state.dossiers["Ben"].clues == ("wig-1a",)
    assert state.service is None and state.service_used
    assert types(state) == ["end_turn", "tally"]


def test_babanipoulos_takes_one_and_gives_two() -> None:
    state = give(organising([*WATCH_1, "wig-1a", "wig-2a", "passport-1a"]), "Ben",
                 ["moustache-1a"])
    state = play(state, form("watch", WATCH_1))
    assert state.service == "babanipoulos"
    with pytest.raises(IllegalAction, match="exactly two"):
        GAME.apply(state, {"type": "service", "from": "Ben", "take": "moustache-1a",
                           "give": ["wig-1a"]})
    with pytest.raises(IllegalAction, match="moustache-1a is not an unassigned clue of your"):
        GAME.apply(state, {"type": "service", "from": "Ben", "take": "moustache-1a",
                           "give": ["wig-1a", "moustache-1a"]})
    state = play(state, {"type": "service", "from": "Ben", "take": "moustache-1a",
                         "give": ["wig-1a", "passport-1a"]})
    assert state.dossiers["Ann"].clues == ("wig-2a", "moustache-1a")
    assert state.dossiers["Ben"].clues == ("wig-1a", "passport-1a")
    assert GAME.scores(state) == {"Ann": 7 + 2, "Ben": 2}


def test_babanipoulos_with_fewer_than_two_clues_is_refused() -> None:
    state = give(organising([*WATCH_1, "wig-1a"]), "Ben", ["moustache-1a"])
    state = play(state, form("watch", WATCH_1))
    assert "service" not in types(state) and "skip_service" in types(state)
    with pytest.raises(IllegalAction, match=r"needs two of your unassigned clues.*has 1"):
        GAME.apply(state, {"type": "service", "from": "Ben", "take": "moustache-1a",
                           "give": ["wig-1a"]})
    state = play(state, {"type": "skip_service"}, {"type": "end_turn"})
    assert state.dossiers["Ann"].clues == ("wig-1a",) and GAME.current(state) == "Ben"


def test_a_second_service_in_a_turn_is_ignored() -> None:
    state = give(organising([*GUN, *WATCH_1, "wig-1a", "wig-2a"]), "Ben",
                 ["moustache-1a", "moustache-2a"])
    state = play(state, form("umbrella-gun", GUN),
                 {"type": "service", "from": "Ben", "take": "moustache-1a"},
                 form("watch", WATCH_1))
    assert state.dossiers["Ann"].evidence == ("umbrella-gun", "watch")
    assert state.service is None
    assert "service" not in types(state) and "skip_service" not in types(state)
    with pytest.raises(IllegalAction, match="one service per turn"):
        GAME.apply(state, {"type": "service", "from": "Ben", "take": "moustache-2a",
                           "give": ["wig-1a", "wig-2a"]})
    state = play(state, {"type": "end_turn"})
    assert state.dossiers["Ben"].clues == ("moustache-2a",)


def test_a_skipped_service_does_not_use_up_the_turns_service() -> None:
    state = give(organising([*GUN, *WATCH_1, "wig-1a", "wig-2a"]), "Ben", ["moustache-1a"])
    state = play(state, form("umbrella-gun", GUN), {"type": "skip_service"},
                 form("watch", WATCH_1))
    assert state.service == "babanipoulos"


def test_the_service_must_be_used_or_skipped_before_forming_again() -> None:
    state = play(organising([*GUN, *WATCH_1]), form("umbrella-gun", GUN))
    with pytest.raises(IllegalAction, match="first use Paoletta"):
        GAME.apply(state, form("watch", WATCH_1))


def test_services_take_from_others_only() -> None:
    state = give(play(organising(GUN), form("umbrella-gun", GUN)), "Ben", ["wig-1a"])
    with pytest.raises(IllegalAction, match="another spy's dossier"):
        GAME.apply(state, {"type": "service", "from": "Ann", "take": "wig-1a"})
    with pytest.raises(IllegalAction, match="'Zed' has no dossier"):
        GAME.apply(state, {"type": "service", "from": "Zed", "take": "wig-1a"})
    with pytest.raises(IllegalAction, match="not an unassigned clue of Ben's"):
        GAME.apply(state, {"type": "service", "from": "Ben", "take": "wig-2a"})


def test_no_service_without_its_evidence() -> None:
    with pytest.raises(IllegalAction, match="no evidence formed"):
        GAME.apply(organising(["wig-1a"]), {"type": "service", "from": "Ben", "take": "x"})
    with pytest.raises(IllegalAction, match="no service to skip"):
        GAME.apply(organising(["wig-1a"]), {"type": "skip_service"})


def test_team_services_name_a_team_or_a_member_and_never_the_own_team() -> None:
    state = organising(GUN, FOUR, teams=True)
    state = give(state, "Ben+Dan", ["wig-1a", "wig-2a"])
    state = give(state, "Ann+Cid", ["wig-3a"])
    state = play(state, form("umbrella-gun", GUN))
    with pytest.raises(IllegalAction, match="another spy's dossier"):
        GAME.apply(state, {"type": "service", "from": "Cid", "take": "wig-3a"})
    by_member = play(state, {"type": "service", "from": "Dan", "take": "wig-2a"})
    by_team = play(state, {"type": "service", "from": "Ben+Dan", "take": "wig-2a"})
    assert by_member == by_team
    assert by_team.dossiers["Ann+Cid"].clues == ("wig-3a", "wig-2a")
    assert GAME.scores(by_team) == {"Ann+Cid": 9, "Ben+Dan": 1}
