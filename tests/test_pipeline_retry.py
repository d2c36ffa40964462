"""KELGoP's retry: when a plan's query answers nothing, or it compiles to no query at all, the
pipeline tries the planner's other plans.

A planner here writes a first plan that cannot answer on the fixture graph (Cy Quill's
sibling must be Gus Orr, who is not) and offers a second that can; the pipeline must
answer with the second, say so in the result (its type and plan) and keep every query
tried in the trace, each with the type of the plan it came from. The store is Oxigraph on
the fixture graph of ``conftest.py``, the bank is built from it with the bundled MiniLM.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from conftest import FixtureKG

from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.memory_bank.bank_file import load_bank
from nl2sparql.pipeline import Pipeline
from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner.backends.base import ChunkResult, Planner, PlanRequest
from nl2sparql.settings import Settings

UNANSWERABLE = parse_plan(
    "Type: conjunction\n"
    "Find the sibling of the person Cy Quill, assign it to ?x.\n"
    "Make sure ?x is Gus Orr.\n"
    "The answer is ?x.\n"
)
ANSWERABLE = parse_plan(
    "Type: simple\n"
    "Find the sibling of the person Cy Quill, assign it to ?x.\n"
    "Make sure ?x is not Cy Quill.\n"
    "The answer is ?x.\n"
)
ENTITIES = {"m.0p_cy": "Cy Quill", "m.0p_gus": "Gus Orr"}


class TwoPlans(Planner):
    """Always the unanswerable plan first, the answerable one as its alternative."""

    name = "two-plans"

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        return [("", UNANSWERABLE, 1, (ANSWERABLE,)) for _ in requests]


@pytest.fixture(scope="module")
def parts(fixture_kg: FixtureKG) -> Iterator[tuple[Any, Any]]:
    store = OxigraphStore(fixture_kg.store)
    yield store, load_bank(fixture_kg.bank)
    store.close()


UNRESOLVABLE = parse_plan(
    "Type: simple\nFind the sibling of the person Selena Gomez, assign it to ?x.\nThe answer is ?x.\n"
)


class BrokenFirst(Planner):
    """A first plan naming nobody of the question, the answerable one as its alternative."""

    name = "broken-first"

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        return [("", UNRESOLVABLE, 1, (ANSWERABLE,)) for _ in requests]


def pipeline(parts: tuple[Any, Any], retries: int, planner: Planner | None = None) -> Pipeline:
    store, bank = parts
    return Pipeline(bank=bank, planner=planner or TwoPlans(), store=store, settings=Settings(plan_retries=retries))


def test_a_plan_that_answers_nothing_makes_way_for_the_next(parts: tuple[Any, Any]) -> None:
    result = pipeline(parts, retries=2).ask("who is cy quill's sibling, gus orr?", ENTITIES)
    assert [a.name for a in result.answers] == ["Dee Quill"] and result.error is None
    assert result.type == "simple" and result.plan[1] == "Find the sibling of the person Cy Quill, assign it to ?x."
    types = [a.plan_type for a in result.attempts]
    assert types[0] == "conjunction" and types[-1] == "simple" and all(a.answers == 0 for a in result.attempts[:-1])
    assert result.attempts[-1].answers == 1 and result.recalled[0].step.startswith("Find the sibling of")


def test_without_retries_or_execution_the_first_plan_stands(parts: tuple[Any, Any]) -> None:
    answered = pipeline(parts, retries=0).ask("who is cy quill's sibling, gus orr?", ENTITIES)
    assert answered.answers == () and answered.type == "conjunction" and "returned answers" in (answered.error or "")
    assert {a.plan_type for a in answered.attempts} == {"conjunction"}
    translated = pipeline(parts, retries=2).translate("who is cy quill's sibling, gus orr?", ENTITIES)
    assert translated.type == "conjunction" and translated.sparql and "Gus" not in translated.sparql


def test_plan_retries_is_a_setting() -> None:
    assert Settings().plan_retries == 2
    with pytest.raises(Exception, match="plan_retries must be zero or positive"):
        Settings(plan_retries=-1)


@pytest.mark.parametrize("execute", [True, False])
def test_a_plan_that_does_not_compile_makes_way_for_the_next(parts: tuple[Any, Any], execute: bool) -> None:
    result = pipeline(parts, retries=2, planner=BrokenFirst()).ask(
        "who is cy quill's sibling?", ENTITIES, execute=execute
    )
    assert result.error is None and result.type == "simple" and result.sparql and "m.0p_cy" in result.sparql
    assert result.plan[1] == "Find the sibling of the person Cy Quill, assign it to ?x."
    assert result.recalled and result.recalled[0].step.startswith("Find the sibling of the person Cy Quill")
    assert [a.name for a in result.answers] == (["Dee Quill"] if execute else [])


def test_without_retries_a_plan_that_does_not_compile_is_the_error(parts: tuple[Any, Any]) -> None:
    result = pipeline(parts, retries=0, planner=BrokenFirst()).translate("who is cy quill's sibling?", ENTITIES)
    assert result.sparql is None and "'the person Selena Gomez' matches none" in (result.error or "")


def test_a_retried_plan_recalls_only_the_sentences_its_first_plan_did_not(
    parts: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder, embedded = parts[1].embedder, []
    encode = embedder.encode

    def recording(sentences: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        embedded.extend(sentences)
        return encode(sentences, *args, **kwargs)

    monkeypatch.setattr(embedder, "encode", recording)
    result = pipeline(parts, retries=2).ask("who is cy quill's sibling, gus orr?", ENTITIES)
    assert [a.name for a in result.answers] == ["Dee Quill"]
    # both plans find Cy Quill's sibling (their constraints name entities: nothing to recall);
    # that sentence is embedded once, for the first plan, and recalled from there for the second
    assert [s for s in embedded if "sibling" in s] == embedded and len(embedded) == 1
