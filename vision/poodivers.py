"""Read a Tokyo Poo Divers layout from a photo: which cards are closed, blank, sleeper or
an object.

The layout (a named one or row strings) says which grid cells hold a card. The grid is
found from the cards' outlines, whatever the mat's colour (:mod:`vision.poo_grid`). Each
card is matched against the faces file's images (all cards at once, invariant to gain
and offset: :mod:`vision.matching`); a card that looks like none of the closed, blank or
sleeper faces is an object, so object drawings missing from faces.json are still read as
objects. How unlike is "none" is learned from the faces file itself and the photo
(:func:`vision.poo_odds.object_margin`), never written in. A card's colour counts less
the brighter it is than a picture can be (a veil of glare, whose colour is not the
light's: :meth:`PooDiversReader._read`), and a card partly clipped by glare is read from
what shows and is that much less sure (:func:`vision.calibration.posterior`). A card is
an object by looking like none of the faces only once a glare halo on it is allowed for,
fitted together with each face 1 mm around the card's place, in the photo's values and
in linear light (:func:`vision.poo_glare.halo_distances`): a blank beside a lamp's
reflection is a blank, a faint print under it its face; and only if it looks like none
of them over its best three quarters as well (:class:`vision.poo_glare.Spared`: a glare
spot, a shadow's edge or the mat beside a card laid off its place spoils a corner); one
like a face but for a band along one side (a card laid askew shows the card beside it
there) is asked about, that face as likely, never read as it (an object drawn near a
side is as like the plain face so). A
card whose colour fits its face only at more contrast than the photo's clearest cards
show (:func:`vision.poo_veil.bounded_misfit`: a brown card as a blank's faint tint
stretched fivefold) is not that face, unless clipped somewhere (a clipped channel says
only "at least this bright"); one that only the free fit calls that face is asked about.
A card under a veil (as the cards around it that match a patterned picture show it,
beyond what every card of the photo shows: :func:`vision.poo_veil.veiled`) says that
much less, as a card partly clipped does; a card read as the plain face no more than its
brightness leaves of its print (:func:`vision.poo_veil.plain_print`: a veil hides a
pattern, never makes one). A card read as the plain face under a veil is sought again
with the wear its pattern is damped by as faint as the veil leaves its print
(:func:`vision.matching.distances`, ``contrast``): a closed back's ring at a fifth of
its contrast is still a ring. The clearer half of a photo's cards is judged by that half's
own true matches, the veiled half at least as widely as its own spread
(:func:`vision.poo_odds.graded`). A card torn between two fixed faces is sought again
with every picture at every 1 mm shift (:func:`everywhere`). A card unlike every face
whose window a lamp's reflection brightens beyond its rim is weighed by its rim as well
(:mod:`vision.poo_rim`: the bowed rim does not catch the lamp and shows its face's
colour), and asked about when rim and print disagree. Cards are compared in paper whites
as the markers' white cells show them (:attr:`vision.lighting.Light.paper`): where a warm
lamp clips the bare mat, its light is not divided out and would tint every card. Build a
:class:`PooDiversReader` once per faces file, mat and layout.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from companion.grid import Cell
from vision import calibration, lighting, matching, poo_grid, poo_rim, templates
from vision.decks import Faces, load_faces
from vision.mat import PX_PER_MM, MatSpec, detect, mat_of
from vision.matching import FEATURE_PX_PER_MM
from vision.poo_glare import Spared, halo_distances, halos, without_halo
from vision.poo_odds import (
    FIXED,
    faces_apart,
    graded,
    likely,
    object_margin,
    object_margins,
    unlike_every_face,
    within_deck,
)
from vision.poo_veil import bounded_misfit, card_colours, plain_face, plain_print, veil_law, veiled
from vision.reading import Reading, timed


def everywhere(small: np.ndarray, known: np.ndarray, corners: np.ndarray,
               templates: templates.Templates, noise: float, outside: np.ndarray,
               contrast: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every card (top-left ``corners``, K x 2) against every picture at every 1 mm shift
    as far as :func:`vision.matching.match` reaches (its coarse shifts and the fine ones
    around them): each picture's pattern distance at its own best shift (K x N), that
    shift (K x N x 2 mm) and the card's mean colour there (K x N x 3). ``match`` seeks the
    fine shifts around the best picture's coarse shift only, so a faint pattern between
    two coarse shifts loses to a plain face that happened to lie nearer there."""
    box, inset = templates.box_mm, templates.inset_mm
    reach = max(matching.SHIFTS_MM) + max(matching.FINE_MM)
    steps = tuple(range(-reach, reach + 1))
    grid = np.array([(dx, dy) for dy in steps for dx in steps], float)
    samples = matching.sample(small, corners, box, inset, steps, outside=outside)
    seen = matching.sample(known, corners, box, inset, steps, outside=1.0) > 0.5
    weight = None if seen.all() else seen
    k, s, n = len(corners), len(grid), len(templates.labels)
    each = None if contrast is None else np.repeat(contrast, s)
    cube = matching.distances(samples, templates, noise, weight, each).reshape(k, s, n)
    best = cube.argmin(1)
    pattern = np.take_along_axis(cube, best[:, None, :], 1)[:, 0, :]
    means = matching.window_means(samples, weight, k)
    return pattern, grid[best], means[np.arange(k)[:, None], best]

class PooDiversReader:
    """Reads Tokyo Poo Divers layouts of one faces file, mat and layout."""

    def __init__(self, faces: Faces, mat: MatSpec, rows: tuple[str, ...]) -> None:
        self.faces = faces
        self.mat = mat
        self.rows = rows
        self.templates = templates.poo_templates(faces)
        self.margins = calibration.margins(self.templates, frozenset({"object"}))
        n = self.templates.features.shape[1] // 3
        self.spared = Spared(self.templates)
        self.spared_cross = self.spared.distances(self.templates.features.reshape(-1, n, 3),
                                                  matching.QUANTUM)
        self.sides = Spared(self.templates, sides=True)
        self.sides_cross = self.sides.distances(self.templates.features.reshape(-1, n, 3),
                                                matching.QUANTUM)

    @cached_property
    def pictures(self) -> np.ndarray:
        """The pictures' rim colours (:func:`vision.poo_rim.picture_rims`), read from the
        faces file's images when first a photo has a card unlike every face."""
        return poo_rim.picture_rims(self.faces, PX_PER_MM)

    @classmethod
    def from_files(cls, faces: Path, mat: Path | None, rows: tuple[str, ...]
                   ) -> PooDiversReader:
        return cls(load_faces(faces), mat_of(mat), rows)

    def read(self, photo: np.ndarray) -> Reading:
        """Read every card cell of the layout ("#" card, "." gap) in ``photo``."""
        return timed(self._read, photo)

    def _read(self, photo: np.ndarray) -> Reading:
        rows, templates, faces, mat = self.rows, self.templates, self.faces, self.mat
        view = detect(mat, photo)
        # the light is measured at the resolution cards are compared at
        scale = FEATURE_PX_PER_MM / PX_PER_MM
        low = cv2.resize(view.rectified, None, fx=scale, fy=scale,
                         interpolation=cv2.INTER_AREA)
        # what each channel shows: a pixel clipped in one channel (a warm lamp clips red
        # first) still shows the others; glare found by its soft edges shows none
        channel_top = lighting.channels_at_top(view.rectified)
        rectified_clip = lighting.at_top(channel_top) > 0
        clip = cv2.resize(rectified_clip.astype(np.float32),
                          low.shape[1::-1], interpolation=cv2.INTER_AREA)
        light = lighting.flatten(low, mat, FEATURE_PX_PER_MM, clip)
        cw, ch = faces.card_mm
        # cards are compared in paper whites: where the light could not be divided out
        # (the bare mat clipped, as a warm lamp clips red), paper white reads the lamp's
        # colour, as the markers' white cells show it; taken out, a blank reads white,
        # not the lamp's colour (unlike every face)
        flat, mat_colour = light.flat, light.mat
        if (light.paper != 1.0).any():
            flat, mat_colour = flat / light.paper, mat_colour / light.paper
        small = matching.prepare(flat, FEATURE_PX_PER_MM)
        bare = matching.prepare(light.bare.astype(np.float32), FEATURE_PX_PER_MM) > 0.99
        noise, colour_noise = matching.floors(small, bare)
        free = ~lighting.marker_mask(mat, small.shape[:2], 1.0, mat.marker_mm / 6 + 2)
        edge = round(lighting.EDGE_MM + min(cw, ch) / 2)  # no card lies over the mat's edge
        free[:edge], free[-edge:], free[:, :edge], free[:, -edge:] = False, False, False, False
        grid = poo_grid.find_grid(small, faces.card_mm, rows, free)
        x0, y0, pitch_x, pitch_y = grid.x0, grid.y0, grid.px, grid.py
        channel_top = cv2.resize(channel_top, low.shape[1::-1], interpolation=cv2.INTER_AREA)
        each_shows = (channel_top < 128) & ~(light.unknown & (clip < 0.5))[:, :, None]
        known = matching.prepare(each_shows.astype(np.float32), FEATURE_PX_PER_MM)
        cells = [(c, r) for r, row in enumerate(rows) for c, mark in enumerate(row)
                 if mark == "#"]
        corners = np.array([(x0 + c * pitch_x, y0 + r * pitch_y) for c, r in cells])
        dist, shift, each = matching.match(small, known, corners, templates, noise,
                                           mat_colour, colour_noise)
        density = calibration.photo_density(dist, self.margins.worn)
        unlike = object_margin(templates, self.margins, float(np.exp(density[0])),
                               (density[1], density[3]))
        box, inset = templates.box_mm, templates.inset_mm
        # the share of each card seen (not clipped): what its distances were measured on
        share = (matching.sample(known, corners + shift, box, inset, (0,), outside=1.0)
                 > 0.5).reshape(len(cells), -1).mean(1)
        colour_scale = 3 * (matching.FLOOR * colour_noise) ** 2
        # a card torn between two fixed faces is sought again, every picture at every
        # 1 mm shift (match sought the fine shifts around the best picture's only)
        odds = likely(faces_apart(dist, templates.labels, unlike)[1], density, share)
        torn = (np.argsort(-odds, 1, kind="stable")[:, :2] < len(FIXED)).all(1)
        again = np.flatnonzero((odds.max(1) < calibration.UNSURE) & torn)
        if again.size:
            pattern = dist[again] - matching.colour_misfit(each[again], templates,
                                                           mat_colour) / colour_scale
            found, _, there = everywhere(small, known, corners[again], templates, noise,
                                         mat_colour)
            better = found < pattern
            each[again] = np.where(better[:, :, None], there, each[again])
            pattern = np.where(better, found, pattern)
            dist[again] = pattern + matching.colour_misfit(each[again], templates,
                                                           mat_colour) / colour_scale
            density = calibration.photo_density(dist, self.margins.worn)
            unlike = object_margin(templates, self.margins, float(np.exp(density[0])),
                                   (density[1], density[3]))
        means = matching.box_means(small, known, corners + shift, templates, mat_colour)
        misfit = matching.colour_misfit(each, templates, mat_colour)
        pattern = dist - misfit / colour_scale
        colours = card_colours(means, pattern, templates, unlike, noise)
        spread, bounded, clear = colour_noise, misfit, np.zeros(len(cells), bool)
        if colours is not None:
            # colours compared at the spread the cards show, with the cast they show
            # taken out or, that cast being an estimate, as photographed
            cast, shown, contrast = colours
            misfit = np.minimum(misfit, matching.colour_misfit(each / cast, templates,
                                                               mat_colour))
            bounded = np.minimum(bounded_misfit(each, templates, mat_colour, contrast),
                                 bounded_misfit(each / cast, templates, mat_colour, contrast))
            spread = max(colour_noise, shown)
            # a card clipped anywhere (a pixel of the photo at the sensor's top) shows its
            # colour only as "at least this bright" in that channel, and the means of
            # what is left lean away from it
            at_top = matching.sample(clip, corners + shift, box, inset, (0,), outside=0.0)
            clear = np.asarray(at_top.max(1) <= 0)
        # a card brighter than its picture can be is veiled, by light whose colour is
        # unknown: its colour says that much less
        excess = np.maximum(each.mean(-1) - templates.means.mean(1)[None, :], 0.0)
        scale = 3 * ((matching.FLOOR * spread) ** 2 + excess ** 2)
        # two fits of a card's colour to each face: its gain free (any contrast), or held
        # to what light gives (:func:`bounded_misfit`); a card is read by the bounded one
        # unless clipped, and is as sure as the less sure of the two
        dist_f, dist_b = pattern + misfit / scale, pattern + bounded / scale
        dist = np.where(clear[:, None], dist_b, dist_f)
        density = calibration.photo_density(dist_f, self.margins.worn)
        photo_true = float(np.exp(density[0]))
        unlike = object_margin(templates, self.margins, photo_true, (density[1], density[3]))
        values, nearest = faces_apart(dist, templates.labels, unlike)
        # like none of the faces is an object only once a glare halo is allowed for
        labels = np.array(templates.labels)
        fixed = np.isin(labels, FIXED)
        absent = unlike_every_face(dist, nearest, fixed, unlike)
        unlike_once = absent.copy()  # their distances are taken again below
        tint, tint_f = dist - pattern, dist_f - pattern  # what colour adds, as read and free
        haloed = np.zeros(len(cells), bool)
        askew = np.full(len(cells), -1)  # the face a card laid askew may be (below)
        if absent.any():
            # the light's own colour is paper white; the camera's white is what adds
            # the same to every channel of the photo
            whites = [np.ones(3, np.float32),
                      np.median(flat.reshape(-1, 3)[::97]
                                / (low.reshape(-1, 3)[::97] + 1.0), 0)]
            bumps = halos(templates, min(cw, ch), whites)
            # the three quarters below compare the card less the halo that explains it
            # most; the whole card, with the halo each face leaves (a faint print's
            # halo is not a plain card's), added to the photo's values or to its light
            # (the camera's processing is not known: light adds up before it)
            unhaloed = without_halo(small, (corners + shift)[absent], templates, bumps)
            haloed = absent.copy()
            plain = np.minimum(*(halo_distances(small, (corners + shift)[absent], templates,
                                                bumps, noise, matching.FINE_MM, in_light)
                                 for in_light in (False, True)))
            for d in (dist, dist_f, dist_b):
                d[absent] = np.minimum(d[absent], plain + (d - pattern)[absent])
            values, nearest = faces_apart(dist, templates.labels, unlike)
        absent = unlike_every_face(dist, nearest, fixed, unlike)
        unlike_once |= absent
        if absent.any():
            # like none of the faces over its best three quarters too (a spoiler lies on a
            # corner of a card), against the margin that comparison has in this photo; a
            # card read so is as sure as the whole card's fits say (it is asked about)
            around = matching.sample(small, corners + shift, box, inset, matching.FINE_MM)
            part = self.spared.distances(around, noise).reshape(len(cells), -1,
                                                                len(labels)).min(1)
            if haloed.any():  # the halo taken off as well
                part[haloed] = np.minimum(part[haloed],
                                          self.spared.distances(unhaloed, noise))
            own = calibration.photo_density(part + tint_f, self.margins.worn)
            margin = object_margin(templates, self.margins, float(np.exp(own[0])),
                                   (own[1], own[3]), self.spared_cross)
            kept = (part + tint)[np.ix_(absent, fixed)] * unlike / margin
            dist[np.ix_(absent, fixed)] = np.minimum(dist[np.ix_(absent, fixed)], kept)
            values, nearest = faces_apart(dist, templates.labels, unlike)
            # and over all but a band along one side (a card laid askew shows the mat or
            # the card beside it there): a card like a face so is asked about, never read
            # as that face (an object drawn near a side is as like the plain face so)
            side = self.sides.distances(around, noise).reshape(len(cells), -1,
                                                               len(labels)).min(1)
            own = calibration.photo_density(side + tint_f, self.margins.worn)
            margin = object_margin(templates, self.margins, float(np.exp(own[0])),
                                   (own[1], own[3]), self.sides_cross)
            near = np.where(fixed[None, :], (side + tint) * unlike / margin, np.inf)
            like = absent & (near.min(1) < unlike)
            askew[like] = [FIXED.index(str(labels[t])) for t in near[like].argmin(1)]
        # a veiled card's light is that much the veil's, not its print's: what its match
        # says is discounted by the print's share (``seen``, below)
        veil = veiled(small, corners + shift, templates, dist, unlike, noise, means,
                      np.array(cells, float))
        printed = plain_print(1.0 - veil, nearest, means, templates)
        # (a card read as the plain face under a veil is sought again, its pattern damped
        # only by what a photo does to a print as faint as the veil leaves it: a faint
        # ring is a closed back; it takes the patterned face only if that face is then
        # nearer than the plain one, its objects' distances left as they were. The veil
        # is the one the cards around it show or, more, its own, were it the patterned
        # fixed face its pattern is nearest: a veil as broad as several cards lies over
        # those around it too)
        plain = plain_face(templates)
        faint = np.flatnonzero((nearest.argmin(1) == plain) & (veil > 0.0) & ~unlike_once)
        if faint.size:
            ring_like = np.isin(labels, FIXED) & (labels != FIXED[plain])
            nearest_ring = np.where(ring_like[None, :], pattern[faint], np.inf).argmin(1)
            its_veil = matching.veil(small, (corners + shift)[faint], templates, nearest_ring)
            its_veil = np.clip(its_veil / np.maximum(means[faint].mean(1), 1e-3), 0.0, 1.0)
            found, moved_to, _ = everywhere(small, known, corners[faint], templates, noise,
                                            mat_colour, 1.0 - np.maximum(veil[faint], its_veil))
            among = faces_apart(found + (dist - pattern)[faint], templates.labels,
                                unlike)[1][:, :len(FIXED)]
            ring = among.argmin(1) != plain
            rows = faint[ring]
            for d in (dist, dist_f, dist_b):
                d[np.ix_(rows, fixed)] = (found + (d - pattern)[faint])[ring][:, fixed]
            best = np.where(fixed, found[ring], np.inf).argmin(1)
            shift[rows] = moved_to[ring][np.arange(rows.size), best]
            values, nearest = faces_apart(dist, templates.labels, unlike)
        # and a true match of a card that much veiled lies that much further from its
        # picture (what is left of its pattern over the noise falls as the square of the
        # print's share), while an object lies no nearer a patterned face: the object
        # margin of a card nearest a patterned face moves out (a faint pattern lies as near
        # the plain face as its own: a veiled object nears the plain face too)
        face = nearest.argmin(1)
        moved = nearest[:, :len(FIXED)].argmin(1) != plain
        law = veil_law(printed, nearest.min(1), (face < len(FIXED)) & moved)
        # a clear card's true match lies where the photo's clear cards' lie (its margin
        # and its odds with them), a veiled card's where the whole photo's do
        each_density = graded(dist_f.min(1), share * printed,
                              unlike_every_face(dist, nearest, fixed, unlike), density,
                              self.margins.worn)
        each_unlike = object_margins(templates, self.margins,
                                     np.exp(each_density[:, 0])
                                     * np.where(moved, np.maximum(printed, 1e-3), 1.0) ** law,
                                     (density[1], density[3]))
        values, nearest = faces_apart(dist, templates.labels, each_unlike)
        nearest_f = faces_apart(dist_f, templates.labels, each_unlike)[1]
        nearest_b = faces_apart(dist_b, templates.labels, each_unlike)[1]
        alone = unlike_every_face(dist, nearest, fixed, each_unlike)
        # a card nearest a patterned fixed face (the closed back, the sleeper) shows that
        # pattern, which no veil adds, and its distances already lie where the veiled
        # cards' true matches do (:func:`graded`): its veil is not counted again. A veil's
        # light, which carries no pattern, passes for the plain face's want of pattern
        # and is itself what makes a card unlike every face: a card read so says as much
        # as the pattern it would have shown through the veil, its print's share squared
        # (evidence grows as the square of a pattern's contrast). A faint match among
        # many object pictures is chance: it says as much as its print's share
        read_as = nearest.argmin(1)
        patterned = (read_as < len(FIXED)) & (read_as != plain)
        squared = alone | (read_as == plain)
        seen = share * np.where(squared, printed ** 2, np.where(patterned, 1.0, printed))
        reading = Reading("poodivers", {}, {}, view=view, values=list(values))
        free = likely(nearest_f, each_density, seen)
        # the fit held to what light gives says nothing of a card clipped anywhere (its
        # means lean away from the clipped channel): such a card is read by the free fit
        # and is as sure as that fit says
        held = np.where(clear[:, None], likely(nearest_b, each_density, seen), free)
        # the candidates are the odds of the distances a card is read by (in their order:
        # the value read is always the first), however much less sure the other fit is;
        # a card is as sure as the least sure of the two fits and those distances (a card
        # an object only over the whole of it, its three quarters nearer a face, is less)
        odds = likely(nearest, each_density, seen)
        sure = np.minimum(np.minimum(free, held), odds)
        order = np.argsort(nearest, 1, kind="stable")
        if alone.any():
            # a card unlike every face may be one whose print a lamp's reflection hides:
            # its rim, which does not reflect the lamp, still shows its face's colour
            sure_of = sure[np.arange(len(cells)), order[:, 0]] >= calibration.UNSURE
            odds, most = self._rims(view.rectified, low, flat, rectified_clip,
                                    corners + shift, odds,
                                    np.where(sure_of & ~alone, order[:, 0], -1), alone,
                                    means, veil)
            weighed = (most < 1).any(1)
            order[weighed] = np.argsort(-odds[weighed], 1, kind="stable")
            sure[weighed] = np.minimum(odds, most)[weighed]
        order = within_deck(order, odds, values)
        # a card read sure as an object that is like a face but for a band along one side
        # (an unsure one keeps the odds it is asked with)
        doubt = np.flatnonzero((order[:, 0] == len(FIXED)) & (askew >= 0)
                               & (sure[:, len(FIXED)] >= calibration.UNSURE))
        for card in doubt:
            pair = [len(FIXED), int(askew[card])]
            odds[card] = 0.0
            odds[card, pair] = 0.5
            sure[card, len(FIXED)] = 0.5
            order[card] = [*pair, *(f for f in order[card] if f not in pair)]
        for k, (c, r) in enumerate(cells):
            v = int(order[k, 0])
            name = str(Cell(c, r))
            dx, dy = shift[k]
            reading.cells[name] = values[v]
            reading.confidence[name] = float(sure[k, v])
            reading.candidates[name] = {values[i]: float(odds[k, i]) for i in order[k]}
            ox, oy = mat.origin_mm
            reading.boxes_mm[name] = (ox + x0 + c * pitch_x + dx, oy + y0 + r * pitch_y + dy,
                                      cw, ch)
        return reading

    def _rims(self, rectified: np.ndarray, low: np.ndarray, flat: np.ndarray,
              clipped: np.ndarray, corners: np.ndarray, odds: np.ndarray, read: np.ndarray,
              alone: np.ndarray, means: np.ndarray, veil: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
        """:func:`vision.poo_rim.weigh` of the cards (top-left ``corners``, mm) in the
        rectified photo at its own resolution (the rim is 1.5 mm wide), over the light
        measured at the compared one (``low`` the photo there, ``flat`` over its light);
        ``means`` each card's mean colour over its compared window, ``veil`` the veil
        the clear cards around each show (:func:`vision.poo_veil.veiled`)."""
        cw, ch = self.faces.card_mm
        size = (round(cw * PX_PER_MM), round(ch * PX_PER_MM))
        rims = poo_rim.card_rims(rectified, low, flat, clipped, corners * PX_PER_MM, size,
                                 PX_PER_MM)
        faces = (*FIXED, "object")
        found = poo_rim.rim_distances(rims, read, self.pictures, self.templates.labels,
                                      faces, alone)
        if found is None:
            return odds, np.ones_like(odds)
        rim, noise, spread = found
        hidden = poo_rim.reflected(means, rims, rim, self.templates, self.pictures, faces,
                                   read >= 0)
        return poo_rim.weigh(odds, rim, noise, spread, alone, hidden,
                             poo_rim.shared(hidden, corners, self.faces.card_mm, veil))


def read(photo: np.ndarray, faces: Faces, rows: tuple[str, ...], mat: MatSpec) -> Reading:
    """Read one photo (builds a reader: for many photos, keep a :class:`PooDiversReader`)."""
    return PooDiversReader(faces, mat, rows).read(photo)
