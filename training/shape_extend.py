"""QALD's question shapes made from WebQSP train queries: yes/no, text match, aggregate, top k.

Why: question sets on graphs other than Freebase (QALD and the like, and the records
graph of the tests) are full of yes/no questions, averages and maxima, "has 'night' in its
name" and "the two latest", while WebQSP and CWQ have almost none, so a planner trained on
them never writes a yes/no plan or a ``Compute`` step. Each shape here is a WebQSP train
query (outside the dev split) rewritten in SPARQL, so that its plan comes from the
gold-plan synthesiser and must rebuild through the bank like every complex pair:

* ``yes-no``: ``ASK`` with ``ns:A`` in place of the answer variable, ``A`` one of the gold
  answers (true) or, half the time, an answer of another question through the same
  relation (false); questions answered by a date ask whether it is before a year instead
  (``FILTER (?x < "1962"^^xsd:dateTime)``, a year after or up to 15 years before it);
* ``contains``: ``FILTER (CONTAINS(LCASE(STR(?x)), "word"))``, the word taken from one
  answer's name and not from all of them (so the match keeps fewer answers than before);
* ``aggregate``: a superlative extension's value relation with ``AVG`` / ``SUM`` / ``MIN``
  / ``MAX`` of it in place of ``ORDER BY ... LIMIT 1`` (dates only ``MIN`` / ``MAX``);
* ``top-k``: the superlative extension with ``LIMIT 2`` to ``LIMIT 5``;
* ``more``: ``ASK`` whether the topic has more (or fewer) answers than the topic of another
  question through the same relations: two ``COUNT`` subqueries, the second with the other
  topic and its own variables, and ``FILTER (?n1 > ?n2)``; true or false by the two
  questions' gold answer counts, which must differ;
* ``nested``: a composition (the topic replaced by the answers of another train question
  that it answers: *where was john lennon born?* and *who are the members of the beatles?*
  -> *where was the members of the beatles born?*), worded with that question's answers
  as a noun phrase instead of the memory's description of the fact.

The questions are written by :mod:`.shape_verbalise` from the source question's words.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from nl2sparql.training.complex_extend import Extension, _insert
from nl2sparql.training.complex_source import ANSWER_VAR, Source

SHAPES = ("yes-no", "contains", "aggregate", "top-k", "more", "nested")
FUNCTIONS = {"number": ("AVG", "SUM", "MIN", "MAX"), "date": ("MIN", "MAX")}
_ORDER_LINE = re.compile(r"\nORDER BY (?P<order>DESC\((?P<desc>[^)]*\)?)\)|\S+(?:\([^)]*\))?) LIMIT 1\n?$")
_YEAR = re.compile(r"(?P<year>\d{4})(-\d{2}(-\d{2})?)?(T.*)?")
_ANSWER_FILTER = re.compile(r"FILTER \((?:\?x != ns:[\w.]+|!isLiteral\(\?x\)[^\n]*)\)\n")
_WORD = re.compile(r"[a-z]{4,}")
_VARIABLE = re.compile(r"\?(\w+)")
_COMMON = frozenset({"the", "and", "with", "from", "united", "states", "city", "county", "university", "school"})


def answers_by_relation(records: Iterable[Mapping[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Named entity answers of the train records by the last relation of their chain (false answers)."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for record in records:
        chain = (record.get("Parses") or [{}])[0].get("InferentialChain")
        if chain:
            found[chain[-1]].update(answer_names(record))
    return {k: sorted(v.items()) for k, v in found.items()}


def answer_names(record: Mapping[str, Any]) -> dict[str, str]:
    """The named entity answers of a WebQSP record."""
    answers = (record.get("Parses") or [{}])[0].get("Answers") or ()
    return {
        a["AnswerArgument"]: a["EntityName"] for a in answers if a.get("AnswerType") == "Entity" and a.get("EntityName")
    }


def answer_years(record: Mapping[str, Any]) -> list[int]:
    """The years of a WebQSP record's date answers (``1961-08-04`` -> 1961)."""
    answers = (record.get("Parses") or [{}])[0].get("Answers") or ()
    found = (_YEAR.fullmatch(str(a.get("AnswerArgument"))) for a in answers if a.get("AnswerType") == "Value")
    return [int(m["year"]) for m in found if m]


def answer_count(record: Mapping[str, Any]) -> int:
    """How many gold answers a WebQSP record's reference parse has (entities and values)."""
    return len((record.get("Parses") or [{}])[0].get("Answers") or ())


def _without_answer_filters(sparql: str) -> str:
    """The query without WebQSP's filters on the answer (not the topic, English literals):
    they speak of a set of answers, which an aggregate or a yes/no question does not return."""
    return _ANSWER_FILTER.sub("", sparql)


def _ask(source: Source, condition: str = "", answer: str | None = None) -> str:
    """The source query as ``ASK`` with ``condition`` added, or with ``answer`` in place of ``?x``."""
    head, _, body = _without_answer_filters(source.sparql).partition(f"SELECT DISTINCT {ANSWER_VAR}\n")
    if answer is not None:
        body = re.sub(rf"{re.escape(ANSWER_VAR)}\b", answer, body)
    return _insert(f"{head}ASK\n{body}", condition) if condition else f"{head}ASK\n{body}"


def yes_no(
    source: Source,
    names: Mapping[str, str],
    years: list[int],
    pool: Mapping[str, list[tuple[str, str]]],
    rng: random.Random,
) -> Extension | str:
    """``ASK`` whether the answer is a named entity (true or false), or whether a date is before a year."""
    truth = rng.random() < 0.5
    if years:
        year = years[0] + (rng.randint(1, 15) if truth else -rng.randint(0, 15))
        sparql = _ask(source, f'FILTER ({ANSWER_VAR} < "{year}"^^xsd:dateTime)')
        detail = {"shape": "yes-no", "kind": "date", "year": year, "answer": truth}
        return Extension("yes-no", source.id, sparql, dict(source.entities), (source.topic,), detail)
    if not names:
        return "no named answer"
    if truth:
        entity, name = rng.choice(sorted(names.items()))
    else:
        others = [(e, n) for e, n in pool.get(source.chain[-1], ()) if e not in names and n not in names.values()]
        if not others:
            return "no false answer through the same relation"
        entity, name = rng.choice(others)
    if entity in source.entities:
        return "the answer is an entity of the question"
    sparql = _ask(source, answer=f"ns:{entity}")
    detail = {"shape": "yes-no", "kind": "entity", "name": name, "answer": truth}
    return Extension("yes-no", source.id, sparql, {**source.entities, entity: name}, (source.topic,), detail)


def match_word(names: Iterable[str], rng: random.Random) -> str | None:
    """A word of one name that not every name holds (lower case, 4 letters or more).

    >>> sorted({match_word(["A Night at the Opera", "Jazz", "The Game"], random.Random(i)) for i in range(30)})
    ['game', 'jazz', 'night', 'opera']
    >>> match_word(["Queen", "Queen II"], random.Random(0)) is None
    True
    """
    names = [n.lower() for n in names]
    words = sorted({w for n in names for w in _WORD.findall(n) if w not in _COMMON and not all(w in m for m in names)})
    return rng.choice(words) if words else None


def contains(source: Source, names: Mapping[str, str], rng: random.Random) -> Extension | str:
    """The answers whose name holds a word of one of them."""
    if len(names) < 2:
        return "fewer than two named answers"
    word = match_word(names.values(), rng)
    if word is None:
        return "no word that only some answers hold"
    sparql = _insert(source.sparql, f'FILTER (CONTAINS(LCASE(STR({ANSWER_VAR})), "{word}"))')
    return Extension(
        "contains", source.id, sparql, dict(source.entities), (source.topic,), {"shape": "contains", "word": word}
    )


def from_superlative(extension: Extension, shape: str, rng: random.Random) -> Extension | str:
    """A superlative extension (``ORDER BY ... LIMIT 1``) as ``top-k`` or ``aggregate``."""
    found = _ORDER_LINE.search(extension.sparql)
    if found is None:
        return "no ORDER BY ... LIMIT 1 to rewrite"
    body = extension.sparql[: found.start()] + "\n"
    detail = {**extension.detail, "shape": shape}
    if shape == "top-k":
        detail["k"] = k = rng.choice((2, 2, 3, 3, 5))
        sparql = f"{body}ORDER BY {found['order']} LIMIT {k}\n"
        return replace(extension, category=shape, sparql=sparql, detail=detail)
    key = found["desc"] or found["order"]
    detail["function"] = function = rng.choice(FUNCTIONS[extension.detail["kind"]])
    head, _, rest = body.partition(f"SELECT DISTINCT {ANSWER_VAR}\n")
    rest = _without_answer_filters(rest)
    sparql = f"{head}SELECT ({function}({key}) AS ?n)\n{rest}"
    return replace(extension, category=shape, sparql=sparql, detail=detail)


def topics_by_chain(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, ...], list[tuple[str, str, int]]]:
    """``(topic, name, answer count)`` of the one-topic train records by their inferential chain."""
    found: dict[tuple[str, ...], dict[str, tuple[str, str, int]]] = defaultdict(dict)
    for record in records:
        parse = (record.get("Parses") or [{}])[0]
        chain, topic = parse.get("InferentialChain"), parse.get("TopicEntityMid")
        if chain and topic and not parse.get("Constraints") and answer_count(record):
            found[tuple(chain)][topic] = (topic, str(parse.get("TopicEntityName") or ""), answer_count(record))
    return {chain: sorted(v.values()) for chain, v in found.items()}


def more(source: Source, count: int, others: Iterable[tuple[str, str, int]], rng: random.Random) -> Extension | str:
    """``ASK`` whether the topic has more answers than another topic through the same chain
    (``comparison`` ``>`` or ``<`` in the detail; ``answer`` by the gold counts)."""
    choices = [o for o in others if o[0] != source.topic and o[1] and o[2] != count and o[0] not in source.entities]
    if not choices or len(source.entities) != 1:
        return "no other topic through the same relations with another answer count"
    other, name, other_count = rng.choice(choices)
    head, _, body = _without_answer_filters(source.sparql).partition(f"SELECT DISTINCT {ANSWER_VAR}\n")
    body = body.strip().removeprefix("WHERE").strip()
    second = _VARIABLE.sub(lambda m: f"?{m[1]}_b", body).replace(f"ns:{source.topic}", f"ns:{other}")
    comparison = rng.choice((">", "<"))
    sparql = (
        f"{head}ASK\nWHERE {{\n{{ SELECT (COUNT(DISTINCT {ANSWER_VAR}) AS ?n1)\nWHERE {body} }}\n"
        f"{{ SELECT (COUNT(DISTINCT {ANSWER_VAR}_b) AS ?n2)\nWHERE {second} }}\nFILTER (?n1 {comparison} ?n2)\n}}\n"
    )
    truth = count > other_count if comparison == ">" else count < other_count
    detail = {"shape": "more", "comparison": comparison, "other": name, "answer": truth}
    entities = {**source.entities, other: name}
    return Extension("more", source.id, sparql, entities, (source.topic, other), detail)
