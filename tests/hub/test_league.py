"""The league: wins and points per player per game, ties shared as the rules say."""

from __future__ import annotations

from hub.league import RULES, league

TITLES = {"shark": "Shark", "drshark": "Dr. Shark"}


def game(name: str, scores: dict[str, int], winners: list[str],
         players: list[str] | None = None) -> dict:
    return {"game": name, "players": players or list(scores), "scores": scores,
            "winners": winners}


def test_places_wins_then_outright_then_points_then_fewer_games() -> None:
    out = league([
        game("shark", {"Ann": 50, "Ben": 40}, ["Ann"]),
        game("shark", {"Ben": 70, "Cy": 70}, ["Ben", "Cy"]),     # a tie: both win, shared
        game("shark", {"Cy": 10, "Dee": 90}, ["Dee"]),
    ], TITLES)
    rows = {r["player"]: r for r in out["games"][0]["players"]}
    assert out["finished"] == 3
    assert rows["Ann"] == {"place": 2, "player": "Ann", "played": 1, "wins": 1, "shared": 0,
                           "points": 50}
    assert rows["Ben"]["wins"] == 1 and rows["Ben"]["shared"] == 1
    # Ann, Ben, Cy, Dee each won once; outright wins put Ann and Dee ahead, Dee's 90
    # points before Ann's 50; Ben (110 points) before Cy (80).
    assert [r["player"] for r in out["games"][0]["players"]] == ["Dee", "Ann", "Ben", "Cy"]
    assert [r["place"] for r in out["games"][0]["players"]] == [1, 2, 3, 4]
    assert [r["player"] for r in out["overall"]] == ["Ann", "Dee", "Ben", "Cy"]
    # Overall no points: Ben and Cy (one shared win each, two games) share third place.
    assert [r["place"] for r in out["overall"]] == [1, 1, 3, 3]
    assert out["rules"] == RULES


def test_players_equal_on_everything_share_the_place() -> None:
    out = league([game("shark", {"Ann": 5, "Ben": 5}, ["Ann", "Ben"])], TITLES)
    assert [(r["place"], r["player"]) for r in out["games"][0]["players"]] == [
        (1, "Ann"), (1, "Ben")]


def test_a_dr_shark_team_counts_for_each_member() -> None:
    out = league([game("drshark", {"Ann+Cy": 12, "Ben+Dee": 9}, ["Ann+Cy"],
                       players=["Ann", "Ben", "Cy", "Dee"])], TITLES)
    rows = {r["player"]: r for r in out["games"][0]["players"]}
    assert rows["Ann"]["wins"] == rows["Cy"]["wins"] == 1
    assert rows["Ben"]["points"] == 9 and rows["Ben"]["wins"] == 0
    assert out["games"][0]["title"] == "Dr. Shark"


def test_no_finished_game_no_league() -> None:
    assert league([], TITLES) == {"rules": RULES, "finished": 0, "games": [],
                                  "overall": []}
