"""Peeling a layered shoal from the top down, by card: which card lies where and which of
its sections shows, from each lattice cell's correlation with every section of every
card (:mod:`vision.shoal` measures those in the photo). Also which cells the peel left
bare that a card may yet lie on (glare), and which cells beside the shoal glare hides.

Cells are ``(x, y)`` lattice places, x right and y down; a card at place ``(x, y)``
covers that cell and the three right of and below it (:data:`QUADRANTS`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Cell = tuple[int, int]
QUADRANTS: tuple[Cell, ...] = ((0, 0), (1, 0), (0, 1), (1, 1))
"""A card's sections in the deck's row-major order, as (dx, dy) from its top-left."""


def card_place(c: Cell, col: int) -> tuple[int, Cell]:
    """The card a section column (4n + q) read at cell ``c`` belongs to: its picture
    ``n`` and its top-left cell."""
    card, q = divmod(col, 4)
    dx, dy = QUADRANTS[q]
    return card, (c[0] - dx, c[1] - dy)

FEWER = 0.02
"""A card place showing fewer sections scores this much less for each one hidden: of two
places that explain a cell equally well, the one that explains more of the photo wins."""

HIDDEN = 0.5
"""A cell beside the shoal of which less than this share is seen (the rest clipped in
every channel) is hidden by glare (:func:`hidden`): more of a card there is unknown than
known."""


BESIDE: tuple[Cell, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""A cell's four neighbours across its sides."""


def two_groups(values: np.ndarray) -> tuple[float, float]:
    """Where a set of values splits best in two (Otsu's criterion: the split that
    leaves each side least spread), and the median of the lower side."""
    v = np.sort(values.astype(np.float64))
    if len(v) < 2:
        return float(v[0]) if len(v) else 0.0, float(v[0]) if len(v) else 0.0
    k = np.arange(1, len(v))
    total = np.cumsum(v)
    low_mean = total[:-1] / k
    high_mean = (total[-1] - total[:-1]) / (len(v) - k)
    between = k * (len(v) - k) * (low_mean - high_mean) ** 2
    cut = int(between.argmax()) + 1
    return float((v[cut - 1] + v[cut]) / 2), float(np.median(v[:cut]))


def outshone(sections: np.ndarray, sure: float, values: np.ndarray, plain: np.ndarray
             ) -> np.ndarray:
    """``sections`` (cells x N, section j showing ``values[j]``) with each correlation
    lowered by as much as a section of another value correlates better with the cell,
    where that one has fish and is a sure match (``sure`` or above; ``plain``, N:
    sections without fish, whose correlation is their edges' only).

    A card lying under another shows that card's section where they overlap; its own
    section there may look alike, and the card must not be peeled first for the three
    others it shows well."""
    kinds, of = np.unique(values, return_inverse=True)
    by_value = np.full((len(sections), len(kinds)), -np.inf)
    np.maximum.at(by_value.T, of, np.where(plain[None, :], -np.inf, sections).T)
    order = np.argsort(-by_value, 1)
    first, second = order[:, 0], order[:, 1] if len(kinds) > 1 else order[:, 0]
    rows = np.arange(len(sections))[:, None]
    other = np.where(of[None, :] == first[:, None], by_value[rows, second[:, None]],
                     by_value[rows, first[:, None]])
    out: np.ndarray = np.where((other >= sure) & (other > sections),
                               2 * sections - other, sections)
    return out


def doubts(cells: list[Cell], found: dict[Cell, int], sections: np.ndarray, split: float,
           plain: np.ndarray, cornered: Callable[[Cell], bool] | None = None,
           edged: Callable[[Cell], bool] | None = None) -> list[Cell]:
    """The cells the peel left bare that a card may yet lie on: their best correlation
    (``sections``, cells x N) is in the cards' group (above ``split``) and with a section
    that has fish (not ``plain``, N: the bare mat beside a card matches a plain section's
    edge and frame), or they show a card's corner (``cornered``, asked of the cells that
    touch the shoal only: :meth:`vision.edges.Outline.cornered`), or they match a plain
    section above ``split`` and show a card's edge towards a cell not found (``edged``,
    asked the same way: :meth:`vision.edges.Outline.edged`), and they touch the shoal
    (their 8 neighbours include a cell found or doubtful). Glare that washes a card
    out leaves such cells, and so does a plain card whose colour was taken for the
    mat's; a player settles them."""
    out: list[Cell] = []
    near = set(found)
    best, which = sections.max(1), sections.argmax(1)
    fishy = {c for k, c in enumerate(cells)
             if c not in found and best[k] > split and not plain[which[k]]}
    framed = {c for k, c in enumerate(cells)
              if c not in found and best[k] > split and plain[which[k]]}
    looked: set[Cell] = set()
    while True:
        ring = {(i + dx, j + dy) for i, j in near for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        touching = [c for c in cells if c in ring and c not in found and c not in out]
        new = []
        for c in touching:
            if c in fishy:
                new.append(c)
            elif cornered is not None and c not in looked:
                looked.add(c)
                if cornered(c) or (edged is not None and c in framed and edged(c)):
                    new.append(c)
        if not new:
            return sorted(out, key=lambda c: (c[1], c[0]))
        out += new
        near.update(new)


def holes(cells: list[Cell], shoal: set[Cell]) -> list[Cell]:
    """The cells of ``cells`` not in the ``shoal`` (cells found or asked about) with one
    of its cells on each of their four sides: a player seldom leaves bare mat there, and
    a card the lamp washes out there shows no outline of its own to be asked about by
    (:func:`doubts`)."""
    return sorted((c for c in cells if c not in shoal
                   and all((c[0] + dx, c[1] + dy) in shoal for dx, dy in BESIDE)),
                  key=lambda c: (c[1], c[0]))


def apart(found: dict[Cell, int], asked: list[Cell], top: list[Cell]) -> list[Cell]:
    """The cells ``found`` not joined to the shoal: a shoal is one piece (each card
    covers a section of it, so their cells join side by side), and the piece is the one
    holding the ``top`` card's cells (the largest when none of them was found), joined
    through cells found or ``asked`` about. What lies apart from it is something else
    that matched a section: a marker's white border and black edge make a plain
    section's frame. Such cells are asked about, not read; but a piece that holds a whole
    card (its four sections found at their places) is cards: a lamp's reflection that
    washes out a band of the shoal leaves the cards beyond it apart."""
    joined = set(found) | set(asked)
    pieces: list[set[Cell]] = []
    left = set(joined)
    while left:
        piece, stack = set(), [left.pop()]
        while stack:
            c = stack.pop()
            piece.add(c)
            for dx, dy in BESIDE:
                n = (c[0] + dx, c[1] + dy)
                if n in left:
                    left.remove(n)
                    stack.append(n)
        pieces.append(piece)
    if len(pieces) < 2:
        return []
    shoal = max(pieces, key=lambda p: (len(p & set(top)), len(p & found.keys())))
    places: dict[tuple[int, Cell], set[Cell]] = {}
    for c, col in found.items():
        places.setdefault(card_place(c, col), set()).add(c)
    whole = [cards for cards in places.values() if len(cards) == len(QUADRANTS)]
    kept = set().union(shoal, *(p for p in pieces if any(cards <= p for cards in whole)))
    out = [c for c in found if c not in kept]
    return [] if len(out) == len(found) else sorted(out, key=lambda c: (c[1], c[0]))


def hidden(cells: list[Cell], seen: np.ndarray, shoal: set[Cell]) -> list[Cell]:
    """The cells beside the ``shoal`` (the 8 neighbours of its cells, not in it) that
    glare hides: less than :data:`HIDDEN` seen (``seen``, per cell, the share of its
    samples not clipped in every channel: one channel left shows a card's outline and
    print), or a cell of a card's place of which, over its four cells,
    less than that is seen. A card that lay there, under the glare, would not be read;
    every card touches the shoal, so none lies further out."""
    share = dict(zip(cells, seen, strict=True))
    ring = {(i + dx, j + dy) for i, j in shoal for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    out = []
    for c in cells:
        if c in shoal or c not in ring:
            continue
        cards = [[(c[0] - px + dx, c[1] - py + dy) for dx, dy in QUADRANTS]
                 for px, py in QUADRANTS]  # the four places of a card covering c
        if share[c] < HIDDEN or any(all(x in share for x in four)
                                    and np.mean([share[x] for x in four]) < HIDDEN
                                    for four in cards):
            out.append(c)
    return sorted(out, key=lambda c: (c[1], c[0]))


def peel(cells: list[Cell], sections: np.ndarray, stop: float, bare: float,
         plain: np.ndarray | None = None, carded: np.ndarray | None = None,
         given: dict[Cell, int] | None = None, values: np.ndarray | None = None
         ) -> dict[Cell, int]:
    """The visible section template of each covered cell, peeling cards top-down.

    ``sections`` (cells x 4N) correlates each cell with section q of card n at column
    4n + q. At each step every card at every lattice place is scored by the mean
    correlation of its sections not yet explained (less :data:`FEWER` for each one a
    card above hides); a section that is not one of ``cells`` (off the mat, in its edge
    band, on a marker, or too far from the shoal to be matched) is not seen and scores
    ``bare``, so the edge of a card beside the mat's edge is no card. The best at or
    below ``stop`` ends the peeling (cells that count for no card score ``stop``). Of
    two cards that overlap, the one sure where the other's section of another value is
    not lies above and is peeled first, even if it scores less (:func:`on_top`;
    ``values``, 4N: each section's value, every section its own when ``None``): the
    stop lies halfway from the bare mat's score to the top card's, and a sure match
    halfway from the stop to the top card's.

    A plain section (``plain``, 4N: no fish, so it correlates by its edges and frame
    only) at a cell that some section with fish matches better, and above ``stop``, is
    taken as hidden by a card above: the card is scored with it, as every card is, but
    does not explain it; the card whose fish show there does.

    Then the cells left whose colour says a card covers them (``carded``, per cell: of
    neither the mat's colour nor the mat whitened by glare) are peeled on: a card whose
    only sections still to explain are plain and lie on such cells is taken when their
    mean, without :data:`FEWER`, lies nearer ``stop`` than ``bare`` (above their
    midpoint): colour has said a card is there, the frame need only lean to a card's
    side. A plain section alone at the shoal's edge, the rest of its card under others,
    is read by its colour as much as by its frame (a card of photographic texture
    matches weakly by its frame).

    ``given`` (cell -> column) are cells read already, by a card above the ones sought:
    they are explained from the start, as the cards peeled first explain theirs."""
    index = {c: k for k, c in enumerate(cells)}
    n_cards = sections.shape[1] // 4
    places = sorted({(i - dx, j - dy) for i, j in cells for dx, dy in QUADRANTS})
    where = np.array([[index.get((a + dx, b + dy), -1) for dx, dy in QUADRANTS]
                      for a, b in places])  # places x 4
    on_mat = where >= 0
    place_of = {p: n for n, p in enumerate(places)}
    at = np.maximum(where, 0)
    columns = np.arange(n_cards)[None, None, :] * 4 + np.arange(4)[None, :, None]
    gathered = sections[at[:, :, None], columns]  # places x 4 x cards
    value_at = (values if values is not None else np.arange(4 * n_cards))[columns[0]]  # 4 x cards
    plain_at = (plain[columns] if plain is not None
                else np.zeros(gathered.shape, bool))  # places x 4 x cards
    under = np.zeros(gathered.shape, bool)  # plain sections with fish of a card above
    if plain is not None and (~plain).any():
        fish = np.where(plain[None, :], -np.inf, sections).max(1)  # best fish, per cell
        under = plain_at & (fish[at][:, :, None] > np.maximum(gathered, stop))
    off = (~on_mat).sum(1)[:, None]  # sections not seen: they count as bare mat scores
    found: dict[Cell, int] = dict(given or {})
    explained = np.array([c in found for c in cells], bool)
    spent = np.zeros(gathered.shape[::2], bool)  # places x cards that explain nothing more
    card_at: np.ndarray | None = None  # the second round's: cells a card's colour covers
    while True:
        visible = on_mat & ~explained[at]
        count = visible.sum(1)[:, None]
        mean = ((gathered * visible[:, :, None]).sum(1) + bare * off) / np.maximum(count + off, 1)
        if card_at is None:  # first: every card, fewer sections counting less
            score = np.where((count > 0) & ~spent, mean - FEWER * (4 - count - off), -np.inf)
        else:  # then: cards with only plain sections on cards' colour left to explain
            lone = ~(visible[:, :, None] & (~card_at[:, :, None] | ~plain_at)).any(1)
            score = np.where((count > 0) & lone & ~spent, mean, -np.inf)
        place, card = (int(n) for n in np.unravel_index(int(score.argmax()), score.shape))
        if score[place, card] <= (stop if card_at is None else (stop + bare) / 2):
            if carded is None or card_at is not None:
                return lone_sections(cells, sections, stop, plain, carded, found)
            card_at = carded[at] & on_mat
            continue
        if card_at is None:
            top = 2 * stop - bare  # what the top card scores: the stop lies halfway
            place, card = on_top(place, card, (stop + top) / 2, score, visible,
                                 where, gathered, value_at, places, place_of)
        spent[place, card] = True
        for q in np.flatnonzero(visible[place] & ~under[place, :, card]):
            k = int(where[place, q])
            explained[k] = True
            found[cells[k]] = int(card) * 4 + int(q)


def on_top(place: int, card: int, sure: float, score: np.ndarray, visible: np.ndarray,
           where: np.ndarray, gathered: np.ndarray, value_at: np.ndarray, places: list[Cell],
           place_of: dict[Cell, int]) -> tuple[int, int]:
    """The card to peel instead of ``card`` at ``place`` (indices into ``places`` and the
    deck), the best scoring: where two cards overlap, the cell shows the upper one's
    section. So a card that scores ``sure`` or more (``score``, places x cards) and
    matches surely a cell not yet explained that ``card`` shares with it, where
    ``card``'s section of another value does not, lies above and is peeled first,
    whatever the rest of each scores (of two such, the one that gains most over those
    cells; ``value_at``, 4 x cards: each section's value)."""
    tried = {(place, card)}
    while True:
        mine = {int(where[place, q]): (float(gathered[place, q, card]), value_at[q, card])
                for q in np.flatnonzero(visible[place])}
        a, b = places[place]
        rivals = {place_of[(a + dx - ex, b + dy - ey)] for dx, dy in QUADRANTS
                  for ex, ey in QUADRANTS if (a + dx - ex, b + dy - ey) in place_of} - {place}
        best, pick = 0.0, (place, card)
        for p2 in sorted(rivals):
            qs = [q for q in range(4) if visible[p2, q] and where[p2, q] in mine]
            if not qs:
                continue
            ours = np.array([mine[int(where[p2, q])] for q in qs])  # score, value
            theirs = gathered[p2, qs, :]  # shared x cards
            contest = ((value_at[qs] != ours[:, 1:2]) & (ours[:, :1] < sure)
                       & (theirs >= sure))
            gain = np.where(contest, theirs - ours[:, :1], 0.0).sum(0)
            gain = np.where((score[p2] >= sure) & contest.any(0), gain, -np.inf)
            c2 = int(gain.argmax())
            if gain[c2] > best and (p2, c2) not in tried:
                best, pick = float(gain[c2]), (p2, c2)
        if pick == (place, card):
            return place, card
        place, card = pick
        tried.add(pick)


def lone_sections(cells: list[Cell], sections: np.ndarray, stop: float,
                  plain: np.ndarray | None, carded: np.ndarray | None,
                  found: dict[Cell, int]) -> dict[Cell, int]:
    """``found`` and every cell left of a card's colour (``carded``) that matches a
    section with fish better than a card must (above ``stop``) and touches the cells
    found: its card's other sections lie under the lamp's reflection, which washes out
    their pattern, so no card there scores enough over its four sections; the cell shows
    that section of it. (Bare paper of some mats matches a section with fish that well:
    colour tells it from a card.)"""
    out = dict(found)
    if carded is None:
        return out
    best, which = sections.max(1), sections.argmax(1)
    left = [k for k in np.argsort(-best, kind="stable") if cells[k] not in out
            and carded[k] and best[k] > stop and (plain is None or not plain[which[k]])]
    while True:
        new = [k for k in left if cells[k] not in out and any(
            (cells[k][0] + dx, cells[k][1] + dy) in out for dx in (-1, 0, 1) for dy in (-1, 0, 1))]
        if not new:
            return out
        for k in new:
            out[cells[k]] = int(which[k])


def card_priors(order: list[Cell], found: dict[Cell, int], weights: np.ndarray,
                trust: float = 0.5) -> np.ndarray:
    """What each read cell's card mates say it shows, before its own pixels: a prior
    over the sections (cells ``order`` x 4N, section q of card n at column 4n + q).

    The peel reads the cells one card explained (``found``: the same card at the same
    place) off that card; ``weights`` (cells x 4N) are the log likelihood ratios of the
    cells' own matches (:func:`vision.calibration.log_weights`). For each cell, the
    other cells of its card say which card lies there (the sum of their log ratios for
    every card of the deck at that place: evidence adds up over the card), and so which
    section shows at the cell; with weight ``1 - trust`` the cell shows some other
    section (a card above it that the peel did not find). A cell alone on its card gets
    an even prior."""
    n = weights.shape[1]
    even = np.full(n, 1.0 / n)
    out = np.tile(even, (len(order), 1))
    groups: dict[tuple[int, Cell], list[int]] = {}
    for k, c in enumerate(order):
        groups.setdefault(card_place(c, found[c]), []).append(k)
    for members in groups.values():
        if len(members) < 2:
            continue
        quadrant = [found[order[k]] % 4 for k in members]
        per_card = np.array([weights[k, q::4] for k, q in zip(members, quadrant, strict=True)])
        total = per_card.sum(0)  # cards
        for m, k in enumerate(members):
            others = total - per_card[m]
            p = np.exp(others - others.max())
            p /= p.sum()
            prior = (1 - trust) * even
            prior[quadrant[m]::4] += trust * p
            out[k] = prior
    return out


def with_fish(found: dict[Cell, int], more: dict[Cell, int], plain: np.ndarray
              ) -> dict[Cell, int]:
    """``more`` (cell -> column: ``found`` and the cells a second peel added) less the
    cards added that show no section with fish (``plain``, 4N) among the cells they
    add. At local contrast a plain section is its frame alone, and bare mat amid the
    shoal shows its neighbours' edges as well."""
    added: dict[tuple[int, Cell], list[Cell]] = {}
    for c in more.keys() - found.keys():
        added.setdefault(card_place(c, more[c]), []).append(c)
    out = dict(more)
    for cs in added.values():
        if all(plain[more[c]] for c in cs):
            for c in cs:
                del out[c]
    return out
