"""The analytic shapes: groups with HAVING, optional values, absence, arithmetic.

Analytic questions ask for several columns, a value per group ("for each band, the number
of albums"), groups that pass a test ("bands with more than 3 members"), rows that lack
something ("bands with no nickname"), values that may be missing, and differences or
shares of two values. The plan says each in one sentence; this module holds the SPARQL
1.1 each becomes, and which steps are lowered together:

* consecutive ``Count``/``Compute`` steps over the same groups are one ``SELECT`` (two
  aggregates of one pattern: ``(MAX(?y) AS ?a) (MIN(?y) AS ?b)``), see :func:`aggregate_run`;
* a ``Make sure`` comparing a grouped count or computation with a constant is its
  ``HAVING`` (:func:`having_steps`, :func:`having_condition`);
* ``Find ..., assign it to ?v if any.`` -> ``OPTIONAL { ... }``;
* ``Make sure nothing is the nickname of ?x.`` -> ``FILTER NOT EXISTS { ... }``;
* ``Compute ?a minus ?b, assign it to ?d.`` -> ``BIND((?a - ?b) AS ?d)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from nl2sparql.compiler.ast import (
    BGP,
    XSD_INTEGER,
    Aggregate,
    BinaryOp,
    Bind,
    Expression,
    Filter,
    GroupPattern,
    Literal,
    NotExists,
    Optional,
    TriplePattern,
    Var,
)
from nl2sparql.compiler.lowering import filters
from nl2sparql.compiler.lowering.options import LoweringError
from nl2sparql.plan.steps import Calculate, Compute, Count, MakeSure, Step
from nl2sparql.plan.steps import Literal as PlanLiteral

#: ``Calculate`` operators -> SPARQL operators (``as a percentage of`` is ``100 * ?a / ?b``)
ARITHMETIC_OPERATORS = {"plus": "+", "minus": "-", "times": "*", "divided by": "/"}


def arithmetic(step: Calculate) -> Bind:
    """``BIND`` of the value ``step`` computes.

    >>> from nl2sparql.plan.steps import Var as V
    >>> print(arithmetic(Calculate("as a percentage of", V("a"), V("b"), V("p"))))
    BIND (100 * ?a / ?b AS ?p)
    """
    a, b = Var(step.a.name), Var(step.b.name)
    if step.op == "as a percentage of":
        value: Expression = BinaryOp("/", BinaryOp("*", Literal("100", XSD_INTEGER), a), b)
    else:
        value = BinaryOp(ARITHMETIC_OPERATORS[step.op], a, b)
    return Bind(value, Var(step.target.name))


def optional(triples: Sequence[TriplePattern]) -> Optional:
    """``OPTIONAL { triples }``: an optional ``Find``'s statement."""
    return Optional(GroupPattern((BGP(tuple(triples)),)))


def absent(triples: Sequence[TriplePattern]) -> Filter:
    """``FILTER NOT EXISTS { triples }``: ``Make sure nothing is ...``."""
    return Filter(NotExists(GroupPattern((BGP(tuple(triples)),))))


def aggregate_run(steps: Sequence[Step], index: int) -> list[int]:
    """Step ``index`` (a ``Count`` or ``Compute``) and the aggregates right after it over the
    same groups that read none of the run's results: one ``SELECT`` computes them all."""
    first = steps[index]
    assert isinstance(first, Count | Compute)
    run = [index]
    targets = {first.target}
    for other in range(index + 1, len(steps)):
        step = steps[other]
        if not isinstance(step, Count | Compute) or step.per != first.per or targets & set(step.inputs):
            break
        run.append(other)
        targets.add(step.target)
    return run


def having_steps(steps: Sequence[Step], run: Sequence[int]) -> list[int]:
    """The ``Make sure`` steps that test a grouped aggregate of ``run`` against a constant:
    the ``HAVING`` of its ``SELECT``. An aggregate with no groups keeps its ``FILTER``."""
    first = steps[run[0]]
    assert isinstance(first, Count | Compute)
    if not first.per:
        return []
    targets = {steps[i].target for i in run}
    return [
        i
        for i in range(run[-1] + 1, len(steps))
        if _tests_constant(steps[i]) and steps[i].var in targets  # type: ignore[union-attr]
    ]


def _tests_constant(step: Step) -> bool:
    return (
        isinstance(step, MakeSure)
        and step.op in filters.OPERATORS
        and isinstance(step.value, PlanLiteral)
        and step.value.kind != "string"
    )


def having_condition(step: MakeSure, aggregate: Aggregate) -> Expression:
    """``COUNT(DISTINCT ?m) > 3`` for ``Make sure ?n is greater than 3.`` on that count.

    >>> from nl2sparql.plan.steps import Var as V
    >>> count = Aggregate("COUNT", Var("m"), distinct=True)
    >>> print(having_condition(MakeSure(V("n"), "greater than", PlanLiteral("3", "number")), count))
    COUNT(DISTINCT ?m) > 3
    """
    if not isinstance(step.value, PlanLiteral):
        raise LoweringError(f"a test of {step.var} on a group compares with a number, not {step.value!r}")
    value = filters.typed_literal(step.value.value, step.value.kind, None)
    return BinaryOp(filters.sparql_operator(step.op, step.negated), aggregate, filters.complete_datetime(value))
