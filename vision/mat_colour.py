"""The Shoal reader's colour test: is a cell the bare mat's colour, a card's, or the mat
whitened by glare? A plain section and the bare mat look alike in pattern, not in colour
(:func:`mat_coloured`, used by :class:`vision.shoal.ShoalReader`)."""

from __future__ import annotations

import numpy as np

NEAR = 6
"""Bare cells nearest a cell whose colour is the mat's there (:func:`mat_coloured`)."""


def chroma(colours: np.ndarray) -> np.ndarray:
    """Colour without brightness: log of each channel less their mean (K x 3)."""
    logs = np.log(np.maximum(colours, 1e-3))
    out: np.ndarray = logs - logs.mean(-1, keepdims=True)
    return out


def mat_coloured(sections: np.ndarray, means: np.ndarray, still: np.ndarray,
                 section_means: np.ndarray, bare_cells: np.ndarray, sure_cells: np.ndarray,
                 bare: float, stop: float, places: np.ndarray, plain: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``sections`` with every cell of the bare mat's colour kept from matching a section
    clearly not of that colour (down to ``bare``): a plain section and the bare mat look
    alike in pattern, not in colour.

    Colours are compared without brightness (:func:`chroma`); the photo's cast is the
    median difference between the ``sure_cells``' colour and their best section's; the
    mat's colour at a cell is that of the :data:`NEAR` ``bare_cells`` nearest it (cells
    at ``places``, K x 2: light and veils change the mat's colour across the photo), and
    its spread is how far bare cells stray from their neighbours'. Colour decides only
    where the pattern cannot: a sure cell whose best section has fish (not ``plain``,
    N) is kept whatever its colour, since cells of a card that correlate weakly (bowed,
    veiled) may have been taken for bare mat around it. A cell that is not sure and lies
    clearly off the mat's colours under glare (:func:`off_glare`) scores at least
    ``stop`` for every section: a card covers it, whichever its clear sections say.

    ``means`` are the cells' colours where each matched best, ``still`` where the lattice
    puts them: the best match of a bare cell beside a card leans its window onto the
    card's edge. Also returned: the cells whose colour at ``still`` says a card covers
    them (off the mat's colours under glare; the peel reads a plain section alone at the
    shoal's edge by it, :func:`vision.peel.peel`)."""
    if bare_cells.sum() < 4 or not sure_cells.any():
        return sections, np.zeros(len(sections), bool)
    cell = chroma(means)
    best = sections.argmax(1)
    cast = np.median(cell[sure_cells] - chroma(section_means[best[sure_cells]]), 0)
    expected = chroma(section_means) + cast  # N x 3
    bare_at = np.flatnonzero(bare_cells)
    apart = np.linalg.norm(places[:, None, :] - places[None, bare_at, :], axis=2)
    apart[bare_at, np.arange(len(bare_at))] = np.inf  # a cell is not its own neighbour
    near = np.argsort(apart, 1)[:, :min(NEAR, len(bare_at) - 1)]
    mat = np.median(cell[bare_at[near]], 1)  # K x 3
    off = np.linalg.norm(cell - mat, axis=1)
    spread = max(0.01, 1.4826 * float(np.median(off[bare_cells])))
    unlike_mat = np.linalg.norm(expected[None, :, :] - mat[:, None, :], axis=2) > 4 * spread
    sure_fish = sure_cells & ~plain[best]
    veto = ((off < 2 * spread) & ~sure_fish)[:, None] & unlike_mat
    out: np.ndarray = np.where(veto, np.minimum(sections, bare), sections)
    # and a cell clearly not of the mat's colour but of a section's matches it at least
    # as well as a card must: a plain or glared section is no less there for its lack
    # of pattern
    alike = np.linalg.norm(cell[:, None, :] - expected[None, :, :], axis=2) < 2 * spread
    lift = (off > 4 * spread)[:, None] & unlike_mat & alike
    out = np.where(lift, np.maximum(out, stop), out)
    # a cell clearly not of the mat's colour, nor of the mat whitened by glare (between
    # the mat's colour and the light's), is under some card even when glare leaves no
    # section matching it: it neither vouches for a card nor vetoes one there. When a
    # section with fish matches it as well as a card must, its pattern says which card
    # lies there, and lifting the others to it would unsay that
    fish_match = np.where(plain[None, :], -np.inf, sections).max(1) >= stop
    covered = (off_glare(cell, mat, cast) > 4 * spread) & ~sure_cells & ~fish_match
    out = np.where(covered[:, None], np.maximum(out, stop), out)
    # by its colour where the lattice puts it, a cell is under a card when it lies
    # clearly off the mat's colours under glare, or off them and nearer a plain
    # section's colour than any of them: a pale card under a warm light lies near the
    # line from the mat's colour to white
    at_still = chroma(still)
    glared = off_glare(at_still, mat, cast)
    to_plain = (np.linalg.norm(at_still[:, None, :] - expected[None, plain, :], axis=2).min(1)
                if plain.any() else np.full(len(still), np.inf))
    carded = (glared > 4 * spread) | ((glared > 2 * spread) & (to_plain < glared))
    return out, carded


def _off_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of points ``p`` (K x 3) from the segments ``a``-``b`` (K x 3 or 3)."""
    along = b - a
    t = np.clip(((p - a) * along).sum(-1) / np.maximum((along * along).sum(-1), 1e-12), 0, 1)
    out: np.ndarray = np.linalg.norm(p - a - t[..., None] * along, axis=-1)
    return out


def off_glare(cells: np.ndarray, mat: np.ndarray, light: np.ndarray) -> np.ndarray:
    """How far each cell's colour (K x 3, :func:`chroma`) lies from every colour the mat
    there (K x 3) takes when glare whitens it: mixed with the light's colour (``light``,
    3: white paper's chroma in this photo, its cast), with the camera's white (chroma 0,
    where the glare clips), or both."""
    white = np.zeros(3)
    edges = np.stack([_off_segment(cells, mat, light), _off_segment(cells, mat, white),
                      _off_segment(cells, light[None, :], white)], 1).min(1)
    # inside the triangle: the barycentric weights of mat and light both at least 0
    u, v = mat - white, np.broadcast_to(light - white, mat.shape)
    uu, vv, uv = (u * u).sum(1), (v * v).sum(1), (u * v).sum(1)
    pu, pv = (cells * u).sum(1), (cells * v).sum(1)
    det = np.maximum(uu * vv - uv * uv, 1e-12)
    wu, wv = (pu * vv - pv * uv) / det, (pv * uu - pu * uv) / det
    inside = (wu >= 0) & (wv >= 0) & (wu + wv <= 1)
    # a point inside still lies off the triangle's plane by what it has of neither
    flat = np.linalg.norm(cells - wu[:, None] * u - wv[:, None] * v, axis=1)
    out: np.ndarray = np.where(inside, flat, edges)
    return out
