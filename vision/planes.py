"""Each channel's best plane (offset and tilt) taken out of samples of a window.

A veil's brightening, a lamp's falloff and the paper's own shade change slowly over a
card: what a window's samples share with a plane over it is light, not print. Samples
are M x n x c (windows, samples, channels); a basis ``q`` (n x 3, orthonormal) is
:func:`vision.matching.plane_basis`'s. Clipped samples are left out of the fit, each
channel's on its own (:func:`deplane_weighted`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.blas import product


def deplane(samples: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``samples`` (M x n x c) with each channel's best plane removed."""
    m, n, c = samples.shape
    qc = per_channel(q, c)
    flat = samples.reshape(m, n * c)
    out: np.ndarray = (flat - product(product(flat, qc, False), qc.T, False)).reshape(m, n, c)
    return out


def deplane_weighted(samples: np.ndarray, weight: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The same fitted to the known samples only (``weight`` M x n, 0 or 1; or M x n x c,
    each channel's own: a pixel clipped in one channel still shows the others), and the
    unknown ones left out (0)."""
    if weight.ndim == 3:  # each channel's plane over its own known samples
        return np.concatenate([deplane_weighted(samples[:, :, ch:ch + 1], weight[:, :, ch], q)
                               for ch in range(samples.shape[2])], 2)
    m, n, c = samples.shape
    qc = per_channel(q, c)
    flat = samples.reshape(m, n * c)
    whole = np.asarray(weight, bool).all(1)
    if whole.all():
        return deplane(samples, q)
    # every box in one pass, no rows gathered and scattered back (most of a photo's
    # boxes are partly clipped under a lamp's reflection): a box seen whole weighs every
    # sample 1 and keeps its plain plane's coefficients, a partly clipped one has them
    # solved from the 3 x 3 normal equations over its known samples
    known = over_channels(weight, c)  # multiplied as 0 or 1, never made floats itself
    coef = product(flat * known, qc, False)
    some = np.flatnonzero(~whole) if whole.any() else slice(None)  # no copies when none is
    part = weight[some]
    pairs = (q[:, :, None] * q[:, None, :]).reshape(n, 9)
    a = (product(part.astype(np.float32), pairs, False).reshape(len(part), 3, 3)
         + 1e-6 * np.eye(3, dtype=np.float32))
    coef[some] = np.linalg.solve(a, coef[some].reshape(len(part), 3, c)).reshape(len(part), -1)
    fit = product(coef, qc.T, False)
    out = np.multiply(np.subtract(flat, fit, out=fit), known, out=fit)
    result: np.ndarray = out.reshape(m, n, c)
    return result


def over_channels(weight: np.ndarray, c: int) -> np.ndarray:
    """``weight`` (M x n, bool) for samples flattened with their ``c`` channels (M x n*c,
    bool: a product with it is the product with 0 or 1, with no array of floats made);
    for three, OpenCV's grey to colour (numpy's repeat is slower)."""
    weight = np.asarray(weight, bool)
    if c == 3:
        colour = cv2.cvtColor(np.ascontiguousarray(weight).view(np.uint8), cv2.COLOR_GRAY2BGR)
        out: np.ndarray = colour.reshape(len(weight), -1).view(bool)
        return out
    return np.repeat(weight, c, axis=1) if c > 1 else weight


_KEPT: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def per_channel(q: np.ndarray, c: int) -> np.ndarray:
    """The basis ``q`` (n x 3) for samples flattened with their ``c`` channels
    (n*c x 3*c, rows sample-major, columns plane-term-major): each channel's plane on its
    own. Made once per basis (:func:`vision.matching.plane_basis` makes each once)."""
    kept = _KEPT.get((id(q), c))
    if kept is not None and kept[0] is q:
        return kept[1]
    out: np.ndarray = np.kron(q, np.eye(c, dtype=q.dtype))
    if len(_KEPT) > 64:  # bases made elsewhere, not kept: do not hoard them
        _KEPT.clear()
    _KEPT[(id(q), c)] = (q, out)
    return out
