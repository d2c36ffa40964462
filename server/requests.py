"""Check a request before any work is done on it, and say exactly what is wrong with it.

A bad request costs the server nothing: it is refused with ``INVALID_ARGUMENT`` and a
message naming the field, before it takes a worker slot or reaches the pipeline.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from nl2sparql.errors import Nl2SparqlError

MAX_QUESTION_BYTES = 10 * 1024
MAX_ENTITIES = 64
MAX_ID_CHARS = 512
MAX_NAME_CHARS = 1024


class BadRequest(Nl2SparqlError):
    """A request field is missing, too long or out of range."""


@dataclass(frozen=True, slots=True)
class Question:
    """A checked request: what the pipeline is called with."""

    text: str
    entities: Mapping[str, str] | None
    dialect: str | None  # None: the pipeline's configured default
    limit: int | None


def read_question(request: Any, dialects: Collection[str]) -> Question:
    """The checked :class:`Question` of an Ask/Translate request, else :class:`BadRequest`."""
    return Question(
        text=_question(request.question),
        entities=_entities(request.entities, request.entity_ids),
        dialect=_dialect(request.dialect, dialects),
        limit=_limit(request.limit) if request.HasField("limit") else None,
    )


def _question(text: str) -> str:
    if not text:
        raise BadRequest("question is empty")
    if not text.strip():
        raise BadRequest("question is blank (only whitespace)")
    size = len(text.encode("utf-8"))
    if size > MAX_QUESTION_BYTES:
        raise BadRequest(f"question is {size} bytes long; the limit is {MAX_QUESTION_BYTES}")
    if "\x00" in text:
        raise BadRequest("question contains a NUL character")
    return text.strip()


def _entities(named: Mapping[str, str], ids: Collection[str]) -> dict[str, str] | None:
    entities: dict[str, str] = {}
    for position, entity in enumerate(ids):
        _check_id(entity, f"entity_ids[{position}]")
        entities[entity] = ""
    for entity, name in named.items():
        _check_id(entity, f"entities key {entity[:40]!r}")
        if len(name) > MAX_NAME_CHARS:
            raise BadRequest(f"entities[{entity!r}]: name is {len(name)} characters; the limit is {MAX_NAME_CHARS}")
        entities[entity] = name.strip()
    if len(entities) > MAX_ENTITIES:
        raise BadRequest(f"{len(entities)} entities given; the limit is {MAX_ENTITIES}")
    return entities or None


def _check_id(entity: str, where: str) -> None:
    if not entity.strip():
        raise BadRequest(f"{where}: entity id is empty")
    if len(entity) > MAX_ID_CHARS:
        raise BadRequest(f"{where}: entity id is {len(entity)} characters; the limit is {MAX_ID_CHARS}")
    if any(c.isspace() or c in '<>"{}|^`\\' for c in entity):
        raise BadRequest(f'{where}: entity id {entity!r} contains a space or one of <>"{{}}|^`\\')


def _dialect(dialect: str, dialects: Collection[str]) -> str | None:
    if not dialect:
        return None
    if dialect not in dialects:
        raise BadRequest(f"unknown dialect {dialect!r}; known: {', '.join(dialects)}")
    return dialect


def _limit(limit: int) -> int:
    if limit < 1:
        raise BadRequest(f"limit must be at least 1, got {limit}")
    return limit
