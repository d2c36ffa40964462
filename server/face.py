"""What every asyncio face (HTTP, TEXT2SPARQL, MCP) shares: one bound, one deadline, one error map.

The pipeline is blocking code, so each question runs on a worker thread; the event loop
only waits for it, at most until the request's deadline (plus a little). A pipeline that
ignores its deadline (a hung endpoint) cannot be stopped from outside, so the caller gets
its 504 on time and the question keeps its slot until its thread really returns: the
bound counts work, not requests, and a stuck store shows as 429s rather than as a pile of
threads.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from nl2sparql.errors import ConfigError, Nl2SparqlError
from nl2sparql.kg.errors import EndpointError, QueryTimeout, StoreError
from nl2sparql.server.datasets import Datasets, UnknownDataset
from nl2sparql.server.limiter import ConcurrencyLimiter

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_DEADLINE = 60.0
MAX_DEADLINE = 600.0
#: how long after the deadline the face still waits for a pipeline that noticed it itself
DEADLINE_SLACK = 0.25
RETRY_AFTER_SECONDS = 1
INTERNAL_MESSAGE = "internal error while answering; the server's log has the details"


class FaceError(Exception):
    """A request that ends in an error response: the HTTP status, a short code and the message."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def to_json(self) -> dict[str, Any]:
        return {"error": {"status": self.status, "code": self.code, "message": self.message}}


def bad_request(message: str) -> FaceError:
    return FaceError(400, "invalid_argument", message)


def error_for(error: BaseException) -> FaceError:
    """The response for an exception raised while answering (as ``status.status_for`` does for gRPC)."""
    if isinstance(error, FaceError):
        return error
    if isinstance(error, UnknownDataset):
        return FaceError(404, "unknown_dataset", str(error))
    if isinstance(error, TimeoutError | QueryTimeout):
        return FaceError(504, "deadline_exceeded", str(error) or "the deadline passed")
    if isinstance(error, EndpointError):
        return FaceError(502, "unavailable", str(error))
    if isinstance(error, StoreError | ConfigError):
        return FaceError(503, "failed_precondition", str(error))
    if isinstance(error, Nl2SparqlError):
        return FaceError(400, "invalid_argument", str(error))
    log.error("answering failed", exc_info=error)
    return FaceError(500, "internal", INTERNAL_MESSAGE)


@dataclass(slots=True)
class Face:
    """The datasets, the bound on questions answered at once, and the default deadline."""

    datasets: Datasets
    limiter: ConcurrencyLimiter
    executor: ThreadPoolExecutor
    default_deadline: float = DEFAULT_DEADLINE
    ready: bool = True

    @classmethod
    def create(cls, datasets: Datasets, max_concurrency: int, deadline: float = DEFAULT_DEADLINE) -> Face:
        if max_concurrency < 1:
            raise ConfigError(f"max concurrency must be at least 1, got {max_concurrency}")
        if not 0 < deadline <= MAX_DEADLINE:
            raise ConfigError(f"the deadline must be more than 0 and at most {MAX_DEADLINE:g} seconds")
        # spare threads beyond the slots: a timed-out question keeps its thread until it returns
        executor = ThreadPoolExecutor(max_workers=max_concurrency * 2 + 2, thread_name_prefix="nl2sparql-face")
        return cls(datasets, ConcurrencyLimiter(max_concurrency), executor, deadline)

    def deadline(self, seconds: float | None) -> float:
        """The monotonic deadline of a request that asked for ``seconds`` (None: the default)."""
        return time.monotonic() + (self.default_deadline if seconds is None else seconds)

    def acquire(self) -> None:
        """Take a question slot, or refuse with 429 and Retry-After."""
        if not self.limiter.try_acquire():
            raise FaceError(
                429,
                "resource_exhausted",
                f"server busy: {self.limiter.limit} questions in flight, the most it serves at once; "
                f"retry after {RETRY_AFTER_SECONDS} s",
                {"Retry-After": str(RETRY_AFTER_SECONDS)},
            )

    async def call(self, work: Callable[[], T], deadline: float, *, slot: bool = True) -> T:
        """``work()`` on a worker thread, holding a slot (unless ``slot`` is false), answered by
        ``deadline``; its exceptions become :class:`FaceError`."""
        if slot:
            self.acquire()
        try:
            future = self.executor.submit(work)
        except BaseException:
            if slot:
                self.limiter.release()
            raise
        future.add_done_callback(lambda done: self._finished(done, slot))
        return await self.wait(future, deadline)

    async def wait(self, future: Future[T], deadline: float) -> T:
        """The value of a worker's future, or a 504 once ``deadline`` has passed."""
        left = deadline - time.monotonic() + DEADLINE_SLACK
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), max(left, 0.001))
        except TimeoutError:
            if future.done() and future.exception() is not None:
                raise error_for(future.exception()) from None  # type: ignore[arg-type]
            raise FaceError(
                504, "deadline_exceeded", "the deadline passed before the answer was ready; the question was abandoned"
            ) from None
        except FaceError:
            raise
        except Exception as exc:
            raise error_for(exc) from exc

    def _finished(self, future: Future[Any], slot: bool) -> None:
        if slot:
            self.limiter.release()
        if not future.cancelled():
            future.exception()  # retrieved: a late failure after a 504 is not "never retrieved"

    def close(self) -> None:
        self.ready = False
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.datasets.close()
