"""Goal-card scoring: every goal type, ties, thresholds, the rulebook's example."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import replay
from companion.games.shoal.deck import BadDeck
from companion.games.shoal.layout import Layout, parse_text
from companion.games.shoal.rules import GAME
from companion.games.shoal.scoring import connections, longest_line, score
from tests.games.shoal.helpers import RULEBOOK

LEGEND = "legend: a=angel b=angel+angel p=puffer c=clown+puffer s=sardine+sardine+sardine e=empty\n"


def shoal(rows: str) -> Layout:
    return parse_text(LEGEND + rows)


def card(*goals: dict[str, Any]) -> dict[str, Any]:
    """A goal card with the given goals, padded with goals worth nothing."""
    pad = [{"type": "each", "what": "fish", "points": 0}] * (3 - len(goals))
    return {"id": "T", "goals": [*goals, *pad]}


def first_goal(layouts: dict[str, Layout], goal: dict[str, Any]) -> dict[str, int]:
    return {p: r["breakdown"][0]["points"] for p, r in score(layouts, card(goal)).items()}


# each ------------------------------------------------------------------------------


def test_each_kind_counts_every_fish_of_that_kind() -> None:
    layout = shoal("bac\nepa")          # angels: 2 + 1 + 1 = 4
    assert first_goal({"A": layout}, {"type": "each", "what": "angel", "points": 2}) == {"A": 8}
    assert first_goal({"A": layout}, {"type": "each", "what": "puffer", "points": 3}) == {"A": 6}


def test_each_fish_and_each_empty() -> None:
    layout = shoal("bac\nepe")          # fish 2+1+2+1 = 6, empty 2
    assert first_goal({"A": layout}, {"type": "each", "what": "fish", "points": 1}) == {"A": 6}
    assert first_goal({"A": layout}, {"type": "each", "what": "empty", "points": -2}) == {"A": -4}


# largest / fewest --------------------------------------------------------------------


def test_largest_goes_to_the_single_best() -> None:
    layouts = {"A": shoal("bb"), "B": shoal("ba"), "C": shoal("a")}
    got = first_goal(layouts, {"type": "largest", "what": "angel", "points": 5})
    assert got == {"A": 5, "B": 0, "C": 0}


def test_largest_tie_all_score() -> None:
    layouts = {"A": shoal("ee"), "B": shoal("aee"), "C": shoal("e")}
    got = first_goal(layouts, {"type": "largest", "what": "empty", "points": -6})
    assert got == {"A": -6, "B": -6, "C": 0}


def test_largest_needs_at_least_one() -> None:
    layouts = {"A": shoal("aa"), "B": shoal("b")}
    got = first_goal(layouts, {"type": "largest", "what": "puffer", "points": 4})
    assert got == {"A": 0, "B": 0}


def test_fewest_goes_to_the_lowest_count_even_zero() -> None:
    layouts = {"A": shoal("pp"), "B": shoal("ap"), "C": shoal("aa")}
    got = first_goal(layouts, {"type": "fewest", "what": "puffer", "points": 3})
    assert got == {"A": 0, "B": 0, "C": 3}


def test_fewest_tie_all_score() -> None:
    layouts = {"A": shoal("pa"), "B": shoal("ap"), "C": shoal("pp")}
    got = first_goal(layouts, {"type": "fewest", "what": "puffer", "points": 3})
    assert got == {"A": 3, "B": 3, "C": 0}


def test_fewest_fish() -> None:
    layouts = {"A": shoal("s"), "B": shoal("bb")}   # 3 fish against 4
    assert first_goal(layouts, {"type": "fewest", "what": "fish", "points": 2}) == {"A": 2,
                                                                                  "B": 0}


# total (thresholds) --------------------------------------------------------------------

STEPS = {"type": "total", "what": "angel", "thresholds": [[4, 6], [8, 12], [10, -8]]}


@pytest.mark.parametrize(("angels", "points"), [
    (0, 0), (3, 0),               # below the first step
    (4, 6), (5, 6),               # at and above 4
    (7, 6), (8, 12), (9, 12),     # below, at and above 8
    (10, -8), (11, -8), (20, -8),  # at and above 10
])
def test_total_scores_the_highest_step_reached(angels: int, points: int) -> None:
    layout = {(x, 0): "angel" for x in range(angels)} or {(0, 0): "empty"}
    assert first_goal({"A": layout}, STEPS) == {"A": points}


def test_total_of_empty_sections() -> None:
    goal = {"type": "total", "what": "empty", "thresholds": [[2, -2], [5, -5]]}
    assert first_goal({"A": shoal("eae")}, goal) == {"A": -2}
    assert first_goal({"A": shoal("eaea")}, goal) == {"A": -2}
    assert first_goal({"A": shoal("eaeaeee")}, goal) == {"A": -5}


# tallest / widest -----------------------------------------------------------------------


def test_tallest_counts_the_longest_unbroken_vertical_line() -> None:
    layout = shoal("a.\na.\neb\nab\n.b")      # column 0 broken by an empty, column 1: 3
    assert longest_line(layout, "fish", vertical=True) == 3
    assert longest_line(layout, "fish", vertical=False) == 2    # row 3: a b


def test_tallest_tie_all_score() -> None:
    layouts = {"A": shoal("a\na"), "B": shoal("ae\nap"), "C": shoal("ab")}
    got = first_goal(layouts, {"type": "tallest", "points": 6})
    assert got == {"A": 6, "B": 6, "C": 0}


def test_widest_goes_to_the_longest_row() -> None:
    layouts = {"A": shoal("aaea\nbbb"), "B": shoal("aa\n.pp")}
    assert first_goal(layouts, {"type": "widest", "points": 5}) == {"A": 5, "B": 0}


def test_widest_tie_all_score() -> None:
    layouts = {"A": shoal("aae"), "B": shoal("e\nppe")}
    assert first_goal(layouts, {"type": "widest", "points": 5}) == {"A": 5, "B": 5}


def test_tallest_of_a_kind() -> None:
    layouts = {"A": shoal("p\np\na"), "B": shoal("a\na\na")}
    got = first_goal(layouts, {"type": "tallest", "what": "puffer", "points": 4})
    assert got == {"A": 4, "B": 0}


def test_tallest_without_fish_scores_nothing() -> None:
    assert first_goal({"A": shoal("e\ne")}, {"type": "tallest", "points": 6}) == {"A": 0}


# connection ------------------------------------------------------------------------------


def test_connection_counts_groups_of_at_least_the_length() -> None:
    layout = shoal("aae.a\n..e.a\n.a..a\naa...")
    # groups of angels: {(0,0),(1,0)} 2, {(4,0),(4,1),(4,2)} 3, {(1,2),(0,3),(1,3)} 3
    assert connections(layout, "angel", 3) == 2
    assert connections(layout, "angel", 2) == 3
    assert connections(layout, "angel", 4) == 0
    goal = {"type": "connection", "what": "angel", "length": 3, "points": 4}
    assert first_goal({"A": layout}, goal) == {"A": 8}


def test_connection_is_orthogonal_not_diagonal() -> None:
    layout = shoal("a.\n.a\na.")
    assert connections(layout, "angel", 2) == 0


def test_connection_of_empty_sections() -> None:
    layout = shoal("eea\naee\neaa")
    assert connections(layout, "empty", 3) == 1      # (0,0),(1,0),(1,1),(2,1)
    assert connections(layout, "empty", 1) == 2      # and (0,2) alone
    goal = {"type": "connection", "what": "empty", "length": 3, "points": -3}
    assert first_goal({"A": layout}, goal) == {"A": -3}


def test_connection_of_a_kind_counts_mixed_sections() -> None:
    layout = shoal("cpa")                           # clown+puffer next to puffer
    assert connections(layout, "puffer", 2) == 1
    assert connections(layout, "fish", 3) == 1


# totals -----------------------------------------------------------------------------------


def test_total_is_fish_plus_the_three_goals() -> None:
    goals = card({"type": "each", "what": "puffer", "points": 2},
                 {"type": "largest", "what": "empty", "points": -6},
                 {"type": "widest", "points": 3})
    out = score({"A": shoal("bcp\neee"), "B": shoal("s")}, goals)
    assert out["A"]["fish"] == 5
    assert [b["points"] for b in out["A"]["breakdown"]] == [4, -6, 3]
    assert out["A"]["total"] == 5 + 4 - 6 + 3
    assert out["B"] == {"total": 3, "fish": 3, "breakdown": out["B"]["breakdown"]}
    assert [b["points"] for b in out["B"]["breakdown"]] == [0, 0, 0]
    assert out["A"]["breakdown"][0]["goal"] == "each puffer: +2 per fish"


def test_goal_card_json_is_checked() -> None:
    with pytest.raises(BadDeck, match="unknown goal type 'most'"):
        score({"A": shoal("a")}, card({"type": "most", "points": 1}))


# The rulebook's example ------------------------------------------------------------------


def test_rulebook_example_from_a_real_game() -> None:
    """Player 1's printed shoal: 37 fish, +4 (2 puffers at +2), -6 (largest amount of
    empty spaces, 8), -8 (12 sardines: 10 or more) = 27, laid card by card."""
    rec = json.loads(RULEBOOK.read_text("utf-8"))
    state = replay(GAME, GAME.new(rec["players"], rec["options"]), rec["actions"])
    assert GAME.is_over(state)
    assert len(state.plays["Ann"]) == 10
    ann = GAME.breakdown(state)["Ann"]
    assert ann["fish"] == 37
    assert [(b["count"], b["points"]) for b in ann["breakdown"]] == [(2, 4), (8, -6), (12, -8)]
    assert ann["total"] == 27
    assert GAME.scores(state)["Ann"] == 27
    assert list(state.goal.to_json()["goals"]) == [
        {"type": "each", "what": "puffer", "points": 2},
        {"type": "largest", "what": "empty", "points": -6},
        {"type": "total", "what": "sardine", "thresholds": [[4, 6], [8, 12], [10, -8]]},
    ]


# Properties ---------------------------------------------------------------------------------

SECTIONS = ["empty", "angel", "angel+angel", "clown+puffer", "puffer", "sardine+sardine+sardine"]
small_layouts = st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 4)),
                                st.sampled_from(SECTIONS), min_size=1, max_size=14)
any_goal = st.one_of(
    st.builds(lambda t, w, p: {"type": t, "what": w, "points": p},
              st.sampled_from(["each", "largest", "fewest"]),
              st.sampled_from(["angel", "puffer", "fish", "empty"]), st.integers(-9, 9)),
    st.builds(lambda t, p: {"type": t, "points": p},
              st.sampled_from(["tallest", "widest"]), st.integers(-9, 9)),
    st.builds(lambda w, n, p: {"type": "connection", "what": w, "length": n, "points": p},
              st.sampled_from(["angel", "fish", "empty"]), st.integers(1, 4),
              st.integers(-9, 9)),
    st.builds(lambda w, a, b, p, q: {"type": "total", "what": w,
                                     "thresholds": [[a, p], [a + b, q]]},
              st.sampled_from(["angel", "fish", "empty"]), st.integers(0, 6),
              st.integers(1, 6), st.integers(-9, 9), st.integers(-9, 9)),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(small_layouts, min_size=2, max_size=4), st.lists(any_goal, min_size=3,
                                                                   max_size=3))
def test_scores_add_up_and_equal_shoals_score_equally(layouts: list[Layout],
                                                      goals: list[dict[str, Any]]) -> None:
    players = {f"P{n}": layout for n, layout in enumerate(layouts)}
    players["twin"] = dict(layouts[0])
    out = score(players, {"id": "T", "goals": goals})
    for result in out.values():
        assert result["total"] == result["fish"] + sum(b["points"]
                                                       for b in result["breakdown"])
    assert out["twin"] == out["P0"]
    for i, goal in enumerate(goals):
        if goal["type"] in ("largest", "fewest", "tallest", "widest"):
            counts = {p: r["breakdown"][i]["count"] for p, r in out.items()}
            best = (min if goal["type"] == "fewest" else max)(counts.values())
            winners = {p for p, c in counts.items() if c == best
                       and (goal["type"] == "fewest" or c > 0)}
            points = {p: r["breakdown"][i]["points"] for p, r in out.items()}
            assert points == {p: goal["points"] if p in winners else 0 for p in out}
