"""Invariants of Dr. Shark over random legal games (hypothesis)."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import replay
from companion.games.drshark import GAME, DrSharkState
from tests.games.drshark.play import every_clue, random_game, tally_of

NAMES = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"]
tables = st.sampled_from([(2, False), (3, False), (4, False), (4, True), (5, False),
                          (6, True)])


def dossier_points(state: DrSharkState, owner: str) -> int:
    d = state.dossiers[owner]
    return sum(state.catalogue.evidence[e].points for e in d.evidence) + len(d.clues)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), table=tables)
def test_clues_are_never_created_or_lost(seed: int, table: tuple[int, bool]) -> None:
    players, teams = table
    actions, states = random_game(NAMES[:players], {"teams": teams}, seed)
    everything = Counter(list(states[0].catalogue.clues))
    for state in states:
        assert every_clue(state) == everything      # bag + dossiers + box + mat
        assert not set(state.box) & state.bag
        for owner in state.dossiers:
            assert GAME.scores(state)[owner] == dossier_points(state, owner)
    final = states[-1]
    assert GAME.is_over(final)
    assert sum(a["type"] == "end_turn" for a in actions) == players * final.rounds
    assert len(final.box) == sum(len(final.catalogue.evidence[e].parts)
                                 for d in final.dossiers.values() for e in d.evidence)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([4, 6]))
def test_a_teams_score_is_its_shared_dossiers(seed: int, players: int) -> None:
    actions, states = random_game(NAMES[:players], {"teams": True}, seed)
    for before, action, after in zip(states, actions, states[1:], strict=False):
        teams = ["+".join(t) for t in after.teams]
        assert list(GAME.scores(after)) == teams
        for team in teams:
            assert GAME.scores(after)[team] == dossier_points(after, team)
        # Whoever searched, the clues kept went to that player's team dossier.
        if after.search and after.search.ended and not (before.search
                                                         and before.search.ended):
            team = after.owner(before.player)
            kept = after.search.kept
            assert after.dossiers[team].clues[len(after.dossiers[team].clues)
                                              - len(kept):] == kept
            for other in teams:
                if other != team:
                    assert after.dossiers[other] == before.dossiers[other]
        assert action["type"] != "tally"
    assert GAME.outcome(states[-1]).winners


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), table=tables)
def test_replaying_the_log_gives_the_same_game_and_a_json_view(
        seed: int, table: tuple[int, bool]) -> None:
    players, teams = table
    actions, states = random_game(NAMES[:players], {"teams": teams}, seed)
    again = replay(GAME, GAME.new(NAMES[:players], {"teams": teams}), actions)
    assert again == states[-1]
    json.dumps(GAME.summary(again))
    # Counting the tracked dossiers at the table gives the same scores.
    before = states[len(states) // 2]
    if not GAME.is_over(before):
        tallied = GAME.apply(before, tally_of(before))
        assert GAME.scores(tallied) == GAME.scores(before)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), table=tables)
def test_late_dives_and_timer_only_turns_keep_every_clue_until_the_tally(
        seed: int, table: tuple[int, bool]) -> None:
    players, teams = table
    actions, states = random_game(NAMES[:players], {"teams": teams}, seed, late=0.3)
    everything = Counter(list(states[0].catalogue.clues))
    for state in states[:-1]:
        assert every_clue(state) == everything
    final = states[-1]
    assert GAME.is_over(final)
    if states[-2].untracked:
        assert states[-2].phase == "tally" and actions[-1]["type"] == "tally"
        assert GAME.scores(final) == GAME.scores(states[-2])
    else:
        assert actions[-1]["type"] == "end_turn"
