"""The ``nl2sparql.v1.Nl2Sparql`` servicer: a thin layer that checks, bounds and relays.

Every question RPC runs the pipeline's stage stream, so the three of them share one loop
that, between stages, stops when the client has gone (a cancelled call frees its worker
at the next stage) or the deadline has passed. The client's deadline is handed to the
pipeline too, which stops inside a stage (a long query) on its own.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Collection, Iterator, Mapping
from typing import Any, NoReturn

import grpc

from nl2sparql.results import AskResult, StageEvent
from nl2sparql.server import convert
from nl2sparql.server.generated import pb_grpc
from nl2sparql.server.limiter import ConcurrencyLimiter
from nl2sparql.server.protocol import AnsweringPipeline
from nl2sparql.server.requests import BadRequest, Question, read_question
from nl2sparql.server.status import status_for

log = logging.getLogger(__name__)

#: ``time_remaining()`` of a call without a deadline is effectively infinite
_NO_DEADLINE = 10.0**8


class Nl2SparqlServicer(pb_grpc.Nl2SparqlServicer):
    """Serves one pipeline; at most ``limiter.limit`` questions are answered at once."""

    def __init__(
        self,
        pipeline: AnsweringPipeline,
        *,
        dialects: Collection[str],
        max_concurrency: int,
        server_info: Mapping[str, Any] | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.dialects = tuple(dialects)
        self.limiter = ConcurrencyLimiter(max_concurrency)
        self.server_info = dict(server_info or {})

    # -- RPCs ----------------------------------------------------------------------------
    def Translate(self, request: Any, context: grpc.ServicerContext) -> Any:
        return convert.translate_response(self._final(request, context, execute=False))

    def Ask(self, request: Any, context: grpc.ServicerContext) -> Any:
        return convert.ask_response(self._final(request, context, execute=True))

    def AskStream(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        for event in self._stages(request, context, execute=True):
            yield convert.stream_response(event)

    def Describe(self, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            description = self.pipeline.describe()
        except Exception as exc:
            _abort_for(exc, context, "Describe")
        return convert.describe_response(description, self.server_info)

    # -- the shared loop -------------------------------------------------------------------
    def _final(self, request: Any, context: grpc.ServicerContext, *, execute: bool) -> AskResult:
        tail = deque(self._stages(request, context, execute=execute), maxlen=1)
        last = tail[0] if tail else None
        if not context.is_active():
            context.abort(grpc.StatusCode.CANCELLED, "the call ended before the answer was ready")
        if last is None or last.stage != "result":
            log.error("the pipeline's stream ended without a result (last stage: %s)", last and last.stage)
            context.abort(grpc.StatusCode.INTERNAL, "the pipeline ended without a result")
        return last.result

    def _stages(self, request: Any, context: grpc.ServicerContext, *, execute: bool) -> Iterator[StageEvent]:
        question = self._read(request, context)
        if not self.limiter.try_acquire():
            context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"server busy: {self.limiter.limit} questions in flight, the most it serves at once; retry later",
            )
        try:
            yield from self._relay(question, context, execute=execute)
        finally:
            self.limiter.release()

    def _relay(self, question: Question, context: grpc.ServicerContext, *, execute: bool) -> Iterator[StageEvent]:
        deadline = _deadline(context)
        options: dict[str, Any] = {"limit": question.limit, "deadline": deadline, "execute": execute}
        if question.dialect is not None:
            options["dialect"] = question.dialect
        try:
            events = iter(self.pipeline.ask_stream(question.text, question.entities, **options))
        except Exception as exc:  # a pipeline that checks its input before it starts streaming
            _abort_for(exc, context, "the pipeline")
        try:
            while True:
                try:
                    event = next(events)
                except StopIteration:
                    return
                except Exception as exc:
                    _abort_for(exc, context, "the pipeline")
                if not context.is_active():
                    return  # cancelled, or past the deadline: the client is gone
                if deadline is not None and event.stage != "result" and time.monotonic() > deadline:
                    context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"the deadline passed after stage {event.stage}")
                yield event
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()

    def _read(self, request: Any, context: grpc.ServicerContext) -> Question:
        try:
            return read_question(request, self.dialects)
        except BadRequest as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
            raise AssertionError("context.abort() returned") from exc


def _deadline(context: grpc.ServicerContext) -> float | None:
    """The call's deadline on the :func:`time.monotonic` clock, or ``None`` when it has none."""
    remaining = context.time_remaining()
    if remaining is None or remaining >= _NO_DEADLINE:
        return None
    return time.monotonic() + remaining


def _abort_for(error: Exception, context: grpc.ServicerContext, where: str) -> NoReturn:
    code, message = status_for(error)
    if code is grpc.StatusCode.INTERNAL:
        log.error("%s failed", where, exc_info=error)
    context.abort(code, message)
    raise AssertionError("context.abort() returned")
