"""Cards the lamp's reflection washed out, sought again beside the cards read.

A lamp's reflection on a glossy card adds light that is no plane over a section (it
falls off, and stops at the card's edge) and compresses the print where it is bright.
With each channel's plane removed (:func:`vision.correlation.correlations`), what is left
of the reflection swamps what is left of the print, faint strokes a player still sees:
such a card's sections correlate with nothing above the stop, and the peel leaves its
cells bare (:mod:`vision.peel`). At local contrast (:func:`vision.matching.local_contrast`)
the reflection's falloff is gone and the strokes count as a clear card's do. Compared so
everywhere, cards whose art is told apart by its colours' areas (a fill more than an
outline) lose that, so only cells the first peel left bare beside the cards it read are
compared again. Where the first peel saw no trace of a card it could not read there (no
cell to ask about, :func:`vision.peel.doubts`), a card is added so by its fish alone
(:func:`vision.peel.with_fish`): a glare spot that does not clip can hide a clownfish's
print from the plane and leave no corner to see, but bare mat amid the shoal shows its
neighbours' edges as a plain section's frame.

A card the reflection only veils (its print still matches, weakly) is compared at local
contrast too, before the peel, weighed by how much of its light its print fails to
explain against the clear cards' (:func:`through_veil`): which section a veiled cell
shows, not whether a card lies there. And a cell whose print matches no section better
than the bare mat does, read by the card the peel took for its other sections, is
compared at local contrast after the peel (:func:`read_by_card`): under a veil the card
that shows there may be another, which matched nowhere well enough to be peeled.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import numpy as np

from vision import correlation, matching, planes
from vision.peel import Cell, two_groups
from vision.templates import Templates

SHIFTS_MM = (-2, 0, 2)
"""Shifts at which a cell is compared (then 1 mm around the best): a washed-out card lies
on the lattice the cards read fix, as they do."""
VEILED = 0.5
"""A cell is veiled (:func:`through_veil`) when its print explains less than half the
share of its light that the print explains on this photo's clear cards (:func:`veiled`
at this or above): the veil's light outweighs the print's. A card a little paler than
the clear ones (wear, a warmer light, the art's own contrast) is left to the print: a
small change to a cell's ranking can change which card the peel takes."""


def beside(cells: Iterable[Cell]) -> set[Cell]:
    """The cells and their 8 neighbours."""
    return {(i + dx, j + dy) for i, j in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}


def faint_sections(found: dict[Cell, int], cells: list[Cell], small: np.ndarray,
                   corners: np.ndarray, top: Callable[[], float] | None, contrast: Templates
                   ) -> tuple[np.ndarray | None, float, float]:
    """The cells of ``cells`` (top-left ``corners``, mm of ``small``, the photo at the
    feature resolution) left bare beside those read (``found``), and on beside those of
    them that match as a card must (a card's far side), against every section at local
    contrast (``contrast``: the sections so, :func:`vision.templates.shoal_templates`),
    cells x sections, the other cells at the bare mat's score; with the stop and that
    score. The bare mat's score is the median of the lower of the two groups the best
    correlations of the cells beside fall in, the stop halfway from it to what the top
    card's cells score so (``top``, :func:`top_at_contrast`), as the first peel's are.
    ``None`` when fewer than two cells lie beside."""
    index = {c: k for k, c in enumerate(cells)}
    left = [index[c] for c in sorted(beside(found) & index.keys() - found.keys())]
    if len(left) < 2 or top is None:
        return None, 0.0, 0.0
    # a card touching those read lies within two cells of them: local contrast is
    # measured there only
    within = [index[c] for c in beside(beside(found)) & index.keys()]
    part, origin = _around(small, corners[within], contrast.box_mm)
    scores = dict(zip(left, _scores(part, corners[left] - origin, contrast), strict=True))
    _, bare = two_groups(np.array([scores[k].max() for k in left]))
    stop = (bare + top()) / 2
    while True:
        more = [index[c] for c in sorted(beside({cells[k] for k in left
                                                 if scores[k].max() > stop})
                                         & index.keys() - found.keys())
                if index[c] not in scores]
        if not more:
            break
        scores.update(zip(more, _scores(part, corners[more] - origin, contrast), strict=True))
        left += more
    out = np.full((len(cells), len(contrast.labels) - 1), bare)
    out[left] = [scores[k] for k in left]
    return out, stop, bare


def _around(small: np.ndarray, corners: np.ndarray, box_mm: tuple[float, float]
            ) -> tuple[np.ndarray, np.ndarray]:
    """``small`` at local contrast around the boxes at ``corners`` (mm) only, as far as
    the shifts and its two blurs reach (a Gaussian's kernel reaches 4 sigmas), and that
    part's top-left (mm)."""
    s = matching.FEATURE_PX_PER_MM
    reach = max(SHIFTS_MM) + max(matching.FINE_MM) + 8 * matching.CONTRAST_MM
    (x0, y0) = corners.min(0) - reach
    (x1, y1) = corners.max(0) + np.array(box_mm) + reach
    # from an even pixel: the boxes' corners round as they would in the whole photo
    x0, y0 = max(0, int(x0 * s) // 2 * 2), max(0, int(y0 * s) // 2 * 2)
    part = matching.local_contrast(small[y0:max(y0, int(y1 * s)), x0:max(x0, int(x1 * s))])
    return part, np.array([x0, y0]) / s


def at_contrast(small: np.ndarray, corners: np.ndarray, contrast: Templates) -> np.ndarray:
    """Cells (top-left ``corners``, mm of ``small``) against every section at local
    contrast (:func:`_scores`), local contrast measured around them only."""
    part, origin = _around(small, corners, contrast.box_mm)
    return _scores(part, corners - origin, contrast)


def top_at_contrast(small: np.ndarray, corners: np.ndarray, contrast: Templates
                    ) -> Callable[[], float]:
    """What the top card's cells (top-left ``corners``, mm of ``small``) score at local
    contrast (the mean of their best), measured once, when first asked: most photos
    never ask."""
    @functools.cache
    def score() -> float:
        return float(np.mean(at_contrast(small, corners, contrast).max(1)))
    return score


def _scores(part: np.ndarray, corners: np.ndarray, contrast: Templates) -> np.ndarray:
    """Each cell (top-left ``corners``, mm of ``part``, a photo at local contrast)
    against every section (cells x sections), in the window close to the section's
    edges, at :data:`SHIFTS_MM`. Nothing is left out as clipped: a clipped pixel has no
    contrast, and counts for nothing."""
    ncc, _ = correlation.correlations(part, np.ones(part.shape[:2], np.float32), corners,
                                   contrast, shifts=SHIFTS_MM)
    out: np.ndarray = ncc[:, 1:].astype(np.float64)
    return out


def veiled(small: np.ndarray, corners: np.ndarray, best: np.ndarray, sections: Templates,
           clear: np.ndarray) -> np.ndarray:
    """How veiled each cell is (K, 0 to 1), from the photo itself: the share of the
    cell's light that its best section (``best``, K indices into ``sections``) explains,
    its colours at the gain its pattern shows, against that share on the ``clear`` cells
    (this photo's sure matches). A veil adds light that carries no print; shade and a
    dimmer lamp scale print and light alike and leave the share."""
    if not clear.any():
        return np.zeros(len(corners))
    box, inset = sections.box_mm, sections.inset_mm
    ww, wh = matching.window(box, inset)
    raw = matching.sample(small, corners, box, inset, (0,))
    flat = planes.deplane(raw, matching.plane_basis(ww, wh)).reshape(len(raw), -1)
    t = sections.features[best]
    gain = (flat * t).sum(1) / np.maximum((t * t).sum(1), 1e-9)
    share = ((gain[:, None] * sections.means[best]).sum(1)
             / np.maximum(raw.mean(1).sum(1), matching.QUANTUM))
    out: np.ndarray = np.clip(1 - share / max(float(np.median(share[clear])), 1e-6), 0, 1)
    return out


def through_veil(small: np.ndarray, corners: np.ndarray, shift: np.ndarray,
                 sections: np.ndarray, split: float, sure: float, print_: Templates,
                 contrast: Templates) -> np.ndarray:
    """``sections`` (cells x sections, the print's correlations; cells at ``corners``,
    matched best at ``shift``) with each cell of the cards' group (best above ``split``)
    that is veiled (:func:`veiled`, against the cells at ``sure`` or above) and not a
    sure match compared at local contrast too (:data:`VEILED`), the two correlations
    weighed by how veiled it is: under a lamp's reflection the print's plane leaves the reflection's
    falloff, at local contrast it is gone, and on a clear card the print's colour areas
    decide. Only where local contrast matches the cell better than the print does: a
    smooth veil the plane takes away (a window's, broad) leaves the print as clear as
    local contrast does. The two say which section it is, not whether a card lies
    there: the cell's best stays the print's (the stop and the bare mat's score are the
    print's; a card the reflection washes out is sought again on its own,
    :func:`faint_sections`)."""
    best = sections.max(1)
    card = np.flatnonzero(best > split)
    weight = veiled(small, corners[card] + shift[card], 1 + sections[card].argmax(1), print_,
                    best[card] > sure)
    pick = (weight >= VEILED) & (best[card] <= sure)
    k, w = card[pick], weight[pick]
    if not len(k):
        return sections
    faint = at_contrast(small, corners[k], contrast)
    w = np.where(faint.max(1) > best[k], w, 0.0)[:, None]
    both = (1 - w) * sections[k] + w * faint
    out = sections.copy()
    out[k] = both + (best[k] - both.max(1))[:, None]
    return out


def read_by_card(found: dict[Cell, int], cells: list[Cell], small: np.ndarray,
                 corners: np.ndarray, best: np.ndarray, split: float,
                 top: Callable[[], float] | None,
                 plain: np.ndarray, contrast: Templates) -> dict[Cell, np.ndarray]:
    """The cells the peel read by their card alone that show another card's section at
    local contrast, each with its correlations so (cell -> one per section).

    A cell whose print matches no section better than the bare mat does (``best``, per
    cell of ``cells``, at or under ``split``) is read by the card the peel took for its
    other sections (``found``); under a lamp's reflection the card that shows there may
    be another, peeled nowhere, its print veiled. Compared at local contrast, such a
    cell shows that card's section when one with fish (not ``plain``) matches it best
    and as a card must: above that comparison's stop, halfway from the bare mat's score
    (the lower group's median among these cells and the bare ones beside them) to what
    the top card's cells score so (``top``, :func:`top_at_contrast`), as
    :func:`faint_sections` does. A plain section matches by its frame alone, which a
    veiled cell's edges leave: no evidence of a card above the one read."""
    index = {c: k for k, c in enumerate(cells)}
    read = [index[c] for c in sorted(found, key=lambda c: (c[1], c[0])) if best[index[c]] <= split]
    if not read or top is None:
        return {}
    bare = [index[c] for c in sorted(beside(cells[k] for k in read) & index.keys() - found.keys())]
    scores = at_contrast(small, corners[[*read, *bare]], contrast)
    _, low = two_groups(scores.max(1))
    stop = (low + top()) / 2
    labels = contrast.labels[1:]
    out: dict[Cell, np.ndarray] = {}
    for k, row in zip(read, scores, strict=False):
        j = int(row.argmax())
        if row[j] > stop and not plain[j] and labels[j] != labels[found[cells[k]]]:
            out[cells[k]] = row
    return out
