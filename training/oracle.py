"""The ``oracle`` planner: the gold plan of a question, synthesised from its gold SPARQL.

It measures the rest of the pipeline (recall, compilation, execution) with a perfect
planner, the upper bound a trained planner is compared with. The synthesiser belongs to
the query-reconstruction work, so it is injected: ``open_planner("oracle",
synthesise=fn)`` with ``fn(gold_sparql, entities) -> Plan``, or named by import path in
the spec, ``oracle:package.module:function``; plain ``oracle`` uses
:class:`nl2sparql.training.synthesise.PlanSynthesiser`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Plan
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.backends.base import Planner, PlanRequest
from nl2sparql.planner.errors import PlannerError

Synthesise = Callable[[str, Mapping[str, str]], Plan]


class OraclePlanner(Planner):
    """Gold plans: ``synthesise(gold_sparql, entities)`` for each question that has gold SPARQL."""

    name = "oracle"

    def __init__(self, synthesise: Synthesise) -> None:
        if not callable(synthesise):
            raise PlannerError("the oracle planner needs a callable synthesise(gold_sparql, entities) -> Plan")
        self.synthesise = synthesise

    def _plan_one(self, request: PlanRequest) -> tuple[str, Plan, int] | PlannerError:
        if not request.gold_sparql or not request.gold_sparql.strip():
            return PlannerError(
                "the oracle planner needs the question's gold SPARQL, and it has none", request.question
            )
        try:
            plan = self.synthesise(request.gold_sparql, request.entities)
            if not isinstance(plan, Plan):
                raise PlannerError(f"the synthesiser returned {type(plan).__name__}, not a Plan")
            text = format_plan(plan, check=True)
            return text, parse_plan(text), 1
        except Nl2SparqlError as exc:
            return PlannerError(f"no gold plan from its SPARQL: {exc}", request.question, 1)

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[tuple[str, Plan, int] | PlannerError]:
        return [self._plan_one(request) for request in requests]

    def info(self) -> dict[str, Any]:
        function = self.synthesise
        return {
            "planner": self.name,
            "synthesise": f"{function.__module__}.{getattr(function, '__qualname__', '?')}",
        }


def _import_function(path: str) -> Synthesise:
    module_name, _, function_name = path.partition(":")
    if not module_name or not function_name:
        raise PlannerError(f"oracle:{path}: name the synthesiser as oracle:package.module:function")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as exc:
        raise PlannerError(f"oracle:{path}: cannot import the synthesiser ({exc})") from None
    return function  # type: ignore[no-any-return]


def default_synthesiser(bank: Any | None = None) -> Synthesise | None:
    """The project's gold-plan synthesiser as a ``(gold_sparql, entities) -> Plan`` function;
    with ``bank``, one that writes plans in that bank's words and namespaces
    (:meth:`~nl2sparql.training.synthesise.PlanSynthesiser.for_bank`: any graph, not only Freebase)."""
    try:
        from nl2sparql.training.synthesise import PlanSynthesiser
    except ImportError:
        return None
    synthesiser = PlanSynthesiser.for_bank(bank) if bank is not None else PlanSynthesiser()

    def synthesise(gold_sparql: str, entities: Mapping[str, str]) -> Plan:
        return synthesiser.synthesise(gold_sparql, entities).plan

    synthesise.__qualname__ = "PlanSynthesiser.synthesise"
    synthesise.__module__ = PlanSynthesiser.__module__
    return synthesise


def open_oracle(
    argument: str, synthesise: Synthesise | None = None, bank: Any | None = None, **options: Any
) -> OraclePlanner:
    """``oracle`` (the project's synthesiser, or ``synthesise=``) or ``oracle:module:function``;
    with ``bank``, the project's synthesiser writes its plans in that bank's words."""
    if options:
        raise PlannerError(f"unknown options for the oracle planner: {', '.join(sorted(options))}")
    if argument:
        synthesise = _import_function(argument)
    elif synthesise is None:
        synthesise = default_synthesiser(bank)
    if synthesise is None:
        raise PlannerError(
            "the oracle planner needs a gold-plan synthesiser: pass synthesise=fn(gold_sparql, entities) "
            "or name one as oracle:package.module:function"
        )
    return OraclePlanner(synthesise)
