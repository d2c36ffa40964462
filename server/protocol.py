"""What the service needs from a pipeline, written down as a Protocol.

The server knows nothing of how answers are made (ARCHITECTURE.md): it drives any object
with these methods, so it runs over ``nl2sparql.pipeline.Pipeline`` and, in the tests,
over a small pipeline built on a graph the tests make, with the same servicer code.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from nl2sparql.results import AskResult, StageEvent


@runtime_checkable
class AnsweringPipeline(Protocol):
    """Questions in, results out; safe to call from several threads at once.

    ``entities`` maps entity ids to names; an empty name asks the pipeline to look the name
    up. ``dialect`` ``None`` (or left out) is the pipeline's configured default.
    ``deadline`` is an absolute :func:`time.monotonic` time: past it the pipeline stops and
    raises a :class:`TimeoutError` (``nl2sparql.errors.DeadlineExceeded`` is one) or
    :class:`nl2sparql.kg.errors.QueryTimeout`. Bad
    input (an unknown entity id, say) raises an :class:`~nl2sparql.errors.Nl2SparqlError`;
    a question that merely finds no answer is a result with ``error`` set.
    """

    def ask(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        deadline: float | None = None,
        execute: bool = True,
    ) -> AskResult: ...

    def ask_stream(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        deadline: float | None = None,
        execute: bool = True,
    ) -> Iterator[StageEvent]:
        """One event per finished stage; the last has stage ``"result"`` and the final result."""
        ...

    def translate(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        deadline: float | None = None,
    ) -> AskResult: ...

    def describe(self) -> Mapping[str, Any]:
        """The loaded KG, bank and planner (keys read by :mod:`nl2sparql.server.convert`)."""
        ...
