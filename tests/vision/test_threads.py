"""How a read runs in its process (vision.threads): one thread, freed memory kept, and a
vision command without the cyclic collector. Each process check runs in a fresh
interpreter, as the command line's reads do."""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys

from vision import commands

LOOP = """
import resource
import numpy as np
from vision import threads
if {keep}:
    assert threads.keep_freed_memory()
start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(30):  # arrays of a read's size, a little larger each time
    a = np.ones((1000 + i, 1000))
    b = a * 2
    del a, b
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start)
"""


def _faults(keep: bool) -> int:
    done = subprocess.run([sys.executable, "-c", LOOP.format(keep=keep)], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


def test_freed_arrays_are_reused_not_faulted_in_again() -> None:
    """Without it most 8 MB arrays are fresh pages (2000 page faults each; glibc reuses
    some: 25,000-35,000 in all here); with it the heap hands the freed ones out again."""
    kept, fresh = _faults(True), _faults(False)
    assert fresh > 10 * 1000
    assert kept < fresh / 5, f"{kept} page faults with the memory kept, {fresh} without"


def test_a_read_runs_on_one_thread() -> None:
    code = """
import cv2
import numpy as np
from threadpoolctl import threadpool_info
from vision.reading import Reading, timed
reading = timed(lambda photo: Reading("shoal", {}, {}), np.zeros((4, 4, 3), np.uint8))
print(cv2.getNumThreads(), sorted({p["num_threads"] for p in threadpool_info()}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["1", "[1]"]


def test_a_vision_command_runs_without_the_collector_and_gives_it_back() -> None:
    seen: list[bool] = []

    def command(args: argparse.Namespace) -> int:
        seen.append(gc.isenabled())
        return 0

    assert gc.isenabled()
    assert commands._guarded(command)(argparse.Namespace()) == 0
    assert seen == [False] and gc.isenabled()


def test_the_command_line_starts_blas_with_one_thread() -> None:
    """Told before numpy loads, BLAS never starts a pool, and a read then needs no
    threadpoolctl."""
    code = """
import sys
import numpy as np
from vision.reading import Reading, timed
timed(lambda photo: Reading("shoal", {}, {}), np.zeros((4, 4, 3), np.uint8))
used = "threadpoolctl" in sys.modules
from threadpoolctl import threadpool_info
print(used, sorted({p["num_threads"] for p in threadpool_info()}))
"""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    told = "from vision import threads\nthreads.one_thread_from_start()\n" + code
    runs = [subprocess.run([sys.executable, "-c", c], capture_output=True, text=True,
                           check=True, env=env).stdout.split() for c in (told, code)]
    assert runs[0] == ["False", "[1]"] and runs[1] == ["True", "[1]"]
