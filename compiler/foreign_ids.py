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

from nl2sparql.plan.steps import Find, MakeSure, Mention, Plan, Step, Var

#: a Freebase machine id as plans write it (``m.01mp``, ``g.11b6...``), with or without ``ns:``
FREEBASE_ID = re.compile(r"^(?:ns:)?[mg]\.[0-9a-z_]+$", re.IGNORECASE)


def _checks_a_freebase_id(step: Step) -> bool:
    return isinstance(step, MakeSure) and isinstance(step.value, Mention) and bool(FREEBASE_ID.match(step.value.text))


def kept_without_freebase_ids(plan: Plan) -> tuple[int, ...]:
    """The indices of the steps of ``plan`` to keep: all but its ``Make sure ?v is m.xxx``
    steps and the ``Find`` steps whose result nothing else reads any more. The answer's own
    steps are always kept (they are read, or assign the answer).

    >>> from nl2sparql.plan.reader import parse_plan
    >>> plan = parse_plan("Find the place of birth of X, assign it to ?x.\\n"
    ...                   "Find the notable types of ?x, assign it to ?v2.\\nMake sure ?v2 is m.01mp.\\n"
    ...                   "The answer is ?x.\\n")
    >>> kept_without_freebase_ids(plan)
    (0, 3)
    """
    kept = [i for i, step in enumerate(plan.steps) if not _checks_a_freebase_id(step)]
    while len(kept) < len(plan.steps):
        read = {var for i in kept for var in plan.steps[i].inputs}
        feeding = [i for i in kept if _feeds(plan.steps[i], read, plan.answer)]
        if len(feeding) == len(kept):
            break
        kept = feeding
    return tuple(kept)


def _feeds(step: Step, read: set[Var], answer: Var | None) -> bool:
    """Whether ``step`` is still needed: it is no ``Find``, or something reads what it finds."""
    return not isinstance(step, Find) or step.target in read or step.target == answer
