"""Result records <-> protobuf messages, both ways.

The servicer sends :class:`~nl2sparql.results.AskResult` as messages and the client turns
them back into the same records, so a remote answer is the very value an in-process
``Pipeline.ask`` returns. ``TranslateResponse`` and ``AskResponse`` share field names and
numbers; one filler serves both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nl2sparql.results import STAGES, Answer, AskResult, Attempt, Candidate, Recalled, StageEvent
from nl2sparql.server.generated import pb

_STAGE_TO_ENUM = {stage: pb.Stage.Value(f"STAGE_{stage.upper()}") for stage in STAGES}
_ENUM_TO_STAGE = {value: stage for stage, value in _STAGE_TO_ENUM.items()}


# -- records -> messages -------------------------------------------------------------------


def ask_response(result: AskResult) -> Any:
    message = pb.AskResponse()
    _fill(message, result)
    for answer in result.answers:
        item = message.answers.add(id=answer.id)
        if answer.name is not None:
            item.name = answer.name
    return message


def translate_response(result: AskResult) -> Any:
    message = pb.TranslateResponse()
    _fill(message, result)
    return message


def stream_response(event: StageEvent) -> Any:
    return pb.AskStreamResponse(
        stage=_STAGE_TO_ENUM[event.stage], elapsed_ms=event.elapsed_ms, result=ask_response(event.result)
    )


def _fill(message: Any, result: AskResult) -> None:
    message.question = result.question
    message.entities.update({k: v or "" for k, v in result.entities.items()})
    if result.type is not None:
        message.type = result.type
    message.plan.extend(result.plan)
    if result.sparql is not None:
        message.sparql = result.sparql
    if result.error is not None:
        message.error = result.error
    trace = message.trace
    for recalled in result.recalled:
        step = trace.recalled.add(step=recalled.step)
        for c in recalled.candidates:
            step.candidates.add(statement_id=c.statement_id, description=c.description, sparql=c.sparql, score=c.score)
    for attempt in result.attempts:
        item = trace.attempts.add(sparql=attempt.sparql)
        if attempt.error is not None:
            item.error = attempt.error
        if attempt.answers is not None:
            item.answers = attempt.answers
        if attempt.plan_type is not None:
            item.plan_type = attempt.plan_type
    trace.timings_ms.update({k: float(v) for k, v in result.timings_ms.items()})


def describe_response(description: Mapping[str, Any], server: Mapping[str, Any]) -> Any:
    """The typed summary of ``Pipeline.describe()`` plus the whole of it as ``details``.

    Keys read (``Pipeline.describe``'s): ``store`` (``kind``, ``location``, ``triples``,
    ``predicates`` as a count or a mapping), ``bank`` (``location``, ``counts`` holding
    ``structure`` and ``constraint`` counts, ``embedder``), ``planner`` (a mapping with
    ``spec``, or a string). Missing keys stay empty; everything is in ``details`` anyway.
    """
    message = pb.DescribeResponse(server=pb.ServerInfo(**server))
    kg = _mapping(description.get("store"))
    message.kg.store = str(kg.get("kind") or "")
    message.kg.location = str(kg.get("location") or "")
    message.kg.triples = _int(kg.get("triples"))
    predicates = kg.get("predicates")
    message.kg.predicates = len(predicates) if isinstance(predicates, Mapping) else _int(predicates)
    bank = _mapping(description.get("bank"))
    message.bank.path = str(bank.get("location") or "")
    counts = _mapping(bank.get("counts"))
    for structure, count in _mapping(counts.get("structure")).items():
        if str(structure).isdigit():
            message.bank.statements_by_structure[int(structure)] = _int(count)
    for kind, count in _mapping(counts.get("constraint")).items():
        message.bank.constraints_by_kind[str(kind)] = _int(count)
    message.bank.statements = sum(message.bank.statements_by_structure.values()) + sum(
        message.bank.constraints_by_kind.values()
    )
    message.bank.embedder = str(bank.get("embedder") or "")
    planner = description.get("planner")
    message.planner = str(_mapping(planner).get("spec", "") if isinstance(planner, Mapping) else planner or "")
    message.details.update(json.loads(json.dumps(dict(description), default=str)))
    return message


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# -- messages -> records -------------------------------------------------------------------


def ask_result(message: Any) -> AskResult:
    """The record of an ``AskResponse`` or ``TranslateResponse``."""
    trace = message.trace
    answers = getattr(message, "answers", ())
    return AskResult(
        question=message.question,
        entities=dict(message.entities),
        type=message.type if message.HasField("type") else None,
        plan=tuple(message.plan),
        recalled=tuple(
            Recalled(
                step=r.step,
                candidates=tuple(Candidate(c.statement_id, c.description, c.sparql, c.score) for c in r.candidates),
            )
            for r in trace.recalled
        ),
        sparql=message.sparql if message.HasField("sparql") else None,
        answers=tuple(Answer(a.id, a.name if a.HasField("name") else None) for a in answers),
        attempts=tuple(
            Attempt(
                sparql=a.sparql,
                error=a.error if a.HasField("error") else None,
                answers=a.answers if a.HasField("answers") else None,
                plan_type=a.plan_type if a.HasField("plan_type") else None,
            )
            for a in trace.attempts
        ),
        timings_ms=dict(trace.timings_ms),
        error=message.error if message.HasField("error") else None,
    )


def stage_event(message: Any) -> StageEvent:
    return StageEvent(_ENUM_TO_STAGE[message.stage], message.elapsed_ms, ask_result(message.result))


def description(message: Any) -> dict[str, Any]:
    """A ``DescribeResponse`` as a dict: the typed fields, and ``details`` as the pipeline gave them."""
    kg, bank, server = message.kg, message.bank, message.server
    return {
        "kg": {
            "store": kg.store,
            "location": kg.location,
            "triples": kg.triples,
            "predicates": kg.predicates,
        },
        "bank": {
            "path": bank.path,
            "statements_by_structure": dict(sorted(bank.statements_by_structure.items())),
            "constraints_by_kind": dict(sorted(bank.constraints_by_kind.items())),
            "statements": bank.statements,
            "embedder": bank.embedder,
        },
        "planner": message.planner,
        "server": {
            "version": server.version,
            "dialects": list(server.dialects),
            "max_concurrency": server.max_concurrency,
            "auth": server.auth,
            "tls": server.tls,
        },
        "details": _whole_numbers(_as_dict(message.details)),
    }


def _as_dict(message: Any) -> Any:
    from google.protobuf.json_format import MessageToDict  # 13 ms of every ask's start-up otherwise

    return MessageToDict(message)


def _whole_numbers(value: Any) -> Any:
    """JSON numbers come back from a ``Struct`` as floats; give whole ones back as ints."""
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value
