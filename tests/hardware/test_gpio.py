"""The gpio backend on gpiozero's MockFactory: real Button/Buzzer/OutputDevice code,
mock pins driven and read like wires."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, cast

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from companion.hardware import FakeClock, HardwareError, TableTimer, open_timer
from companion.hardware.gpio import GpioBackend
from companion.table import Table
from tests.hardware.conftest import RecordingPin, Waiter, log_types, new_game

SETTINGS: dict[str, Any] = {"duration_s": 30, "pulse_ms": 80, "hold_s": 0.2,
                            "pins": {"leds": [5, 6, 13]}}


def pin(factory: MockFactory, number: int) -> RecordingPin:
    return cast(RecordingPin, factory.pin(number))


def press(factory: MockFactory, number: int) -> None:
    """Press and let go of a button wired from the pin to ground."""
    pin(factory, number).drive_low()
    pin(factory, number).drive_high()


@pytest.fixture
def gpio_timer(mock_pins: MockFactory, table: Table, clock: FakeClock
               ) -> Iterator[TableTimer]:
    with open_timer("gpio", table, SETTINGS, clock=clock) as t:
        yield t


@pytest.fixture
def waiter(gpio_timer: TableTimer) -> Waiter:
    w = Waiter()
    gpio_timer.listen(w)
    return w


def test_start_button_runs_a_search_and_the_clapper_fires_once_at_expiry(
        mock_pins: MockFactory, table: Table, gpio_timer: TableTimer, clock: FakeClock,
        waiter: Waiter) -> None:
    sid = new_game(table)
    clapper = pin(mock_pins, 24)
    press(mock_pins, 17)
    assert log_types(table, sid) == ["move", "start_search"]
    assert gpio_timer.status()["state"] == "running"
    clock.advance(29.5)
    assert clapper.states[-1].state is False and len(clapper.states) == 1
    clock.advance(0.5)
    waiter.wait_for("expired")
    assert log_types(table, sid) == ["move", "start_search", "time_up"]
    assert clapper.wait_states(3) == [False, True, False]
    high_for = clapper.states[2].timestamp  # seconds between going high and low
    assert high_for == pytest.approx(0.08, abs=0.04)


def test_stop_button_ends_the_search_and_the_clapper_stays_still(
        mock_pins: MockFactory, table: Table, gpio_timer: TableTimer, clock: FakeClock,
        waiter: Waiter) -> None:
    sid = new_game(table)
    press(mock_pins, 17)
    clock.advance(12)
    press(mock_pins, 27)
    waiter.wait_for("stopped")
    clock.advance(60)
    assert log_types(table, sid) == ["move", "start_search", "stop"]
    assert [s.state for s in pin(mock_pins, 24).states] == [False]


def test_bounces_and_start_while_running_log_nothing_more(
        mock_pins: MockFactory, table: Table, gpio_timer: TableTimer, clock: FakeClock
        ) -> None:
    sid = new_game(table)
    start = pin(mock_pins, 17)
    for _ in range(4):  # a bouncing contact
        start.drive_low()
        start.drive_high()
    clock.advance(5)
    press(mock_pins, 17)  # START again while running
    assert log_types(table, sid) == ["move", "start_search"]
    assert gpio_timer.status()["ms_left"] == 25000


def test_a_refused_press_sounds_the_error_beeps(
        mock_pins: MockFactory, table: Table, gpio_timer: TableTimer, clock: FakeClock,
        waiter: Waiter) -> None:
    sid = new_game(table)
    press(mock_pins, 17)
    clock.advance(30)
    waiter.wait_for("expired")
    buzzer = pin(mock_pins, 23)
    buzzer.clear_states()  # the time-up buzz may still be sounding
    sounding = buzzer.state
    clock.advance(1)  # past the bounce window
    press(mock_pins, 17)  # Ann's search is over; her turn has not ended
    status = waiter.wait_until(lambda s: s["error"] is not None)
    assert status["state"] == "expired"
    assert log_types(table, sid) == ["move", "start_search", "time_up"]
    # three short beeps (the first continues the time-up buzz if that still sounded)
    expected = [True, False] * 3 if sounding else [False] + [True, False] * 3
    assert buzzer.wait_states(len(expected)) == expected


def test_next_confirms_the_turn_and_a_held_next_undoes(
        mock_pins: MockFactory, table: Table, gpio_timer: TableTimer, clock: FakeClock,
        waiter: Waiter) -> None:
    sid = new_game(table)
    press(mock_pins, 17)
    clock.advance(30)
    waiter.wait_for("expired")
    press(mock_pins, 22)
    assert log_types(table, sid) == ["move", "start_search", "time_up", "end_turn"]
    undone = threading.Event()
    table.listen(lambda s, seq: undone.set())
    pin(mock_pins, 22).drive_low()
    assert undone.wait(5)  # held for hold_s
    pin(mock_pins, 22).drive_high()  # letting go after a hold is not another NEXT
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_led_bar_counts_down(mock_pins: MockFactory, table: Table, gpio_timer: TableTimer,
                             clock: FakeClock, waiter: Waiter) -> None:
    new_game(table)
    leds = [pin(mock_pins, n) for n in (5, 6, 13)]
    press(mock_pins, 17)
    assert leds[2].wait_states(2) == [False, True]  # all three lit at the start
    clock.advance(15)  # half the time gone
    assert leds[2].wait_states(3)[-1] is False
    assert [led.state for led in leds] == [True, False, False]  # 1.5 of 3 rounds down
    clock.advance(15)
    waiter.wait_for("expired")
    assert leds[0].wait_states(3)[-1] is False


def test_close_during_a_pulse_leaves_the_solenoid_off(mock_pins: MockFactory) -> None:
    from companion.hardware.config import HardwareConfig
    backend = GpioBackend(HardwareConfig.from_mapping({"pulse_ms": 1000}))
    clapper = pin(mock_pins, 24)
    backend.clap()
    assert clapper.state is True
    backend.close()
    assert clapper.state is False and [s.state for s in clapper.states] == [False, True, False]
    backend.close()  # twice is fine


def test_an_exception_during_the_pulse_leaves_the_solenoid_off(
        mock_pins: MockFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.hardware import gpio
    from companion.hardware.config import HardwareConfig
    backend = GpioBackend(HardwareConfig())

    def no_threads(*args: object, **kwargs: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(gpio.threading, "Timer", no_threads)
    with pytest.raises(RuntimeError):
        backend.clap()
    assert [s.state for s in pin(mock_pins, 24).states] == [False, True, False]
    backend.close()


def test_a_pin_in_use_is_named_in_the_error(mock_pins: MockFactory, table: Table) -> None:
    squatter = Button(27)
    with pytest.raises(HardwareError, match="BCM 27 for the STOP button"):
        open_timer("gpio", table)
    squatter.close()
    # everything opened before the failure was released again: a retry works
    open_timer("gpio", table).close()


def test_no_pin_library_is_a_clear_error(table: Table,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "nonesuch")
    Device.pin_factory = None
    with pytest.raises(HardwareError, match=r"START button on BCM 17.*GPIOZERO_PIN_FACTORY=mock"):
        open_timer("gpio", table)
