"""Values in a plan are the question's values, copied, not generated.

A word-piece decoder writes the number of "where the child labor percentage was once 1.8"
as ``"1"`` and "-1.61" as ``"-61.1"``, "December 31, 1877" as ``1877-11-31`` or the year
alone, and the code "CHN" as ``"ch"``: it generates where it should copy, and a comparison
with the wrong constant answers nothing. So the value of a ``Make sure`` step that the
question does not hold is replaced by the question's value most like it, when one is alike
enough: a number by a number (numbers written in words count, "fifty-five" is 55), a date
or a year by a date the question writes (:mod:`~nl2sparql.planner.question_dates`), a
one-word string by a code the question writes in capitals. A value the question holds, a
name and a question without values are left as they are. Measured on the CWQ dev split in
README "Measured figures".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from text_to_num import alpha2digit

from nl2sparql.plan.reader import number_literal
from nl2sparql.plan.steps import Literal, MakeSure, Plan, Step
from nl2sparql.planner.repairs.asked import Asked
from nl2sparql.planner.repairs.question_dates import question_dates, without_dates

#: a number as questions write it: a sign, thousands commas, a decimal part
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w|,\d)|(?<![\w.])[-+−]?\d+(?:\.\d+)?(?![\w])")
#: a plan value that is a number (numbers and years are literals; CWQ's gold quotes them as strings)
_PLAN_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
#: a code a question writes in capitals ("CHN", "AGO", "ISO")
_CODE = re.compile(r"(?<!\w)[A-Z][A-Z0-9]+(?!\w)")
#: how alike (difflib's ratio) a question's number must be to replace the plan's
MIN_LIKENESS = 0.5
#: how alike a date (or a year) or a code must be: they are short, and a plan's "now"
#: (``holds during 2015-08-10``) is half like many dates
MIN_SHORT_LIKENESS = 0.8


@dataclass(frozen=True, slots=True)
class QuestionValues:
    """What a plan may copy from a question: its numbers (outside its dates), its dates (ISO) and its codes."""

    numbers: tuple[str, ...]
    dates: tuple[str, ...]
    codes: tuple[str, ...]

    @classmethod
    def of(cls, question: str) -> QuestionValues:
        """The values ``question`` writes.

        >>> QuestionValues.of("country with calling code over fifty-five, ISO CHN, since March 4, 1933?")
        QuestionValues(numbers=('55',), dates=('1933-03-04',), codes=('ISO', 'CHN'))
        """
        dates = question_dates(question)
        rest = alpha2digit(without_dates(question, dates), "en")
        return cls(tuple(question_numbers(rest)), tuple(d.iso for d in dates), tuple(_CODE.findall(question)))


def question_numbers(question: str) -> list[str]:
    """The numbers written in ``question``, commas dropped, in order.

    >>> question_numbers("which country, with an army of 101,000, had -1.61 inflation in 2011?")
    ['101000', '-1.61', '2011']
    """
    return [m.group().replace(",", "").replace("−", "-") for m in _NUMBER.finditer(question)]


def most_alike(value: str, candidates: Sequence[str], least: float = MIN_LIKENESS) -> str | None:
    """The text of ``candidates`` (numbers, dates, codes) most like ``value`` (ties: the
    first), if alike enough (difflib's ratio at least ``least``).

    >>> most_alike("-61.1", ["1993", "-1.61"])
    '-1.61'
    >>> most_alike("1", ["1.8"])
    '1.8'
    >>> most_alike("42", ["1999"]) is None
    True
    """
    scored = [(_likeness(value, text), -i, text) for i, text in enumerate(candidates)]
    best = max(scored, default=None)
    return best[2] if best is not None and best[0] >= least else None


def closest_date(value: str, dates: Sequence[str]) -> str | None:
    """The date of ``dates`` that ``value`` (a date, or a year) miscopies, if one does.

    >>> closest_date("1877-11-31", ["1877-12-31"])
    '1877-12-31'
    >>> closest_date("1981", ["1981-10-28"])
    '1981-10-28'
    >>> closest_date("19392", ["1939-01-02"])
    '1939-01-02'
    >>> closest_date("2015-08-10", ["1933-03-04"]) is None
    True
    """
    if "-" not in value:
        return _by_year(value, dates)
    same_year = [d for d in dates if d[:4] == value[:4]]
    return most_alike(value, same_year, least=0.0) or most_alike(value, dates, MIN_SHORT_LIKENESS)


def copy_values(plan: Plan, asked: Asked) -> Plan:
    """``plan`` with each generated value replaced by the question's value it miscopied.

    >>> from nl2sparql.plan.reader import parse_plan
    >>> plan = parse_plan('''Find the date of the battle X, assign it to ?d.
    ... Make sure ?d is after 19392.
    ... The answer is ?d.''')
    >>> copy_values(plan, Asked("which battles were fought after January 2, 1939?")).steps[1].value.value
    '1939-01-02'
    """
    values = QuestionValues.of(asked.question)
    if not (values.numbers or values.dates or values.codes):
        return plan
    steps = tuple(_copied(step, values) for step in plan.steps)
    return plan if steps == plan.steps else replace(plan, steps=steps)


def _by_year(year: str, dates: Sequence[str]) -> str | None:
    years = [d[:4] for d in dates]
    found = most_alike(year, years, MIN_SHORT_LIKENESS)
    return dates[years.index(found)] if found is not None else None


def _copied(step: Step, values: QuestionValues) -> Step:
    if not isinstance(step, MakeSure) or not isinstance(step.value, Literal):
        return step
    value = step.value
    number = _PLAN_NUMBER.fullmatch(value.value) is not None
    if value.kind == "string" and not number:
        return _copied_code(step, value, values.codes)
    if value.value in values.dates or (number and _held(value.value, values.numbers)):
        return step
    dated = values.dates and (value.kind == "date" or _a_year(value.value, step.op))
    if dated and (found := closest_date(value.value, values.dates)) is not None:
        number_alike = max((_likeness(value.value, n) for n in values.numbers), default=0.0)
        if value.kind == "date" or _likeness(value.value, found[:4]) >= number_alike:
            return replace(step, value=Literal(found, "date"))
    if not number or (found := most_alike(value.value, values.numbers)) is None:
        return step
    # a bare number takes the kind the grammar reads: "after 193" is a number, "after 1939" a year
    copied = Literal(found, value.kind) if value.kind == "string" else number_literal(found, step.op)
    return replace(step, value=copied)


def _copied_code(step: MakeSure, value: Literal, codes: Sequence[str]) -> Step:
    folded = {code.casefold(): code for code in codes}
    text = value.value.casefold()
    if " " in text or text in folded:
        return step
    found = most_alike(text, list(folded), MIN_SHORT_LIKENESS)
    return step if found is None else replace(step, value=Literal(folded[found], "string"))


def _a_year(value: str, op: str) -> bool:
    """A whole number that may be a date's year miscopied ("after 19392" for "after January
    2, 1939"); not in ``holds during``, whose year is the period meant ("who does he play
    for now, nov 2010": during 2010)."""
    return op != "holds during" and value.isdigit()


def _likeness(value: str, other: str) -> float:
    return SequenceMatcher(None, value, other).ratio()


def _held(value: str, numbers: Sequence[str]) -> bool:
    return any(value == number or float(value) == float(number) for number in numbers)
