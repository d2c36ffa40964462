"""The ``/v1`` routes: ask, translate, the stage stream, datasets and describe.

Each is a thin layer over a dataset's pipeline, as the gRPC servicer is: the request is
checked (:mod:`http_input`), a slot is taken, the pipeline runs on a worker thread, and
the result goes out as the same JSON ``nl2sparql ask --json`` prints.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Future
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from nl2sparql.results import AskResult, StageEvent
from nl2sparql.server.datasets import Dataset
from nl2sparql.server.face import Face, FaceError, error_for
from nl2sparql.server.http_input import AskInput, ask_input, json_body, query_input

#: dialects the HTTP face accepts (the pipeline's); read lazily so importing this module stays light
_DIALECTS: tuple[str, ...] = ()


def dialects() -> tuple[str, ...]:
    global _DIALECTS
    if not _DIALECTS:
        from nl2sparql.settings import DIALECTS

        _DIALECTS = DIALECTS
    return _DIALECTS


def face_of(request: Request) -> Face:
    return request.app.state.face  # type: ignore[no-any-return]


async def ask(request: Request) -> Response:
    return await _answer(request, execute=True)


async def translate(request: Request) -> Response:
    return await _answer(request, execute=False)


async def _answer(request: Request, *, execute: bool) -> Response:
    face = face_of(request)
    given = ask_input(await json_body(request), dialects())
    dataset = face.datasets.get(given.dataset)
    deadline = face.deadline(given.timeout)
    result = await face.call(lambda: final_result(dataset, given, deadline, execute), deadline)
    return JSONResponse(result.to_json())


def final_result(dataset: Dataset, given: AskInput, deadline: float, execute: bool) -> AskResult:
    last: AskResult | None = None
    for event in _events(dataset, given, deadline, execute):
        last = event.result
    if last is None:
        raise RuntimeError("the pipeline ended without a result")
    return last


def _events(dataset: Dataset, given: AskInput, deadline: float, execute: bool) -> Iterator[StageEvent]:
    q = given.question
    options: dict[str, Any] = {"limit": q.limit, "deadline": deadline, "execute": execute}
    if q.dialect is not None:
        options["dialect"] = q.dialect
    return iter(dataset.pipeline.ask_stream(q.text, q.entities, **options))


async def ask_stream(request: Request) -> Response:
    """Server-sent events: one ``event: <stage>`` per finished stage, the last ``result``;
    a failure after the stream began is an ``event: error`` with the JSON error."""
    face = face_of(request)
    given = ask_input(query_input(request.query_params), dialects())
    dataset = face.datasets.get(given.dataset)
    deadline = face.deadline(given.timeout)
    face.acquire()
    try:
        events = _events(dataset, given, deadline, execute=True)
    except BaseException as exc:
        face.limiter.release()
        raise error_for(exc) from exc
    started: list[bool] = []
    return _SlotStream(
        _sse(face, events, deadline, started),
        release=lambda: None if started else face.limiter.release(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


class _SlotStream(StreamingResponse):
    """A stream that frees its slot itself when the client left before the stream began
    (once begun, the stream's own ``finally`` frees it, after the worker is out of the pipeline)."""

    def __init__(self, content: AsyncIterator[str], *, release: Any, **options: Any) -> None:
        super().__init__(content, **options)
        self._release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


_END = object()


async def _sse(face: Face, events: Iterator[StageEvent], deadline: float, started: list[bool]) -> AsyncIterator[str]:
    started.append(True)
    pending: Future[Any] | None = None
    try:
        while True:
            pending = face.executor.submit(next, events, _END)
            try:
                event = await face.wait(pending, deadline)
            except FaceError as exc:
                yield _frame("error", exc.to_json())
                return
            if event is _END:
                return
            yield _frame(
                event.stage,
                {"stage": event.stage, "elapsed_ms": round(event.elapsed_ms, 3), "result": event.result.to_json()},
            )
            if event.stage == "result":
                return
            if time.monotonic() > deadline:
                yield _frame(
                    "error",
                    FaceError(504, "deadline_exceeded", f"the deadline passed after stage {event.stage}").to_json(),
                )
                return
    finally:
        _close_later(face, events, pending)


def _close_later(face: Face, events: Iterator[StageEvent], pending: Future[Any] | None) -> None:
    """Close the stage stream and free the slot once no worker is inside it any more."""

    def close(_: object = None) -> None:
        try:
            getattr(events, "close", lambda: None)()
        finally:
            face.limiter.release()

    if pending is None or pending.done():
        try:
            face.executor.submit(close)
        except RuntimeError:  # the executor has shut down
            close()
    else:
        pending.add_done_callback(close)


def _frame(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def datasets(request: Request) -> Response:
    face = face_of(request)
    listed = [
        {"iri": d.iri, "name": d.name, "description": d.spec.description, "default": d is face.datasets.default}
        for d in face.datasets
    ]
    return JSONResponse({"datasets": listed})


async def describe(request: Request) -> Response:
    """A dataset's store, bank (counts, prefixes) and planner."""
    face = face_of(request)
    params = request.query_params
    unknown = sorted(set(params) - {"dataset"})
    if unknown:
        raise FaceError(400, "invalid_argument", f"unknown parameter(s) {', '.join(unknown)}; known: dataset")
    dataset = face.datasets.get(params.get("dataset"))
    info = await face.call(lambda: describe_dataset(dataset), face.deadline(None), slot=False)
    return JSONResponse(info)


def describe_dataset(dataset: Dataset) -> dict[str, Any]:
    info = dict(dataset.pipeline.describe())
    bank = getattr(dataset.pipeline, "bank", None)
    meta = getattr(bank, "meta", None)
    if meta is not None:
        info["bank"] = {**info.get("bank", {}), "prefixes": dict(meta.prefixes), "namespace": meta.namespace}
    return {"dataset": {"iri": dataset.iri, "name": dataset.name}, **_plain(info)}


def _plain(value: Any) -> Any:
    """Mappings and sequences as JSON can write them (describe() may hold tuples, paths)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    face = face_of(request)
    if not face.ready:
        return JSONResponse({"status": "stopping"}, status_code=503)
    return JSONResponse(
        {
            "status": "ready",
            "datasets": len(face.datasets),
            "in_flight": face.limiter.in_flight,
            "max_concurrency": face.limiter.limit,
        }
    )
