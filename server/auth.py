"""Bearer-token authentication for every RPC but the health check.

An interceptor rather than a check in each method, so nothing added later (reflection,
a new RPC) can be left open by mistake; only ``grpc.health.v1.Health`` stays open, since
load balancers and orchestrators probe it without credentials. Tokens are compared in
constant time.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

import grpc

OPEN_PREFIXES: tuple[str, ...] = ("/grpc.health.v1.Health/",)

_HANDLER_FACTORIES = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}


class BearerTokenAuth(grpc.ServerInterceptor):
    """Refuse calls whose ``authorization`` metadata is not ``Bearer <token>`` with ``UNAUTHENTICATED``."""

    def __init__(self, token: str, open_prefixes: tuple[str, ...] = OPEN_PREFIXES) -> None:
        if not token:
            raise ValueError("BearerTokenAuth needs a non-empty token")
        self._expected = f"Bearer {token}".encode()
        self._open = open_prefixes

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        if handler_call_details.method.startswith(self._open):
            return continuation(handler_call_details)
        problem = self._problem(handler_call_details.invocation_metadata or ())
        if problem is None:
            return continuation(handler_call_details)
        handler = continuation(handler_call_details)
        streaming = (
            bool(handler and handler.request_streaming),
            bool(handler and handler.response_streaming),
        )
        return _HANDLER_FACTORIES[streaming](_refuse(problem))

    def _problem(self, metadata: Any) -> str | None:
        values = [m.value for m in metadata if m.key == "authorization"]
        if not values:
            return "missing credentials: send the metadata 'authorization: Bearer <token>'"
        given = values[0].encode() if isinstance(values[0], str) else bytes(values[0])
        if not hmac.compare_digest(given, self._expected):
            return "invalid bearer token"
        return None


def _refuse(message: str) -> Callable[[Any, grpc.ServicerContext], Any]:
    def refuse(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    return refuse
