"""Run the HTTP face on uvicorn: our own bound socket, TLS, a graceful stop.

The socket is bound (and listening) here, before uvicorn starts, so ``--http 0`` can print
the port it got and a client that connects right after reading it is queued, not refused.
uvicorn's h11 protocol is pinned, with a request-line limit that fits the longest question
the API reads, so an over-long question gets the API's own JSON 400, not a bare 400 page.
"""

from __future__ import annotations

import logging
import socket
import threading
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from nl2sparql.errors import ConfigError

log = logging.getLogger(__name__)

#: request line and headers together; a 2,000-character question, percent-encoded, fits
MAX_HEAD_BYTES = 128 * 1024


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free one)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # proto=IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on accepted sockets only when the proto
    # says TCP; without it, a keep-alive client waited 40 ms (Nagle against delayed ACK) a reply
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(1024)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc} (is the port in use?)") from None
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, minus re-raising SIGTERM/SIGINT once it has stopped: the command then
    stops gRPC with its grace and closes the stores instead of being killed on the spot."""

    def capture_signals(self) -> Any:
        captured = super().capture_signals()
        self._captured_signals = _Discard()
        return captured


class _Discard(list):  # type: ignore[type-arg]
    """A list that keeps nothing: the signals uvicorn would re-raise."""

    def append(self, item: object) -> None:
        return None


@dataclass(slots=True)
class HttpService:
    """A configured uvicorn server over a bound socket."""

    server: uvicorn.Server
    sock: socket.socket
    tls: bool
    thread: threading.Thread | None = field(default=None)

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def run(self) -> None:
        """Serve in this thread until SIGINT/SIGTERM (uvicorn handles them)."""
        self.server.run(sockets=[self.sock])

    def start(self) -> None:
        """Serve on a background thread (tests, and beside gRPC); returns once it accepts."""
        self.thread = threading.Thread(target=self.run, name="nl2sparql-http", daemon=True)
        self.thread.start()
        while not self.server.started and self.thread.is_alive():
            threading.Event().wait(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)


def http_service(
    app: Any,
    *,
    host: str,
    port: int,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    grace: float = 10.0,
) -> HttpService:
    sock = bind(host, port)
    config = uvicorn.Config(
        app,
        http="h11",
        lifespan="off",
        log_level="warning",
        access_log=False,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
        timeout_graceful_shutdown=max(int(grace), 1),
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        server_header=False,
    )
    return HttpService(_Server(config), sock, tls=tls_cert is not None)
