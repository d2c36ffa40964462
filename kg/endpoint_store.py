"""Any SPARQL 1.1 endpoint (Virtuoso, QLever, Fuseki, GraphDB, Neptune) through SPARQLWrapper.

The way out of one machine: the same compiled query runs here as on the embedded store.
Networks fail, so connection errors and HTTP 5xx are retried a bounded number of times
with exponential backoff; a 4xx is the query's or the credentials' fault and is reported
at once. Every failure names the endpoint URL. The read-only guard runs before anything
is sent, because many endpoints (Virtuoso among them) execute updates sent as queries.

Virtuoso quirks handled here: it answers an ASK query in JSON as a SELECT of the variable
``__ASK_RETVAL`` (one row for true, none for false), and writes typed literals as ``typed-literal``.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
from collections.abc import Collection
from typing import Any

from SPARQLWrapper import BASIC, JSON, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import (
    EndPointInternalError,
    EndPointNotFound,
    QueryBadFormed,
    Unauthorized,
    URITooLong,
)

from nl2sparql import __version__
from nl2sparql.kg.errors import EndpointError, QueryError, QueryTimeout, StoreError
from nl2sparql.kg.store import Store
from nl2sparql.kg.terms import SelectResult

DEFAULT_TIMEOUT = 60.0


class EndpointStore(Store):
    """A remote SPARQL endpoint at ``url``, queried read-only."""

    name = "endpoint"

    def __init__(
        self,
        url: str,
        *,
        user: str | None = None,
        password: str | None = None,
        token: str | None = None,
        default_graph: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        retries: int = 3,
        backoff: float = 0.5,
        cooldown: float = 15.0,
        method: str = "POST",
        allowed_services: Collection[str] = (),
    ) -> None:
        super().__init__(timeout=timeout, allowed_services=allowed_services)
        if not url or not url.startswith(("http://", "https://")):
            raise StoreError(f"endpoint URL must start with http:// or https://, got {url!r}")
        if token and (user or password):
            raise StoreError("give either a user and password (basic auth) or a bearer token, not both")
        if (user is None) != (password is None):
            raise StoreError("basic auth needs both a user and a password")
        if retries < 0 or backoff < 0:
            raise StoreError("retries and backoff must not be negative")
        if method.upper() not in ("GET", "POST"):
            raise StoreError(f"method must be GET or POST, got {method!r}")
        self.url = url
        self.user = user
        self.password = password
        self.token = token
        self.default_graph = default_graph
        self.retries = retries
        self.backoff = backoff
        # After every retry failed, queries within ``cooldown`` seconds fail at once: a batch
        # against a dead endpoint then costs one round of retries, not one per question.
        self.cooldown = cooldown
        self._down_since: float | None = None
        self._down_reason = ""
        self.method = method.upper()

    def _select(self, query: str, timeout: float | None) -> SelectResult:
        data = self._request(query, timeout)
        if "results" not in data:
            raise EndpointError(f"endpoint {self.url} did not return SELECT results for a SELECT query")
        try:
            return SelectResult.from_json(data)
        except (ValueError, AttributeError, TypeError) as exc:
            raise EndpointError(f"endpoint {self.url} returned malformed SPARQL JSON results: {exc}") from exc

    def _ask(self, query: str, timeout: float | None) -> bool:
        data = self._request(query, timeout)
        if isinstance(data.get("boolean"), bool):
            return data["boolean"]
        # Virtuoso: one row {"__ASK_RETVAL": 1} for true, no row for false.
        if "__ASK_RETVAL" in data.get("head", {}).get("vars", []):
            bindings = data.get("results", {}).get("bindings", [])
            return any(b.get("__ASK_RETVAL", {}).get("value") in ("1", "true") for b in bindings)
        raise EndpointError(f"endpoint {self.url} did not return a boolean for an ASK query")

    # -- HTTP ----------------------------------------------------------------------------------
    def _wrapper(self, query: str, timeout: float | None) -> SPARQLWrapper:
        sparql = SPARQLWrapper(self.url, agent=f"nl2sparql/{__version__}")
        sparql.setReturnFormat(JSON)
        sparql.setQuery(query)
        if self.method == "POST":
            sparql.setMethod(POST)
        if self.default_graph:
            sparql.addParameter("default-graph-uri", self.default_graph)
        if self.user is not None:
            sparql.setHTTPAuth(BASIC)
            sparql.setCredentials(self.user, self.password)
        if self.token:
            sparql.addCustomHttpHeader("Authorization", f"Bearer {self.token}")
        # setTimeout() truncates to whole seconds; urllib takes a float.
        sparql.timeout = timeout  # type: ignore[assignment]
        return sparql

    def _request(self, query: str, timeout: float | None) -> dict[str, Any]:
        if self._down_since is not None:
            ago = time.monotonic() - self._down_since
            if ago < self.cooldown:
                raise EndpointError(
                    f"SPARQL endpoint {self.url} is unreachable (it failed {ago:.1f} s ago: {self._down_reason}; "
                    f"not retried for {self.cooldown:g} s)"
                )
        attempts = self.retries + 1
        last = ""
        for attempt in range(attempts):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                response = self._wrapper(query, timeout).query()
                body = response.response.read()
            except TimeoutError as exc:
                raise QueryTimeout(f"query on {self.url} ran past its timeout of {_secs(timeout)}") from exc
            except QueryBadFormed as exc:
                raise QueryError(
                    f"endpoint {self.url} rejected the query (HTTP 400): {_detail(exc)}"
                ) from exc
            except Unauthorized as exc:
                raise EndpointError(f"endpoint {self.url} refused the credentials (HTTP 401)") from exc
            except EndPointNotFound as exc:
                raise EndpointError(f"no SPARQL endpoint at {self.url} (HTTP 404)") from exc
            except URITooLong as exc:
                raise EndpointError(
                    f"endpoint {self.url}: query too long for GET (HTTP 414); use POST"
                ) from exc
            except EndPointInternalError as exc:
                last = f"HTTP 500: {_detail(exc)}"
                continue
            except urllib.error.HTTPError as exc:
                if exc.code >= 500:
                    last = f"HTTP {exc.code} {exc.reason}"
                    continue
                raise EndpointError(f"endpoint {self.url} answered HTTP {exc.code} {exc.reason}") from exc
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    raise QueryTimeout(
                        f"query on {self.url} ran past its timeout of {_secs(timeout)}"
                    ) from exc
                last = f"{exc.reason}"
                continue
            except (ConnectionError, http.client.HTTPException) as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            self._down_since = None
            try:
                return json.loads(body)
            except ValueError as exc:
                raise EndpointError(f"endpoint {self.url} did not return SPARQL JSON results: {exc}") from exc
        self._down_since, self._down_reason = time.monotonic(), last
        raise EndpointError(f"SPARQL endpoint {self.url} is unreachable after {attempts} attempt(s): {last}")


def _secs(timeout: float | None) -> str:
    return "none" if timeout is None else f"{timeout:g} s"


def _detail(exc: Exception) -> str:
    """The server's message from a SPARQLWrapper exception, on one line."""
    text = str(exc)
    for marker in ("Response:\n", "Response:"):
        if marker in text:
            text = text.split(marker, 1)[1]
            break
    if text.startswith(("b'", 'b"')):
        text = text[2:-1].encode().decode("unicode_escape", errors="replace")
    text = " ".join(text.split())
    return text[:300] + ("..." if len(text) > 300 else "")
