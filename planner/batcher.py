"""Plans of concurrent callers decoded together: a short gathering window, a bounded batch.

A model decodes a batch of 16 questions in little more time than one (measured on this
CPU: see README "Service"), but the service and ``translate`` ask for plans one question
per thread. :class:`BatchingPlanner` puts each call in a queue; a worker takes the first
waiting call, gathers more for at most ``window_ms`` or until ``max_batch`` are waiting,
and plans them with one :meth:`~nl2sparql.planner.backends.base.Planner.plan_batch` of the
wrapped planner. Each caller gets its own plan (or its own error) back.

Deadlines hold per call: a caller stops waiting when its deadline passes (the batch goes
on for the others), and a call whose deadline has passed before its batch starts is left
out of the batch.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from nl2sparql.errors import DeadlineExceeded
from nl2sparql.plan.steps import Plan
from nl2sparql.planner.backends.base import ChunkResult, Planner, PlannerOutput, PlanRequest
from nl2sparql.planner.errors import PlannerError

#: the most questions one batch holds; beyond this a batch's padding and beams cost more than they save
MAX_BATCH_LIMIT = 64
#: the longest gathering window accepted, in milliseconds
MAX_WINDOW_MS = 1_000.0


@dataclass(slots=True)
class _Call:
    """One caller's question; ``chosen`` set: it asks for alternatives to that plan, not a plan."""

    request: PlanRequest
    deadline: float | None
    chosen: Plan | None = None
    future: Future[Any] = field(default_factory=Future)

    def expired(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline


class BatchingPlanner(Planner):
    """Wraps a planner so that concurrent :meth:`plan` calls are decoded as one batch."""

    def __init__(self, inner: Planner, max_batch: int = 16, window_ms: float = 10.0, workers: int = 1) -> None:
        if not 1 <= max_batch <= MAX_BATCH_LIMIT:
            raise PlannerError(f"the plan batch must hold 1 to {MAX_BATCH_LIMIT} questions, got {max_batch}")
        if not 0 <= window_ms <= MAX_WINDOW_MS:
            raise PlannerError(f"the gathering window must be 0 to {MAX_WINDOW_MS:g} ms, got {window_ms}")
        if workers < 1:
            raise PlannerError(f"a batching planner needs at least one worker, got {workers}")
        self.inner = inner
        self.name = inner.name
        self.max_batch = max_batch
        self.window = window_ms / 1000
        self._queue: deque[_Call] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self._workers = [
            threading.Thread(target=self._work, name=f"nl2sparql-plan-batch-{i}", daemon=True) for i in range(workers)
        ]
        for worker in self._workers:
            worker.start()

    # -- the callers' side ------------------------------------------------------------------
    def plan(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        gold_sparql: str | None = None,
        *,
        deadline: float | None = None,
    ) -> PlannerOutput:
        """The plan for one question, decoded with whatever other calls arrive in the window."""
        output: PlannerOutput = self._wait(_Call(PlanRequest(question, dict(entities or {}), gold_sparql), deadline))
        return output

    def alternatives(self, request: PlanRequest, chosen: Plan, *, deadline: float | None = None) -> tuple[Plan, ...]:
        """Other plans than ``chosen``, decoded with the other calls for alternatives in the window."""
        found: tuple[Plan, ...] = self._wait(_Call(request, deadline, chosen))
        return found

    def _wait(self, call: _Call) -> Any:
        with self._ready:
            if self._closed:
                raise PlannerError("the planner is closed")
            self._queue.append(call)
            self._ready.notify_all()
        timeout = None if call.deadline is None else max(0.0, call.deadline - time.monotonic())
        try:
            return call.future.result(timeout=timeout)
        except (FutureTimeout, CancelledError):  # cancelled: a worker found the deadline passed
            call.future.cancel()  # still queued: left out of its batch; already running: ignored
            raise DeadlineExceeded("deadline exceeded while planning") from None

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        """Batches asked for directly (``plan_batch``) are already batches: the inner planner plans them."""
        return self.inner._plan_chunk(requests)

    def info(self) -> dict[str, Any]:
        batching = {"max_batch": self.max_batch, "window_ms": self.window * 1000, "workers": len(self._workers)}
        return {**self.inner.info(), "batching": batching}

    def close(self) -> None:
        with self._ready:
            self._closed = True
            pending = list(self._queue)
            self._queue.clear()
            self._ready.notify_all()
        for call in pending:
            if call.future.set_running_or_notify_cancel():
                call.future.set_exception(PlannerError("the planner was closed before this question was planned"))
        for worker in self._workers:
            if worker is not threading.current_thread():
                worker.join(timeout=5)
        self.inner.close()

    # -- the workers' side ------------------------------------------------------------------
    def _gather(self) -> list[_Call] | None:
        """The next batch: the first waiting call and the calls of its kind (plans, or
        alternatives) that arrive within the window."""
        with self._ready:
            while not self._queue and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            first = self._queue.popleft()
            batch = [first]
            until = time.monotonic() + self.window
            while len(batch) < self.max_batch and not self._closed:
                kin = [c for c in self._queue if (c.chosen is None) == (first.chosen is None)]
                for call in kin[: self.max_batch - len(batch)]:
                    self._queue.remove(call)
                    batch.append(call)
                left = until - time.monotonic()
                if len(batch) >= self.max_batch or left <= 0:
                    break
                self._ready.wait(left)
            return batch

    def _work(self) -> None:
        while (calls := self._gather()) is not None:
            now = time.monotonic()
            live = [c for c in calls if not c.expired(now) and c.future.set_running_or_notify_cancel()]
            for call in calls:
                if call not in live and not call.future.done():
                    call.future.cancel()
            if live:
                self._run(live)

    def _run(self, calls: list[_Call]) -> None:
        requests = [c.request for c in calls]
        try:
            if calls[0].chosen is None:
                outputs: list[Any] = self.inner.plan_batch(requests, batch_size=len(calls), errors="return")
            else:
                outputs = self.inner.alternatives_batch(requests, [c.chosen for c in calls])  # type: ignore[misc]
        except Exception as exc:  # noqa: BLE001  (handed to every caller of the batch, who re-raises it)
            for call in calls:
                call.future.set_exception(exc)
            return
        for call, output in zip(calls, outputs, strict=True):
            if isinstance(output, PlannerError):
                call.future.set_exception(output)
            else:
                call.future.set_result(output)
