"""Small helpers for sentences a player reads: counts, lists and money."""

from __future__ import annotations

from collections.abc import Iterable


def plural(n: int, one: str, many: str | None = None) -> str:
    """``plural(1, "share") == "1 share"``, ``plural(3, "share") == "3 shares"``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def listed(items: Iterable[object], empty: str = "nothing") -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``; ``empty`` for none."""
    words = [str(i) for i in items]
    if not words:
        return empty
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def money(amount: int) -> str:
    """Dollars as the rulebook writes them: ``$213,000``, ``-$3,000``."""
    return f"${amount:,}" if amount >= 0 else f"-${-amount:,}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
