"""Batched planning in the service: concurrent questions share one planner call, each gets its
own plan, and deadlines hold per question.

A real :class:`~nl2sparql.pipeline.Pipeline` (Oxigraph on the fixture graph, a bank built from
it) is served on loopback; its planner is a :class:`~nl2sparql.planner.batcher.BatchingPlanner`
over a planner that writes the plan for each question's own entity and takes a fixed time per
batch (as a model's decode does), recording the batches it was given. Waiting loops are hang
guards, never timing assertions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from conftest import FixtureKG

from nl2sparql.errors import DeadlineExceeded
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.memory_bank.bank_file import load_bank
from nl2sparql.pipeline import Pipeline
from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner.backends.base import ChunkResult, Planner, PlanRequest
from nl2sparql.planner.batcher import BatchingPlanner
from nl2sparql.planner.errors import PlannerError
from nl2sparql.server.client import Client, ServiceError
from nl2sparql.server.serve import serve
from nl2sparql.settings import Settings

PEOPLE = {
    "m.0p_cy": ("Cy Quill", "Dee Quill"),
    "m.0p_dee": ("Dee Quill", "Cy Quill"),
    "m.0p_gus": ("Gus Orr", "Hal Orr"),
    "m.0p_hal": ("Hal Orr", "Gus Orr"),
}


class SlowSiblings(Planner):
    """'Find the sibling of <the question's entity>' (not the entity), one batch at a time, ``seconds`` a batch."""

    name = "slow-siblings"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.batches: list[list[str]] = []
        self._lock = threading.Lock()

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        with self._lock:
            self.batches.append([r.question for r in requests])
            time.sleep(self.seconds)
        results: list[ChunkResult] = []
        for request in requests:
            (name,) = request.entities.values()
            text = (
                f"Type: simple\nFind the sibling of the person {name}, assign it to ?x.\n"
                f"Make sure ?x is not {name}.\nThe answer is ?x.\n"
            )
            results.append((text, parse_plan(text), 1))
        return results


@pytest.fixture
def served(fixture_kg: FixtureKG) -> Iterator[tuple[Any, SlowSiblings, BatchingPlanner]]:
    inner = SlowSiblings(seconds=0.5)
    planner = BatchingPlanner(inner, max_batch=8, window_ms=200)
    store = OxigraphStore(fixture_kg.store)
    pipeline = Pipeline(bank=load_bank(fixture_kg.bank), planner=planner, store=store, settings=Settings())
    service = serve(pipeline, host="127.0.0.1", port=0, max_concurrency=8)
    try:
        yield service, inner, planner
    finally:
        service.stop(0)
        pipeline.close()


def ask(address: str, mid: str, timeout: float | None = 60.0) -> Any:
    with Client(address, timeout=timeout) as client:
        return client.ask(f"who is the sibling of {PEOPLE[mid][0]}?", {mid: PEOPLE[mid][0]})


def test_concurrent_questions_share_a_batch_and_each_gets_its_own_plan(served: Any) -> None:
    service, inner, _ = served
    with ThreadPoolExecutor(len(PEOPLE)) as pool:
        results = dict(zip(PEOPLE, pool.map(lambda mid: ask(service.address, mid), PEOPLE), strict=True))
    for mid, result in results.items():
        name, sibling = PEOPLE[mid]
        assert result.plan[1] == f"Find the sibling of the person {name}, assign it to ?x."
        assert [a.name for a in result.answers] == [sibling], (mid, result.error)
    assert sorted(q for batch in inner.batches for q in batch) == sorted(
        f"who is the sibling of {name}?" for name, _ in PEOPLE.values()
    )
    assert max(len(batch) for batch in inner.batches) > 1  # one gathering window of 200 ms took several


def test_a_deadline_holds_per_question_inside_a_batch(served: Any) -> None:
    service, inner, _ = served
    with ThreadPoolExecutor(3) as pool:
        patient = [pool.submit(ask, service.address, mid) for mid in ("m.0p_cy", "m.0p_gus")]
        hurried = pool.submit(ask, service.address, "m.0p_hal", 0.3)  # a batch takes 0.5 s
        with pytest.raises(ServiceError) as caught:
            hurried.result(timeout=60)
        assert caught.value.code.name == "DEADLINE_EXCEEDED"
        answers = [[a.name for a in f.result(timeout=60).answers] for f in patient]
    assert answers == [["Dee Quill"], ["Hal Orr"]]
    deadline = time.monotonic() + 60
    while service.servicer.limiter.in_flight and time.monotonic() < deadline:  # hang guard
        time.sleep(0.01)
    assert service.servicer.limiter.in_flight == 0


def test_a_passed_deadline_is_left_out_of_its_batch(fixture_kg: FixtureKG) -> None:
    inner = SlowSiblings(seconds=0.0)
    planner = BatchingPlanner(inner, max_batch=4, window_ms=300)
    with ThreadPoolExecutor(2) as pool:
        late = pool.submit(planner.plan, "who is late?", {"m.0p_cy": "Cy Quill"}, deadline=time.monotonic() + 0.05)
        on_time = pool.submit(planner.plan, "who is on time?", {"m.0p_gus": "Gus Orr"})
        with pytest.raises(DeadlineExceeded):
            late.result(timeout=60)
        assert "Gus Orr" in on_time.result(timeout=60).text
    assert inner.batches == [["who is on time?"]]
    planner.close()
    with pytest.raises(PlannerError, match="closed"):
        planner.plan("after close?", {"m.0p_cy": "Cy Quill"})


def test_batching_is_bounded() -> None:
    with pytest.raises(PlannerError, match="1 to 64"):
        BatchingPlanner(SlowSiblings(0.0), max_batch=0)
    with pytest.raises(PlannerError, match="gathering window"):
        BatchingPlanner(SlowSiblings(0.0), window_ms=5_000)
