"""Numbers in a plan are the question's numbers, copied, not generated.

A word-piece decoder writes the number of "where the child labor percentage was once 1.8"
as ``"1"`` and "-1.61" as ``"-61.1"``: it generates digits where it should copy them, and
a comparison with the wrong constant answers nothing. So the value of a ``Make sure`` step
that is a number the question does not hold is replaced by the question's number most
like it (same digits, in order), when one is alike enough; a value the question holds, a
date, a name and a question without numbers are left as they are. Measured on the CWQ dev
split in README "Measured figures".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher

from nl2sparql.grammar.plan_transformer import number_literal
from nl2sparql.planner.plan import Literal, MakeSure, Plan, Step

#: a number as questions write it: a sign, thousands commas, a decimal part
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w|,\d)|(?<![\w.])[-+−]?\d+(?:\.\d+)?(?![\w])")
#: a plan value that is a number (numbers and years are literals; CWQ's gold quotes them as strings)
_PLAN_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
#: how alike (difflib's ratio) a question's number must be to replace the plan's
MIN_LIKENESS = 0.5


def question_numbers(question: str) -> list[str]:
    """The numbers written in ``question``, commas dropped, in order.

    >>> question_numbers("which country, with an army of 101,000, had -1.61 inflation in 2011?")
    ['101000', '-1.61', '2011']
    """
    return [m.group().replace(",", "").replace("−", "-") for m in _NUMBER.finditer(question)]


def closest_number(value: str, numbers: Sequence[str]) -> str | None:
    """The number of ``numbers`` most like ``value`` (ties: the first), if alike enough.

    >>> closest_number("-61.1", ["1993", "-1.61"])
    '-1.61'
    >>> closest_number("1", ["1.8"])
    '1.8'
    >>> closest_number("42", ["1999"]) is None
    True
    """
    scored = [(SequenceMatcher(None, value, number).ratio(), -i, number) for i, number in enumerate(numbers)]
    best = max(scored, default=None)
    return best[2] if best is not None and best[0] >= MIN_LIKENESS else None


def copy_numbers(plan: Plan, question: str) -> Plan:
    """``plan`` with each generated number replaced by the question's number it miscopied."""
    numbers = question_numbers(question)
    if not numbers:
        return plan
    steps = tuple(_copied(step, numbers) for step in plan.steps)
    return plan if steps == plan.steps else replace(plan, steps=steps)


def _copied(step: Step, numbers: Sequence[str]) -> Step:
    if not isinstance(step, MakeSure) or not isinstance(step.value, Literal):
        return step
    value = step.value
    if value.kind == "date" or not _PLAN_NUMBER.fullmatch(value.value) or _held(value.value, numbers):
        return step
    found = closest_number(value.value, numbers)
    if found is None:
        return step
    # a bare number takes the kind the grammar reads: "after 193" is a number, "after 1939" a year
    copied = Literal(found, value.kind) if value.kind == "string" else number_literal(found, step.op)
    return replace(step, value=copied)


def _held(value: str, numbers: Sequence[str]) -> bool:
    return any(value == number or float(value) == float(number) for number in numbers)
