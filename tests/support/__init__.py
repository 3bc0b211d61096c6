"""Helpers shared by test modules: a package of plain modules, never test modules, so
that no test module imports another (pytest collects only ``test_*.py``)."""
