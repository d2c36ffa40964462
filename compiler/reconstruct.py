"""Reconstruction with repair: try the recalled statements best-first until a query works.

Recall ranks several statements for each ``Find`` step, and the best one is not always
the right one. MemQ's answer is execution-guided repair: lower the plan with the best
statement for every step; if the query is invalid or (when a store is given) returns
nothing, try the next combination, in the order the candidate orderings give
(:mod:`~nl2sparql.compiler.orderings`: their demotions first, then the total score), up
to a bound. Every attempt is kept in the trace with its SPARQL and its error or answer
count, so a user can see why the final query is the one it is.

The compiler knows no store and no memory: statements arrive as :class:`Recalled` data
and execution is a callable (``execute(query) -> rows``) the caller supplies.
"""

from __future__ import annotations

import heapq
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nl2sparql.compiler.assemble import BindError, Recalled, ResolvedPlan
from nl2sparql.compiler.ast import Aggregate, Alias, AskQuery, Query, SelectQuery, SubSelect
from nl2sparql.compiler.errors import SparqlValidationError
from nl2sparql.compiler.generator import generate
from nl2sparql.compiler.lowering import LoweringError, LoweringOptions, lower
from nl2sparql.compiler.optimizer import optimize
from nl2sparql.compiler.orderings import Ranked, combination_key, ranked
from nl2sparql.compiler.validate import check
from nl2sparql.errors import Nl2SparqlError

__all__ = ["Attempt", "Reconstruction", "ReconstructionError", "combinations", "reconstruct"]

#: at most this many combinations of recalled statements are lowered (and run) per plan
DEFAULT_MAX_ATTEMPTS = 16
#: at most this many recalled statements per step take part in the search
DEFAULT_PER_STEP = 5

Execute = Callable[[Query], Sequence[Any]]


class ReconstructionError(Nl2SparqlError):
    """No combination of recalled statements gave a valid query; the message says why."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One combination tried: the statement chosen per ``Find`` step and what came of it."""

    choices: tuple[tuple[int, str], ...]
    score: float
    sparql: str | None = None
    error: str | None = None
    answers: int | None = None
    elapsed_ms: float | None = None  # time the store took to run it

    def to_json(self) -> dict[str, Any]:
        return {
            "choices": {str(step + 1): statement for step, statement in self.choices},
            "score": round(self.score, 6),
            "sparql": self.sparql,
            "error": self.error,
            "answers": self.answers,
            "elapsed_ms": None if self.elapsed_ms is None else round(self.elapsed_ms, 3),
        }


@dataclass(frozen=True, slots=True)
class Reconstruction:
    """The query chosen for a plan (lowered, then optimised and written), and every attempt.

    ``error`` is ``None`` when the chosen query validated (and, with a store, answered);
    otherwise ``query`` is the best valid query found (if any) and ``error`` says what
    went wrong.
    """

    query: Query | None
    optimized: Query | None
    sparql: str | None
    attempts: tuple[Attempt, ...]
    error: str | None = None
    rows: Sequence[Any] | None = field(default=None, compare=False)
    choices: Mapping[int, Recalled] = field(default_factory=dict, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None and self.query is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "sparql": self.sparql,
            "error": self.error,
            "attempts": [a.to_json() for a in self.attempts],
        }


def usable(resolved: ResolvedPlan, index: int, candidates: Sequence[Recalled]) -> list[Recalled]:
    """Graph statements among ``candidates`` whose number of inputs fits ``Find`` step ``index``."""
    wanted = len(resolved.finds[index].inputs)
    return [c for c in candidates if c.kind == "graph" and len(c.inputs) == wanted and c.output]


def combinations(lists: Sequence[Sequence[Ranked]], limit: int) -> list[tuple[int, ...]]:
    """Up to ``limit`` index vectors into ``lists``, best first by
    :func:`~nl2sparql.compiler.orderings.combination_key` (fewest demotions, then the highest
    total score; ties: lower ranks)."""
    if not lists:
        return [()]
    if any(not options for options in lists):
        return []

    def key(vector: tuple[int, ...]) -> tuple[tuple[int, ...], float]:
        return combination_key([options[i] for options, i in zip(lists, vector, strict=True)])

    start = tuple(0 for _ in lists)
    heap: list[tuple[tuple[tuple[int, ...], float], tuple[int, ...]]] = [(key(start), start)]
    seen = {start}
    out: list[tuple[int, ...]] = []
    while heap and len(out) < limit:
        _, vector = heapq.heappop(heap)
        out.append(vector)
        for position in range(len(vector)):
            if vector[position] + 1 < len(lists[position]):
                nxt = vector[:position] + (vector[position] + 1,) + vector[position + 1 :]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (key(nxt), nxt))
    return out


def reconstruct(
    resolved: ResolvedPlan,
    recalled: Mapping[int, Sequence[Recalled]],
    *,
    options: LoweringOptions | None = None,
    dialect: str = "sparql11",
    execute: Execute | None = None,
    stats: Mapping[str, int] | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    per_step: int = DEFAULT_PER_STEP,
) -> Reconstruction:
    """Lower ``resolved`` with the best combination of ``recalled`` statements that works.

    ``recalled[i]``: the scored candidates of step ``i`` (graph statements for ``Find``,
    constraints for ``Make sure``); which of a step's statements are tried, and in what order,
    the candidate orderings decide (:func:`~nl2sparql.compiler.orderings.ranked`), and an
    attempt's ``score`` is the total recall score of its statements. Without
    ``execute`` the first combination that lowers and validates is taken; with it, the first
    whose query returns rows. Raises
    :class:`ReconstructionError` when a ``Find`` step has no usable candidate at all.
    """
    finds = sorted(resolved.finds)
    lists = []
    for index in finds:
        found = usable(resolved, index, recalled.get(index, ()))
        options_for_step = ranked(resolved, index, found, options, per_step)
        if not options_for_step:
            given = len(recalled.get(index, ()))
            raise ReconstructionError(
                f"line {resolved.line(index)}: none of the {given} recalled statements takes "
                f"{len(resolved.finds[index].inputs)} input(s) as this step does"
            )
        lists.append(options_for_step)
    constraints = {i: tuple(c) for i, c in recalled.items() if i not in resolved.finds}
    attempts: list[Attempt] = []
    fallback: tuple[Query, Query, str, dict[int, Recalled]] | None = None
    zero: Reconstruction | None = None
    for vector in combinations(lists, max_attempts):
        chosen = {index: lists[k][i].statement for k, (index, i) in enumerate(zip(finds, vector, strict=True))}
        ids = tuple((index, chosen[index].id) for index in finds)
        score = sum(c.score for c in chosen.values())
        try:
            query = lower(resolved, chosen, constraints, options)
            _check(query)
            optimized = optimize(query, stats=stats)
            text = generate(optimized, dialect)
        except (LoweringError, BindError, SparqlValidationError) as exc:
            attempts.append(Attempt(ids, score, error=str(exc)))
            continue
        if fallback is None:
            fallback = (query, optimized, text, chosen)
        if execute is None:
            attempts.append(Attempt(ids, score, text))
            return Reconstruction(query, optimized, text, tuple(attempts), choices=chosen)
        started = time.perf_counter()
        try:
            rows = execute(optimized)
        except Nl2SparqlError as exc:
            elapsed = (time.perf_counter() - started) * 1000
            attempts.append(Attempt(ids, score, text, error=f"execution failed: {exc}", elapsed_ms=elapsed))
            continue
        elapsed = (time.perf_counter() - started) * 1000
        attempts.append(Attempt(ids, score, text, answers=len(rows), elapsed_ms=elapsed))
        if rows and (counts_nothing(optimized, rows) or compares_nothing(optimized, execute)):
            zero = zero or Reconstruction(query, optimized, text, (), rows=rows, choices=chosen)
        elif rows:
            return Reconstruction(query, optimized, text, tuple(attempts), rows=rows, choices=chosen)
    if zero is not None:  # every reading counts nothing: then nothing is the answer
        return replace(zero, attempts=tuple(attempts))
    if fallback is None:
        reasons = "; ".join(dict.fromkeys(a.error or "" for a in attempts))
        return Reconstruction(None, None, None, tuple(attempts), error=f"no valid query: {reasons}")
    query, optimized, text, chosen = fallback
    message = f"none of the {len(attempts)} queries tried returned answers"
    return Reconstruction(query, optimized, text, tuple(attempts), error=message, rows=(), choices=chosen)


def counts_nothing(query: Query, rows: Sequence[Any]) -> bool:
    """Whether ``rows`` are a ``COUNT`` of nothing: one row in which every counted value is 0.
    Execution-guided repair tries the plan's next reading then, as for a SELECT that returns
    no rows (a count over a relation read the wrong way round is 0, not an empty result).

    >>> from nl2sparql.compiler import parse
    >>> from nl2sparql.kg.terms import Term
    >>> query = parse("SELECT (COUNT(?m) AS ?n) WHERE { <urn:q> <urn:member> ?m }")
    >>> zero = Term.literal("0", "http://www.w3.org/2001/XMLSchema#integer")
    >>> counts_nothing(query, [{"n": zero}]), counts_nothing(query, [{"n": Term.literal("4")}])
    (True, False)
    """
    if not isinstance(query, SelectQuery) or len(rows) != 1 or not query.projection:
        return False
    counted = [
        item.var.name
        for item in query.projection
        if isinstance(item, Alias) and isinstance(item.expr, Aggregate) and item.expr.name.upper() == "COUNT"
    ]
    row = rows[0]
    return bool(counted) and all(getattr(row.get(name), "value", None) == "0" for name in counted)


def compares_nothing(query: Query, execute: Execute) -> bool:
    """Whether an ``ASK`` that compares counts (*does X have more members than Y?*) counts
    nothing on one side: a relation read the wrong way round counts 0 there, and the
    comparison still answers, so repair tries the next reading as :func:`counts_nothing` does.
    Each count is run on its own (only for such queries); one that fails to run says nothing.
    """
    if not isinstance(query, AskQuery):
        return False
    for sub in query.where.find_all(SubSelect):
        inner = replace(sub.query, prologue=query.prologue)
        try:
            if counts_nothing(inner, execute(inner)):
                return True
        except Nl2SparqlError:
            continue
    return False


def _check(query: Query) -> None:
    """Raise on the validator's errors; its warnings (a cartesian product) do not stop a query."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        problems = [p for p in check(query) if p.level == "error"]
    if problems:
        raise SparqlValidationError(problems[0].message, [p.message for p in problems])
