"""Checks against Freebase ids, left out of a plan for a graph that is not Freebase.

Why: the planners learned from Freebase's plans, which check an answer's type by its id
(``Find the notable types of ?x, assign it to ?v2. Make sure ?v2 is m.01mp.``: m.01mp is
Freebase's *country*). On another graph no such id exists, so that one check failed the
whole plan (*In which country was Freddie Mercury born?*: born in, then located in, then
the Freebase type check). Without the check and the step that only fed it, the plan still
says what is asked. A plan for Freebase keeps them: there the ids are real.
"""

from __future__ import annotations

import re
from dataclasses import replace

from nl2sparql.planner.plan import Answer, Find, MakeSure, Mention, Plan, Step

#: a Freebase machine id as plans write it (``m.01mp``, ``g.11b6...``), with or without ``ns:``
FREEBASE_ID = re.compile(r"^(?:ns:)?[mg]\.[0-9a-z_]+$", re.IGNORECASE)


def _checks_a_freebase_id(step: Step) -> bool:
    return isinstance(step, MakeSure) and isinstance(step.value, Mention) and bool(FREEBASE_ID.match(step.value.text))


def without_freebase_ids(plan: Plan) -> Plan:
    """``plan`` without its ``Make sure ?v is m.xxx`` steps and the ``Find`` steps whose result
    nothing else reads any more (the plan itself when it has none).

    >>> from nl2sparql.grammar.plan_transformer import parse_plan
    >>> from nl2sparql.grammar.plan_format import format_plan
    >>> plan = parse_plan("Find the place of birth of X, assign it to ?x.\\n"
    ...                   "Find the notable types of ?x, assign it to ?v2.\\nMake sure ?v2 is m.01mp.\\n"
    ...                   "The answer is ?x.\\n")
    >>> print(format_plan(without_freebase_ids(plan)), end="")
    Find the place of birth of X, assign it to ?x.
    The answer is ?x.
    """
    steps = [step for step in plan.steps if not _checks_a_freebase_id(step)]
    if len(steps) == len(plan.steps):
        return plan
    while True:
        read = {var for step in steps for var in step.inputs}
        unread = [
            i
            for i, step in enumerate(steps)
            if isinstance(step, Find) and step.target not in read and step.target != plan.answer
        ]
        if not unread:
            break
        steps = [step for i, step in enumerate(steps) if i not in unread]
    if not any(isinstance(step, Find) for step in steps) or not any(isinstance(s, Answer) for s in steps):
        return plan
    return replace(plan, steps=tuple(steps))
