"""Topics and payloads: what a table publishes parses back; anything else is a
BadMessage with a reason, never another exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub import mqtt, topics
from hub.topics import BadMessage, Event

JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                       max_leaves=12)


def test_an_event_round_trips() -> None:
    e = Event("cafe-1", 7, 12, "play", 11, 1.5, action={"type": "bank"})
    where = topics.parse_topic(topics.events_topic("cafe-1", 7))
    assert where == topics.Topic("cafe-1", "events", 7)
    assert topics.parse_event(where, topics.loads(topics.dumps(e.to_json()))) == e
    assert e.id == "cafe-1/7/12"
    c = Event("cafe-1", 7, 1, "create", 0, 1.0, game="shark", players=("A", "B"),
              options={"board": "classic"})
    assert topics.parse_event(where, json.loads(topics.dumps(c.to_json()))) == c


@pytest.mark.parametrize("topic", [
    "companion", "companion/t1", "companion/t1/games/x/events", "companion/t1/games/0/view",
    "companion/t1/games/01/events", "other/t1/status", "companion/a b/status",
    "companion/t1/games/1/events/more", "companion/+/status", "companion/t1/games/²/view",
])
def test_topics_that_are_not_ours(topic: str) -> None:
    with pytest.raises(BadMessage):
        topics.parse_topic(topic)


@pytest.mark.parametrize("change", [
    {"table": "t2"}, {"game_id": 8}, {"n": 0}, {"n": True}, {"kind": "delete"},
    {"id": "t1/7/99"}, {"action": "bank"}, {"action": {"no": "type"}}, {"at": "noon"},
    {"seq": -1},
])
def test_an_event_that_does_not_add_up(change: dict) -> None:
    good = Event("t1", 7, 3, "play", 2, 1.0, action={"type": "bank"}).to_json()
    with pytest.raises(BadMessage):
        topics.parse_event(topics.Topic("t1", "events", 7), {**good, **change})


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["events", "view", "status"]), JSONISH | st.binary(max_size=64))
def test_garbage_is_a_bad_message(what: str, payload: object) -> None:
    topic = topics.Topic("t1", what, None if what == "status" else 7)
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    try:
        data = topics.loads(raw)
        if what == "events":
            topics.parse_event(topic, data)
        elif what == "view":
            topics.parse_view(topic, data)
        else:
            topics.parse_status(data)
        topics.parse_replay(data)
    except BadMessage as err:
        assert str(err)


@pytest.mark.parametrize("asked", [{"games": []}, {"games": {"x": 1}}, {"games": {"²": 1}},
                                     {"games": {"1": -1}}, {"games": {"1": True}}])
def test_bad_replay_requests(asked: dict) -> None:
    with pytest.raises(BadMessage):
        topics.parse_replay(asked)


@pytest.mark.parametrize(("text", "url"), [
    ("mqtt://127.0.0.1:1884", mqtt.BrokerURL("127.0.0.1", 1884)),
    ("mqtt://localhost", mqtt.BrokerURL("localhost", 1883)),
    ("mqtts://broker.lan", mqtt.BrokerURL("broker.lan", 8883, True)),
    ("mqtts://b:8884?ca=/etc/ca.crt", mqtt.BrokerURL("b", 8884, True, "/etc/ca.crt")),
])
def test_broker_urls(text: str, url: mqtt.BrokerURL) -> None:
    assert mqtt.parse_url(text) == url


@pytest.mark.parametrize("text", ["127.0.0.1:1883", "http://x:1", "mqtt://", "mqtt://h:99999",
                                  "mqtt://u:p@h:1", "mqtt://h:1/path"])
def test_bad_broker_urls(text: str) -> None:
    with pytest.raises(mqtt.BadBrokerURL, match="mqtt://HOST:PORT"):
        mqtt.parse_url(text)


@pytest.mark.parametrize("name", ["", "a/b", "+", "#", "x" * 41, "-x", "a b", "é"])
def test_table_names(name: str) -> None:
    with pytest.raises(ValueError, match="table name"):
        topics.check_table_name(name)
