"""Run a query with a time limit, even when the engine itself has no timeout.

Neither pyoxigraph nor rdflib can be told to stop a query. The work runs on a daemon
thread; the caller waits at most ``timeout`` seconds and then gets
:class:`~nl2sparql.kg.errors.QueryTimeout`. The worker sees a ``cancelled`` event between
result rows and stops there; with ``interrupt=True`` (pure-Python engines such as rdflib)
an exception is also injected into the worker so it stops at its next bytecode. A native
engine busy inside one step (pyoxigraph computing an ORDER BY) finishes that step in the
background, with the GIL released, and its result is dropped.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import TypeVar

from nl2sparql.kg.errors import QueryTimeout

T = TypeVar("T")


class Cancelled(Exception):
    """Raised inside a worker whose caller stopped waiting."""


def run_with_deadline(
    work: Callable[[threading.Event], T], timeout: float | None, *, what: str, interrupt: bool = False
) -> T:
    """``work(cancelled)`` with at most ``timeout`` seconds of waiting (``None``: no limit)."""
    cancelled = threading.Event()
    if timeout is None:
        return work(cancelled)
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = work(cancelled)
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="nl2sparql-query", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        cancelled.set()
        if interrupt and worker.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(worker.ident), ctypes.py_object(Cancelled)
            )
        raise QueryTimeout(f"{what} ran past its timeout of {timeout:g} s and was stopped")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def check_cancelled(cancelled: threading.Event) -> None:
    """Stop a worker whose caller has given up."""
    if cancelled.is_set():
        raise Cancelled()
