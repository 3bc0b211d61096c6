"""Where a card's edge must show in a photo: along a section's outer sides (those on
the card's outline) that face bare mat.

A plain section and bare mat beside cards look alike in pattern: the edges of the cards
around a bare cell fall where a plain section's frame would. What a bare cell lacks is
the card's own outline on its other sides. An edge shows as a step (card and mat of
different colours) or a line (a printed frame, a shadow, a light rim): either way the
colour changes sharply across it, and this measures how sharply, on the rectified photo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from vision.lighting import EDGE_MM
from vision.mat import PX_PER_MM
from vision.peel import QUADRANTS, Cell, card_place

ACROSS = 1 / 3
"""How far either side of a side's place its edge is looked for, as a share of the
section across it: cards lie off the lattice by more than a match's shift seeks, and a
plain section matches a little off its place as well as on it."""
STEP_MM = 1.5
"""Colours this far either side of a point are compared for an edge there."""
ALONG = (0.2, 0.8)
"""The stretch of a side looked at (shares of its length): clear of the corners, where
other cards' edges cross it."""

NOISE = float(np.sqrt(3)) / 255
"""The least a side with no edge measures: one grey level in each channel, what an 8-bit
photo shows of a flat colour at least (a clean photo's bare mat measures less)."""

LEAST = 3
"""Sides of each kind (card edges, none) a photo must show to say what an edge is."""

SIDES: dict[str, Cell] = {"top": (0, -1), "bottom": (0, 1), "left": (-1, 0), "right": (1, 0)}
OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
OUTER: tuple[tuple[str, str], ...] = (("top", "left"), ("top", "right"),
                                      ("bottom", "left"), ("bottom", "right"))
"""A card's outer sides at each of its sections, in the deck's row-major order."""


def strength(rectified: np.ndarray, corner_mm: np.ndarray, size_mm: tuple[float, float],
             side: str, markers: Sequence[tuple[float, float, float, float]] = ()) -> float:
    """How sharply the colour changes across ``side`` of the box with top-left
    ``corner_mm`` (rectified mm) and ``size_mm``: the largest colour difference (paper
    white units, over the three channels) between points :data:`STEP_MM` either side of
    a line parallel to the side, within :data:`ACROSS` of it, averaged along it; as far
    as the mat reaches, short of its edge band (NaN where that leaves no room for the
    step either side of the side), and NaN where that stretch reaches a marker's box
    (``markers``: x0, y0, x1, y1 rectified mm, with its quiet zone), whose border and
    edge are steps as sharp as a card's."""
    (x0, y0), (w, h) = (float(v) for v in corner_mm), size_mm  # Python's arithmetic is faster
    if markers:
        if side in ("top", "bottom"):
            at = y0 if side == "top" else y0 + h
            xa, xb, ya, yb = x0 + ALONG[0] * w, x0 + ALONG[1] * w, at - ACROSS * h, at + ACROSS * h
        else:
            at = x0 if side == "left" else x0 + w
            xa, xb, ya, yb = at - ACROSS * w, at + ACROSS * w, y0 + ALONG[0] * h, y0 + ALONG[1] * h
        if any(xa < bx1 and xb > bx0 and ya < by1 and yb > by0 for bx0, by0, bx1, by1 in markers):
            return float("nan")
    turned = side in ("left", "right")
    if turned:  # looked at as the top or bottom of the image turned
        (x0, y0), (w, h) = (y0, x0), (h, w)
    s = PX_PER_MM
    at = y0 if side in ("top", "left") else y0 + h
    lo, hi = round((x0 + ALONG[0] * w) * s), round((x0 + ALONG[1] * w) * s)
    ya, yb = round((at - ACROSS * h) * s), round((at + ACROSS * h) * s)
    rows, columns = rectified.shape[1::-1] if turned else rectified.shape[:2]
    # near the mat's edge the look reaches only as far as the mat, short of its edge band
    # (the paper's edge is a step too, and the table shows there when the mat is bent):
    # the side itself must lie inside that, with room for the step either side
    d, edge = round(STEP_MM * s), round(EDGE_MM * s)
    ya, yb = max(ya, edge), min(yb, rows - edge)
    lo, hi = max(lo, edge), min(hi, columns - edge)
    if not ya + d <= round(at * s) <= yb - d or hi - lo < 1:
        return float("nan")
    # along the side by across it, summed along it over whole rows of memory (numpy sums
    # down the middle axis of three channels several times more slowly)
    block = rectified[lo:hi, ya:yb] if turned else cv2.transpose(rectified[ya:yb, lo:hi])
    profile = block.sum(0) / (hi - lo)
    step = profile[2 * d:] - profile[:-2 * d]
    return float(np.sqrt((step * step).sum(-1).max()))  # the root of the largest: one root


class Outline:
    """The sides of a photo's cells, measured against what a card edge and no edge
    measure in the same photo: the outer sides of sections with fish (``plain``: per
    section column, none) of the cells ``found`` facing bare mat are card edges, the
    sides between two bare cells are none, and a side shows an edge when it is nearer
    the first than the second, on a scale of ratios (their geometric mean: how sharp an
    edge is scales with the light). Card edges are only those sharper than nine in ten
    sides with none, when at least :data:`LEAST` are (a made-up card's sections with fish
    face bare mat with no edge there), and sides with none measure :data:`NOISE` at least.
    ``edge`` is ``None`` when the photo has fewer than :data:`LEAST` sides of either kind
    to compare. Each side is measured once; a side whose look reaches a marker
    (``markers``, as :func:`strength`) is not measured."""

    def __init__(self, found: dict[Cell, int], cells: list[Cell], corners_mm: np.ndarray,
                 size_mm: tuple[float, float], rectified: np.ndarray, plain: np.ndarray,
                 markers: Sequence[tuple[float, float, float, float]] = (),
                 measured: dict[tuple[Cell, str], float] | None = None) -> None:
        self.found, self.cells, self.plain = found, cells, plain
        self.corners_mm, self.size_mm, self.rectified = corners_mm, size_mm, rectified
        self.markers = markers
        self.index = {c: k for k, c in enumerate(cells)}
        self._measured = {} if measured is None else measured
        card = [v for c, col in found.items() if not plain[col]
                for v in self.sides(c, OUTER[col % 4]).values()]
        none = [v for c in cells if c not in found
                for v in self.sides(c, ("right", "bottom")).values()]
        self.edge: float | None = None
        if len(none) >= LEAST:
            bare = float(np.quantile(none, 0.9))
            sharp = [v for v in card if v > bare]
            card = sharp if len(sharp) >= LEAST else card
        self.card_edge: float | None = None
        if len(card) >= LEAST and len(none) >= LEAST:
            self.card_edge = max(float(np.median(card)), 1e-6)
            self.edge = float(np.sqrt(self.card_edge * max(float(np.median(none)), NOISE)))

    def again(self, found: dict[Cell, int]) -> Outline:
        """The outline of other cells ``found`` in the same photo and lattice, with the
        sides measured so far shared (a side's sharpness is the photo's, whatever is
        found): each side is still measured once."""
        return Outline(found, self.cells, self.corners_mm, self.size_mm, self.rectified,
                       self.plain, self.markers, self._measured)

    def sides(self, c: Cell, sides: tuple[str, ...]) -> dict[str, float]:
        """How sharp each of ``sides`` of cell ``c`` that faces a cell not found (bare,
        or beyond the cells read: the mat's edge, where no card is read either) is."""
        out = {}
        for side in sides:
            dx, dy = SIDES[side]
            if (c[0] + dx, c[1] + dy) in self.found:
                continue
            v = self._measured.get((c, side))
            if v is None:
                v = strength(self.rectified, self.corners_mm[self.index[c]], self.size_mm,
                             side, self.markers)
                self._measured[(c, side)] = v
            if not np.isnan(v):
                out[side] = v
        return out

    def outlined(self) -> dict[Cell, int]:
        """``found`` (cell -> section column 4n + q, as :func:`vision.peel.peel`) less the
        plain sections that show no card edge on any of their outer sides facing bare
        mat (a cell not found: one of ``cells``, or beyond them, towards the mat's edge,
        where no card is read either), and less the plain sections with no such side
        whose card (read at the same place) lost a plain section so, or whose card's
        cell where nothing was read shows no edge on its own outer sides facing bare
        mat; again until none is dropped (a side that faced a section dropped faces bare
        mat now); then less the cards (a card: its sections read at one place) that
        show none on any of two or more such sides, whatever their sections: bare mat
        beside a card's edge taken for a card's plain sections brings the rest of that
        card with it. All of them when :attr:`edge` is ``None``. Those found after are
        these."""
        if self.edge is None:
            return self.found
        while True:  # until no plain section is dropped: a side that faced one faces bare mat
            out = self._plain_outlined(self.edge)
            dropped = len(out) < len(self.found)
            self.found = out
            if not dropped:
                break
        cards: dict[tuple[int, Cell], list[Cell]] = {}
        for c, col in out.items():  # a card by its picture and its top-left cell
            cards.setdefault(card_place(c, col), []).append(c)
        ghosts = set()
        for cs in cards.values():
            sides = [v for c in cs for v in self.sides(c, OUTER[out[c] % 4]).values()]
            if len(sides) >= 2 and max(sides) <= self.edge:
                ghosts.update(cs)
        out = {c: col for c, col in out.items() if c not in ghosts}
        self.found = out
        return out

    def _plain_outlined(self, edge: float) -> dict[Cell, int]:
        """:attr:`found` less the plain sections that show no edge over ``edge`` on any of
        their outer sides facing bare mat, and less those with no such side whose card
        (read at the same place) lost a plain section so."""
        out, untested, shown_none = {}, [], set()
        for c, col in self.found.items():
            sides = list(self.sides(c, OUTER[col % 4]).values()) if self.plain[col] else []
            if sides and max(sides) <= edge:
                shown_none.add(card_place(c, col))
                continue
            out[c] = col
            if self.plain[col] and not sides:
                untested.append(c)
        # a plain section facing no bare mat is not tested; one of its card's plain
        # sections at the same place that faces bare mat and shows no outline there says
        # for both: a lone plain section between cards, its card's other plain section
        # below it on bare mat, is that bare mat's neighbour, not a card; and so does a
        # cell of its card that nothing was read on (that card's section would show
        # there, and its outline where it faces bare mat)
        for c in untested:
            if card_place(c, out[c]) in shown_none or self._mate_unframed(c, out[c], edge):
                del out[c]
        return out

    def _mate_unframed(self, c: Cell, col: int, edge: float) -> bool:
        """Whether a cell not found of the card that section column ``col`` read at ``c``
        places (:func:`vision.peel.card_place`) shows no edge over ``edge`` on any of its
        outer sides facing a cell not found, one such side at least."""
        _, (x, y) = card_place(c, col)
        for q, (dx, dy) in enumerate(QUADRANTS):
            mate = (x + dx, y + dy)
            if mate == c or mate in self.found or mate not in self.index:
                continue
            sides = self.sides(mate, OUTER[q]).values()
            if sides and max(sides) <= edge:
                return True
        return False

    def framed(self, among: Iterable[Cell]) -> list[Cell]:
        """The cells of ``among`` (of ``cells``) not found, beside a cell found, whose
        every side that faces a cell not found (bare, or beyond the cells read) shows a
        card's outline, one side at least; none when :attr:`edge` is ``None``. An outline
        here is nearer what a card's edge measures (:attr:`card_edge`) than :attr:`edge`,
        on the same scale of ratios: a card's shadow across bare mat, or a glare's
        falloff, measures a little over :attr:`edge` on every side.

        Bare mat beside a card shows that card's edge on the side facing it only, and
        none towards the bare mat beyond; a card's section shows its card's outline on
        every side it meets bare mat. So of two cells not found with an edge between
        them, one a plain section the peel left (its colour taken for the mat's) and the
        other bare mat, only the section is framed. A cell's sides are measured until one
        shows no outline (most cells beside a shoal are bare mat)."""
        if self.edge is None or self.card_edge is None:
            return []
        outline = np.sqrt(self.edge * self.card_edge)
        out = []
        for c in among:
            if c in self.found or not any((c[0] + dx, c[1] + dy) in self.found
                                          for dx, dy in SIDES.values()):
                continue
            if self._outlined_all_round(c, outline):
                out.append(c)
        return out

    def _outlined_all_round(self, c: Cell, outline: float) -> bool:
        """Whether every side of ``c`` facing a cell not found measures over ``outline``
        both ways (:meth:`_both_ways`), one side at least; measured until one does not."""
        shown = False
        for side in SIDES:
            for v in self.sides(c, (side,)).values():
                if self._both_ways(c, side, v) <= outline:
                    return False
                shown = True
        return shown

    def _both_ways(self, c: Cell, side: str, v: float) -> float:
        """``side`` of cell ``c`` (``v`` measured on its box) as the cells either side of
        it see it, the lesser: a cell's box lies where its best match put it, and a bare
        cell's best match may lean its box onto a card's edge or shadow."""
        dx, dy = SIDES[side]
        n = (c[0] + dx, c[1] + dy)
        if n not in self.index:
            return v
        return min([v, *self.sides(n, (OPPOSITE[side],)).values()])

    def cornered(self, c: Cell) -> bool:
        """Whether cell ``c`` (not found) shows a card's corner: its outline on two sides
        that meet (a top or bottom and a left or right), both facing cells of ``cells``
        not found (not the mat's edge band or a marker, whose outlines meet in corners
        too), each sharper than :attr:`edge`.

        Bare mat beside a card shows that card's edge on the side facing it only; a card
        whose pattern the lamp's reflection washes out, so that no section matches it,
        still shows its outline where the reflection does not reach, and each of its
        sections lies at one of its corners."""
        if self.edge is None or c in self.found:
            return False
        inward = tuple(side for side, (dx, dy) in SIDES.items()
                       if (c[0] + dx, c[1] + dy) in self.index)
        sharp = {k for k, v in self.sides(c, inward).items() if v > self.edge}
        return bool(sharp & {"top", "bottom"}) and bool(sharp & {"left", "right"})

    def edged(self, c: Cell) -> bool:
        """Whether cell ``c`` (not found) shows a card's edge on a side facing a cell of
        ``cells`` not found either, sharper than :attr:`edge`: bare mat beside a card
        shows that card's edge on the side facing it only, so an edge between two cells
        not found is a card's outline, and one of them is a card (a plain section the
        peel left, its colour taken for the mat's)."""
        if self.edge is None or c in self.found:
            return False
        inward = tuple(side for side, (dx, dy) in SIDES.items()
                       if (c[0] + dx, c[1] + dy) in self.index)
        return any(v > self.edge for v in self.sides(c, inward).values())
