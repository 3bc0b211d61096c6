"""Scenarios of the firmware that print a transcript: run under CPython and under real
MicroPython (the WebAssembly port, tests/firmware/board/run.mjs), the two transcripts must
be the same byte for byte. Plain Python, no f-strings with format specs, no floats
printed, no dict order relied on.

``python scenarios.py`` (with this folder and the repository on the path) prints it.
"""

import machine

from firmware import pico, protocol
from firmware.box import BUTTONS, Box

HOUR_MS = 3600 * 1000


def say(*words):
    print(" ".join(str(w) for w in words))


def shown(item):
    if isinstance(item, protocol.ProtocolError):
        return "<error: " + str(item) + ">"
    return "<" + item + ">"


# The protocol, both directions ---------------------------------------------------------

def protocol_lines():
    say("# host lines read by the box")
    for text in ("HELLO", "START 30000", "START 0", "START 3600001", "START soon",
                 "START 1e3", "PING now", "FLY AWAY", " STOP ", ""):
        try:
            say(repr(text), "->", protocol.parse(text))
        except protocol.ProtocolError as err:
            say(repr(text), "-> ERR", err)
    say("# box lines read by the host")
    for text in ("READY clapperbox 1.0", "READY modem", "BUTTON START", "BUTTON SELECT",
                 "HELD NEXT", "HELD STOP", "RUNNING 12000", "RUNNING 499.78", "EXPIRED",
                 "STOPPED 5", "PONG", "PONG PONG", "ERR unknown", "NING 12000", ">>> "):
        try:
            say(repr(text), "->", protocol.parse_reply(text))
        except protocol.ProtocolError as err:
            say(repr(text), "-> not protocol:", err)
    say("# lines cut from bytes")
    streams = (
        ("box", [b"HELLO\nPI", b"NG\r\n", b"START 30", b"000\n"]),
        ("box", [b"\x00\xff~~START 30000\n", b"x" * 100 + b"PING\n"]),
        ("box", [b"\xffgarbage without end " * 5, b"STOP\n"]),
        ("box", [b"x" * 70 + b"\n", b"START \xff\xffSTART 40000\n", b"FLY AWAY\n"]),
        ("host", [b"NING 12000\nRUNNING 11000\nBUTTON ST", b"READY clapperbox 1.0\n"]),
        ("box", [b"START 3STOP\n", b"HELLO HELLO\n", b"STAR PING\n"]),
        ("host", [b"HELLO\r\nTraceback (most recent call last):\r\n", b">>> "]),
        ("host", [b"\x80\x81BUTTON START\n", b"noise" * 20, b"HELD NEXT\n"]),
    )
    for side, chunks in streams:
        buf = (protocol.LineBuffer() if side == "box" else
               protocol.LineBuffer(protocol.REPLIES, protocol.parse_reply))
        out = []
        for chunk in chunks:
            out += [shown(x) for x in buf.feed(chunk)]
        say(side, " ".join(out))
    say(protocol.line("START", 30000), protocol.line("PONG"), protocol.line("ERR", "unknown"))


# The box's logic on wrapping ticks ---------------------------------------------------

class Parts:
    """The box's parts, printing each switch with the time since ``t0``."""

    def __init__(self):
        self.t0 = machine.ticks_ms()
        self.state = {}

    def _set(self, part, on):
        if self.state.get(part) != on:
            self.state[part] = on
            say("  ", offset(self.t0), part, "on" if on else "off")

    def solenoid(self, on):
        self._set("solenoid", on)

    def buzzer(self, on):
        self._set("buzzer", on)

    def leds(self, fraction):
        self._set("leds", fraction > 0)


def offset(t0):
    return "+" + str(machine.ticks_diff(machine.ticks_ms(), t0)) + "ms"


def new_box(parts, **settings):
    return Box(parts, diff=machine.ticks_diff, add=machine.ticks_add, **settings)


def search_across(base):
    """A 3 s search with the counter at ``base`` when it starts (every 100 ms a loop)."""
    machine.set_ticks(base)
    say("# a 3 s search from ticks", base)
    parts = Parts()
    box = new_box(parts)
    for line in box.receive("START 3000", machine.ticks_ms()):
        say("  ", offset(parts.t0), line)
    while True:
        machine.advance(min(100, max(1, box.next_due(machine.ticks_ms()))))
        out = box.poll(machine.ticks_ms())
        for line in out:
            say("  ", offset(parts.t0), line)
        if "EXPIRED" in out:
            break
    for _ in range(3):  # the pulse and the time-up buzz end
        machine.advance(max(1, box.next_due(machine.ticks_ms())))
        box.poll(machine.ticks_ms())
    say("  next due in", box.next_due(machine.ticks_ms()), "ms")


def press(box, name, ms=50, step=5):
    """Hold ``name`` for ``ms``, read every ``step`` ms as the loop does; the lines."""
    out = []
    for _ in range(ms // step):
        out += box.button(name, True, machine.ticks_ms())
        machine.advance(step)
    for _ in range(10):
        out += box.button(name, False, machine.ticks_ms())
        machine.advance(step)
    return out


def idle_days(box, days):
    """``days`` without a press, the loop reading the buttons once an hour."""
    for _ in range(days * 24):
        machine.advance(HOUR_MS)
        for name in BUTTONS:
            box.button(name, False, machine.ticks_ms())
        box.poll(machine.ticks_ms())


def idle_buttons():
    for days in (1, 7, 13, 30):
        machine.set_ticks(12345)
        say("# after", days, "days idle:")
        box = new_box(Parts(), hold_ms=3000)
        first = press(box, "START")
        idle_days(box, days)
        later = press(box, "START") + press(box, "NEXT") + press(box, "NEXT", ms=3100)
        say("  ", first, later)


# The Pico layer: pins, watchdog, the pulse timer, a reset on a crash -----------------

class Line:
    """The USB serial line: a polled input stream the firmware reads a byte at a time
    (waiting on it moves the simulated clock), and its output, optionally blocking."""

    def __init__(self, data=b""):
        self.data = data
        self.out = []
        self.block_ms = 0

    def poll(self, ms):
        if self.data:
            return [(self, 1)]
        machine.advance(ms)
        return []

    def read(self, n):
        got, self.data = self.data[:n], self.data[n:]
        return got

    def write(self, text):
        machine.advance(self.block_ms)  # a host that does not read: the write blocks
        self.out.append((machine.ticks_ms(), text.strip()))


def fresh_board(base):
    machine.set_ticks(base)
    machine.board.clear()
    del machine.log[:]
    pico.ticks_ms = machine.ticks_ms
    pico.ticks_diff = machine.ticks_diff
    pico.ticks_add = machine.ticks_add


def steps(fw, count):
    for _ in range(count):
        fw.step()


def pins_since(t0):
    return " ".join(offset_of(t, t0) + ":" + change for t, change in machine.log)


def offset_of(t, t0):
    return "+" + str(machine.ticks_diff(t, t0))


def pico_scenarios():
    base = machine.ticks_add(0, -40)  # the counter wraps during each scenario
    fresh_board(base)
    line = Line(b"HELLO\nPING\nSTART 100\n")
    fw = pico.Firmware(pico.Parts(), line, line, machine.WDT(timeout=5000), poller=line)
    steps(fw, 200)
    say("# pico: answers and a 100 ms search")
    say("  ", " ".join(offset_of(t, base) + ":" + text for t, text in line.out))
    say("   pins:", pins_since(base))
    say("   watchdog fed", machine.feeds[0], "times in 200 steps")

    fresh_board(base)
    line = Line(b"START 50\n")
    fw = pico.Firmware(pico.Parts(), line, line, machine.WDT(timeout=5000), poller=line)
    line.block_ms = 600
    steps(fw, 60)
    say("# pico: the host does not read (each write blocks 600 ms)")
    say("  ", " ".join(offset_of(t, base) + ":" + text for t, text in line.out))
    say("   pins:", pins_since(base))

    fresh_board(base)
    line = Line(b"HELLO\nSTART 20\n")
    parts = pico.Parts()
    real = parts.pressed

    def failing(name):
        if machine.board[16].level == 1:  # a bug strikes mid-pulse
            raise RuntimeError("a bug")
        return real(name)
    parts.pressed = failing
    pico.Parts = lambda: parts
    try:
        pico.run(line, line, line)
        say("# pico: run returned")
    except machine.Reset:
        say("# pico: an exception in the loop resets the Pico")
    say("   pins:", pins_since(base))
    say("  ", " ".join(text for _, text in line.out))

    fresh_board(base)
    parts = real_parts()
    parts.buttons["STOP"].level = 0
    pico.Parts = lambda: parts
    pico.run(line, line, line)
    say("# pico: STOP held at power-up is safe mode; pins:", pins_since(base))
    pico.Parts = real_parts


real_parts = pico.Parts


def main():
    protocol_lines()
    for base in (0, machine.ticks_add(1 << 29, -1500), machine.ticks_add(0, -1500)):
        search_across(base)
    idle_buttons()
    pico_scenarios()


main()
