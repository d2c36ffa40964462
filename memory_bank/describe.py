"""Readable descriptions of statements, made deterministically from the schema.

MemQ had an LLM write a description per statement ("?e2 is the sibling of the person
?e1"); recall embeds these and matches the planner's sentences against them. The default
describer writes MemQ-style noun phrases from what is known without a model: the
predicate's name, the domain and range types from ``fb_roles``, the reverse property, and
the labels of constants. Other describers (an LLM through a planner backend, say)
register by name (``register_describer``) or through the ``nl2sparql.describers`` entry
point group; none is on by default.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from nl2sparql.kg.freebase_schema import FreebaseSchema, local_name
from nl2sparql.memory_bank.errors import MemoryBankError
from nl2sparql.memory_bank.statement import CVT_SLOT, Constraint, Entry, Statement, Triple

ENTRY_POINT_GROUP = "nl2sparql.describers"

# Property names that read badly as nouns.
LEXICON: dict[str, str] = {
    "from": "start date",
    "to": "end date",
    "from_date": "start date",
    "to_date": "end date",
    "containedby": "contained by",
}
PREPOSITIONS = frozenset({"by", "in", "of", "at", "on", "to", "from", "with", "for", "into", "about", "as"})
PARTICIPLES = frozenset(
    {
        "used",
        "spoken",
        "held",
        "won",
        "written",
        "born",
        "made",
        "known",
        "played",
        "produced",
        "directed",
        "designed",
        "founded",
        "located",
        "owned",
        "released",
        "built",
        "given",
        "taught",
        "sung",
        "drawn",
        "led",
        "run",
        "shown",
        "taken",
        "worn",
        "awarded",
        "nominated",
        "performed",
        "composed",
        "edited",
        "published",
        "created",
        "adopted",
        "practiced",
        "practised",
        "attended",
        "represented",
        "buried",
    }
)
VERBS = frozenset(
    {
        "contains",
        "includes",
        "has",
        "owns",
        "uses",
        "produces",
        "employs",
        "represents",
        "influenced",
        "appears",
        "performs",
        "partially_contains",
        "adjoins",
        "speaks",
        "administers",
        "borders",
    }
)
PLACE_WORDS = frozenset({"country", "city", "state", "location", "place", "region", "county", "town", "area"})
GENERIC_TYPES = frozenset({"common.topic", "type.object"})


@runtime_checkable
class Describer(Protocol):
    """Writes the description that recall embeds for a statement or a constraint."""

    name: str

    def describe(self, entry: Entry) -> str: ...


def words(name: str) -> str:
    """The last part of a property or type id as words: ``sibling_s`` -> ``sibling``."""
    last = local_name(name).rsplit(".", 1)[-1]
    if last in LEXICON:
        return LEXICON[last]
    if last.endswith("_s") and len(last) > 2:
        last = last[:-2]
    return last.replace("_", " ").strip()


def _stem(phrase: str) -> str:
    phrase = phrase.lower()
    for suffix in ("ies", "es", "s"):
        if phrase.endswith(suffix) and len(phrase) > len(suffix) + 2:
            return phrase[: -len(suffix)]
    return phrase


class TemplateDescriber:
    """MemQ-style noun phrases from predicate names and the schema's domain and range types."""

    name = "template"

    def __init__(self, schema: FreebaseSchema | None = None) -> None:
        self.schema = schema

    # -- types and roles -----------------------------------------------------------------------

    def phrase(self, predicate: str) -> str:
        """A predicate as words (the hook a describer for another graph overrides)."""
        return words(predicate)

    def is_verb(self, predicate: str) -> bool:
        """Whether the predicate reads as a verb (``contains``): ``?e2 is what ?e1 contains``."""
        return local_name(predicate).rsplit(".", 1)[-1] in VERBS

    def _domain(self, predicate: str) -> str | None:
        local = local_name(predicate)
        if self.schema is not None:
            dom = self.schema.domain(local)
            if dom is not None:
                return dom
        return local.rsplit(".", 1)[0] if local.count(".") >= 2 else None

    def _range(self, predicate: str) -> str | None:
        return self.schema.range(local_name(predicate)) if self.schema is not None else None

    def noun(self, type_id: str | None) -> str | None:
        if not type_id or type_id in GENERIC_TYPES or type_id.startswith("type."):
            return None
        return words(type_id)

    def _the(self, type_id: str | None, slot: str) -> str:
        noun = self.noun(type_id)
        return f"the {noun} {slot}" if noun else slot

    def _role(self, triple: Triple, node: str) -> str:
        """What ``node`` is to the CVT in ``triple``, as words."""
        if triple.subject == CVT_SLOT:
            return self.phrase(triple.predicate)
        reverse = self.schema.reverse(triple.predicate) if self.schema is not None else None
        if reverse is not None:
            return words(reverse)
        return self.noun(self._domain(triple.predicate)) or self.phrase(triple.predicate)

    # -- descriptions --------------------------------------------------------------------------

    def describe(self, entry: Entry) -> str:
        if isinstance(entry, Constraint):
            return describe_constraint(entry, self)
        triples = entry.triples
        if entry.structure == 1:
            return self._one(triples[0], entry.inputs[0], entry.output)
        if entry.structure == 2:
            return self._two(triples[0], triples[1], entry.inputs[0], entry.output)
        return self._three(triples[:-1], triples[-1], entry.inputs, entry.output)

    def _one(self, t: Triple, source: str, target: str) -> str:
        phrase = self.phrase(t.predicate)
        dom, rng = self._domain(t.predicate), self._range(t.predicate)
        parts = phrase.split()
        if t.subject == source:
            if self.is_verb(t.predicate):
                return f"{target} is what {self._the(dom, source)} {phrase}"
            if parts and parts[-1] in PREPOSITIONS:
                what = self.noun(rng) or "entity"
                return f"{target} is the {what} that {self._the(dom, source)} is {phrase}"
            if len(parts) > 1 and parts[-1] in PARTICIPLES:
                prep = "in" if self._is_place(dom) else "by"
                return f"{target} is the {phrase} {prep} {self._the(dom, source)}"
            return f"{target} is the {phrase} of {self._the(dom, source)}"
        what = self.noun(dom) or "entity"
        if parts and (parts[-1] in PREPOSITIONS or (len(parts) == 1 and parts[-1] in PARTICIPLES)):
            return f"{target} is the {what} {phrase} {self._the(rng, source)}"
        if self.is_verb(t.predicate):
            return f"{target} is the {what} that {phrase} {self._the(rng, source)}"
        noun = self.noun(rng)
        holder = source if noun and noun.split()[-1] in phrase.split() else self._the(rng, source)
        return f"{target} is the {what} whose {phrase} is {holder}"

    def _is_place(self, type_id: str | None) -> bool:
        if not type_id:
            return False
        return type_id.startswith("location.") or any(w in PLACE_WORDS for w in (self.noun(type_id) or "").split())

    def _cvt_type(self, t: Triple) -> str | None:
        return self._range(t.predicate) if t.object == CVT_SLOT else self._domain(t.predicate)

    def _input_type(self, t: Triple) -> str | None:
        return self._domain(t.predicate) if t.object == CVT_SLOT else self._range(t.predicate)

    def _two(self, t_in: Triple, t_out: Triple, source: str, target: str) -> str:
        out_role = self._role(t_out, target)
        in_role = self.phrase(t_in.predicate) if t_in.object == CVT_SLOT else self._role(t_in, source)
        holder = self._the(self._input_type(t_in), source)
        by_relation = self._named_by_relation(t_in)
        if _stem(out_role) == _stem(in_role) or _stem(in_role).endswith(_stem(out_role)):
            return f"{target} is the {in_role if by_relation else out_role} of {holder}"
        cvt = (None if by_relation else self.noun(self._cvt_type(t_in))) or in_role
        return f"{target} is the {out_role} of the {cvt} of {holder}"

    def _named_by_relation(self, t_in: Triple) -> bool:
        """Whether the relation into the CVT, not the CVT's type, must name it: the type is a hub
        that many relations lead into (``the rate of the child labor percent of``, not ``of the
        dated percentage of``), or the input's type has several relations into it
        (``co2_emissions_total``, ``co2_emissions_commercial``)."""
        if self.schema is None or t_in.object != CVT_SLOT:
            return False
        cvt_type = self._cvt_type(t_in)
        return bool(cvt_type) and (
            self.schema.incoming(cvt_type) > HUB_INCOMING or self.schema.parallel(t_in.predicate) > 1
        )

    def _three(self, t_ins: tuple[Triple, ...], t_out: Triple, sources: tuple[str, ...], target: str) -> str:
        cvt = self.noun(self._cvt_type(t_out)) or "record"
        roles = [f"{self._role(t, s)} {s}" for t, s in zip(t_ins, sources, strict=True)]
        joined = " and ".join(roles) if len(roles) == 2 else ", ".join(roles[:-1]) + f" and {roles[-1]}"
        return f"{target} is the {self._role(t_out, target)} of the {cvt} with {joined}"


# More relations than this lead into a hub CVT type (measured on fb_roles: the
# measurement_unit.dated_* family has 32-153 each, location.geocode 25, film.performance 13).
HUB_INCOMING = 15

_OPS = {"<": "less than", ">": "greater than", "<=": "at most", ">=": "at least", "=": "", "!=": "not"}
_DATE_OPS = {"<": "before", ">": "after", "<=": "on or before", ">=": "on or after", "=": "", "!=": "not"}


def describe_constraint(item: Constraint, describer: TemplateDescriber | None = None) -> str:
    """``Make sure ?e1 is Male``, ``Rank by ?e1 in descending order and keep the first``..."""
    if item.kind == "equals":
        label = item.constants[0].label if item.constants else "the given value"
        return f"Make sure ?e1 is {label}"
    if item.kind == "comparison":
        op = item.sparql.split()[1]
        dated = "xsd:dateTime" in item.sparql
        phrase = (_DATE_OPS if dated else _OPS).get(op, op)
        return f"Make sure ?e1 is {phrase} ?e2".replace("is  ", "is ")
    if item.kind == "time_window":
        cvt = None
        if describer is not None and item.predicates:
            cvt = describer.noun(describer._domain(item.predicates[0]))
        return f"Make sure the {cvt} ?e1 holds during ?e2" if cvt else "Make sure ?e1 holds during ?e2"
    if item.kind == "order":
        direction = "descending" if "DESC(" in item.sparql else "ascending"
        tokens = item.sparql.split()
        limit = tokens[tokens.index("LIMIT") + 1] if "LIMIT" in tokens else None
        keep = "" if limit is None else " and keep the first" + ("" if limit == "1" else f" {limit}")
        return f"Rank by ?e1 in {direction} order{keep}"
    if item.kind == "count":
        if "HAVING" in item.sparql:
            op = item.sparql.split("COUNT(?e1)")[1].split()[0]
            phrase = _OPS.get(op, op)
            return f"Make sure the number of ?e1 is {phrase} ?e2".replace("is  ", "is ")
        return "Count ?e1, assign it to ?e2"
    raise MemoryBankError(f"no description for constraint kind {item.kind!r}")


# -- registry -----------------------------------------------------------------------------------

_REGISTRY: dict[str, Callable[..., Describer]] = {"template": TemplateDescriber}
_LOCK = threading.Lock()


def register_describer(name: str, factory: Callable[..., Describer]) -> None:
    """Make ``get_describer(name)`` build a describer with ``factory(**options)``."""
    with _LOCK:
        _REGISTRY[name] = factory


def describer_names() -> list[str]:
    _load_entry_points()
    return sorted(_REGISTRY)


def get_describer(name: str = "template", **options: Any) -> Describer:
    """The describer registered as ``name`` (``template`` unless told otherwise)."""
    if name not in _REGISTRY:
        _load_entry_points()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise MemoryBankError(f"unknown describer {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return factory(**options)


def _load_entry_points() -> None:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in _REGISTRY:
            register_describer(ep.name, ep.load())


def describe_all(entries: list[Statement | Constraint], describer: Describer) -> list[Entry]:
    return [e.with_(description=describer.describe(e)) for e in entries]
