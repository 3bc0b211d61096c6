"""Reading server-sent events in tests."""

from __future__ import annotations

import json
from typing import Any


def read_events(stream: Any, count: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The next ``count`` events of a streamed SSE response (keepalives skipped)."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for chunk in stream:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if not text.startswith("event:"):
            continue
        fields = dict(line.split(": ", 1) for line in text.strip().split("\n"))
        out.append((fields["event"], fields.get("id", ""), json.loads(fields["data"])))
        if len(out) == count:
            break
    return out
