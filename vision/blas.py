"""Matrix products whose result, not the processor's floating-point flags, says whether
they went wrong.

numpy's ``@`` hands a product to the BLAS (OpenBLAS in its wheels) and then turns the
processor's cumulative floating-point flags into warnings ("divide by zero / overflow /
invalid value encountered in matmul"). On an Arm core with the Scalable Matrix Extension
(SME) OpenBLAS's kernels enter and leave the core's streaming mode, and the architecture
sets those flags on every entry and exit, whatever the numbers: a product of finite
numbers with a right result warns. qemu's default arm64 CPU has SME, so the Pi-like root
of ``deploy/pi-proof.sh`` shows it; a Raspberry Pi 4 or 5 (Cortex-A72, A76) has no SME,
but a service should not fill its journal on a board that does. So the flags of the
product are ignored, and its result is checked instead: a NaN or an infinity in it (from
a NaN or an infinity in the operands, or a real overflow) is a :class:`VisionError`.
"""

from __future__ import annotations

import numpy as np

from vision.errors import VisionError

NOT_FINITE = ("comparing the photo with the card pictures gave NaN or infinity: the photo "
              "or the pictures hold values that are not numbers; take the photo again, "
              "and if it happens again, check the deck or faces with `companion doctor`")


def product(a: np.ndarray, b: np.ndarray, checked: bool = True) -> np.ndarray:
    """``a @ b`` (any shapes ``@`` takes) with no warning from the flags of the BLAS
    call; :class:`VisionError` if the result holds a NaN or an infinity. ``checked=False``
    for a step whose result only feeds a checked product (a NaN or an infinity carries
    through a product to its result), so a large intermediate is not scanned."""
    with np.errstate(all="ignore"):
        out: np.ndarray = a @ b
    if checked and not np.isfinite(out).all():
        raise VisionError(NOT_FINITE)
    return out
