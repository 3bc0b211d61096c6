"""The timer belongs to the table: buttons and expiry become Dr. Shark actions."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.engine import BrokenRule, IllegalAction
from companion.hardware import (
    FakeClock,
    HardwareError,
    NoSearchGame,
    TableTimer,
    open_timer,
    table_timer,
)
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


def test_undo_with_nothing_logged_is_a_rule_refusal(
        table: Table, timer: TableTimer, waiter: Waiter) -> None:
    sid = new_game(table)
    timer.undo()                               # takes back the move
    with pytest.raises(BrokenRule, match="nothing to undo") as err:
        timer.undo()
    assert err.value.kind == "rule" and log_types(table, sid) == []
    timer._button("hold")                      # NEXT held: the pages are told why not
    told = waiter.wait_until(lambda s: "nothing to undo" in (s["error"] or ""))
    assert told["state"] == "idle"


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
    sid = new_game(table)
    timer.start()
    waiter.wait_for("running")
    remove()
    timer.stop()
    clock.advance(1)
    # the new game took the timer (idle), then its search started
    assert [(s["game"], s["state"]) for s in waiter.seen] == [(sid, "idle"), (sid, "running")]


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


def test_a_restart_mid_search_counts_down_what_is_left_by_the_monotonic_clock(
        table: Table, clock: FakeClock, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "timer-state.json"
    sid = new_game(table)
    first = open_timer("browser", table, {"duration_s": 30}, clock=clock, state_file=state)
    first.start()
    clock.advance(10)
    first.close()  # the service stops mid-search
    # NTP sets the Pi's wall clock an hour on while it restarts: it must not matter.
    wall = time.time()
    monkeypatch.setattr(time, "time", lambda: wall + 3600)
    clock.advance(5)
    with open_timer("browser", table, {"duration_s": 30}, clock=clock,
                    state_file=state) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        status = timer.status()
        assert status["state"] == "running" and status["game"] == sid
        assert status["ms_left"] == 15000
        clock.advance(15)
        waiter.wait_for("expired")
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_after_a_reboot_or_without_its_file_the_search_waits_paused(
        table: Table, clock: FakeClock, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The monotonic clock starts again at a reboot: the time left is unknown."""
    state = tmp_path / "timer-state.json"
    sid = new_game(table)
    with open_timer("browser", table, {}, clock=clock, state_file=state) as first:
        first.start()
    monkeypatch.setattr(table_timer, "boot_id", lambda: "another-boot")
    for state_file in (state, None):
        with open_timer("browser", table, {}, clock=clock, state_file=state_file) as timer:
            status = timer.status()
            assert status["state"] == "paused" and status["ms_left"] == 30000
            assert status["game"] == sid and "START" in status["error"]
    assert log_types(table, sid) == ["move", "start_search"]


def test_undoing_time_up_with_held_next_pauses_the_search_again(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    sid = new_game(table)
    timer.start()
    clock.advance(30)
    waiter.wait_until(lambda s: s["state"] == "expired")
    wait_log(table, sid, "time_up")
    timer._button("hold")  # NEXT held: the clapper was a mistake
    assert log_types(table, sid) == ["move", "start_search"]
    status = timer.status()
    assert status["state"] == "paused" and status["ms_left"] == 0
    timer.stop()  # the searcher ends it by hand
    assert log_types(table, sid)[-1] == "stop" and timer.status()["state"] == "stopped"


def test_undoing_stop_pauses_with_what_was_left(
        table: Table, timer: TableTimer, clock: FakeClock) -> None:
    sid = new_game(table)
    timer.start()
    clock.advance(12)
    timer.stop()
    timer.undo()
    assert timer.status()["state"] == "paused" and timer.status()["ms_left"] == 18000
    timer.start()  # START resumes it
    assert timer.status()["state"] == "running"
    assert log_types(table, sid) == ["move", "start_search"]


def test_the_timer_is_bound_to_one_game_and_the_buttons_follow_it(
        table: Table, timer: TableTimer, clock: FakeClock) -> None:
    first = new_game(table)
    second = new_game(table)
    assert timer.status()["game"] == second  # the newest game took the free timer
    timer.bind(first)
    assert timer.status()["game"] == first
    timer._button("start")  # the hardware START starts the bound game, not the newest
    assert log_types(table, first)[-1] == "start_search"
    assert log_types(table, second) == ["move"]


def test_a_second_games_search_while_the_timer_runs_and_moving_the_timer(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    first = new_game(table)
    second = new_game(table)
    timer.start(first)
    clock.advance(10)
    table.play(second, {"type": "start_search"})  # on the second game's page
    status = timer.status()
    assert status["game"] == first and status["ms_left"] == 20000  # the timer stays
    clock.advance(4)
    timer.bind(second)  # the second page takes the timer: its search began 4 s ago
    status = timer.status()
    assert status["game"] == second and status["state"] == "running"
    assert status["ms_left"] == 26000
    clock.advance(6)
    timer.bind(first)  # and back: the first search has 10 s left
    assert timer.status()["ms_left"] == 10000 and timer.status()["game"] == first
    clock.advance(10)
    waiter.wait_until(lambda s: s["game"] == first and s["state"] == "expired")
    wait_log(table, first, "time_up")
    assert log_types(table, second) == ["move", "start_search"]


def test_start_with_a_game_moves_the_timer_there(
        table: Table, timer: TableTimer, clock: FakeClock) -> None:
    first = new_game(table)
    second = new_game(table)
    timer.start(first)
    clock.advance(3)
    timer.start(second)  # the second page's START starts the second page's game
    status = timer.status()
    assert status["game"] == second and status["ms_left"] == 30000
    assert log_types(table, second)[-1] == "start_search"


def test_a_new_game_never_shows_the_last_games_timer(
        table: Table, timer: TableTimer, clock: FakeClock, waiter: Waiter) -> None:
    first = new_game(table)
    timer.start()
    clock.advance(30)
    waiter.wait_for("expired")
    second = table.create("drshark", ["Cy", "Di"], seed=3).id
    status = timer.status()
    assert status["game"] == second and status["state"] == "idle"
    assert status["ms_left"] == 0 and first != second


def test_binding_names_what_is_wrong(table: Table, timer: TableTimer) -> None:
    shark = table.create("shark", ["Ann", "Ben", "Cy"], seed=1).id
    with pytest.raises(NoSearchGame, match=r"not Dr\. Shark"):
        timer.bind(shark)
    with pytest.raises(NoSearchGame, match="no game 99"):
        timer.bind(99)
    with pytest.raises(NoSearchGame, match="a game id"):
        timer.bind("1")  # type: ignore[arg-type]


def wait_log(table: Table, sid: int, kind: str, timeout: float = 5) -> None:
    """Wait until ``kind`` is the last action of ``sid`` (logged by the timer's worker)."""
    until = time.monotonic() + timeout
    while log_types(table, sid)[-1:] != [kind]:
        assert time.monotonic() < until, f"{kind} never logged: {log_types(table, sid)}"
        time.sleep(0.01)


def test_the_whole_config_file_may_be_passed(table: Table) -> None:
    config = {"timer": "browser", "port": 8000, "hardware": {"duration_s": 45}}
    with open_timer("browser", table, config) as timer:
        assert timer.status()["duration_ms"] == 45000
