"""The OpenAPI 3.1 document of the HTTP face, written out by hand.

Starlette has no schema generator worth its weight (FastAPI's needs pydantic, which costs
about 0.45 s and 16 MB at every start); the API is small, so the document is data here,
and a test checks that every route the app serves is in it.
"""

from __future__ import annotations

from typing import Any

from nl2sparql import __version__

_ERROR = {"$ref": "#/components/schemas/Error"}
_DATASET = {
    "name": "dataset",
    "in": "query",
    "schema": {"type": "string"},
    "description": "the dataset's IRI (or short name); the server's default when left out",
}


def _responses(ok: str, schema: dict[str, Any], *codes: int) -> dict[str, Any]:
    out: dict[str, Any] = {"200": {"description": ok, "content": {"application/json": {"schema": schema}}}}
    reasons = {
        400: "bad input, named in the message",
        401: "missing or wrong bearer token",
        404: "unknown dataset",
        413: "body too large",
        415: "not JSON",
        422: "no query could be made",
        429: "busy: retry after Retry-After seconds",
        502: "the SPARQL endpoint failed",
        504: "the deadline passed",
    }
    for code in codes:
        out[str(code)] = {"description": reasons[code], "content": {"application/json": {"schema": _ERROR}}}
    return out


ASK_BODY = {
    "type": "object",
    "required": ["question"],
    "additionalProperties": False,
    "properties": {
        "question": {"type": "string", "maxLength": 2000, "description": "the question, in English"},
        "entities": {
            "description": "topic entities: {id: name} (an empty name is looked up) or [id, ...]",
            "oneOf": [
                {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 64},
                {"type": "array", "items": {"type": "string"}, "maxItems": 64},
            ],
        },
        "dataset": {"type": "string", "description": "the dataset's IRI; the server's default when left out"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100000, "description": "at most this many answers"},
        "dialect": {"type": "string", "enum": ["sparql11", "full-iri", "virtuoso"]},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 600,
            "description": "seconds before the server gives up (its --deadline otherwise)",
        },
    },
}

RESULT = {
    "type": "object",
    "description": "what `nl2sparql ask --json` prints: plan, SPARQL, answers and the trace",
    "properties": {
        "question": {"type": "string"},
        "entities": {"type": "object"},
        "type": {"type": ["string", "null"]},
        "plan": {"type": "array", "items": {"type": "string"}},
        "recalled": {"type": "array"},
        "sparql": {"type": ["string", "null"]},
        "answers": {
            "type": "array",
            "items": {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": ["string", "null"]}}},
        },
        "attempts": {"type": "array"},
        "timings_ms": {"type": "object"},
        "error": {"type": ["string", "null"]},
    },
}


def _ask_op(summary: str) -> dict[str, Any]:
    return {
        "summary": summary,
        "requestBody": {"required": True, "content": {"application/json": {"schema": ASK_BODY}}},
        "responses": _responses("the result", RESULT, 400, 401, 404, 413, 415, 429, 502, 504),
    }


def _query_param(name: str, description: str, required: bool = False, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": {"type": kind}, "description": description}


def document() -> dict[str, Any]:
    """The OpenAPI document served at ``/openapi.json``."""
    sparql_params = [_query_param("query", "a SELECT or ASK query", True), _DATASET]
    paths: dict[str, Any] = {
        "/v1/ask": {"post": _ask_op("answer a question: plan, SPARQL, answers and trace")},
        "/v1/translate": {"post": _ask_op("plan and SPARQL for a question, without running it")},
        "/v1/ask/stream": {
            "get": {
                "summary": "server-sent events, one per stage (linked, planned, recalled, compiled, executed, result)",
                "parameters": [
                    _query_param("question", "the question", True),
                    _DATASET,
                    _query_param("limit", "at most this many answers", kind="integer"),
                    _query_param("dialect", "sparql11, full-iri or virtuoso"),
                    _query_param("timeout", "seconds", kind="number"),
                ],
                "responses": {
                    "200": {"description": "event stream", "content": {"text/event-stream": {}}},
                    **{k: v for k, v in _responses("", {}, 400, 401, 404, 429).items() if k != "200"},
                },
            }
        },
        "/v1/datasets": {
            "get": {
                "summary": "the datasets this server serves",
                "responses": _responses("the datasets", {"type": "object"}, 401),
            }
        },
        "/v1/describe": {
            "get": {
                "summary": "a dataset's store, bank (counts, prefixes) and planner",
                "parameters": [_DATASET],
                "responses": _responses("the description", {"type": "object"}, 401, 404),
            }
        },
        "/text2sparql": {
            "get": {
                "summary": "the TEXT2SPARQL challenge API",
                "parameters": [
                    _query_param("question", "the question", True),
                    _query_param("dataset", "the dataset's IRI", True),
                ],
                "responses": _responses(
                    "the query",
                    {
                        "type": "object",
                        "required": ["dataset", "question", "query"],
                        "properties": {
                            "dataset": {"type": "string"},
                            "question": {"type": "string"},
                            "query": {"type": "string"},
                        },
                    },
                    400,
                    401,
                    404,
                    422,
                    429,
                    504,
                ),
            }
        },
        "/sparql": {
            "get": {
                "summary": "read-only SPARQL protocol query (SELECT, ASK)",
                "parameters": sparql_params,
                "responses": _responses("SPARQL JSON results", {"type": "object"}, 400, 401, 404, 429, 504),
            },
            "post": {
                "summary": "the same, as a form (query=...) or an application/sparql-query body",
                "responses": _responses("SPARQL JSON results", {"type": "object"}, 400, 401, 413, 415),
            },
        },
        "/healthz": {"get": {"summary": "liveness (no token needed)", "responses": {"200": {"description": "alive"}}}},
        "/readyz": {
            "get": {
                "summary": "readiness (no token needed)",
                "responses": {"200": {"description": "ready"}, "503": {"description": "stopping"}},
            }
        },
        "/": {
            "get": {
                "summary": "the browser playground (one page, no external assets)",
                "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}},
            }
        },
        "/openapi.json": {"get": {"summary": "this document", "responses": {"200": {"description": "OpenAPI"}}}},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "nl2sparql",
            "version": __version__,
            "description": "Compile natural-language questions into SPARQL over knowledge graphs.",
        },
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "properties": {
                        "error": {
                            "type": "object",
                            "properties": {
                                "status": {"type": "integer"},
                                "code": {"type": "string"},
                                "message": {"type": "string"},
                            },
                        }
                    },
                }
            },
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }
