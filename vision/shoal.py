"""Read a finished Shoal layout from a photo of it on the mat.

Cards are layered: the last card played lies on top, whole; every card under it shows
only the sections no later card covers. The reader peels the shoal the same way, from
the top down, by card, not by pixel colour:

1. Find the mat (:mod:`vision.mat`) and, in it, the card that matches one of the deck's
   card images best as a whole (mean-removed normalised correlation of the whole card,
   ``cv2.matchTemplate`` over the mat in grey, every card at 4 mm a pixel and the best
   few again at 2 mm), of those within a few millimetres of the lattice that every
   card's straight edges agree on (:mod:`vision.lattice`): the top card. It fixes the
   section lattice, since every card lies a whole number of sections from it.
2. Correlate every lattice cell with every section of every card image (one matrix
   product, :func:`vision.correlation.correlations`: gain, offset and tilt of the light
   removed per channel, clipped pixels left out, a few millimetres of slack, and two
   windows: one that takes in the card's own edge and frame, one clear of its
   neighbours', :data:`vision.templates.SECTION_INSETS_MM`). A plain section and the
   bare mat differ in colour, not pattern: cells are also compared by colour (at their
   middles) with the bare mat around them and with the sections (:func:`mat_coloured`);
   a cell of neither the mat's colour nor the mat's whitened by glare is under a card
   even when glare leaves no section matching it, and counts for no card and against
   none: the card there is read from its clear sections. A cell the lamp's reflection
   veils (its print explaining under half the share of its light that it explains on
   the clear cards) is ranked at local contrast too (:func:`vision.washed.through_veil`).
3. Peel: of every card image at every lattice place, the one whose sections not yet
   explained correlate best is the next card down; its visible sections are read off
   the card. A section another value explains better counts less (:func:`vision.peel.outshone`),
   and one off the mat counts as bare mat (:func:`vision.peel.peel`). Peeling stops when the best
   is nearer what the bare mat scores than what the top card scores (both measured in
   this photo): the rest is bare mat. Then cards whose only sections left are plain and
   on cells of a card's colour are peeled on, down to halfway from the stop to the bare
   mat's score (a plain section alone at the shoal's edge). A pale card under a warm
   light lies near the mat whitened by glare: a cell off that, if only a little, and
   nearer a plain section's colour is a card's. A plain section must show its card's
   outline where it faces bare mat (:meth:`vision.edges.Outline.outlined`): bare mat between
   cards, whose edges fall where a plain section's frame would, shows none on its other
   sides; and a plain section the peel left (its colour taken for the mat's) is read
   where its card's outline shows on every side it meets bare mat, nearer a card's edge
   than the photo's threshold, as the cells across each side see it too
   (:meth:`vision.edges.Outline.framed`): the bare mat beside it shows that edge only on
   the side towards it. Cells beside the shoal that glare mostly clips in every channel
   are named as hidden (:func:`vision.peel.hidden`): a card there cannot be read, and
   the reading says to take the photo again if one lies there (a pixel clipped in one
   channel still shows the others: a warm lamp on cream paper clips red over half the
   mat).
4. A cell the peel read by its card alone (its print's best in the bare mat's group) is
   compared at local contrast: where a section with fish of another value matches it
   as a card must there, a card above the one read shows, its print veiled
   (:func:`vision.washed.read_by_card`); how sure stays the print's word.
5. The cells left bare beside the cards read are compared again at local contrast and
   peeled on below the cards read (:mod:`vision.washed`): a lamp's reflection on a
   glossy card washes its print out to faint strokes that a plane per section does not
   bring back. Where the peel left no trace of a card it could not read (no cell to ask
   about), only cards that show fish so are added.

No pixel is called card or mat by a colour fixed in advance: the mat's paper and the
light's colour are measured in each photo, and what a card looks like comes only from
the deck's images.
Confidences come from each cell's correlations with every section (its pattern's, before
colour's floors and vetoes) and the photo's own spread of true and wrong matches
(:mod:`vision.calibration`), with what its card mates say as the prior: the other cells
the peel read off the same card say which card lies there (:func:`vision.peel.card_priors`;
as likely as not, since the peel may have missed a card above). Build a
:class:`ShoalReader` once per deck and mat and read many photos with it.

Cells are ``"x,y"``, x right and y down, shifted so that the smallest x and y among the
sections found are 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from companion.games.shoal.layout import EMPTY
from vision import calibration, closer, correlation, edges, lattice, lighting, matching, templates
from vision.decks import Deck, load_deck
from vision.errors import VisionError
from vision.mat import PX_PER_MM, MatSpec, detect, mat_of
from vision.mat_colour import mat_coloured
from vision.peel import (
    QUADRANTS,
    Cell,
    apart,
    card_priors,
    doubts,
    hidden,
    holes,
    outshone,
    peel,
    two_groups,
    with_fish,
)
from vision.reading import Reading, timed
from vision.washed import faint_sections, read_by_card, through_veil, top_at_contrast

SEARCH_PX_PER_MM = 0.5
"""Resolution of the whole-card search for the top card."""
COARSE_PX_PER_MM = 0.25
"""Resolution of the first, rougher whole-card search, over every card of the deck."""
FEW = 4
"""Cards searched again at :data:`SEARCH_PX_PER_MM`: those correlating best at
:data:`COARSE_PX_PER_MM`."""
CARD_INSET_MM = 2.0
"""The whole-card template leaves out this much of each edge (cards lie a little askew)."""
REACH = 2
"""Cells further than this (in cells, either way) from the top card and from every cell
that matches a section are not matched (a plain section's own edge and frame match too,
in the window that takes them in): every card covers one of the shoal's sections, so the
shoal is one piece, and two cards' width of bare mat around it ends it."""
DISAGREE = 0.9
"""A cell whose posterior (its own match with its card mates' word as the prior) gives
another value this much more than the section of the card the peel read there is asked
about, the two values as likely as not (0.5 each): the peel may have taken a lookalike
card there, a lower card's frame hidden under the one above, or the cell's own match may
have taken a lookalike section. It shows the one of the two sections (the card's, and the
best of the other value's) that matches it better at a closer look
(:func:`vision.closer.closer_best`), its own value when the closer look cannot be taken
(clipped). Measured on seeds 1-10 and Blender sets 1-8 (docs/vision.md, "A cell against
its card"). A cell read sure as a section the deck draws too alike to another value's
(the pairs `companion doctor` names: :attr:`vision.calibration.Margins.alike`) is looked
at closer too, against the best section of each such value: where the closer look
prefers one of those, the cell is asked about, the value read and that one as likely as
not, the value read shown (the closer look alone reads more of those cells wrong than
the first look: docs/vision.md, "Shoal: sections the deck draws too alike")."""

class ShoalReader:
    """Reads Shoal layouts of one deck on one mat; build once, read many photos."""

    def __init__(self, deck: Deck, mat: MatSpec) -> None:
        self.deck = deck
        self.mat = mat
        self.windows = [templates.shoal_templates(deck, inset)
                        for inset in templates.SECTION_INSETS_MM]
        self.templates = self.windows[0]
        self.contrast = templates.shoal_templates(deck, contrast=True)
        self.sharp = templates.sharp_sections(deck, templates.SECTION_INSETS_MM[1])
        self.margins = calibration.margins(self.templates, frozenset({templates.NO_CARD}))
        # each section's values drawn too alike to it (the pairs `companion doctor` names)
        names = self.templates.labels  # (the bare mat's, first, is in no pair)
        alike: list[set[str]] = [set() for _ in names[1:]]
        for a, b, _ in self.margins.alike:
            alike[a - 1].add(names[b])
            alike[b - 1].add(names[a])
        self.lookalikes = [tuple(sorted(values)) for values in alike]
        # what a player may give an unsure cell: the deck's sections, then no card
        self.values = [*sorted(set(self.templates.labels) - {templates.NO_CARD}),
                       templates.NO_CARD]
        sw, sh = deck.section_mm
        self.card_mm = (2 * sw, 2 * sh)
        self.whole = templates.whole_cards(deck, SEARCH_PX_PER_MM, CARD_INSET_MM)
        self.coarse = templates.whole_cards(deck, COARSE_PX_PER_MM, CARD_INSET_MM)
        self.edges = lattice.deck_edges(templates.whole_cards(deck, 1 / lattice.STEP_MM, 0.0),
                                        (sw, sh))

    @classmethod
    def from_files(cls, deck: Path | str | None, mat: Path | None) -> ShoalReader:
        """The reader of a deck.json (or folder; the shipped deck when ``None``) and a
        mat.json (the project's A3 mat when ``None``)."""
        return cls(load_deck(deck if deck is not None else "default"), mat_of(mat))

    def read(self, photo: np.ndarray) -> Reading:
        """Read the shoal in ``photo``; :class:`VisionError` if the mat is not found."""
        return timed(self._read, photo)

    def top_card(self, rectified: np.ndarray) -> tuple[float, float]:
        """Where the whole card that correlates best lies (top-left, mm in the rectified
        image; in grey: only its place is wanted, and one channel is a third of the work).

        Every card is searched at :data:`COARSE_PX_PER_MM`, and the :data:`FEW` that
        correlate best there again at :data:`SEARCH_PX_PER_MM`; only places within
        :func:`vision.lattice.placed` of the lattice every card's edges fit count
        (under glare the best match can lie half a section off every card), unless the
        best match elsewhere fits its card so much better than the best there that the
        edges' own fit cannot outweigh it (:meth:`vision.lattice.Lattice.worse`)."""
        grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
        coarse = self._search(grey, COARSE_PX_PER_MM, self.coarse)
        few = np.argsort(-coarse.reshape(len(coarse), -1).max(1))[:FEW]
        best = self._search(grey, SEARCH_PX_PER_MM, self.whole[few]).max(0)
        # of the places on the lattice all the cards' edges agree on (half a section off
        # it is a match between cards, not a card)
        sw, sh = self.deck.section_mm
        lines = lattice.fit(grey, self.mat, (sw, sh), self.edges)
        ox, oy = lines.origin
        xs = np.arange(best.shape[1]) / SEARCH_PX_PER_MM - CARD_INSET_MM
        ys = np.arange(best.shape[0]) / SEARCH_PX_PER_MM - CARD_INSET_MM
        near = ((lattice.off_lattice(ys, oy, sh) <= lattice.placed(sh))[:, None]
                & (lattice.off_lattice(xs, ox, sw) <= lattice.placed(sw))[None, :])
        y, x = np.unravel_index(int(best.argmax()), best.shape)
        if (best[near] > -1).any():
            on = np.where(near, best, -np.inf)
            y_on, x_on = np.unravel_index(int(on.argmax()), on.shape)
            # unless the best match fits its card by far more than the lattice's edges
            # fit theirs: each is as sure as the other's choice leaves more unexplained
            # (the edges of a small, blurred shoal may hardly show where its cards lie)
            card = (1.0 - on[y_on, x_on]) / max(1.0 - float(best[y, x]), 1e-6)
            if lines.worse(float(xs[x]), float(ys[y])) >= card:
                y, x = y_on, x_on
        return float(xs[x]), float(ys[y])

    def _search(self, grey: np.ndarray, s: float, cards: np.ndarray) -> np.ndarray:
        """Each whole card's correlation (``cards``: whole-card templates at ``s`` px/mm)
        at every place of the mat (cards x h x w), -1 where a card would lie on a marker."""
        small = cv2.resize(grey, None, fx=s / PX_PER_MM, fy=s / PX_PER_MM,
                           interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), 0.5)
        th, tw = cards[0].shape[:2]
        if small.shape[0] < th or small.shape[1] < tw:
            raise VisionError("the mat is smaller than one card of this deck: is this the "
                              "right mat.json and deck?")
        out = np.stack([cv2.matchTemplate(small, np.ascontiguousarray(t),
                                          cv2.TM_CCOEFF_NORMED) for t in cards])
        ox, oy = self.mat.origin_mm
        cw, ch = self.card_mm
        inset = CARD_INSET_MM
        for x0, y0, x1, y1 in self.mat.marker_boxes_mm():  # no card lies on a marker
            xa, xb = round((x0 - ox - cw + inset) * s), round((x1 - ox - inset) * s)
            ya, yb = round((y0 - oy - ch + inset) * s), round((y1 - oy - inset) * s)
            out[:, max(0, ya):max(0, yb), max(0, xa):max(0, xb)] = -1.0
        return out

    def _read(self, photo: np.ndarray) -> Reading:
        view = detect(self.mat, photo)
        # paper white about 1, as the templates are
        rectified = np.multiply(view.rectified, np.float32(1 / 255), dtype=np.float32)
        x_top, y_top = self.top_card(rectified)
        sw, sh = self.deck.section_mm
        origin = (x_top % sw, y_top % sh)
        cells = self._cells(rectified.shape[:2], origin)
        if not cells:
            raise VisionError("no cards found on the mat: are the cards on the mat, face up, "
                              "and is this the right deck?")
        small = matching.prepare(rectified, PX_PER_MM)
        top_channels = lighting.at_top(lighting.channels_at_top(view.rectified))
        known = matching.prepare((top_channels == 0).astype(np.float32), PX_PER_MM)
        known.flags.writeable = False  # its summed clipped pixels are kept while it is used
        i0, j0 = round((x_top - origin[0]) / sw), round((y_top - origin[1]) / sh)
        cells, ncc, shift = self._near_shoal(cells, small, known, origin, (i0, j0))
        corners = np.array([(origin[0] + i * sw, origin[1] + j * sh) for i, j in cells])
        pattern = ncc[:, 1:]  # the bare mat's zero template has no correlation
        sections = pattern.astype(np.float64)  # one dtype with the stop it is compared to
        # what a card scores in this photo: the top card's sections
        index = {c: k for k, c in enumerate(cells)}
        top = [index[(i0 + dx, j0 + dy)] for dx, dy in QUADRANTS if (i0 + dx, j0 + dy) in index]
        top_score = float(np.mean(sections[top].max(1))) if top else float(sections.max())
        # the cells' best correlations fall in two groups, the bare mat's and the cards'
        split, bare = two_groups(sections.max(1))
        # a card under a lamp's reflection is compared at local contrast too, as much
        # as its print's share of its light falls short of the clear cards'
        pattern = sections = through_veil(small, corners, shift, sections, split,
                                          (split + top_score) / 2, self.templates,
                                          self.contrast)
        plain = np.array([v == EMPTY for v in self.templates.labels[1:]])
        # a cell's colour is judged at its middle, clear of its neighbours and edges
        middle = max(self.templates.inset_mm, min(sw, sh) / 4)
        means, still = matching.sample(small, np.concatenate([corners + shift, corners]),
                                       self.templates.box_mm, middle, (0,),
                                       outside=0.0).mean(1).reshape(2, len(cells), -1)
        sections, carded = mat_coloured(sections, means, still, self.templates.means[1:],
                                        sections.max(1) < split,
                                        sections.max(1) > (split + top_score) / 2, bare,
                                        (bare + top_score) / 2, np.array(cells, float), plain)
        sections = outshone(sections, (split + top_score) / 2,
                            np.array(self.templates.labels[1:]), plain)
        stop = (bare + top_score) / 2
        values = np.unique(self.templates.labels[1:], return_inverse=True)[1]
        found = peel(cells, sections, stop, bare, plain, carded, values=values)
        ox, oy = self.mat.origin_mm
        # a marker's border and edge (its quiet zone a module wide, as the mat's light
        # takes it) are steps as sharp as a card's outline
        markers = [(x0 - ox, y0 - oy, x1 - ox, y1 - oy) for x0, y0, x1, y1
                   in self.mat.marker_boxes_mm(self.mat.marker_mm / 6 + 2)]
        outline = edges.Outline(found, cells, corners + shift, (sw, sh), rectified, plain,
                                markers)
        found = outline.outlined()
        # a cell its print leaves to its card (under the split: a lamp's veil) may show
        # another card's section at local contrast, a card above that matched nowhere
        top_faint = top_at_contrast(small, corners[top], self.contrast) if top else None
        again = read_by_card(found, cells, small, corners, pattern.max(1), split, top_faint,
                             plain, self.contrast)
        if again:
            pattern = pattern.copy()
            for c, row in again.items():  # which section, by local contrast; how sure,
                k = index[c]                  # as the print matches there (weakly)
                found[c], pattern[k] = int(row.argmax()), row + pattern[k].max() - row.max()
        # cards the lamp washed out, sought again beside those read, at local contrast
        asked = doubts(cells, found, sections, split, plain, outline.cornered,
                       outline.edged)
        faint, faint_stop, faint_bare = faint_sections(found, cells, small, corners, top_faint,
                                                       self.contrast)
        given = found
        if faint is not None:
            more = peel(cells, faint, faint_stop, faint_bare, plain, given=found, values=values)
            if not asked:  # no trace of a card unread: only its fish's strokes show one
                more = with_fish(found, more, plain)
            if len(more) > len(found):
                pattern = pattern.copy()
                for c in more.keys() - found.keys():  # read by that pattern: its confidence
                    pattern[index[c]] = faint[index[c]]
                # (corners are still sought in the first outline: a card's outline is
                # its own, whatever was found beside it)
                found = outline.again(more).outlined()
        if not found:
            raise VisionError("no cards found on the mat: are the cards on the mat, face up, "
                              "and is this the right deck?")
        # a plain section the peel left shows its card's outline wherever it meets bare
        # mat, and the bare mat beside it only towards it
        best = {c: int(pattern[index[c]].argmax()) for c in cells if c not in found}
        framed = {c: best[c] for c in outline.again(found).framed(
            c for c, col in best.items() if plain[col])}
        if framed:  # (and the cells to ask about are judged by the outline with them)
            found = {**found, **framed}
            outline = outline.again(found)
        # what lies apart from the shoal is asked about, not read: no card, or the
        # section it matched (the rules say the one, the pattern the other)
        away = {c: found[c] for c in apart(found, asked, [cells[k] for k in top])}
        if away:
            found = {c: v for c, v in found.items() if c not in away}
        order = sorted(found, key=lambda c: (c[1], c[0]))
        # confidence is the pattern's: colour's floors and vetoes say whether a card
        # lies at a cell, not which value it shows (a floor under every section would
        # split a cell's confidence among them all)
        dist = 1.0 - pattern[[index[c] for c in order]]
        density = calibration.photo_density(dist, self.margins.worn)
        priors = card_priors(order, found, calibration.log_weights(dist, density))
        labels = self.templates.labels[1:]
        boxes = [self._box(corners[index[c]] + shift[index[c]]) for c in order]
        veils = matching.veil(small, np.array([(b[0] - ox, b[1] - oy) for b in boxes]),
                              self.templates, np.array([1 + found[c] for c in order]))
        x_min = min(i for i, _ in found)
        y_min = min(j for _, j in found)
        reading = Reading("shoal", {}, {}, view=view, values=list(self.values))
        fine: list[np.ndarray] = []  # the photo at the closer look's resolution, when needed

        def closer_best(at: int, which: list[int]) -> int | None:
            if not fine:
                fine.extend(closer.resampled(image, PX_PER_MM) for image in
                            (rectified, (top_channels == 0).astype(np.float32)))
            return closer.closer_best(fine[0], fine[1], corners[at], shift[at], (sw, sh),
                                      templates.SECTION_INSETS_MM[1], self.sharp, which)

        named = np.array(labels)

        def best_of(at: int, value: str) -> int:
            """The section of ``value`` that cell ``at`` matches best at the first look."""
            return int(np.argmax(np.where(named == value, pattern[at], -np.inf)))

        for k, (i, j) in enumerate(order):
            name = f"{i - x_min},{j - y_min}"
            at, read = index[(i, j)], found[(i, j)]
            label = labels[read]
            options = calibration.posterior(dist[k], labels, density, prior=priors[k])
            own = max(options, key=options.__getitem__)
            if options[own] - options.get(label, 0.0) > DISAGREE:  # the cell against its card
                pick = closer_best(at, [read, best_of(at, own)])
                options = {own: 0.5, label: 0.5}
                label = label if pick == read else own
            elif options.get(label, 0.0) >= calibration.UNSURE and self.lookalikes[read]:
                # read sure as a section drawn too alike to another value's
                pick = closer_best(at, [read, *(best_of(at, v) for v in self.lookalikes[read])])
                if pick is not None and pick != read:
                    options = {label: 0.5, labels[pick]: 0.5}
            reading.cells[name] = label
            reading.confidence[name] = options.get(label, 0.0)
            reading.candidates[name] = options
            reading.boxes_mm[name] = boxes[k]
            reading.veil[name] = max(0.0, float(veils[k]))
        if found is not given:  # the cells left to ask about are others now
            asked = doubts(cells, found, sections, split, plain, outline.cornered,
                           outline.edged)
        doubtful = asked
        if faint is not None:  # and where a faint card's strokes match as a card must
            doubtful = sorted(set(doubtful) | set(doubts(cells, found, faint, faint_stop,
                                                         plain)), key=lambda c: (c[1], c[0]))
            sections = np.maximum(sections, faint)
        doubtful = sorted({*doubtful, *holes(cells, {*found, *doubtful}), *away},
                          key=lambda c: (c[1], c[0]))
        for c in doubtful:
            k = index[c]
            name = f"{c[0] - x_min},{c[1] - y_min}"
            reading.doubtful[name] = (
                {templates.NO_CARD: 0.5, labels[away[c]]: 0.5} if c in away
                else calibration.posterior(1.0 - sections[k], labels, density,
                                           {templates.NO_CARD: 1.0 - stop}))
            reading.boxes_mm[name] = self._box(corners[k] + shift[k])
        # hidden only where the photo shows nothing: a pixel clipped in one channel (a
        # warm lamp on cream paper clips red over half a mat) still shows the others
        dark = top_channels == 255  # every channel at the sensor's top
        seen = np.ones(len(cells))
        if dark.any():
            shows = matching.prepare((~dark).astype(np.float32), PX_PER_MM)
            seen = matching.sample(shows, corners + shift, self.templates.box_mm,
                                   self.templates.inset_mm, (0,), outside=1.0).mean(1)
        for c in hidden(cells, seen, set(found) | set(doubtful)):
            name = f"{c[0] - x_min},{c[1] - y_min}"
            reading.hidden.append(name)
            reading.boxes_mm[name] = self._box(corners[index[c]] + shift[index[c]])
        return reading

    def _correlate(self, small: np.ndarray, known: np.ndarray, corners: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Each cell (top-left ``corners``) against every section, in every window."""
        ncc, shift = correlation.correlations(small, known, corners, self.windows[0])
        for window in self.windows[1:]:  # the window is searched as the shift is
            more, moved = correlation.correlations(small, known, corners, window, shift)
            shift = np.where((more.max(1) > ncc.max(1))[:, None], moved, shift)
            ncc = np.maximum(ncc, more)
        return ncc, shift

    def _near_shoal(self, cells: list[Cell], small: np.ndarray, known: np.ndarray,
                    origin: tuple[float, float], top: Cell
                    ) -> tuple[list[Cell], np.ndarray, np.ndarray]:
        """The cells within :data:`REACH` of the top card or of a cell that matches a
        section (above halfway from the bare mat's median to the two groups' split, of
        the cells seen so far: a card under the lamp's reflection matches below the
        split), with their correlations and shifts: the shoal is connected (every card
        covers one of its sections), so the rest of the mat is bare and need not be
        matched."""
        sw, sh = self.deck.section_mm
        on_mat = set(cells)
        seen: dict[Cell, int] = {}
        rows: list[np.ndarray] = []
        shifts: list[np.ndarray] = []
        grow = {(top[0] + dx, top[1] + dy) for dx, dy in QUADRANTS}
        while True:
            new = sorted({(i + dx, j + dy) for i, j in grow
                          for dx in range(-REACH, REACH + 1)
                          for dy in range(-REACH, REACH + 1)} & on_mat - seen.keys())
            if not new:
                break
            corners = np.array([(origin[0] + i * sw, origin[1] + j * sh) for i, j in new])
            ncc, shift = self._correlate(small, known, corners)
            for c in new:
                seen[c] = len(seen)
            rows.append(ncc)
            shifts.append(shift)
            best = np.concatenate(rows)[:, 1:].max(1)
            split, bare = two_groups(best)
            grow = {c for c in new if best[seen[c]] > (split + bare) / 2}
        if not seen:  # the best card lies in the mat's edge band, clear of every cell
            raise VisionError("no cards found on the mat, clear of its edges: are the "
                              "cards on the mat, face up, and is this the right deck?")
        order = sorted(seen, key=lambda c: (c[1], c[0]))
        k = [seen[c] for c in order]
        return order, np.concatenate(rows)[k], np.concatenate(shifts)[k]

    def _cells(self, shape: tuple[int, int], origin: tuple[float, float]) -> list[Cell]:
        """The lattice cells wholly on the mat, clear of its edges, and off its markers."""
        sw, sh = self.deck.section_mm
        h, w = shape[0] / PX_PER_MM, shape[1] / PX_PER_MM
        ox, oy = self.mat.origin_mm
        markers = self.mat.marker_boxes_mm()
        out = []
        for j in range(int(h // sh) + 1):
            for i in range(int(w // sw) + 1):
                x0, y0 = origin[0] + (i - 1) * sw, origin[1] + (j - 1) * sh
                edge = lighting.EDGE_MM  # the table shows there when the mat is bent
                if x0 < edge or y0 < edge or x0 + sw > w - edge or y0 + sh > h - edge:
                    continue
                mx, my = x0 + ox, y0 + oy
                if any(mx < b[2] and mx + sw > b[0] and my < b[3] and my + sh > b[1]
                       for b in markers):
                    continue
                out.append((i - 1, j - 1))
        return out

    def _box(self, corner: np.ndarray) -> tuple[float, float, float, float]:
        """A cell's box where it matched best, in mat millimetres (x, y, w, h)."""
        sw, sh = self.deck.section_mm
        ox, oy = self.mat.origin_mm
        return float(corner[0] + ox), float(corner[1] + oy), sw, sh


def read(photo: np.ndarray, deck: Deck, mat: MatSpec) -> Reading:
    """Read one photo (builds a reader: for many photos, keep a :class:`ShoalReader`)."""
    return ShoalReader(deck, mat).read(photo)


def moved(names: Iterable[str], dx: int, dy: int) -> dict[str, str]:
    """Each cell name (``"x,y"``) -> the name ``dx, dy`` cells away: Shoal names count
    from the shoal's own top-left, so two readings of one shoal may differ by a shift."""
    out = {}
    for name in names:
        x, y = name.split(",")
        out[name] = f"{int(x) + dx},{int(y) + dy}"
    return out


def layout_of(reading: Reading) -> dict[tuple[int, int], str]:
    """The reading as a layout: (x, y) -> section value."""
    out = {}
    for name, value in reading.cells.items():
        x, y = name.split(",")
        out[(int(x), int(y))] = value
    return out
