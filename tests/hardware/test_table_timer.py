"""The timer belongs to the table: buttons and expiry become Dr. Shark actions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.engine import IllegalAction
from companion.hardware import FakeClock, HardwareError, NoSearchGame, TableTimer, open_timer
from companion.table import Table
from tests.hardware.conftest import Waiter, log_types, new_game


@pytest.fixture
def timer(table: Table, clock: FakeClock) -> Iterator[TableTimer]:
    with open_timer("browser", table, {"duration_s": 30}, clock=clock) as t:
        yield t


@pytest.fixture
def waiter(timer: TableTimer) -> Waiter:
    w = Waiter()
    timer.listen(w)
    return w


def test_start_runs_a_search_and_expiry_logs_time_up(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    sid = new_game(table)
    timer.start()
    status = timer.status()
    assert status["state"] == "running" and status["session"] == sid
    assert status["ms_left"] == 30000 and status["backend"] == "browser"
    assert log_types(table, sid) == ["move", "start_search"]
    clock.advance(29.9)
    assert timer.status()["state"] == "running"
    clock.advance(0.1)
    waiter.wait_for("expired")
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_stop_logs_stop_and_freezes_the_timer(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    sid = new_game(table)
    timer.start()
    clock.advance(10)
    timer.stop()
    assert timer.status()["state"] == "stopped" and timer.status()["ms_left"] == 20000
    clock.advance(30)
    waiter.wait_for("stopped")
    assert log_types(table, sid) == ["move", "start_search", "stop"]


def test_start_while_running_changes_nothing(
        table: Table, timer: TableTimer, clock: FakeClock) -> None:
    sid = new_game(table)
    timer.start()
    clock.advance(5)
    timer.start()
    assert timer.status()["ms_left"] == 25000
    assert log_types(table, sid) == ["move", "start_search"]


def test_a_search_started_on_the_dashboard_starts_the_timer(
        table: Table, timer: TableTimer) -> None:
    sid = new_game(table)
    table.play(sid, {"type": "start_search"})
    assert timer.status()["state"] == "running" and timer.status()["session"] == sid


def test_undoing_the_start_takes_the_timer_back_to_idle(
        table: Table, timer: TableTimer) -> None:
    sid = new_game(table)
    timer.start()
    timer.undo()
    assert timer.status()["state"] == "idle"
    assert log_types(table, sid) == ["move"]


def test_the_most_recently_active_game_gets_the_timer(
        table: Table, timer: TableTimer) -> None:
    first = new_game(table)
    second = new_game(table)
    assert timer.current_session() == second
    table.play(first, {"type": "start_search"})
    assert timer.current_session() == first
    assert timer.status()["session"] == first


def test_no_game_or_a_refused_start_is_a_clear_error(
        table: Table, timer: TableTimer) -> None:
    with pytest.raises(NoSearchGame, match=r"no Dr\. Shark game"):
        timer.start()
    sid = new_game(table)
    timer.start()
    timer.stop()
    with pytest.raises(IllegalAction):  # Ann searched already: her turn must end first
        timer.start()
    assert timer.status()["state"] == "stopped"
    assert log_types(table, sid) == ["move", "start_search", "stop"]


def test_pause_and_resume(table: Table, timer: TableTimer, clock: FakeClock,
                          waiter: Waiter) -> None:
    sid = new_game(table)
    timer.start()
    clock.advance(20)
    timer.pause()
    clock.advance(100)
    assert timer.status() | {"device": None} == timer.status() | {
        "state": "paused", "ms_left": 10000, "device": None}
    timer.resume()
    clock.advance(10)
    waiter.wait_for("expired")
    assert log_types(table, sid)[-1] == "time_up"


def test_listeners_hear_every_change_and_can_be_removed(
        table: Table, timer: TableTimer, clock: FakeClock) -> None:
    waiter = Waiter()
    remove = timer.listen(waiter)
    new_game(table)
    timer.start()
    waiter.wait_for("running")
    remove()
    timer.stop()
    clock.advance(1)
    assert [s["state"] for s in waiter.seen] == ["running"]


def test_bad_specs_and_settings_are_hardware_errors(table: Table) -> None:
    with pytest.raises(HardwareError, match="unknown timer 'usb'"):
        open_timer("usb", table)
    with pytest.raises(HardwareError, match="serial:/dev/ttyACM0"):
        open_timer("serial:", table)
    with pytest.raises(HardwareError, match="unknown hardware setting 'lenght'"):
        open_timer("browser", table, {"lenght": 30})
    with pytest.raises(HardwareError, match="pulse_ms=5000"):
        open_timer("browser", table, {"pulse_ms": 5000})
    with pytest.raises(HardwareError, match="BCM pin 17 is given to two parts"):
        open_timer("gpio", table, {"pins": {"stop": 17}})


def test_timer_only_play_passes_the_turn_at_each_clapper(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    """A table that only wants the timer: START, clapper, next player's START."""
    sid = table.create("drshark", ["Ann", "Ben"], seed=7).id
    for searcher in ("Ann", "Ben", "Ann"):
        session = table.get(sid)
        assert session.game.current(session.state) == searcher
        waiter.seen.clear()
        timer.start()
        clock.advance(30)
        waiter.wait_for("expired")
    assert log_types(table, sid) == ["start_search", "time_up"] * 3


def test_a_shark_ends_the_search_and_the_timer_without_time_up(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    sid = new_game(table)
    timer.start()
    clock.advance(4)
    table.play(sid, {"type": "draw", "clue": "shark-1"})  # entered on a phone
    assert timer.status()["state"] == "stopped" and timer.status()["ms_left"] == 26000
    clock.advance(60)
    waiter.wait_for("stopped")
    assert log_types(table, sid) == ["move", "start_search", "draw"]


def test_a_restart_mid_search_counts_down_what_is_left(
        table: Table, clock: FakeClock) -> None:
    sid = new_game(table)
    table.play(sid, {"type": "start_search"})  # then the service restarts
    with open_timer("browser", table, {"duration_s": 30}, clock=clock) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        status = timer.status()
        assert status["state"] == "running" and status["session"] == sid
        assert 25000 < status["ms_left"] <= 30000
        clock.advance(30)
        waiter.wait_for("expired")
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_the_whole_config_file_may_be_passed(table: Table) -> None:
    config = {"timer": "browser", "port": 8000, "hardware": {"duration_s": 45}}
    with open_timer("browser", table, config) as timer:
        assert timer.status()["duration_ms"] == 45000
