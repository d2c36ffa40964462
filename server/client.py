"""A small Python client for the service that returns the same records as the in-process pipeline.

``Client(address, token=None).ask(question)`` gives an :class:`~nl2sparql.results.AskResult`,
``ask_stream`` yields :class:`~nl2sparql.results.StageEvent`, so code written against
``Pipeline`` moves to a remote server by changing one line. Failures are
:class:`ServiceError` (an :class:`~nl2sparql.errors.Nl2SparqlError`) carrying the gRPC code.

    with Client("127.0.0.1:50051", token=os.environ.get("NL2SPARQL_TOKEN")) as client:
        result = client.ask("who are the siblings of Justin Bieber", entities={"m.06w2sn5": "Justin Bieber"})
        print(result.sparql, [a.name for a in result.answers])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.results import AskResult, StageEvent
from nl2sparql.server import convert
from nl2sparql.server.generated import pb, pb_grpc

DEFAULT_TIMEOUT = 60.0


class ServiceError(Nl2SparqlError):
    """The server refused or failed a call; ``code`` is the gRPC status code."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class Client:
    """A channel to one server.

    ``tls_root_cert``: a PEM file or bytes to trust, or ``True`` for the system's roots.
    ``timeout``: seconds per call unless a call says otherwise; ``None``: no deadline.
    """

    def __init__(
        self,
        address: str = "127.0.0.1:50051",
        token: str | None = None,
        *,
        tls_root_cert: str | Path | bytes | bool | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        self.address = address
        self.timeout = timeout
        if tls_root_cert is None or tls_root_cert is False:
            self._channel = grpc.insecure_channel(address)
        else:
            root = None if tls_root_cert is True else _pem(tls_root_cert)
            self._channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=root))
        self._stub = pb_grpc.Nl2SparqlStub(self._channel)
        self._metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()

    def ask(
        self,
        question: str,
        entities: Mapping[str, str] | Iterable[str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> AskResult:
        """Compile ``question`` and run it; ``entities``: ids -> names, or ids alone."""
        request = _request(pb.AskRequest, question, entities, dialect, limit)
        return convert.ask_result(self._call(self._stub.Ask, request, timeout))

    def translate(
        self,
        question: str,
        entities: Mapping[str, str] | Iterable[str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> AskResult:
        """Compile ``question`` without running it."""
        request = _request(pb.TranslateRequest, question, entities, dialect, limit)
        return convert.ask_result(self._call(self._stub.Translate, request, timeout))

    def ask_stream(
        self,
        question: str,
        entities: Mapping[str, str] | Iterable[str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> Iterator[StageEvent]:
        """One event per stage as the server finishes it; closing the iterator cancels the call."""
        request = _request(pb.AskRequest, question, entities, dialect, limit)
        call = self._stub.AskStream(request, timeout=self._timeout(timeout), metadata=self._metadata)
        try:
            for message in call:
                yield convert.stage_event(message)
        except grpc.RpcError as exc:
            raise _error(exc) from None
        finally:
            call.cancel()

    def describe(self, *, timeout: float | None = None) -> dict[str, Any]:
        """The server's KG, bank, planner and settings."""
        return convert.description(self._call(self._stub.Describe, pb.DescribeRequest(), timeout))

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """``SERVING`` or ``NOT_SERVING`` (no token needed); ``service``: "" for the whole server."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc  # 10 ms of every ask's start-up otherwise

        check = health_pb2_grpc.HealthStub(self._channel).Check
        response = self._call(check, health_pb2.HealthCheckRequest(service=service), timeout)
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return method(request, timeout=self._timeout(timeout), metadata=self._metadata)
        except grpc.RpcError as exc:
            raise _error(exc) from None

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else timeout


def _request(
    kind: Any,
    question: str,
    entities: Mapping[str, str] | Iterable[str] | None,
    dialect: str | None,
    limit: int | None,
) -> Any:
    request = kind(question=question, dialect=dialect or "")
    if isinstance(entities, Mapping):
        request.entities.update(entities)
    elif entities is not None:
        if isinstance(entities, str):
            raise TypeError("entities must be a mapping of ids to names or an iterable of ids, not one string")
        request.entity_ids.extend(entities)
    if limit is not None:
        request.limit = limit
    return request


def _error(exc: grpc.RpcError) -> ServiceError:
    code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
    details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
    return ServiceError(code, details or "")


def _pem(value: str | Path | bytes) -> bytes:
    return value if isinstance(value, bytes) else Path(value).read_bytes()
