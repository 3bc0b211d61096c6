"""Bad input everywhere: random records never crash the replay.

Whatever a record holds, :func:`companion.record.replay` either plays it, reports the
first illegal action (exit 1) or refuses the file with :class:`BadRecord` (exit 2): no
other exception may escape an engine.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games, record

TYPES = {
    "shark": ["choose_stock", "roll", "place", "remove_neutral", "buy", "sell",
              "forced_sell", "end_turn"],
    "drshark": ["move", "start_search", "draw", "fistful", "select", "take", "time_up",
                "stop", "form", "service", "skip_service", "end_turn", "tally"],
    "poodivers": ["flip", "bank", "peek"],
    "shoal": ["play"],
}
FIELDS = ["company", "area", "cell", "count", "player", "space", "clue", "clues",
          "evidence", "from", "take", "give", "dossiers", "card", "at", "face"]
WORDS = ["red", "blue", "green", "yellow", "black", "grey", "S", "1", "A1", "C4", "Z99",
         "A-light", "E-light", "blank", "object", "sleeper", "Ann", "Ben", "", "F01",
         "watch", "shark-1"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 20),
                    st.floats(allow_nan=True), st.sampled_from(WORDS), st.text(max_size=5))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(WORDS + FIELDS), inner,
                                            max_size=4)),
    max_leaves=12,
)


@st.composite
def actions(draw: st.DrawFn, game: str) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    action: dict[str, Any] = {"type": draw(st.sampled_from(TYPES[game] + ["nonsense"]))}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)):
        action[name] = draw(json_values)
    return action


@st.composite
def records(draw: st.DrawFn) -> Any:
    game = draw(st.sampled_from(sorted(TYPES)))
    players = draw(st.one_of(st.just(["Ann", "Ben", "Cid"]), st.just(["Ann", "Ben"]),
                             json_values))
    options = draw(st.one_of(st.just({}), st.dictionaries(st.text(max_size=8), json_values,
                                                          max_size=3), json_values))
    return {"game": draw(st.one_of(st.just(game), json_values)), "players": players,
            "options": options, "actions": draw(st.lists(actions(game), max_size=12))}


@settings(max_examples=300, deadline=None)
@given(data=records())
def test_random_records_end_in_a_result_or_a_clear_refusal(data: Any) -> None:
    try:
        rec = record.parse(data)
        out, code = record.replay(rec)
    except record.BadRecord as err:
        assert str(err) and "\n" not in str(err)
        return
    assert code in (0, 1)
    if code == 1:
        assert set(out["error"]) == {"index", "action", "message", "kind"}
        assert out["error"]["message"]
    else:
        assert out["game"] == rec.game


def test_every_game_in_the_fuzzer_is_known() -> None:
    assert sorted(TYPES) == sorted(games.NAMES)
