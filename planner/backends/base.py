"""What every planner backend offers: plan one question, or many in batches.

Backends differ in where plans come from (a local model, a chat-completions server, the
gold SPARQL) but not in what they return: a :class:`PlannerOutput` with the plan text,
the parsed :class:`~nl2sparql.plan.steps.Plan`, how many candidates were read and the
time it took. A backend implements :meth:`Planner._plan_chunk`; batching, timing, the plan repairs
(:mod:`nl2sparql.planner.repairs`, which every backend's plans and alternatives pass
through) and the choice between raising and returning per-question errors live here, once.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import Any, Literal

from nl2sparql.errors import DeadlineExceeded
from nl2sparql.plan.steps import Plan, PlanError
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.repairs import RULES, Asked, Rule, repair


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """A question, its entities ``{id: name}`` and, for the oracle, its gold SPARQL."""

    question: str
    entities: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    gold_sparql: str | None = None

    @classmethod
    def of(cls, value: PlanRequest | Mapping[str, Any] | str) -> PlanRequest:
        """A request from a batch record (``question``, ``entities``, ``gold_sparql``) or a question."""
        if isinstance(value, PlanRequest):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Mapping):
            question = value.get("question")
            if not isinstance(question, str) or not question.strip():
                raise PlannerError(f"a plan request needs a non-empty 'question' (got {question!r})")
            entities = value.get("entities") or {}
            if not isinstance(entities, Mapping):
                raise PlannerError(f"'entities' must map ids to names (got {type(entities).__name__})")
            return cls(question, dict(entities), value.get("gold_sparql"))
        raise PlannerError(f"cannot make a plan request from {type(value).__name__}")


@dataclass(frozen=True, slots=True)
class PlannerOutput:
    """A plan that parsed: ``text`` is its canonical form (``format_plan``), ``raw`` what the
    backend wrote; ``latency_ms`` is this question's share of the call that made it."""

    text: str
    plan: Plan
    attempts: int
    latency_ms: float
    raw: str = ""
    #: other plans the backend found readable, best first (a local model's other beams)
    alternatives: tuple[Plan, ...] = ()


Errors = Literal["raise", "return"]
#: What a backend makes of one request: ``(text, plan, attempts)``, optionally with a fourth
#: item, the alternative plans, best first; or the error.
ChunkResult = tuple[str, Plan, int] | tuple[str, Plan, int, tuple[Plan, ...]] | PlannerError


def _canonical(plan: Plan, raw: str) -> str:
    try:
        return format_plan(plan)
    except PlanError:  # a plan that parsed but that the formatter cannot write: keep what was read
        return raw if raw.endswith("\n") else raw + "\n"


class Planner(ABC):
    """A source of plans; open one with :func:`nl2sparql.planner.backends.open_planner`."""

    name: str = "planner"
    #: the repairs this planner's plans pass through (:data:`nl2sparql.planner.repairs.RULES`)
    repairs: tuple[Rule, ...] = RULES

    @abstractmethod
    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        """``(text, plan, attempts[, alternatives])`` or the error, for each request of one batch."""

    def plan(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        gold_sparql: str | None = None,
        *,
        deadline: float | None = None,
    ) -> PlannerOutput:
        """The plan for one question; :class:`PlannerError` when none could be made.

        ``deadline`` (a :func:`time.monotonic` time) is checked before planning starts; a
        batching planner (:mod:`nl2sparql.planner.batcher`) also stops waiting when it passes.
        """
        if deadline is not None and time.monotonic() >= deadline:
            raise DeadlineExceeded("deadline exceeded before planning")
        request = PlanRequest(question, dict(entities or {}), gold_sparql)
        (output,) = self.plan_batch([request], batch_size=1)
        assert isinstance(output, PlannerOutput)
        return output

    def plan_batch(
        self,
        requests: Iterable[PlanRequest | Mapping[str, Any] | str],
        batch_size: int = 16,
        errors: Errors = "raise",
    ) -> list[PlannerOutput | PlannerError]:
        """Plans for many questions, ``batch_size`` at a time, in order.

        ``errors="raise"`` raises the first :class:`PlannerError`; ``"return"`` puts it in
        the list in place of that question's output, so one bad question does not stop a run.
        """
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        pending = [PlanRequest.of(request) for request in requests]
        outputs: list[PlannerOutput | PlannerError] = []
        for start in range(0, len(pending), batch_size):
            chunk = pending[start : start + batch_size]
            began = time.perf_counter()
            results = self._plan_chunk(chunk)
            share = (time.perf_counter() - began) * 1000 / len(chunk)
            for request, result in zip(chunk, results, strict=True):
                if isinstance(result, PlannerError):
                    if errors == "raise":
                        raise result
                    outputs.append(result)
                else:
                    raw, plan, attempts, *more = result
                    asked = Asked.of(request.question, request.entities)
                    plan = repair(plan, asked, self.repairs)
                    alternatives = tuple(repair(p, asked, self.repairs) for p in (more[0] if more else ()))
                    outputs.append(PlannerOutput(_canonical(plan, raw), plan, attempts, share, raw, alternatives))
        return outputs

    def alternatives(self, request: PlanRequest, chosen: Plan, *, deadline: float | None = None) -> tuple[Plan, ...]:
        """Other plans for ``request`` than ``chosen``, best first, computed only when asked for
        (a plan that compiles to nothing or answers nothing). Backends that find alternatives
        while planning return them with the plan instead; this default has none more."""
        return ()

    def alternatives_batch(
        self, requests: Sequence[PlanRequest], chosen: Sequence[Plan]
    ) -> list[tuple[Plan, ...] | PlannerError]:
        """:meth:`alternatives` for many questions at once, repaired like every plan."""
        found = self._alternatives_batch(requests, chosen)
        return [
            plans
            if isinstance(plans, PlannerError)
            else tuple(repair(p, Asked.of(r.question, r.entities), self.repairs) for p in plans)
            for plans, r in zip(found, requests, strict=True)
        ]

    def _alternatives_batch(
        self, requests: Sequence[PlanRequest], chosen: Sequence[Plan]
    ) -> list[tuple[Plan, ...] | PlannerError]:
        """A backend's other plans for many questions (a local model decodes them as one batch)."""
        found: list[tuple[Plan, ...] | PlannerError] = []
        for request, plan in zip(requests, chosen, strict=True):
            try:
                found.append(self.alternatives(request, plan))
            except PlannerError as exc:
                found.append(exc)
        return found

    def info(self) -> dict[str, Any]:
        """What this planner is (for ``nl2sparql planner info`` and the service's trace)."""
        return {"planner": self.name}

    def close(self) -> None:  # noqa: B027  (most backends hold nothing to release)
        """Release what the backend holds (models, connections)."""

    def __enter__(self) -> Planner:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
