"""One thread per read: a Pi has four cores and a table may read two photos at once.

OpenCV and the BLAS under numpy each start a pool of threads as wide as the machine;
two reads at once then fight over every core and each is several times slower. The
readers call :func:`one_thread` before they work (the command line and ``serve`` both
read through them).
"""

from __future__ import annotations

from functools import cache


@cache
def one_thread() -> None:
    """OpenCV and BLAS to one thread each, for this process (once)."""
    import cv2
    from threadpoolctl import threadpool_limits

    cv2.setNumThreads(1)
    threadpool_limits(1)
