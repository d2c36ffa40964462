"""Two constraint forms of CWQ's gold queries that the four extensions do not make.

* ``value``: the answer once had a value, ``?x location.statistical_region.child_labor_percent
  ?c . ?c measurement_unit.dated_percentage.rate "1.8" .`` (*what Portuguese-speaking country
  had a child labor percentage of 1.8?*): a date or number relation of the answer's type,
  direct or through a CVT, equal to a literal. CWQ writes numbers as plain literals and dates
  as ``xsd:dateTime``. The value is one the relation takes in the gold answers when there is
  one, else a number or date of the relation's kind made up for the question
  (``detail["value_from"]`` says which: nobody should mistake it for a fact);
* ``during``: the answer's fact overlaps an event (*who was the president during World War
  II?*): the source's chain passes through a CVT with a start and an end date, and the
  event's start and end are compared with them, as CWQ's ``FILTER (?from < ?end)``,
  ``FILTER (?to > ?start)``. The event is a real one from the WebQSP train facts.

Both start from a WebQSP train question (:mod:`.complex_source`) whose number is not that
of a CWQ dev question's seed (``N % 5 == 0``), so nothing made here mimics a dev question.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

from nl2sparql.kg.freebase_schema import FreebaseSchema
from nl2sparql.kg.splits import seeds_cwq_dev
from nl2sparql.training.complex_extend import Extension, _insert, path_text
from nl2sparql.training.complex_facts import FactIndex
from nl2sparql.training.complex_source import ANSWER_VAR, Source

CATEGORIES = ("value", "during")
#: the dated measurements of a statistical region (CWQ's usual value: a rate, a number, an amount)
STATISTICS = "measurement_unit."
EVENT_TYPE = "time.event"
EVENT_DATES = ("time.event.start_date", "time.event.end_date")
#: the last word of a CVT's relation that opens (closes) the time it holds
_STARTS = ("from", "start_date", "from_date", "start")
_ENDS = ("to", "end_date", "to_date", "end")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def made_up_value(kind: str, integer: bool, rng: random.Random) -> str:
    """A value of a relation's kind: a date, an integer or a decimal, of the sizes statistics take.

    >>> rng = random.Random(1)
    >>> bool(_DATE.fullmatch(made_up_value("date", False, rng)))
    True
    >>> "." in made_up_value("number", True, rng), "." in made_up_value("number", False, rng)
    (False, True)
    """
    if kind == "date":
        return f"{rng.randint(1900, 2015)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    magnitude = 10 ** rng.uniform(0, 11 if integer else 5)
    sign = "-" if rng.random() < 0.1 else ""
    if integer:
        return f"{sign}{max(1, round(magnitude))}"
    decimal = f"{magnitude:.{rng.choice((1, 2, 3))}f}".rstrip("0").rstrip(".")  # "3063.10" is read as 3063.1
    return f"{sign}{decimal}"


def _literal(value: str, kind: str) -> str:
    return f'"{value}"^^xsd:dateTime' if kind == "date" else f'"{value}"'


def value(
    source: Source,
    index: FactIndex,
    schema: FreebaseSchema,
    rng: random.Random,
    paths: Mapping[str, Sequence[tuple[str, ...]]],
) -> Extension | str:
    """The answer's date or number relation equal to a value (CWQ's *was once 1.8*)."""
    if seeds_cwq_dev(source.id):
        return "the seed of a CWQ dev question"
    types = [source.answer_type, *sorted(schema.parents(source.answer_type))]
    candidates = sorted({p for t in types for p in paths.get(t, ())})
    if not candidates:
        return "no date or number relation of the answer's type"
    statistics = [p for p in candidates if p[-1].startswith(STATISTICS)]
    path = rng.choice(statistics if statistics and rng.random() < 0.5 else candidates)
    range_ = schema.range(path[-1]) or ""
    kind = "date" if range_ == "type.datetime" else "number"
    pattern = _DATE if kind == "date" else _NUMBER
    observed = (v[:10] if kind == "date" else v for v in index.values.get(path, ()))  # a date without its time
    seen = sorted({v for v in observed if pattern.fullmatch(v)})
    if seen:
        literal, value_from = rng.choice(seen), "gold answers"
    else:
        literal, value_from = made_up_value(kind, range_ == "type.int", rng), "made up"
    statement = path_text(ANSWER_VAR, path, _literal(literal, kind), source.fresh("c"))
    detail = {"path": list(path), "kind": kind, "value": literal, "value_from": value_from, "pattern": statement}
    sparql = _insert(source.sparql, statement)
    return Extension("value", source.id, sparql, dict(source.entities), (source.topic,), detail)


def time_spans(schema: FreebaseSchema) -> dict[str, tuple[str, str]]:
    """The relations that hold the start and the end date of each type that has both (a CVT's
    span, looked up by the type a chain leads into); made once, as
    :func:`~.complex_extend.numeric_paths` are."""
    dates: dict[str, dict[str, str]] = {}
    for relation, role in schema.predicates():
        if role.range == "type.datetime":
            dates.setdefault(role.domain, {})[relation.rsplit(".", 1)[1]] = relation
    spans = {}
    for cvt, named in dates.items():
        start = next((named[w] for w in _STARTS if w in named), None)
        end = next((named[w] for w in _ENDS if w in named), None)
        if start and end:
            spans[cvt] = (start, end)
    return spans


def events(index: FactIndex, schema: FreebaseSchema) -> list[tuple[str, str]]:
    """Named events of the train facts, as (id, name): the ends of relations typed ``time.event``."""

    def is_event(type_id: str | None) -> bool:
        return bool(type_id) and (type_id == EVENT_TYPE or EVENT_TYPE in schema.parents(type_id))

    found: dict[str, str] = {}
    for subject, facts in index.by_subject.items():
        if index.names.get(subject) and any(is_event(schema.domain(f.path[0])) for f in facts):
            found[subject] = index.names[subject]
    for obj, facts in index.by_object.items():
        for fact in facts:
            if fact.name and is_event(schema.range(fact.path[-1])):
                found[obj] = fact.name
    return sorted(found.items())


def during(
    source: Source,
    schema: FreebaseSchema,
    rng: random.Random,
    known_events: Sequence[tuple[str, str]],
    spans: Mapping[str, tuple[str, str]],
) -> Extension | str:
    """The source's CVT fact held while an event went on (its span overlaps the event's)."""
    if seeds_cwq_dev(source.id):
        return "the seed of a CWQ dev question"
    if len(source.chain) != 2 or not schema.leads_into_cvt(source.chain[0]):
        return "the chain passes through no CVT"
    if "xsd:datetime" in source.sparql.lower():
        return "already has a time constraint"
    span = spans.get(schema.range(source.chain[0]) or "")
    found = re.search(rf"ns:{re.escape(source.chain[0])} (\?\w+) \.", source.sparql)
    if span is None or found is None:
        return "the CVT has no start and end date"
    choices = [e for e in known_events if e[0] not in source.entities]
    if not choices:
        return "no event"
    event, name = rng.choice(choices)
    taken = ""
    names = []
    for base in ("start", "end", "from", "to"):
        names.append(source.fresh(base, taken))
        taken += f" {names[-1]}"
    start, end, opened, closed = names
    node = found.group(1)
    lines = [
        f"ns:{event} ns:{EVENT_DATES[0]} {start} .",
        f"ns:{event} ns:{EVENT_DATES[1]} {end} .",
        f"{node} ns:{span[0]} {opened} .",
        f"{node} ns:{span[1]} {closed} .",
        f"FILTER ({opened} < {end})",
        f"FILTER ({closed} > {start})",
    ]
    entities = dict(source.entities) | {event: name}
    detail = {"event": event, "name": name, "span": list(span), "pattern": "\n".join(lines)}
    sparql = _insert(source.sparql, "\n".join(lines))
    return Extension("during", source.id, sparql, entities, (source.topic, event), detail)
