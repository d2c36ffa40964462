"""A candidate as the words a scorer compares with the question.

The plan's sentences carry the graph's words (``the member of the band Queen``); the plan
syntax around them (``Find``, ``assign it to ?x``) is the same in every candidate and only
dilutes a similarity, so it is dropped, and each operator is said in the words a question
uses for it (a count as *how many*, a descending rank as *the most*).

>>> from nl2sparql.candidates.candidate import Candidate
>>> c = Candidate("count", ("Find the album recorded by the band Queen, assign it to ?x.",
...                         "Count ?x, assign it to ?n.", "The answer is ?n."), ())
>>> reading(c)
'how many the album recorded by the band Queen'
"""

from __future__ import annotations

import re

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.wording import nested

_ASSIGN = re.compile(r",\s*assign it to \?\w+\.?$")
_VAR = re.compile(r"\?\w+")
_RANK = re.compile(r"^Rank \?\w+ by \?\w+ in (descending|ascending) order")
_COMPUTE = re.compile(r"^Compute the (\w+) of")
_COMPARE = re.compile(r"^Make sure \?\w+ is (greater than|less than|at least|at most|after|before) (.+)\.$")
_FUNCTION_WORDS = {
    "sum": "the total sum",
    "average": "the average mean",
    "minimum": "the minimum lowest",
    "maximum": "the maximum highest",
}
_IS = re.compile(r"^Make sure \?\w+ is (.+)\.$")
_DECADE = re.compile(r"^Make sure \?\w+ is in the decade from (\d+)\.$")
_NO = re.compile(r"^Make sure nothing is (.+)\.$")


def _sentence(step: str) -> str:
    if step.startswith("Find "):
        return _VAR.sub("", _ASSIGN.sub("", step[5:])).strip()
    if step.startswith("Count ") and "for each" in step:
        return "how many for each"
    if step.startswith("Count "):
        return "how many"
    if match := _RANK.match(step):
        return "the most" if match.group(1) == "descending" else "the least"
    if step.startswith("Compute ?") and " minus " in step:
        return "the difference how much more than"
    if match := _COMPUTE.match(step):
        return _FUNCTION_WORDS.get(match.group(1), f"the {match.group(1)}") + (
            " for each" if "for each" in step else ""
        )
    if (match := _COMPARE.match(step)) and match.group(2).startswith("?"):  # one value against another
        return "more than" if match.group(1) == "greater than" else "less than"
    if match := _COMPARE.match(step):
        return f"{match.group(1)} {match.group(2)}"
    if match := _DECADE.match(step):
        return f"in the {match.group(1)}s"
    if match := _NO.match(step):
        return "no " + _VAR.sub("", match.group(1)).replace(" of the ", " ").strip()
    if match := _IS.match(step):
        return f"is {match.group(1)}"
    if step.startswith("Make sure") and " contains " in step:
        return "named " + step.split(" contains ", 1)[1].rstrip(".")
    if step.startswith("Make sure") and " starts with " in step:
        return "starting with " + step.split(" starts with ", 1)[1].rstrip(".")
    if "whether" in step:
        return "is it true"
    if " and ?" in step and step.startswith("The answer is"):
        return "and their"
    return ""


def reading(candidate: Candidate) -> str:
    """The words of ``candidate`` a scorer reads, operators first (as questions say them),
    a chain of finds said as one phrase (:func:`nested`)."""
    steps = nested(candidate.steps)
    words = [_sentence(step) for step in steps]
    operators = [w for w, s in zip(words, steps, strict=True) if w and not s.startswith("Find ")]
    finds = [w for w, s in zip(words, steps, strict=True) if w and s.startswith("Find ")]
    return " ".join(" ".join([*operators, *finds]).split())
