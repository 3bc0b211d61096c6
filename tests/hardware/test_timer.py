"""The timer state machine on a fake clock."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware import FakeClock, Timer, TimerState
from companion.hardware.timer import Beat


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_start_counts_down_and_expires(clock: FakeClock) -> None:
    t = Timer(duration_s=30, clock=clock)
    assert t.state is TimerState.IDLE and t.next_due() is None
    assert t.start()
    assert t.state is TimerState.RUNNING and t.ms_left() == 30000
    clock.advance(10.25)
    assert t.ms_left() == 19750
    clock.advance(19.75)
    assert t.poll()[-1] == Beat("expired", 0)
    assert t.state is TimerState.EXPIRED and t.ms_left() == 0
    assert t.poll() == []


def test_ticks_every_second_and_warns_in_the_last_three(clock: FakeClock) -> None:
    t = Timer(duration_s=6, warning_s=3, clock=clock)
    t.start()
    beats = []
    while t.state is TimerState.RUNNING:
        due = t.next_due()
        assert due is not None
        clock.advance(due - clock())
        beats += t.poll()
    assert beats == [Beat("tick", 5000), Beat("tick", 4000), Beat("warning", 3000),
                     Beat("warning", 2000), Beat("warning", 1000), Beat("expired", 0)]


def test_a_late_poll_gives_one_beat_not_a_burst(clock: FakeClock) -> None:
    t = Timer(duration_s=10, clock=clock)
    t.start()
    clock.advance(8.5)  # marks 9..2 s passed unseen
    assert t.poll() == [Beat("warning", 2000)]
    assert t.next_due() == pytest.approx(clock() + 0.5)


def test_stop_freezes_the_time_left(clock: FakeClock) -> None:
    t = Timer(duration_s=30, clock=clock)
    t.start()
    clock.advance(12)
    assert t.stop()
    clock.advance(100)
    assert t.state is TimerState.STOPPED and t.ms_left() == 18000
    assert t.poll() == [] and t.next_due() is None
    assert not t.stop()


def test_pause_and_resume_keep_the_remaining_time(clock: FakeClock) -> None:
    t = Timer(duration_s=30, clock=clock)
    t.start()
    clock.advance(20)
    assert t.pause() and t.state is TimerState.PAUSED
    clock.advance(60)  # picking up the bag
    assert t.ms_left() == 10000 and t.poll() == []
    assert not t.pause()
    assert t.resume() and t.ms_left() == 10000
    clock.advance(9.999)
    assert t.state is TimerState.RUNNING
    clock.advance(0.001)
    assert t.poll()[-1].kind == "expired"
    assert not t.resume()


def test_start_while_running_is_ignored(clock: FakeClock) -> None:
    t = Timer(duration_s=30, clock=clock)
    t.start()
    clock.advance(5)
    assert not t.start()
    assert t.ms_left() == 25000
    t.pause()
    assert not t.start()


def test_a_new_search_after_expiry_or_stop(clock: FakeClock) -> None:
    t = Timer(duration_s=5, clock=clock)
    t.start()
    clock.advance(5)
    t.poll()
    assert t.start() and t.ms_left() == 5000
    t.stop()
    assert t.start() and t.state is TimerState.RUNNING


def test_cancel_goes_back_to_idle(clock: FakeClock) -> None:
    t = Timer(duration_s=5, clock=clock)
    assert not t.cancel()
    t.start()
    assert t.cancel() and t.state is TimerState.IDLE and t.ms_left() == 0


def test_bounces_and_double_presses_are_ignored(clock: FakeClock) -> None:
    t = Timer(clock=clock, bounce_s=0.2)
    assert t.press("start")
    clock.advance(0.005)
    assert not t.press("start")  # contact bounce
    clock.advance(0.1)
    assert not t.press("start")  # a double press
    assert t.press("stop")  # another button is not a bounce of this one
    clock.advance(0.2)
    assert t.press("start")
    with pytest.raises(ValueError, match="no button 'go'"):
        t.press("go")


def test_bad_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="up to 3600 seconds"):
        Timer(duration_s=0)
    with pytest.raises(ValueError, match="shorter than the search"):
        Timer(duration_s=3, warning_s=3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["start", "stop", "pause", "resume", "cancel",
                                           "wait"]),
                          st.floats(0, 20)), max_size=25))
def test_time_left_never_grows_within_a_search(steps: list[tuple[str, float]]) -> None:
    """Whatever happens, time left stays within 0..duration and only start adds time."""
    clock = FakeClock()
    t = Timer(duration_s=30, clock=clock)
    before = t.ms_left()
    for op, dt in steps:
        if op == "wait":
            clock.advance(dt)
            t.poll()
        else:
            started = getattr(t, op)()
            if op == "start" and started:
                before = t.ms_left()
        left = t.ms_left()
        assert 0 <= left <= 30000
        assert left <= before
        before = left
        assert (t.state is TimerState.EXPIRED) <= (left == 0)
