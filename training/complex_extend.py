"""CWQ's four extensions of a WebQSP query (Talmor and Berant 2018), typed by the Freebase schema.

* composition: the topic entity becomes a variable ``?c`` described through another fact
  about it (``?c location.country.administrative_divisions ns:N``), ``N`` a real
  neighbour of the topic from the gold data, the relation's end on ``?c`` of the topic's type;
* conjunction: a second fact on the answer (``?x rel ns:E`` or ``ns:E rel ?x``), ``E`` a
  real neighbour of one of the gold answers, the relation's end on ``?x`` of the answer's type;
* comparative: a date or number relation whose domain is the answer's type (directly or
  through a CVT such as ``population -> dated_integer.number``) with a ``FILTER``;
* superlative: the same relation with ``ORDER BY ... LIMIT 1``, as CWQ's gold queries write it.

The queries are written in CWQ's form (dates compared bare, numbers cast to
``xsd:integer``). A value to compare with is, in this order of preference, one the
relation takes in the gold answers, else (dates only) a round year; which one is kept in
``detail["value_from"]``, so nobody mistakes a round year for a fact.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nl2sparql.kg.freebase_schema import FreebaseSchema
from nl2sparql.memory_bank import schema_statements
from nl2sparql.training.complex_facts import Fact, FactIndex
from nl2sparql.training.complex_source import ANSWER_VAR, Source, fits

CATEGORIES = ("composition", "conjunction", "comparative", "superlative")
NUMERIC_RANGES = {"type.datetime": "date", "type.int": "number", "type.float": "number"}
#: domains whose relations are about Freebase or user bases, not what people ask: the schema
#: bank's bookkeeping domains, and the user-contributed and generic ones as well
SKIPPED_DOMAINS = schema_statements.SKIPPED_DOMAINS | {"base", "common"}
ROUND_YEARS = tuple(str(y) for y in range(1900, 2011, 10))
_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")
_INTEGER = re.compile(r"-?\d+")


@dataclass(frozen=True, slots=True)
class Extension:
    """A synthetic complex query with what its question and plan need."""

    category: str
    source: str
    sparql: str
    entities: Mapping[str, str]
    topics: tuple[str, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)


def path_text(subject: str, path: tuple[str, ...], obj: str, cvt: str) -> str:
    """Triple patterns for a one- or two-relation path (two go through the CVT variable ``cvt``).

    >>> path_text("?c", ("a.b.c",), "ns:m.1", "?y")
    '?c ns:a.b.c ns:m.1 .'
    >>> path_text("?x", ("a.b.c", "d.e.f"), "?num", "?y")
    '?x ns:a.b.c ?y .\\n?y ns:d.e.f ?num .'
    """
    if len(path) == 1:
        return f"{subject} ns:{path[0]} {obj} ."
    return f"{subject} ns:{path[0]} {cvt} .\n{cvt} ns:{path[1]} {obj} ."


def _insert(sparql: str, text: str) -> str:
    """``text`` as the last lines of the query's WHERE group."""
    cut = sparql.rindex("}")
    return f"{sparql[:cut].rstrip()}\n{text}\n{sparql[cut:]}"


def _pick(rng: random.Random, facts: list[Fact]) -> Fact | None:
    return rng.choice(sorted(facts, key=lambda f: (f.path, f.subject, f.object))) if facts else None


def composition(
    source: Source, index: FactIndex, schema: FreebaseSchema, rng: random.Random, into_only: bool = False
) -> Extension | str:
    """The topic entity replaced by ``?c``, described by a fact about the topic with a new entity
    (``into_only``: a fact whose object is the topic, i.e. the topic answers the fact's question)."""
    taken = set(source.entities) | set(source.answers)
    out = [
        f
        for f in ([] if into_only else index.by_subject.get(source.topic, ()))
        if f.source != source.id and f.object not in taken and fits(schema, schema.domain(f.path[0]), source.topic_type)
    ]
    into = [
        f
        for f in index.by_object.get(source.topic, ())
        if f.source != source.id
        and f.subject not in taken
        and index.names.get(f.subject)
        and fits(schema, schema.range(f.path[-1]), source.topic_type)
    ]
    fact = _pick(rng, out + into)
    if fact is None:
        return "no typed fact about the topic"
    var, cvt = source.fresh("c"), source.fresh("y")
    forward = fact.subject == source.topic
    other = fact.object if forward else fact.subject
    name = fact.name if forward else index.names[other]
    ends = (var, f"ns:{other}") if forward else (f"ns:{other}", var)
    pattern = path_text(ends[0], fact.path, ends[1], cvt)
    body = source.sparql.replace(f"ns:{source.topic} ", f"{var} ").replace(f"ns:{source.topic})", f"{var})")
    entities = {k: v for k, v in source.entities.items() if k != source.topic} | {other: name}
    detail = {"path": list(fact.path), "entity": other, "name": name, "forward": forward, "fact_from": fact.source}
    detail |= {"variable": var, "pattern": pattern}
    return Extension("composition", source.id, _insert(body, pattern), entities, (other,), detail)


def conjunction(source: Source, index: FactIndex, schema: FreebaseSchema, rng: random.Random) -> Extension | str:
    """A second fact on the answer: a relation from (or into) one gold answer to a new entity."""
    taken = set(source.entities) | set(source.answers)
    facts: list[tuple[Fact, bool]] = []
    for answer in source.answers:
        for f in index.by_subject.get(answer, ()):
            if f.object not in taken and fits(schema, schema.domain(f.path[0]), source.answer_type):
                facts.append((f, True))
        for f in index.by_object.get(answer, ()):
            named = f.subject not in taken and index.names.get(f.subject)
            if named and fits(schema, schema.range(f.path[-1]), source.answer_type):
                facts.append((f, False))
    if not facts:
        return "no typed fact about an answer"
    fact, forward = rng.choice(sorted(facts, key=lambda p: (p[0].path, p[0].subject, p[0].object, p[1])))
    other = fact.object if forward else fact.subject
    name = fact.name if forward else index.names[other]
    cvt = source.fresh("c")
    pattern = (
        path_text(ANSWER_VAR, fact.path, f"ns:{other}", cvt)
        if forward
        else path_text(f"ns:{other}", fact.path, ANSWER_VAR, cvt)
    )
    entities = dict(source.entities) | {other: name}
    detail = {"path": list(fact.path), "entity": other, "name": name, "forward": forward, "fact_from": fact.source}
    detail["pattern"] = pattern
    return Extension("conjunction", source.id, _insert(source.sparql, pattern), entities, (source.topic, other), detail)


def numeric_paths(schema: FreebaseSchema) -> dict[str, list[tuple[str, ...]]]:
    """Date and number relations by the type they start from: one relation, or into a CVT and out."""
    by_type: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    out_of_cvt: dict[str, list[str]] = defaultdict(list)
    for relation, role in schema.predicates():
        if relation.split(".", 1)[0] in SKIPPED_DOMAINS or role.range not in NUMERIC_RANGES:
            continue
        if schema.is_cvt_type(role.domain):
            out_of_cvt[role.domain].append(relation)
        elif schema.is_cvt_type(role.domain) is False:
            by_type[role.domain].append((relation,))
    for relation, role in schema.predicates():
        if relation.split(".", 1)[0] in SKIPPED_DOMAINS or schema.is_cvt_type(role.domain) is not False:
            continue
        for second in out_of_cvt.get(role.range, ()) if schema.is_cvt_type(role.range) else ():
            by_type[role.domain].append((relation, second))
    return dict(by_type)


def _value(path: tuple[str, ...], kind: str, index: FactIndex, rng: random.Random) -> tuple[str, str] | None:
    """(value, where it came from): a value the relation takes in the gold answers, else a round year."""
    pattern = _DATE if kind == "date" else _INTEGER
    seen = sorted({v for v in index.values.get(path, ()) if pattern.fullmatch(v)})
    if seen:
        return rng.choice(seen), "gold answers"
    return (rng.choice(ROUND_YEARS), "round year") if kind == "date" else None


def _numeric(
    source: Source, index: FactIndex, schema: FreebaseSchema, paths: Mapping[str, list[tuple[str, ...]]]
) -> list[tuple[tuple[str, ...], str]]:
    types = [source.answer_type, *sorted(schema.parents(source.answer_type))]
    found = [(p, NUMERIC_RANGES[schema.range(p[-1]) or ""]) for t in types for p in paths.get(t, ())]
    observed = [(p, k) for p, k in found if index.values.get(p)]
    return sorted(observed or [(p, k) for p, k in found if k == "date"])


def comparative(
    source: Source, index: FactIndex, schema: FreebaseSchema, rng: random.Random, paths: Mapping[str, Any]
) -> Extension | str:
    """A date or number relation of the answer with a ``FILTER`` (before / after, less / greater)."""
    return _ranked(source, index, schema, rng, paths, superlative=False)


def superlative(
    source: Source, index: FactIndex, schema: FreebaseSchema, rng: random.Random, paths: Mapping[str, Any]
) -> Extension | str:
    """The same relation with ``ORDER BY [DESC](?num) LIMIT 1`` (CWQ's form)."""
    return _ranked(source, index, schema, rng, paths, superlative=True)


def _ranked(
    source: Source,
    index: FactIndex,
    schema: FreebaseSchema,
    rng: random.Random,
    paths: Mapping[str, Any],
    superlative: bool,
) -> Extension | str:
    if re.search(r"FILTER \(\?\w+ [<>]", source.sparql) or "xsd:datetime(" in source.sparql.lower():
        return "already compares or has a time window"
    candidates = _numeric(source, index, schema, paths)
    if not candidates:
        return "no date or number relation of the answer's type"
    path, kind = rng.choice(candidates)
    num, cvt = source.fresh("num"), source.fresh("c")
    pattern = path_text(ANSWER_VAR, path, num, cvt)
    key = num if kind == "date" else f"xsd:integer({num})"
    high = rng.random() < 0.5
    detail: dict[str, Any] = {"path": list(path), "kind": kind, "descending" if superlative else "greater": high}
    if superlative:
        order = f"DESC({key})" if high else (num if kind == "date" else key)
        sparql = f"{_insert(source.sparql, pattern).rstrip()}\nORDER BY {order} LIMIT 1\n"
        return Extension("superlative", source.id, sparql, dict(source.entities), (source.topic,), detail)
    picked = _value(path, kind, index, rng)
    if picked is None:
        return "no value to compare with"
    value, detail["value_from"] = picked
    literal = f'"{value}"^^xsd:dateTime' if kind == "date" else value
    condition = f"FILTER ({key} {'>' if high else '<'} {literal}) ."
    detail["value"] = value
    sparql = _insert(source.sparql, f"{pattern}\n{condition}")
    return Extension("comparative", source.id, sparql, dict(source.entities), (source.topic,), detail)
