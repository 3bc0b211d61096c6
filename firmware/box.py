"""The clapper box's logic: it keeps time itself, so the clapper fires on time even when
the host is slow or gone.

``Box`` is fed host lines, button levels and the time (milliseconds from any counter);
it returns the lines to send and drives its parts through three calls:
``parts.solenoid(on)``, ``parts.buzzer(on)`` and ``parts.leds(fraction)``. Under
MicroPython ``diff`` and ``add`` are ``time.ticks_diff`` and ``time.ticks_add``;
elsewhere plain subtraction and addition.

MicroPython's millisecond counter wraps every 2^30 ms and ``ticks_diff`` is only right
for times less than 2^29 ms (6.2 days) apart, so no tick is kept longer than it is
needed: a button's last edge is moved up to ``now - LONG_AGO`` at every read. The loop
must call :meth:`Box.button` and :meth:`Box.poll` more often than every few days (the
Pico's does so every few milliseconds).
"""

from firmware import protocol

DEBOUNCE_MS = 30
REPORT_MS = 1000
WARNING_BEEP_MS = 80
TIME_UP_BEEP_MS = 1000
BUTTONS = protocol.BUTTONS


def _subtract(a, b):
    return a - b


def _add(a, b):
    return a + b


class Box:
    def __init__(self, parts, pulse_ms=80, warning_ms=3000, hold_ms=3000, diff=_subtract,
                 add=_add):
        self.parts = parts
        self.pulse_ms = pulse_ms
        self.warning_ms = warning_ms
        self.hold_ms = hold_ms
        self.diff = diff
        self.add = add
        self.total = 1
        self.running = False
        self.deadline = 0
        self._next_report = 0
        self._next_warning = 0
        self._solenoid_off = None  # time the pulse ends, while energised
        self._buzzer_off = None
        self._level = {}  # button -> (pressed, since)
        self._held = False
        parts.solenoid(False)
        parts.buzzer(False)
        parts.leds(0)

    # Host lines -------------------------------------------------------------------

    def receive(self, line, now):
        """The replies to one host line (a ``str`` or a ``ProtocolError`` from the
        line buffer)."""
        try:
            if isinstance(line, protocol.ProtocolError):
                raise line
            command, ms = protocol.parse(line)
        except protocol.ProtocolError as err:
            return [protocol.line(protocol.ERR, str(err))]
        if command == protocol.HELLO:
            return [protocol.line(protocol.READY, protocol.NAME + " " + protocol.VERSION)]
        if command == protocol.PING:
            return [protocol.line(protocol.PONG)]
        if command == protocol.CLAP:
            self._pulse(now)
            return []
        if command == protocol.STOP:
            left = self.left(now) if self.running else 0
            self._halt()
            return [protocol.line(protocol.STOPPED, left)]
        # START: a new search, or the host re-syncing after a reconnect
        self.running = True
        self.total = ms
        self.deadline = self.add(now, ms)
        self._next_report = self.add(now, REPORT_MS)
        self._next_warning = min(self.warning_ms, (ms - 1) // 1000 * 1000)
        self.parts.leds(1)
        return [protocol.line(protocol.RUNNING, ms)]

    def left(self, now):
        return max(0, self.diff(self.deadline, now))

    # Buttons ----------------------------------------------------------------------

    def button(self, name, pressed, now):
        """Report a button's level (``pressed`` True while held down), read every few
        milliseconds; edges closer than ``DEBOUNCE_MS`` are contact bounce."""
        long_ago = self.hold_ms + DEBOUNCE_MS  # longer than any wait that matters
        was, since = self._level.get(name, (False, self.add(now, -long_ago)))
        age = self.diff(now, since)
        if age > long_ago or age < 0:  # keep the tick within ticks_diff's window
            age, since = long_ago, self.add(now, -long_ago)
            self._level[name] = (was, since)
        if pressed != was and age >= DEBOUNCE_MS:
            self._level[name] = (pressed, now)
            if name != protocol.NEXT:
                return [protocol.line(protocol.BUTTON, name)] if pressed else []
            if pressed:
                self._held = False
                return []
            return [] if self._held else [protocol.line(protocol.BUTTON, name)]
        if name == protocol.NEXT and was and not self._held and age >= self.hold_ms:
            self._held = True
            return [protocol.line(protocol.HELD, name)]
        return []

    # Time -------------------------------------------------------------------------

    def poll(self, now):
        """Lines due at ``now``; ends pulses and beeps, reports, warns and expires."""
        out = []  # type: list[str]
        if self._solenoid_off is not None and self.diff(now, self._solenoid_off) >= 0:
            self.parts.solenoid(False)
            self._solenoid_off = None
        if self._buzzer_off is not None and self.diff(now, self._buzzer_off) >= 0:
            self.parts.buzzer(False)
            self._buzzer_off = None
        if not self.running:
            return out
        left = self.diff(self.deadline, now)
        if left <= 0:
            self.running = False
            self._pulse(now)
            self._beep(now, TIME_UP_BEEP_MS)
            self.parts.leds(0)
            out.append(protocol.line(protocol.EXPIRED))
            return out
        if self._next_warning > 0 and left <= self._next_warning:
            self._beep(now, WARNING_BEEP_MS)
            self._next_warning -= 1000
        if self.diff(now, self._next_report) >= 0:
            self._next_report = self.add(now, REPORT_MS)
            out.append(protocol.line(protocol.RUNNING, left))
            self.parts.leds(left / self.total)
        return out

    def next_due(self, now):
        """Milliseconds until ``poll`` has something to do (at most ``REPORT_MS``)."""
        times = [t for t in (self._solenoid_off, self._buzzer_off) if t is not None]
        if self.running:
            times += [self.deadline, self._next_report]
            if self._next_warning > 0:
                times.append(self.add(self.deadline, -self._next_warning))
        wait = REPORT_MS
        for t in times:
            wait = min(wait, self.diff(t, now))
        return max(0, wait)

    def safe(self):
        """Everything off: called when the firmware stops for any reason."""
        self.parts.solenoid(False)
        self.parts.buzzer(False)
        self.parts.leds(0)

    def _pulse(self, now):
        if self._solenoid_off is None:
            self.parts.solenoid(True)
            self._solenoid_off = self.add(now, self.pulse_ms)

    def _beep(self, now, ms):
        self.parts.buzzer(True)
        self._buzzer_off = self.add(now, ms)

    def _halt(self):
        self.running = False
        self.parts.leds(0)
