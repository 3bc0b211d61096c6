"""Hypothesis strategies for bad input: any JSON value where a game expects another.

Shared by the games' bad-input tests: an action field or an option may hold anything a
JSON file or a phone could send, and the engine must answer with ``IllegalAction`` or
``BadSetup``, never another exception.
"""

from __future__ import annotations

from hypothesis import strategies as st

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(),
                    st.floats(allow_nan=True), st.text(max_size=6))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)
"""Any JSON value: scalars, lists and objects nested a little."""


def like(*good: object) -> st.SearchStrategy[object]:
    """Mostly plausible values (``good``), sometimes any JSON value."""
    return st.one_of(st.sampled_from(good), json_values)


def spoiled(value: object, path: list[int | str], junk: object) -> object:
    """``value`` with the item at ``path`` replaced by ``junk``: a good option spoiled in
    one place. Integer steps pick a list item or an object key (wrapping around)."""
    if not path:
        return junk
    key, rest = path[0], path[1:]
    if isinstance(value, list) and value:
        i = int(key) % len(value) if isinstance(key, int) else 0
        return [spoiled(v, rest, junk) if n == i else v for n, v in enumerate(value)]
    if isinstance(value, dict) and value:
        names = sorted(value)
        k = names[key % len(names)] if isinstance(key, int) else key
        return {**value, k: spoiled(value.get(k), rest, junk)}
    return junk
