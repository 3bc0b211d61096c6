"""The clapper box's serial protocol: ASCII lines ending in ``\\n``.

host -> box: ``HELLO``, ``START <ms>``, ``STOP``, ``CLAP``, ``PING``
box -> host: ``READY clapperbox <version>``, ``BUTTON START|STOP|NEXT``,
``HELD NEXT`` (NEXT held down, to undo), ``RUNNING <ms left>``, ``EXPIRED``,
``STOPPED <ms left>``, ``PONG``, ``ERR <reason>``; unknown lines get ``ERR unknown``.
"""

NAME = "clapperbox"
VERSION = "1.0"
MAX_LINE = 64
MAX_MS = 3600000

COMMANDS = ("HELLO", "START", "STOP", "CLAP", "PING")


class ProtocolError(ValueError):
    """A line the box cannot obey; ``str(err)`` is the reason sent back after ``ERR``."""


def parse(line):
    """``(command, ms)`` from a host line (``ms`` is ``None`` but for START).

    >>> parse("START 30000")
    ('START', 30000)
    """
    words = line.strip().split()
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


class LineBuffer:
    """Bytes in, complete lines out; overlong or non-ASCII lines come out as errors."""

    def __init__(self):
        self._buf = b""
        self._overflow = False

    def feed(self, data):
        """The lines completed by ``data``: each a ``str``, or a ``ProtocolError``."""
        out = []
        self._buf += data
        while True:
            cut = self._buf.find(b"\n")
            if cut < 0:
                break
            raw, self._buf = self._buf[:cut], self._buf[cut + 1:]
            if self._overflow:
                self._overflow = False
                out.append(ProtocolError("line too long"))
                continue
            out.append(_decode(raw))
        if len(self._buf) > MAX_LINE + 1:  # + 1: the "\r" of a "\r\n" still to come
            self._buf = b""
            self._overflow = True
        return out


def _decode(raw):
    raw = raw.rstrip(b"\r")
    if len(raw) > MAX_LINE:
        return ProtocolError("line too long")
    if any(b > 126 or (b < 32 and b != 9) for b in raw):
        return ProtocolError("unknown")
    return raw.decode()
