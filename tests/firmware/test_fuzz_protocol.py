"""Bad host input into the box's own logic: every line the box cannot obey gets exactly
one ``ERR <reason>`` and leaves the running search, the clapper and the buzzer alone.

What counts as a good line is written out here independently of the parser, from the
protocol in hardware.md, so the two are checked against each other.
"""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from firmware.box import Box
from tests.support.box import Parts

GOOD = re.compile(rb"(HELLO|STOP|CLAP|PING|START[ \t]+([0-9]+))[ \t]*")
WORD = re.compile(rb"(HELLO|START|STOP|CLAP|PING)([ \t]|$)")
PRINTABLE = re.compile(rb"[\t\x20-\x7e]*")

PIECES = st.sampled_from([
    b"HELLO", b"START", b"STOP", b"CLAP", b"PING", b"30000", b"0", b"3600001", b"-5",
    b"1e3", b"\xd9\xa3", b"\xc3\xa9", "☃".encode(), b"\xff", b"\x00", b" ", b"\t", b"\r",
    b"\n", b"\r\n", b"\n\r", b"start", b"x" * 70,
])
NOISE = st.one_of(
    st.binary(max_size=300),
    st.lists(st.one_of(PIECES, st.binary(max_size=4)), max_size=40).map(b"".join),
)


def good(tail: bytes) -> bool:
    match = GOOD.fullmatch(tail)
    return match is not None and (match[2] is None or 0 < int(match[2]) <= protocol.MAX_MS)


def recovered(raw: bytes) -> bytes | None:
    """The line the box obeys: noise in front of a line is skipped, so it is the longest
    tail of ``raw`` that is printable ASCII of at most ``MAX_LINE`` bytes, starts with a
    command word and is a good command (hardware.md, 'Serial protocol')."""
    raw = raw.rstrip(b"\r")
    for i in range(len(raw)):
        tail = raw[i:]
        if (len(tail) <= protocol.MAX_LINE and PRINTABLE.fullmatch(tail)
                and WORD.match(tail) and good(tail)):
            return tail
    return None


def expected(raw: bytes) -> str:
    """``ERR`` or the first word of the box's answer to one complete line."""
    line = recovered(raw)
    if line is None:
        return "ERR"
    word = line.split()[0]
    return {b"HELLO": "READY", b"PING": "PONG", b"STOP": "STOPPED", b"CLAP": "",
            b"START": "RUNNING"}[word]


def snapshot(box: Box) -> tuple[object, ...]:
    return (box.running, box.deadline, box.total, box._next_report, box._next_warning)


@settings(max_examples=150, deadline=None)
@given(data=NOISE, cuts=st.lists(st.integers(0, 300), max_size=6), running=st.booleans())
def test_every_line_gets_its_answer_and_bad_ones_change_nothing(
        data: bytes, cuts: list[int], running: bool) -> None:
    parts = Parts()
    box = Box(parts)
    if running:
        box.receive("START 30000", 0)
    lines = protocol.LineBuffer()
    edges = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    got: list[str | protocol.ProtocolError] = []
    for a, b in itertools.pairwise(edges):
        got += lines.feed(data[a:b])  # the bytes arrive in pieces, as from a UART
    complete = data.split(b"\n")[:-1]
    assert len(got) == len(complete)  # one line out per line end, however it arrived
    assert len(lines._buf) <= protocol.MAX_LINE + 1  # a partial line is never hoarded
    for raw, line in zip(complete, got, strict=True):
        before, solenoid, buzzer = snapshot(box), list(parts.solenoid_on), list(
            parts.buzzer_on)
        replies = box.receive(line, 100)
        want = expected(raw)
        if want == "ERR":
            assert len(replies) == 1 and replies[0].startswith("ERR ")
            assert len(replies[0]) > 4  # with a reason
            assert snapshot(box) == before  # the search goes on untouched
            assert (parts.solenoid_on, parts.buzzer_on) == (solenoid, buzzer)
        elif want:
            assert [r.split()[0] for r in replies] == [want], (raw, replies)
        else:
            assert replies == []  # CLAP answers with the clapper, not a line


def test_where_a_line_is_cut_does_not_change_its_answer() -> None:
    """Every length up to just past the limit, both line ends, every cut point."""
    for length in range(4, protocol.MAX_LINE + 3):
        for end in (b"\n", b"\r\n"):
            data = b"PING" + b" " * (length - 4) + end
            whole = [str(x).strip() for x in protocol.LineBuffer().feed(data)]
            assert whole == ["PING" if length <= protocol.MAX_LINE else "line too long"]
            for cut in range(1, len(data)):
                pieces = protocol.LineBuffer()
                got = pieces.feed(data[:cut]) + pieces.feed(data[cut:])
                assert [str(x).strip() for x in got] == whole, (length, end, cut)
