"""A bound on the pipeline requests served at once that refuses, rather than queues, the rest.

A request past the bound gets ``RESOURCE_EXHAUSTED`` straight away, so a client under
load learns it should back off instead of waiting behind work it cannot see. The count
is public (``in_flight``): the tests watch it fall back to zero when a stream is cancelled.
"""

from __future__ import annotations

import threading


class ConcurrencyLimiter:
    """At most ``limit`` slots held at once; :meth:`try_acquire` never blocks."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the concurrency limit must be at least 1, got {limit}")
        self.limit = limit
        self._held = 0
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._held

    def try_acquire(self) -> bool:
        """Take a slot if one is free."""
        with self._lock:
            if self._held >= self.limit:
                return False
            self._held += 1
            return True

    def release(self) -> None:
        with self._lock:
            if self._held == 0:
                raise RuntimeError("ConcurrencyLimiter.release() without a matching acquire")
            self._held -= 1
            if self._held == 0:
                self._idle.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no slot is held; ``False`` when ``timeout`` seconds passed first."""
        with self._lock:
            return self._idle.wait_for(lambda: self._held == 0, timeout)
