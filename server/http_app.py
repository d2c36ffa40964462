"""The HTTP face as one Starlette application: routes, bearer-token auth, JSON errors.

Every error leaves as JSON (``{"error": {"status", "code", "message"}}``), the framework's
own 404/405 included, and an unexpected exception is logged here and answered with a 500
that carries no traceback. Auth is middleware, as on the gRPC side, so that a route added
later cannot be left open by mistake; only the health probes stay open.
"""

from __future__ import annotations

import hmac
import logging

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.server import http_routes as r
from nl2sparql.server.face import INTERNAL_MESSAGE, Face, FaceError, error_for
from nl2sparql.server.http_openapi import document
from nl2sparql.server.http_text2sparql import sparql, text2sparql

log = logging.getLogger(__name__)

#: the playground loads nothing from elsewhere, and may not
CSP = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:"

#: the probes, and the playground page (static: every call it makes needs the token)
OPEN_PATHS = frozenset({"/healthz", "/readyz", "/"})


def build_app(face: Face, *, token: str | None = None) -> Starlette:
    """The application over ``face``'s datasets; ``token`` set: every route but the probes needs it."""
    openapi = document()

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi)

    async def playground(request: Request) -> Response:
        from nl2sparql.server.playground import PAGE

        return HTMLResponse(PAGE, headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"})

    routes = [
        Route("/v1/ask", r.ask, methods=["POST"]),
        Route("/v1/translate", r.translate, methods=["POST"]),
        Route("/v1/ask/stream", r.ask_stream, methods=["GET"]),
        Route("/v1/datasets", r.datasets, methods=["GET"]),
        Route("/v1/describe", r.describe, methods=["GET"]),
        Route("/text2sparql", text2sparql, methods=["GET"]),
        Route("/sparql", sparql, methods=["GET", "POST"]),
        Route("/healthz", r.healthz, methods=["GET"]),
        Route("/readyz", r.readyz, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/", playground, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            FaceError: _face_error,
            Nl2SparqlError: _face_error,
            HTTPException: _http_error,
            Exception: _unexpected,
        },
    )
    app.state.face = face
    if token:
        app.add_middleware(BearerTokenAuth, token=token)
    return app


async def _face_error(request: Request, exc: Exception) -> Response:
    error = error_for(exc)
    return JSONResponse(error.to_json(), status_code=error.status, headers=error.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    messages = {
        404: f"no route {request.url.path!r}; GET /openapi.json lists the routes",
        405: f"{request.method} is not allowed on {request.url.path}",
    }
    message = messages.get(exc.status_code, str(exc.detail))
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    body = {"error": {"status": exc.status_code, "code": code, "message": message}}
    return JSONResponse(body, status_code=exc.status_code, headers=dict(exc.headers or {}))


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": {"status": 500, "code": "internal", "message": INTERNAL_MESSAGE}}, status_code=500)


class BearerTokenAuth:
    """Refuse requests without ``Authorization: Bearer <token>`` (compared in constant time) with 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("BearerTokenAuth needs a non-empty token")
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"authorization"), None)
        if given is not None and hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        message = (
            "missing credentials: send the header 'Authorization: Bearer <token>'"
            if given is None
            else "invalid bearer token"
        )
        response = JSONResponse(
            {"error": {"status": 401, "code": "unauthenticated", "message": message}},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer realm="nl2sparql"'},
        )
        await response(scope, receive, send)
