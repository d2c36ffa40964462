"""A variable the planner assigns again only to test it against a value is a new variable.

Two ``Find`` steps that assign one variable intersect: *the country that speaks
Portuguese* and *the country whose capital is Dili* are one ``?x``. A small decoder also
reuses a name by mistake: *Find the featured artist ... assign it to ?v1. Find the
institution of the education of the person ?v1, assign it to ?x. Find the school type of
the educational institution ?x, assign it to ?v1. Make sure ?v1 is High school.* pins the
artist to *High school*, and the query answers nothing. A second assignment that is then
only compared with a value (``Make sure ?v1 is High school``, ``... is after 1990``) is
such a slip (``is not``, the answer filter every plan ends with, pins nothing): no gold
plan of WebQSP train or CWQ part A has one (tests), nor does any of the 12,821 pairs the
shipped default was trained on, because a variable meant to equal a value is found once
and compared once. So that ``Find`` and the comparisons right after it get a fresh name;
everything else keeps the name it had.
"""

from __future__ import annotations

import re
from dataclasses import replace

from nl2sparql.plan.steps import OPERATORS, Find, MakeSure, Plan, Step, Var
from nl2sparql.planner.repairs.asked import Asked

_NUMBERED = re.compile(r"v(\d+)")
#: what pins a value: ``is`` and the comparisons, not ``is not`` (every plan's answer filter),
#: a time window (``holds during``: when, not what) or ``contains``
_PINNING = frozenset(OPERATORS) - {"holds during", "contains"}


def fresh_rebound(plan: Plan, asked: Asked) -> Plan:
    """``plan`` with each slipped re-assignment given a variable of its own.

    >>> from nl2sparql.plan.reader import parse_plan
    >>> from nl2sparql.plan.writer import format_plan
    >>> plan = parse_plan('''Find the artist of the recording Girl Tonight, assign it to ?v1.
    ... Find the school of the person ?v1, assign it to ?x.
    ... Find the school type of the school ?x, assign it to ?v1.
    ... Make sure ?v1 is High school.
    ... Make sure ?x is not ?v1.
    ... The answer is ?x.''')
    >>> print(format_plan(fresh_rebound(plan, Asked(''))).strip())
    Find the artist of the recording Girl Tonight, assign it to ?v1.
    Find the school of the person ?v1, assign it to ?x.
    Find the school type of the school ?x, assign it to ?v2.
    Make sure ?v2 is High school.
    Make sure ?x is not ?v1.
    The answer is ?x.
    """
    steps = list(plan.steps)
    assigned: set[Var] = set()
    for index, step in enumerate(steps):
        if not isinstance(step, Find):
            continue
        compared = _compared_after(steps, index)
        if step.target in assigned and compared:
            fresh = _fresh(steps)
            steps[index] = replace(step, target=fresh)
            for later in compared:
                steps[later] = replace(steps[later], var=fresh)  # type: ignore[arg-type]
        else:
            assigned.add(step.target)
    return plan if tuple(steps) == plan.steps else replace(plan, steps=tuple(steps))


def _compared_after(steps: list[Step], index: int) -> list[int]:
    """The ``Make sure`` steps right after ``steps[index]`` (up to the next ``Find``) that
    pin its target to a value; empty when any step there tests it otherwise (against a
    variable, ``is not``, a time window)."""
    target = steps[index].target  # type: ignore[union-attr]
    found: list[int] = []
    for later in range(index + 1, len(steps)):
        step = steps[later]
        if isinstance(step, Find):
            break
        if isinstance(step, MakeSure) and step.var == target:
            if isinstance(step.value, Var) or step.negated or step.op not in _PINNING:
                return []
            found.append(later)
    return found


def _fresh(steps: list[Step]) -> Var:
    """``?vN`` for the next N after every ``?vN`` the plan names."""
    numbers = [0]
    for step in steps:
        for var in (*step.inputs, getattr(step, "target", None)):
            if isinstance(var, Var) and (m := _NUMBERED.fullmatch(var.name)):
                numbers.append(int(m.group(1)))
    return Var(f"v{max(numbers) + 1}")
