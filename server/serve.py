"""``serve()``: a gRPC server over a pipeline, with health checking, reflection and a clean stop.

As in gRPC's own Python examples, the servicer stays thin and this module wires the rest:
the standard ``grpc.health.v1`` service (open even when a token is required), server
reflection (so ``grpcurl`` needs no proto file), the bearer-token interceptor, TLS, the
bound on concurrent questions, and a shutdown that marks the server NOT_SERVING, refuses
new calls and gives the ones in flight a grace period to finish.
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import threading
from collections.abc import Collection
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from nl2sparql import __version__
from nl2sparql.errors import ConfigError
from nl2sparql.server.auth import BearerTokenAuth
from nl2sparql.server.defaults import DEFAULT_GRACE, DEFAULT_HOST, DEFAULT_MAX_CONCURRENCY, DEFAULT_PORT
from nl2sparql.server.generated import SERVICE_NAME, pb_grpc
from nl2sparql.server.protocol import AnsweringPipeline
from nl2sparql.server.servicer import Nl2SparqlServicer

log = logging.getLogger(__name__)

#: workers beyond the question slots, so health checks, reflection and Describe get through
#: (and over-limit questions get their RESOURCE_EXHAUSTED) while every slot is busy
SPARE_WORKERS = 4
MAX_MESSAGE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """A PEM certificate chain and its private key, read at start-up."""

    certificate_chain: bytes
    private_key: bytes = field(repr=False)

    @classmethod
    def read(cls, cert: str | Path | None, key: str | Path | None) -> TlsFiles | None:
        if cert is None and key is None:
            return None
        if cert is None or key is None:
            raise ConfigError("TLS needs both --tls-cert and --tls-key")
        return cls(_read_pem(cert, "certificate"), _read_pem(key, "private key"))


def _read_pem(path: str | Path, what: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the TLS {what} {path}: {exc.strerror or exc}") from exc
    if b"-----BEGIN " not in data:
        raise ConfigError(f"the TLS {what} {path} is not a PEM file (no '-----BEGIN' line)")
    return data


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None, insecure: bool) -> None:
    """Refuse to expose an unauthenticated service beyond this machine unless told to."""
    if not host:
        raise ConfigError("no host to bind: give --host (127.0.0.1 keeps the service on this machine)")
    if not is_loopback(host) and not token and not insecure:
        raise ConfigError(
            f"refusing to serve on {host} without a token: anyone who reaches it could use it. "
            "Set --token (or NL2SPARQL_TOKEN), bind 127.0.0.1, or pass --insecure to accept the risk"
        )


@dataclass(slots=True)
class Service:
    """A started server and what the tests and the CLI need to reach into."""

    server: grpc.Server
    host: str
    port: int
    servicer: Nl2SparqlServicer
    health: health.HealthServicer
    tls: bool

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{host}:{self.port}"

    def stop(self, grace: float | None = DEFAULT_GRACE) -> None:
        """Report NOT_SERVING, refuse new calls, let calls in flight finish for ``grace`` seconds."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop(0)


def serve(
    pipeline: AnsweringPipeline,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    token: str | None = None,
    tls: TlsFiles | None = None,
    insecure: bool = False,
    dialects: Collection[str] | None = None,
) -> Service:
    """Start serving ``pipeline`` on ``host:port`` (port 0 picks a free one) and return at once."""
    check_bind(host, token, insecure)
    if max_concurrency < 1:
        raise ConfigError(f"max concurrency must be at least 1, got {max_concurrency}")
    if dialects is None:
        from nl2sparql.settings import DIALECTS

        dialects = DIALECTS
    workers = max_concurrency + SPARE_WORKERS
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nl2sparql-rpc"),
        interceptors=[BearerTokenAuth(token)] if token else [],
        maximum_concurrent_rpcs=workers,
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ],
    )
    servicer = Nl2SparqlServicer(
        pipeline,
        dialects=dialects,
        max_concurrency=max_concurrency,
        server_info={
            "version": __version__,
            "dialects": list(dialects),
            "max_concurrency": max_concurrency,
            "auth": bool(token),
            "tls": tls is not None,
        },
    )
    pb_grpc.add_Nl2SparqlServicer_to_server(servicer, server)
    health_servicer = health.HealthServicer(experimental_non_blocking=True)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)

    address = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
    try:
        if tls is None:
            bound = server.add_insecure_port(address)
        else:
            credentials = grpc.ssl_server_credentials([(tls.private_key, tls.certificate_chain)])
            bound = server.add_secure_port(address, credentials)
    except RuntimeError as exc:
        raise ConfigError(f"cannot listen on {address}: {exc} (is the port in use?)") from exc
    if not bound:
        raise ConfigError(f"cannot listen on {address} (is the port in use, or the address not this machine's?)")
    if token and tls is None and not is_loopback(host):
        log.warning("serving on %s with a token but without TLS: the token crosses the network in clear", host)
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Service(server, host, bound, servicer, health_servicer, tls is not None)


def run_until_signal(service: Service, grace: float = DEFAULT_GRACE) -> None:
    """Serve until SIGTERM or SIGINT, then stop with ``grace`` seconds for the calls in flight.

    Must be called from the main thread (Python delivers signals there).
    """
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stopping.wait(1.0):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    log.info("stopping: %d question(s) in flight get %.3g s to finish", service.servicer.limiter.in_flight, grace)
    service.stop(grace)
