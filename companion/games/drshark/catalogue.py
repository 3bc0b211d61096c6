"""Dr. Shark's clues and evidence as data.

A catalogue lists the evidence pictures (category, points, parts, service) and every
puzzle piece in the bag, sharks included. It is ``"default"`` (``catalogue.json`` next to
this module, partly a reconstruction: see ``docs/drshark.md``) or an inline object in
one of two forms:

- explicit, as in DESIGN.md: ``{"evidence": {id: {"category", "points", "parts",
  "service"}}, "clues": [{"id", "evidence", "part", "shape", "category"}, {"id",
  "shark": true, "shape", "category"}]}``;
- compact, as the default file is written: no ``"clues"``; each evidence has
  ``"copies"`` and ``"shapes"`` ``{part: shape}``, and ``"sharks"`` lists ``{"shape",
  "category"}``. Clue ids are then ``<evidence>-<copy><part>`` (``watch-1a``) and
  ``shark-<n>``.

Either form may carry ``"categories"`` ``{id: {"name", "colour", "texture", "points",
"service"}}``; an evidence without ``points`` or ``service`` takes its category's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from companion.engine import BadSetup

SERVICES = ("paoletta", "babanipoulos")


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    colour: str | None = None
    texture: str | None = None
    points: int | None = None
    service: str | None = None


@dataclass(frozen=True)
class Evidence:
    id: str
    category: str
    points: int
    parts: tuple[str, ...]
    service: str | None


@dataclass(frozen=True)
class Clue:
    """One puzzle piece. A shark has no evidence or part."""

    id: str
    shape: str
    category: str
    evidence: str | None = None
    part: str | None = None
    shark: bool = False


@dataclass(frozen=True)
class Catalogue:
    categories: Mapping[str, Category]
    evidence: Mapping[str, Evidence]
    clues: Mapping[str, Clue]          # in bag order: the order the catalogue lists them

    def clue(self, clue_id: str) -> Clue:
        return self.clues[clue_id]

    def piece(self, clue_id: str) -> str:
        """A clue as its piece reads, for players: "treasure map c", "a shark" (the
        catalogue's ids join words with "-")."""
        clue = self.clues[clue_id]
        return "a shark" if clue.shark else f"{clue.evidence or ''} {clue.part or ''}".replace(
            "-", " ").strip()

    def copies(self, evidence: str) -> int:
        """How many times ``evidence`` can be formed in a game: its rarest part."""
        parts = self.evidence[evidence].parts
        return min(sum(1 for c in self.clues.values()
                       if c.evidence == evidence and c.part == p) for p in parts)

    def in_order(self, ids: Iterable[str]) -> list[str]:
        """Clue ids sorted as the catalogue lists them (for stable views)."""
        wanted = set(ids)
        return [c for c in self.clues if c in wanted]

    def to_json(self) -> dict[str, Any]:
        """The explicit form, with categories: what ``load`` reads back unchanged."""
        return {
            "categories": {c.id: {"name": c.name, "colour": c.colour, "texture": c.texture,
                                  "points": c.points, "service": c.service}
                           for c in self.categories.values()},
            "evidence": {e.id: {"category": e.category, "points": e.points,
                                "parts": list(e.parts), "service": e.service}
                         for e in self.evidence.values()},
            "clues": [_clue_json(c) for c in self.clues.values()],
        }


def _clue_json(c: Clue) -> dict[str, Any]:
    if c.shark:
        return {"id": c.id, "shark": True, "shape": c.shape, "category": c.category}
    return {"id": c.id, "evidence": c.evidence, "part": c.part, "shape": c.shape,
            "category": c.category}


@cache
def default() -> Catalogue:
    text = resources.files(__package__).joinpath("catalogue.json").read_text("utf-8")
    return load(json.loads(text))


def load(option: object) -> Catalogue:
    """The catalogue an option names or holds; ``BadSetup`` says what to fix."""
    if option is None or option == "default":
        return default()
    if not isinstance(option, dict):
        raise BadSetup("catalogue is \"default\" or an object with \"evidence\" and "
                       "\"clues\" (see docs/drshark.md)")
    categories = _categories(option.get("categories", {}))
    evidence = _evidence(option.get("evidence"), categories)
    if "clues" in option:
        clues = _clues(option["clues"], evidence, categories)
    else:
        clues = _generated(option, evidence, categories)
    for e in evidence.values():
        for part in e.parts:
            if not any(c.evidence == e.id and c.part == part for c in clues.values()):
                raise BadSetup(f"catalogue: no clue is part {part!r} of {e.id!r}, so it "
                               "could never be formed")
    if not categories:
        categories = {c.category: Category(c.category, c.category) for c in clues.values()}
    return Catalogue(categories, evidence, clues)


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadSetup(f"catalogue: {what} must be a non-empty string")
    return value


def _points(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
        raise BadSetup(f"catalogue: {what} must be a whole number of points (0-1000)")
    return value


def _service(value: object, what: str) -> str | None:
    if value is not None and value not in SERVICES:
        raise BadSetup(f"catalogue: {what} is \"paoletta\", \"babanipoulos\" or null, "
                       f"not {value!r}")
    return None if value is None else str(value)


def _categories(raw: object) -> dict[str, Category]:
    if not isinstance(raw, dict):
        raise BadSetup("catalogue: \"categories\" must be an object {id: {...}}")
    out = {}
    for cid, spec in raw.items():
        if not isinstance(spec, dict):
            raise BadSetup(f"catalogue: category {cid!r} must be an object")
        where = f"category {cid!r}"
        points = spec.get("points")
        out[cid] = Category(
            id=cid,
            name=_text(spec.get("name", cid), f"{where} name"),
            colour=None if spec.get("colour") is None else _text(spec["colour"], "colour"),
            texture=None if spec.get("texture") is None else _text(spec["texture"], "texture"),
            points=None if points is None else _points(points, f"{where} points"),
            service=_service(spec.get("service"), f"{where} service"),
        )
    return out


def _evidence(raw: object, categories: Mapping[str, Category]) -> dict[str, Evidence]:
    if not isinstance(raw, dict) or not raw:
        raise BadSetup("catalogue: \"evidence\" must be an object {id: {category, points, "
                       "parts, service}} with at least one evidence")
    out = {}
    for eid, spec in raw.items():
        where = f"evidence {eid!r}"
        if not isinstance(spec, dict):
            raise BadSetup(f"catalogue: {where} must be an object")
        category = _text(spec.get("category"), f"{where} category")
        if categories and category not in categories:
            raise BadSetup(f"catalogue: {where} has category {category!r}, which is not "
                           f"one of {', '.join(categories)}")
        cat = categories.get(category)
        points = spec.get("points", cat.points if cat else None)
        if points is None:
            raise BadSetup(f"catalogue: {where} has no points (give \"points\", or its "
                           "category's points)")
        shapes = spec.get("shapes")
        parts = spec.get("parts", list(shapes) if isinstance(shapes, dict) else None)
        if (not isinstance(parts, list) or not parts
                or not all(isinstance(p, str) and p for p in parts)
                or len(set(parts)) != len(parts)):
            raise BadSetup(f"catalogue: {where} needs \"parts\", a list of different part "
                           "names such as [\"a\", \"b\", \"c\"]")
        service = spec.get("service", cat.service if cat else None)
        out[eid] = Evidence(eid, category, _points(points, f"{where} points"), tuple(parts),
                            _service(service, f"{where} service"))
    return out


def _clues(raw: object, evidence: Mapping[str, Evidence],
           categories: Mapping[str, Category]) -> dict[str, Clue]:
    if not isinstance(raw, list) or not raw:
        raise BadSetup("catalogue: \"clues\" must be a list of clue objects")
    out: dict[str, Clue] = {}
    for i, spec in enumerate(raw, 1):
        if not isinstance(spec, dict):
            raise BadSetup(f"catalogue: clue {i} must be an object")
        cid = _text(spec.get("id"), f"clue {i} id")
        if cid in out:
            raise BadSetup(f"catalogue: two clues have the id {cid!r}")
        shape = _text(spec.get("shape"), f"clue {cid!r} shape")
        if spec.get("shark") is True:
            category = _text(spec.get("category"), f"shark {cid!r} category")
            _known_category(category, cid, categories, evidence)
            out[cid] = Clue(cid, shape, category, shark=True)
            continue
        eid = spec.get("evidence")
        if not isinstance(eid, str) or eid not in evidence:
            raise BadSetup(f"catalogue: clue {cid!r} is part of {eid!r}, which is not in "
                           "\"evidence\"")
        e = evidence[eid]
        part = spec.get("part")
        if part not in e.parts:
            raise BadSetup(f"catalogue: clue {cid!r} is part {part!r}, but {eid!r} has parts "
                           f"{', '.join(e.parts)}")
        category = spec.get("category", e.category)
        if category != e.category:
            raise BadSetup(f"catalogue: clue {cid!r} is {category!r} but its evidence "
                           f"{eid!r} is {e.category!r}")
        out[cid] = Clue(cid, shape, e.category, eid, str(part))
    return out


def _known_category(category: str, cid: str, categories: Mapping[str, Category],
                    evidence: Mapping[str, Evidence]) -> None:
    known = set(categories) or {e.category for e in evidence.values()}
    if category not in known:
        raise BadSetup(f"catalogue: shark {cid!r} has category {category!r}, which is not "
                       f"one of {', '.join(sorted(known))}")


def _generated(option: Mapping[str, Any], evidence: Mapping[str, Evidence],
               categories: Mapping[str, Category]) -> dict[str, Clue]:
    """The clues of the compact form: ``copies`` of each evidence, plus the sharks."""
    out: dict[str, Clue] = {}
    for eid, e in evidence.items():
        spec = option["evidence"][eid]
        copies, shapes = spec.get("copies"), spec.get("shapes")
        if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= 50:
            raise BadSetup(f"catalogue: evidence {eid!r} needs \"copies\" (1-50), or give "
                           "the \"clues\" list")
        if not isinstance(shapes, dict) or set(shapes) != set(e.parts):
            raise BadSetup(f"catalogue: evidence {eid!r} needs \"shapes\" {{part: shape}} "
                           f"for its parts {', '.join(e.parts)}")
        for copy in range(1, copies + 1):
            for part in e.parts:
                cid = f"{eid}-{copy}{part}"
                out[cid] = Clue(cid, _text(shapes[part], f"{eid} shape"), e.category, eid,
                                part)
    sharks = option.get("sharks", [])
    if not isinstance(sharks, list):
        raise BadSetup("catalogue: \"sharks\" must be a list of {shape, category}")
    for n, spec in enumerate(sharks, 1):
        cid = f"shark-{n}"
        if not isinstance(spec, dict):
            raise BadSetup(f"catalogue: {cid} must be an object {{shape, category}}")
        category = _text(spec.get("category"), f"{cid} category")
        _known_category(category, cid, categories, evidence)
        out[cid] = Clue(cid, _text(spec.get("shape"), f"{cid} shape"), category, shark=True)
    return out
