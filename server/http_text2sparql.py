"""The TEXT2SPARQL challenge's API and a read-only SPARQL protocol route over each dataset.

``GET /text2sparql?question=...&dataset=IRI`` answers exactly ``{"dataset", "question",
"query"}``, as the challenge's reference endpoint (``text2sparql serve`` of the official
``text2sparql-client``) does; an unknown dataset is a 404 as there. The question is
answered with execution (the query that answers is the one sent back), but the answers
stay here: the client runs the query itself, on an endpoint this server does not know, so
the query is written with full IRIs (the ``full-iri`` dialect), which every engine parses
(pyoxigraph 0.5.13, for one, refuses prefixed names like ``ns:people.person.place_of_birth``).

``GET/POST /sparql`` runs SELECT and ASK queries on a dataset's store so that the client's
``query`` step has an endpoint over the same graph. The store's read-only guard refuses
anything else (updates, CONSTRUCT, SERVICE), the text is bounded, results are capped.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from nl2sparql.server.face import FaceError, bad_request
from nl2sparql.server.http_input import MAX_BODY_BYTES, ask_input
from nl2sparql.server.http_routes import dialects, face_of, final_result

MAX_QUERY_CHARS = 64 * 1024
MAX_ROWS = 10_000
SPARQL_JSON = "application/sparql-results+json"


async def text2sparql(request: Request) -> Response:
    face = face_of(request)
    params = request.query_params
    unknown = sorted(set(params) - {"question", "dataset"})
    if unknown:
        raise bad_request(f"unknown parameter(s) {', '.join(unknown)}; this API takes question and dataset")
    if not params.get("dataset"):
        raise bad_request("dataset is missing: give the dataset's IRI (GET /v1/datasets lists them)")
    if "question" not in params:
        raise bad_request("question is missing")
    fields = {"question": params["question"], "dataset": params["dataset"], "dialect": "full-iri"}
    given = ask_input(fields, dialects())
    dataset = face.datasets.get(given.dataset)
    deadline = face.deadline(None)
    result = await face.call(lambda: final_result(dataset, given, deadline, True), deadline)
    if not result.sparql:
        raise FaceError(422, "no_query", f"no SPARQL query could be made for this question: {result.error}")
    return JSONResponse({"dataset": params["dataset"], "question": params["question"], "query": result.sparql})


async def sparql(request: Request) -> Response:
    """The SPARQL 1.1 protocol's query operation (GET, POST form, POST sparql-query), read-only."""
    face = face_of(request)
    query, dataset_key = await _query_of(request)
    dataset = face.datasets.get(dataset_key)
    store = getattr(dataset.pipeline, "store", None)
    if store is None:
        raise FaceError(404, "no_store", f"dataset {dataset.iri} has no store to query")
    deadline = face.deadline(None)
    timeout = face.default_deadline
    result = await face.call(lambda: run_query(store, query, timeout), deadline)
    return JSONResponse(result, media_type=SPARQL_JSON)


async def _query_of(request: Request) -> tuple[str, str | None]:
    params = dict(request.query_params)
    if request.method == "POST":
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            raise FaceError(413, "payload_too_large", f"the body is larger than {MAX_BODY_BYTES // 1024} KiB")
        body = await _bounded_body(request)
        if kind == "application/sparql-query":
            params["query"] = _utf8(body, "the body")
        elif kind == "application/sparql-update":
            raise _update_refused()
        elif kind in ("application/x-www-form-urlencoded", ""):
            from urllib.parse import parse_qs

            for name, values in parse_qs(_utf8(body, "the body"), keep_blank_values=True).items():
                params[name] = values[-1]
        else:
            raise FaceError(415, "unsupported_media_type", f"send application/sparql-query or a form, not {kind}")
    if "update" in params:
        raise _update_refused()
    query = params.get("query")
    if not query or not query.strip():
        raise bad_request("query is missing: give ?query=SELECT ... (SELECT and ASK only)")
    if len(query) > MAX_QUERY_CHARS:
        raise bad_request(f"the query has {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    return query, params.get("dataset") or None


async def _bounded_body(request: Request) -> bytes:
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise FaceError(413, "payload_too_large", f"the body is larger than {MAX_BODY_BYTES // 1024} KiB")
    return bytes(body)


def _utf8(body: bytes, what: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad_request(f"{what} is not UTF-8 (byte {exc.start})") from None


def _update_refused() -> FaceError:
    return FaceError(403, "read_only", "this endpoint is read-only: SPARQL Update is refused (SELECT and ASK only)")


def run_query(store: Any, query: str, timeout: float) -> dict[str, Any]:
    from nl2sparql.kg.errors import UnsupportedQuery
    from nl2sparql.kg.readonly import ReadOnlyViolation

    try:
        answer = store.query(query, timeout=timeout)
    except ReadOnlyViolation as exc:
        raise FaceError(403, "read_only", str(exc)) from None
    except UnsupportedQuery as exc:
        raise FaceError(400, "unsupported_query", f"refused: {exc} (SELECT and ASK only)") from None
    if isinstance(answer, bool):
        return {"head": {}, "boolean": answer}
    document = answer.to_json()
    bindings = document["results"]["bindings"]
    if len(bindings) > MAX_ROWS:
        document["results"]["bindings"] = bindings[:MAX_ROWS]
        document["results"]["truncated"] = True
    return document
