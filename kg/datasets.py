"""KBQA datasets (WebQSP, CWQ, GrailQA, QALD) read into one record type, :class:`Example`.

Training, memory-bank building and evaluation all want the same five things of a
question: its text, its linked entities, its gold SPARQL, its gold answers and a coarse
category. Each dataset spells them differently; this module is the one place that knows
how. Gold SPARQL is kept exactly as written (WebQSP and CWQ queries are Virtuoso dialect).

- WebQSP: ``Parses[0]`` is the reference; all parses stay in ``extra["parses"]``. The
  category comes from the parse's shape: ``count``, ``order`` (ORDER BY), ``time``
  (a time constraint), ``constraint`` (other constraints) or ``None`` (a plain chain).
  Entities are the topic entity and the entities the constraints name.
- CWQ: category is ``compositionality_type``; entities are ``topic_entity``.
- GrailQA: category is the ``function`` (``count``, ``argmax``, ``<=``...; ``None`` for
  ``none``); ``level`` and the S-expression are in ``extra``.
- QALD (JSON): question text in one language (English by default) from a list of
  ``{language, string}`` or a mapping; category is ``answertype``; answers are the values
  of SPARQL JSON results, with yes/no answers (top level or nested in a binding) as
  ``"true"`` / ``"false"`` and numbers as their text. QALD has no entity annotation, so
  ``entities`` is empty.

A record that cannot be read rejects the file with an error naming the record (its index
and id), as every reader here does: a dataset is a gold standard, not a best effort.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nl2sparql.errors import Nl2SparqlError

FORMATS = ("webqsp", "cwq", "grailqa", "qald")


class DatasetError(Nl2SparqlError):
    """A dataset file is missing, is not JSON, or is not in the expected format."""


@dataclass(frozen=True, slots=True)
class WebQspParse:
    """One annotated parse of a WebQSP question."""

    id: str
    sparql: str
    topic_entity: tuple[str, str] | None
    inferential_chain: tuple[str, ...]
    answers: tuple[str, ...]
    category: str | None


@dataclass(frozen=True, slots=True)
class Example:
    """One question with its gold query and answers, whatever dataset it came from."""

    id: str
    question: str
    entities: Mapping[str, str] = field(hash=False)
    gold_sparql: str | None
    answers: tuple[str, ...]
    category: str | None
    dataset: str
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)


def load_dataset(path: str | Path, format: str | None = None) -> list[Example]:
    """Read a dataset file; ``format`` (``webqsp``, ``cwq``, ``grailqa``, ``qald``) is guessed when absent."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    if not path.is_file():
        raise DatasetError(f"{path}: not a file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from exc
    detected = detect_format(data)
    if format is None:
        if detected is None:
            raise DatasetError(
                f"{path}: not a known dataset format (expected one of {', '.join(FORMATS)}); "
                "give the format explicitly if it is one of them"
            )
        format = detected
    format = format.lower()
    if format not in _READERS:
        raise DatasetError(f"unknown dataset format {format!r}; use one of {', '.join(FORMATS)}")
    if detected != format:
        found = f"it looks like {detected}" if detected else "its structure does not match"
        raise DatasetError(f"{path}: not a {format} file ({found})")
    try:
        return _READERS[format](data)
    except _RecordError as exc:
        raise DatasetError(f"{path}: {exc}") from exc
    except (KeyError, TypeError, AttributeError) as exc:
        raise DatasetError(f"{path}: malformed {format} record: {type(exc).__name__}: {exc}") from exc


def detect_format(data: Any) -> str | None:
    """The dataset format of parsed JSON, from its shape."""
    if isinstance(data, dict):
        questions = data.get("Questions")
        if isinstance(questions, list) and (not questions or "Parses" in questions[0]):
            return "webqsp"
        if isinstance(data.get("questions"), list):
            return "qald"
        return None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        first = data[0]
        if "compositionality_type" in first:
            return "cwq"
        if "sparql_query" in first or "s_expression" in first:
            return "grailqa"
    return None


class _RecordError(Exception):
    pass


def _get(record: Mapping[str, Any], key: str, index: int) -> Any:
    try:
        return record[key]
    except (KeyError, TypeError):
        ident = record.get("QuestionId") or record.get("ID") or record.get("qid") or record.get("id")
        raise _RecordError(f"record {index} ({ident}): missing key {key!r}") from None


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


# -- WebQSP --------------------------------------------------------------------------------


def webqsp_category(parse: Mapping[str, Any]) -> str | None:
    """``count``, ``order``, ``time``, ``constraint`` or ``None``, from a parse's shape."""
    sparql = (parse.get("Sparql") or "").upper()
    if "COUNT(" in sparql.replace(" ", ""):
        return "count"
    if parse.get("Order"):
        return "order"
    if parse.get("Time"):
        return "time"
    if parse.get("Constraints"):
        return "constraint"
    return None


def _webqsp_parse(parse: Mapping[str, Any], index: int) -> WebQspParse:
    mid = parse.get("TopicEntityMid")
    return WebQspParse(
        id=str(_get(parse, "ParseId", index)),
        sparql=_get(parse, "Sparql", index),
        topic_entity=(mid, parse.get("TopicEntityName") or "") if mid else None,
        inferential_chain=tuple(parse.get("InferentialChain") or ()),
        answers=tuple(str(a["AnswerArgument"]) for a in _get(parse, "Answers", index)),
        category=webqsp_category(parse),
    )


def _read_webqsp(data: Mapping[str, Any]) -> list[Example]:
    examples = []
    for index, record in enumerate(data["Questions"]):
        raw_parses = _get(record, "Parses", index)
        if not raw_parses:
            raise _RecordError(f"record {index} ({record.get('QuestionId')}): no parses")
        parses = tuple(_webqsp_parse(p, index) for p in raw_parses)
        first, reference = raw_parses[0], parses[0]
        entities: dict[str, str] = {}
        if reference.topic_entity:
            entities[reference.topic_entity[0]] = reference.topic_entity[1]
        for constraint in first.get("Constraints") or ():
            if constraint.get("ArgumentType") == "Entity":
                entities.setdefault(constraint["Argument"], constraint.get("EntityName") or "")
        examples.append(
            Example(
                id=str(_get(record, "QuestionId", index)),
                question=_get(record, "RawQuestion", index),
                entities=_frozen(entities),
                gold_sparql=reference.sparql,
                answers=reference.answers,
                category=reference.category,
                dataset="webqsp",
                extra=_frozen(
                    {
                        "parses": parses,
                        "inferential_chain": reference.inferential_chain,
                        "processed_question": record.get("ProcessedQuestion"),
                    }
                ),
            )
        )
    return examples


# -- CWQ -----------------------------------------------------------------------------------


def _read_cwq(data: list[Mapping[str, Any]]) -> list[Example]:
    examples = []
    for index, record in enumerate(data):
        examples.append(
            Example(
                id=str(_get(record, "ID", index)),
                question=_get(record, "question", index),
                entities=_frozen(record.get("topic_entity") or {}),
                gold_sparql=record.get("sparql"),
                answers=tuple(str(a["answer_id"]) for a in _get(record, "answers", index)),
                category=record.get("compositionality_type"),
                dataset="cwq",
                extra=_frozen(
                    {
                        "webqsp_id": record.get("webqsp_ID"),
                        "webqsp_question": record.get("webqsp_question"),
                        "machine_question": record.get("machine_question"),
                    }
                ),
            )
        )
    return examples


# -- GrailQA -------------------------------------------------------------------------------


def _read_grailqa(data: list[Mapping[str, Any]]) -> list[Example]:
    examples = []
    for index, record in enumerate(data):
        function = record.get("function")
        examples.append(
            Example(
                id=str(_get(record, "qid", index)),
                question=_get(record, "question", index),
                entities=_frozen(record.get("topic_entity") or {}),
                gold_sparql=record.get("sparql_query"),
                answers=tuple(str(a["answer_argument"]) for a in _get(record, "answer", index)),
                category=None if function in (None, "none") else function,
                dataset="grailqa",
                extra=_frozen(
                    {
                        "level": record.get("level"),
                        "s_expression": record.get("s_expression"),
                        "domains": tuple(record.get("domains") or ()),
                        "num_edge": record.get("num_edge"),
                    }
                ),
            )
        )
    return examples


# -- QALD ----------------------------------------------------------------------------------


def _qald_id(record: Mapping[str, Any], index: int) -> str:
    return f"record {index} ({record.get('id')})"


def _qald_text(record: Mapping[str, Any], language: str, index: int) -> str:
    """The question in ``language``: a string, a list of ``{language, string}`` (QALD-7/9) or a
    ``{language: string}`` mapping; ``en`` also takes ``en-US`` and the like."""
    texts = _get(record, "question", index)
    if isinstance(texts, str):
        return texts
    if isinstance(texts, Mapping):
        texts = [{"language": k, "string": v} for k, v in texts.items()]
    if not isinstance(texts, list):
        raise _RecordError(f"{_qald_id(record, index)}: 'question' is a {type(texts).__name__}")
    entries = [e for e in texts if isinstance(e, Mapping) and isinstance(e.get("string"), str) and e["string"]]
    for exact in (True, False):
        for entry in entries:
            tag = str(entry.get("language") or "").lower()
            if tag == language or (not exact and tag.split("-")[0] == language):
                return entry["string"]
    raise _RecordError(f"{_qald_id(record, index)}: no question in language {language!r}")


def _qald_value(term: Any, where: str) -> str:
    """One answer value: an RDF term (``{"type", "value"}``), a yes/no nested as a term
    (``{"boolean": true}``) or given bare, a number or a string."""
    if isinstance(term, Mapping):
        if "value" in term:
            return _qald_value(term["value"], where)
        if "boolean" in term:
            return _qald_value(term["boolean"], where)
        raise _RecordError(f"{where}: an answer term without 'value' or 'boolean': {json.dumps(term)[:80]}")
    if isinstance(term, bool):
        return "true" if term else "false"
    if isinstance(term, int | float | str):
        return str(term)
    raise _RecordError(f"{where}: an answer value of type {type(term).__name__}")


def _qald_answers(record: Mapping[str, Any], index: int) -> tuple[str, ...]:
    """Every answer value: SPARQL JSON results (bindings or ``boolean``), one answer object
    instead of a list, or bare values."""
    where = _qald_id(record, index)
    answers = record.get("answers") or []
    if isinstance(answers, Mapping):
        answers = [answers]
    if not isinstance(answers, list):
        raise _RecordError(f"{where}: 'answers' is a {type(answers).__name__}")
    values: list[str] = []
    for answer in answers:
        if not isinstance(answer, Mapping):
            values.append(_qald_value(answer, where))
            continue
        if "boolean" in answer:
            values.append(_qald_value(answer["boolean"], where))
        results = answer.get("results")
        bindings = results.get("bindings", []) if isinstance(results, Mapping) else []
        for binding in bindings:
            if not isinstance(binding, Mapping):
                raise _RecordError(f"{where}: a binding is a {type(binding).__name__}, not an object")
            values.extend(_qald_value(term, where) for term in binding.values())
    return tuple(values)


def _qald_sparql(record: Mapping[str, Any]) -> str | None:
    """``{"query": {"sparql": ...}}`` (QALD-7/9) or ``{"query": "..."}``; ``None`` when absent."""
    query = record.get("query")
    if isinstance(query, Mapping):
        query = query.get("sparql")
    return query if isinstance(query, str) and query.strip() else None


def _read_qald(data: Mapping[str, Any], language: str = "en") -> list[Example]:
    examples = []
    for index, record in enumerate(data["questions"]):
        if not isinstance(record, Mapping):
            raise _RecordError(f"record {index}: a {type(record).__name__}, not an object")
        examples.append(
            Example(
                id=str(_get(record, "id", index)),
                question=_qald_text(record, language, index),
                entities=_frozen({}),
                gold_sparql=_qald_sparql(record),
                answers=_qald_answers(record, index),
                category=record.get("answertype"),
                dataset="qald",
                extra=_frozen(
                    {
                        "aggregation": record.get("aggregation"),
                        "onlydbo": record.get("onlydbo"),
                        "hybrid": record.get("hybrid"),
                    }
                ),
            )
        )
    return examples


_READERS: dict[str, Callable[[Any], list[Example]]] = {
    "webqsp": _read_webqsp,
    "cwq": _read_cwq,
    "grailqa": _read_grailqa,
    "qald": _read_qald,
}
