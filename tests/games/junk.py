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
