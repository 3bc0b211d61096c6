"""The one error the vision package raises for input it cannot use."""

from __future__ import annotations


class VisionError(ValueError):
    """A photo, deck, faces or mat file that cannot be used; the message says what to do.

    The command line prints it as one line and exits 2.
    """
