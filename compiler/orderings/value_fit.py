"""Statements whose value can be what the plan compares it with come first.

A plan that says ``Find the date of the cpi inflation rate of the statistical region ?x,
assign it to ?v1. Make sure ?v1 is "-1.61".`` has named the wrong value of the CVT: a date
is never -1.61, the rate is. Recall ranks statements by their descriptions alone, so the
date statement wins; the schema's ranges (``LoweringOptions.value_type`` and ``range_of``)
say what kind of value each statement gives, and the plan's own comparisons say what kind
it must be. Statements that cannot give such a value are tried only after every one that
can (with the default planner's plans: 9 CWQ dev questions get a better first query,
none a worse one; no WebQSP part A or dev query changes). This is the first of the
orderings (:data:`~nl2sparql.compiler.orderings.ORDERINGS`): it weighs more than any after
it, and it also chooses which statements a step tries.

Only what the plan states is used: a number, a date or an entity the step's variable is
compared with (``is``, ``greater than``, ``before``...). ``is not`` says nothing of a
value's kind (``Make sure ?x is not <the topic entity>`` follows dates too), and without a
schema (a graph of your own with no ranges) nothing is known, so nothing moves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nl2sparql.compiler.assemble import Recalled, ResolvedPlan, statement_triples
from nl2sparql.compiler.ast import IRI, XSD_DATETIME, Var
from nl2sparql.compiler.lowering.options import LoweringOptions
from nl2sparql.plan.steps import Literal, MakeSure

__all__ = ["compared_kinds", "output_kind", "value_fit"]

#: comparisons that say what kind of value the variable holds
_TYPED_OPERATORS = frozenset({"is", "greater than", "less than", "at least", "at most", "before", "after"})
_NUMBER = re.compile(r"^[+-]?\d[\d,]*(?:\.\d+)?$")
_YEAR = re.compile(r"^\d{4}$")
_DATE = re.compile(r"^\d{4}-\d\d(?:-\d\d)?(?:T[\d:]+Z?)?$")


def _literal_kinds(literal: Literal) -> frozenset[str]:
    """The kinds of value a literal can be: a bare year is a number or a date."""
    text = literal.value.strip()
    if literal.kind == "year" or _YEAR.match(text):
        return frozenset({"number", "date"})
    if literal.kind == "date" or _DATE.match(text):
        return frozenset({"date"})
    if literal.kind == "number" or _NUMBER.match(text):  # CWQ's plans quote numbers: "1.8"
        return frozenset({"number"})
    return frozenset()


def compared_kinds(resolved: ResolvedPlan, variable: str) -> list[frozenset[str]]:
    """For each comparison the plan makes of ``variable``, the kinds of value it can hold.

    >>> from nl2sparql.compiler.assemble import resolve_plan
    >>> from nl2sparql.plan.reader import parse_plan
    >>> plan = parse_plan('''Find the rate of the inflation of the country Arcadia, assign it to ?v.
    ... Make sure ?v is "1.8".
    ... Make sure ?v is not Arcadia.
    ... The answer is ?v.''')
    >>> [sorted(k) for k in compared_kinds(resolve_plan(plan, {"m.a": "Arcadia"}), "v")]
    [['number']]
    """
    found = []
    for index, step in enumerate(resolved.plan.steps):
        if not isinstance(step, MakeSure) or step.var.name != variable or step.negated:
            continue
        if step.op not in _TYPED_OPERATORS:
            continue
        if isinstance(step.value, Literal):
            kinds = _literal_kinds(step.value)
        else:
            kinds = frozenset({"entity"}) if isinstance(resolved.values.get(index), IRI) else frozenset()
        if kinds:
            found.append(kinds)
    return found


def output_kind(recalled: Recalled, options: LoweringOptions) -> str | None:
    """``number``, ``date`` or ``entity``: what the statement's output is, by the schema
    (``None``: the schema does not say). An output that is a subject is an entity."""
    if not recalled.output or (options.value_type is None and options.range_of is None):
        return None
    slot = recalled.output[1:]
    for triple in statement_triples(recalled.sparql):
        if isinstance(triple.subject, Var) and triple.subject.name == slot:
            return "entity"
        if isinstance(triple.object, Var) and triple.object.name == slot and isinstance(triple.predicate, IRI):
            return _object_kind(triple.predicate.value, options)
    return None


def _object_kind(predicate: str, options: LoweringOptions) -> str | None:
    datatype = options.value_type(predicate) if options.value_type else None
    if datatype is not None:
        return "date" if datatype == XSD_DATETIME else "number"
    type_id = options.range_of(predicate) if options.range_of else None
    if not type_id:
        return None
    return None if type_id.startswith("type.") else "entity"  # type.text, type.boolean...: not judged


def value_fit(
    resolved: ResolvedPlan, index: int, candidates: Sequence[Recalled], options: LoweringOptions | None
) -> list[bool]:
    """For each of ``candidates`` of ``Find`` step ``index``, whether it is demoted: its output
    cannot be what the plan compares it with. Nothing is demoted without a schema or without
    a comparison that says what kind of value the step's variable holds.

    >>> from nl2sparql.compiler.assemble import resolve_plan
    >>> from nl2sparql.compiler.lowering.options import XSD_FLOAT
    >>> from nl2sparql.plan.reader import parse_plan
    >>> plan = parse_plan('''Find the date of the inflation of the country Arcadia, assign it to ?v.
    ... Make sure ?v is "1.8".
    ... The answer is ?v.''')
    >>> resolved = resolve_plan(plan, {"m.a": "Arcadia"})
    >>> date = Recalled("d", "graph", "?e1 ns:c.inflation.date ?e2 .", ("?e1",), "?e2")
    >>> rate = Recalled("r", "graph", "?e1 ns:c.inflation.rate ?e2 .", ("?e1",), "?e2")
    >>> schema = LoweringOptions(value_type=lambda p: XSD_DATETIME if p.endswith("date") else XSD_FLOAT)
    >>> value_fit(resolved, 0, [date, rate], schema), value_fit(resolved, 0, [date, rate], None)
    ([True, False], [False, False])
    """
    if options is None:
        return [False] * len(candidates)
    wanted = compared_kinds(resolved, resolved.finds[index].target)
    if not wanted:
        return [False] * len(candidates)
    return [_misfit(output_kind(c, options), wanted) for c in candidates]


def _misfit(kind: str | None, wanted: Sequence[frozenset[str]]) -> bool:
    return kind is not None and any(kind not in kinds for kinds in wanted)
