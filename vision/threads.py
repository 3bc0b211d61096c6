"""How a read runs in this process: on one thread, with the memory it frees kept for the
next read.

A Pi has four cores and a table may read two photos at once. OpenCV and the BLAS under
numpy each start a pool of threads as wide as the machine; two reads at once then fight
over every core and each is several times slower. And glibc gives each large array its
own pages and hands them back when it is freed, so every read faults in and zeroes tens
of megabytes anew (a tenth of a Shoal read's time here). The readers call
:func:`one_thread` and :func:`keep_freed_memory` before they work (the command line and
``serve`` both read through them). A process that has not loaded numpy yet (the command
line) calls :func:`one_thread_from_start` first: the BLAS then never starts its pool.
"""

from __future__ import annotations

import os
import sys
from functools import cache

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
ARRAY_BYTES = 16 << 20
"""Arrays up to this size come from the heap, not pages of their own (a read's largest,
the straightened photo in floats, is about 10 MB; glibc allows up to 16 MB on a 32-bit
Pi OS)."""
KEPT_BYTES = 64 << 20
"""Freed memory the heap keeps for the next arrays instead of handing it back."""

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
"""What OpenMP, OpenBLAS, MKL, BLIS and Apple's Accelerate read, once, when they are
loaded (each BLAS threadpoolctl would limit)."""
_from_start: list[bool] = []


def one_thread_from_start() -> None:
    """BLAS to one thread from the moment numpy loads it, if it has not yet. Told later
    (threadpoolctl), OpenBLAS has already started its pool, and its threads spin on the
    cores for a while: a whole ``companion vision read`` took 1.7-1.9 times as long here
    with other programs on the 2 cores. :func:`one_thread` then has nothing left to ask
    threadpoolctl."""
    if "numpy" in sys.modules:
        return
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    _from_start.append(True)


@cache
def one_thread() -> None:
    """OpenCV and BLAS to one thread each, for this process (once)."""
    import cv2

    cv2.setNumThreads(1)
    if not _from_start:
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)


@cache
def keep_freed_memory() -> bool:
    """Tell glibc's allocator to serve arrays up to :data:`ARRAY_BYTES` from the heap
    and to keep up to :data:`KEPT_BYTES` freed (once); whether it took both. Without
    glibc (macOS, musl) nothing changes."""
    import ctypes

    try:  # the process's own symbols hold libc's (ctypes.util.find_library runs ldconfig)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_MMAP_THRESHOLD, ARRAY_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, KEPT_BYTES))
