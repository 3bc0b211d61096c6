"""The clapper box's serial protocol, both directions: ASCII lines ending in ``\\n``.

host -> box (:data:`COMMANDS`, read by :func:`parse`): ``HELLO``, ``START <ms>``, ``STOP``,
``CLAP``, ``PING``.
box -> host (:data:`REPLIES`, read by :func:`parse_reply`): ``READY clapperbox
<version>``, ``BUTTON START|STOP|NEXT``, ``HELD NEXT`` (NEXT held down, to undo),
``RUNNING <ms left>``, ``EXPIRED``, ``STOPPED <ms left>``, ``PONG``, ``ERR <reason>``;
unknown lines get ``ERR unknown``. Every ``<ms>`` is whole milliseconds in digits.

Both sides write lines with :func:`line` and cut the byte stream with :class:`LineBuffer`.
This module runs under MicroPython (the box) and CPython (the host): plain Python only.
"""

NAME = "clapperbox"
VERSION = "1.0"
MAJOR = VERSION.split(".")[0]  # a host speaks every 1.x firmware
MAX_LINE = 64
MAX_MS = 3600000

BUTTONS = ("START", "STOP", "NEXT")
NEXT = BUTTONS[2]  # the button that ends a turn, and undoes when held
COMMANDS = ("HELLO", "START", "STOP", "CLAP", "PING")
REPLIES = ("READY", "BUTTON", "HELD", "RUNNING", "EXPIRED", "STOPPED", "PONG", "ERR")
HELLO, START, STOP, CLAP, PING = COMMANDS
READY, BUTTON, HELD, RUNNING, EXPIRED, STOPPED, PONG, ERR = REPLIES


class ProtocolError(ValueError):
    """A line the other side cannot use; ``str(err)`` says why (the box sends it back
    after ``ERR``), ``raw`` holds the bytes that came (empty when not from the wire)."""

    def __init__(self, reason, raw=b""):
        super().__init__(reason)
        self.raw = raw


def line(word, arg=None):
    """One line to send, without its ``\\n``: ``line("START", 30000)`` is
    ``'START 30000'``."""
    return word if arg is None else word + " " + str(arg)


def parse(text):
    """``(command, ms)`` from a host line (``ms`` is ``None`` but for START).

    >>> parse("START 30000")
    ('START', 30000)
    """
    words = text.strip().split()
    if not words or words[0] not in COMMANDS:
        raise ProtocolError("unknown")
    command = words[0]
    if command != "START":
        if len(words) != 1:
            raise ProtocolError(command + " takes no argument")
        return command, None
    if len(words) != 2 or not words[1].isdigit():
        raise ProtocolError("START needs the milliseconds, e.g. START 30000")
    ms = int(words[1])
    if not 0 < ms <= MAX_MS:
        raise ProtocolError("START between 1 and " + str(MAX_MS) + " ms")
    return command, ms


def parse_reply(text):
    """``(reply, value)`` from a box line: ``value`` is ``(name, version)`` for READY,
    the button for BUTTON and HELD, the milliseconds for RUNNING and STOPPED, the reason
    for ERR, ``None`` for EXPIRED and PONG.

    >>> parse_reply("RUNNING 12000")
    ('RUNNING', 12000)
    """
    words = text.strip().split()
    reply = words[0] if words else ""
    args = words[1:]
    if reply == "ERR":
        return reply, " ".join(args)
    if reply == "READY" and len(args) == 2:
        return reply, (args[0], args[1])
    if reply == "BUTTON" and len(args) == 1 and args[0] in BUTTONS:
        return reply, args[0]
    if reply == "HELD" and args == ["NEXT"]:
        return reply, args[0]
    if reply in ("RUNNING", "STOPPED") and len(args) == 1 and args[0].isdigit():
        return reply, int(args[0])
    if reply in ("EXPIRED", "PONG") and not args:
        return reply, None
    raise ProtocolError("not part of the clapper box's protocol")


class LineBuffer:
    """Bytes in, complete lines out, for lines that start with one of ``words`` and pass
    ``check`` (:func:`parse` for host lines, :func:`parse_reply` for the box's).

    Noise in front of a line (a loose wire, a line cut off by opening the port late)
    does not cost the line: the line is the longest tail that starts with one of
    ``words`` and passes ``check`` (else the longest that starts with a word, for its
    error). Lines that are too long or not ASCII with no such tail come out as
    :class:`ProtocolError`.
    """

    def __init__(self, words=COMMANDS, check=parse):
        self.words = [w.encode() for w in words]
        self.check = check
        self.skipped = 0  # bytes of noise skipped so far
        self._buf = b""
        self._overflow = False

    @property
    def partial(self):
        """The bytes of a line still without its end (a REPL's ``>>> `` prompt)."""
        return self._buf

    def feed(self, data):
        """The lines completed by ``data``: each a ``str``, or a ``ProtocolError``."""
        out = []
        self._buf += data
        while True:
            cut = self._buf.find(b"\n")
            if cut < 0:
                break
            raw, self._buf = self._buf[:cut], self._buf[cut + 1:]
            out.append(self._line(raw, self._overflow))
            self._overflow = False
        if len(self._buf) > MAX_LINE + 1:  # + 1: the "\r" of a "\r\n" still to come
            self._buf = self._buf[-(MAX_LINE + 1):]  # the tail may still be a line
            self._overflow = True
        return out

    def _line(self, raw, overflow):
        raw = raw.rstrip(b"\r")
        first = None
        for at in range(len(raw)):
            if self._starts(raw, at):
                text = _decode(raw[at:])
                if isinstance(text, ProtocolError):
                    continue
                if first is None:
                    first = (at, text)
                if self._passes(text):
                    first = (at, text)
                    break
        if first is not None:
            self.skipped += first[0] + (1 if overflow else 0)
            return first[1]
        if overflow or len(raw) > MAX_LINE:
            return ProtocolError("line too long", raw)
        return _decode(raw)

    def _passes(self, text):
        try:
            self.check(text)
        except ProtocolError:
            return False
        return True

    def _starts(self, raw, at):
        for word in self.words:
            end = at + len(word)
            if raw[at:end] == word and (end == len(raw) or raw[end] in (32, 9)):
                return True
        return False


def _decode(raw):
    if len(raw) > MAX_LINE:
        return ProtocolError("line too long", raw)
    for b in raw:
        if b > 126 or (b < 32 and b != 9):
            return ProtocolError("unknown", raw)
    return raw.decode()
