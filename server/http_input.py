"""Read an HTTP request into a checked question, bounded before any work starts.

The body is read up to :data:`MAX_BODY_BYTES` and no further; it must be a JSON object
whose fields have the right types; then the same checks as the gRPC service
(:func:`nl2sparql.server.requests.read_question`) and the pipeline's own
(:func:`nl2sparql.question.check_question`) run. Each failure names the field at fault.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from nl2sparql.errors import InvalidQuestion
from nl2sparql.question import check_question
from nl2sparql.server.face import MAX_DEADLINE, FaceError, bad_request
from nl2sparql.server.requests import BadRequest, Question, read_question

MAX_BODY_BYTES = 256 * 1024
MAX_LIMIT = 100_000
#: bodies read as JSON: curl -d sends a form type, and a JSON text is not a form anyway
JSON_LIKE = frozenset({"", "application/json", "text/plain", "application/x-www-form-urlencoded"})
ASK_FIELDS = frozenset({"question", "entities", "dataset", "limit", "dialect", "timeout"})


@dataclass(frozen=True, slots=True)
class AskInput:
    """A checked question, the dataset it is about, and the seconds the caller gives it."""

    question: Question
    dataset: str | None
    timeout: float | None


@dataclass(slots=True)
class _Fields:
    """The shape of the gRPC request that ``read_question`` reads."""

    question: str
    entities: dict[str, str] = field(default_factory=dict)
    entity_ids: list[str] = field(default_factory=list)
    dialect: str = ""
    limit: int | None = None

    def HasField(self, name: str) -> bool:  # noqa: N802 - the protobuf method's name
        return getattr(self, name) is not None


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, refused when too large, not JSON, or not an object."""
    kind = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if kind not in JSON_LIKE and not kind.endswith("+json"):
        raise FaceError(415, "unsupported_media_type", f"send the body as application/json, not {kind}")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise _too_large()
    if not body.strip():
        raise bad_request('the body is empty; send a JSON object such as {"question": "..."}')
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise bad_request(f"the body is not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise bad_request(f"the body is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        raise bad_request(f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise bad_request(f"the body must be a JSON object, got {_kind(value)}")
    return value


def ask_input(data: Mapping[str, Any], dialects: Collection[str]) -> AskInput:
    """A checked :class:`AskInput` from a JSON object or query parameters."""
    unknown = sorted(set(data) - ASK_FIELDS)
    if unknown:
        raise bad_request(f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(ASK_FIELDS))}")
    if "question" not in data:
        raise bad_request("question is missing")
    text = _string(data["question"], "question")
    try:
        check_question(text)
    except InvalidQuestion as exc:
        raise bad_request(f"question: {exc}") from None
    fields = _Fields(question=text, dialect=_string(data.get("dialect", ""), "dialect"))
    _entities(data.get("entities"), fields)
    if data.get("limit") is not None:
        fields.limit = _integer(data["limit"], "limit", 1, MAX_LIMIT)
    dataset = data.get("dataset")
    if dataset is not None:
        dataset = _string(dataset, "dataset") or None
    timeout = data.get("timeout")
    if timeout is not None:
        timeout = _seconds(timeout, "timeout")
    try:
        question = read_question(fields, dialects)
    except BadRequest as exc:
        raise bad_request(str(exc)) from None
    return AskInput(question, dataset, timeout)


def query_input(params: Mapping[str, str]) -> dict[str, Any]:
    """Query parameters as the JSON fields they stand for (numbers parsed, each named when bad)."""
    data: dict[str, Any] = dict(params)
    for name, parse in (("limit", int), ("timeout", float)):
        if name in data:
            try:
                data[name] = parse(data[name])
            except ValueError:
                raise bad_request(f"{name} must be a number, got {data[name][:40]!r}") from None
    return data


def _entities(value: Any, fields: _Fields) -> None:
    if value is None:
        return
    if isinstance(value, list):
        for position, entity in enumerate(value):
            fields.entity_ids.append(_string(entity, f"entities[{position}]"))
    elif isinstance(value, dict):
        for entity, name in value.items():
            _string(entity, "entities key")
            fields.entities[entity] = _string(name if name is not None else "", f"entities[{entity[:40]!r}]")
    else:
        raise bad_request(f"entities must be an object of id to name, or a list of ids; got {_kind(value)}")


def _string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise bad_request(f"{name} must be a string, got {_kind(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise bad_request(f"{name} is not valid UTF-8 text (a lone surrogate at character {exc.start + 1})") from None
    return value


def _integer(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_request(f"{name} must be a whole number, got {_kind(value)}")
    if not low <= value <= high:
        raise bad_request(f"{name} must be {low} to {high}, got {value}")
    return value


def _seconds(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise bad_request(f"{name} must be a number of seconds, got {_kind(value)}")
    if not (math.isfinite(value) and 0 < value <= MAX_DEADLINE):
        raise bad_request(f"{name} must be more than 0 and at most {MAX_DEADLINE:g} seconds, got {value}")
    return float(value)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _too_large() -> FaceError:
    return FaceError(413, "payload_too_large", f"the body is larger than {MAX_BODY_BYTES // 1024} KiB")
