"""Plan repairs: one ordered list of rules that every planner's plans pass through.

A small decoder slips in ways a rule can put right from the question alone: a value
miscopied (``after 19392`` for *after January 2, 1939*), a variable assigned again only to
be pinned to a value. (A third rule, which dropped a second tie of an entity through a
relation the question never words, was fitted to one CWQ seed's habit and was removed in
the review of issue 40.) Each rule is a module named like its function, ``rule(plan, asked) -> plan``, with
a doctest, as the optimiser's passes are (``compiler/optimizer``); :data:`RULES` is their
order and :func:`repair` runs them. :class:`~nl2sparql.planner.backends.base.Planner`
applies them to every backend's plans and alternatives (local model, chat server,
recorded plans, oracle), so no backend keeps repairs of its own. A rule returns the very
plan it was given when it has nothing to put right.

>>> from nl2sparql.plan.reader import parse_plan
>>> from nl2sparql.plan.writer import format_plan
>>> plan = parse_plan('''Find the country that the language Portuguese is spoken in, assign it to ?x.
... Find the child labor percentage of the country ?x, assign it to ?v1.
... Make sure ?v1 is "1.9".
... The answer is ?x.''')
>>> asked = Asked.of("what portuguese speaking country has a child labor percent of 1.8?", {"m.05zjd": "Portuguese"})
>>> print(format_plan(repair(plan, asked)).splitlines()[2])
Make sure ?v1 is "1.8".
>>> [rule.__name__ for rule in RULES]
['copy_values', 'fresh_rebound']
"""

from __future__ import annotations

from collections.abc import Callable

from nl2sparql.plan.steps import Plan
from nl2sparql.planner.repairs.asked import Asked
from nl2sparql.planner.repairs.copy_values import copy_values
from nl2sparql.planner.repairs.fresh_rebound import fresh_rebound

__all__ = ["RULES", "Asked", "Rule", "repair"]

Rule = Callable[[Plan, Asked], Plan]

#: the repairs, in the order they run: values first (a later rule reads the values it pins)
RULES: tuple[Rule, ...] = (copy_values, fresh_rebound)


def repair(plan: Plan, asked: Asked, rules: tuple[Rule, ...] = RULES) -> Plan:
    """``plan`` after every rule of ``rules``, in order."""
    for rule in rules:
        plan = rule(plan, asked)
    return plan
