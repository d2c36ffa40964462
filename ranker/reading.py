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
from collections.abc import Iterator

from nl2sparql.candidates.candidate import Candidate

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
    if match := _NO.match(step):
        return "no " + _VAR.sub("", match.group(1)).replace(" of the ", " ").strip()
    if match := _IS.match(step):
        return f"is {match.group(1)}"
    if step.startswith("Make sure") and " contains " in step:
        return "named " + step.split(" contains ", 1)[1].rstrip(".")
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


def _written_in(description: str, variable: str, phrase: str) -> str:
    """``description`` with ``the <class> ?m`` (or ``?m``) replaced by ``phrase``.

    >>> _written_in("the airport whose country is ?m", "?m", "the country of Peru")
    'the airport whose country is the country of Peru'
    >>> _written_in("the age of the baker ?m", "?m", "the winner of Series 10")
    'the age of the winner of Series 10'
    """
    end = description.find(variable)
    start = description.rfind("the ", 0, end)
    noun = description[start + 4 : end].split() if start >= 0 else []
    if start < 0 or not 1 <= len(noun) <= 3 or _LINKS & set(noun) or "?" in description[start:end]:
        start = end
    return description[:start] + phrase + description[end + len(variable) :]


#: words that link a description's parts, never inside a class's name
_LINKS = frozenset({"of", "whose", "is", "that", "by", "in", "to", "for", "with", "from", "at", "on", "the"})


_FIND = re.compile(r"^Find (.+), assign it to (\?\w+)\.$")


def nested(steps: tuple[str, ...]) -> tuple[str, ...]:
    """The steps with a find written into the one find that reads its node, as a question
    nests them (*the age of the winner of the series Series 10*, not *the winner of the
    series Series 10 the age of the baker*). Only a link of a chain is: a node found once,
    read by one other find and by no other step, and not found by its class alone.

    >>> nested(("Find the winner of the series Series 10, assign it to ?m.",
    ...         "Find the age of the baker ?m, assign it to ?x.", "The answer is ?x."))
    ('Find the age of the winner of the series Series 10, assign it to ?x.', 'The answer is ?x.')
    >>> steps = ("Find the entity whose type is car, assign it to ?x.",
    ...          "Find the origin of the car ?x, assign it to ?g.")
    >>> nested(steps) == steps
    True
    """
    found = [_FIND.match(step) for step in steps]
    links = set(_chained(steps, found))
    phrases: dict[str, tuple[int, str]] = {}  # a link's node: the step that finds it, and its words
    out: list[str | None] = list(steps)
    for i, match in enumerate(found):
        if match is None:
            continue
        description, target = match.groups()
        for variable in _VAR.findall(description):
            if variable in phrases:
                owner, phrase = phrases.pop(variable)
                description, out[owner] = _written_in(description, variable, phrase), None
        out[i] = f"Find {description}, assign it to {target}."
        if target in links and "?" not in description:
            phrases[target] = (i, description)
    return tuple(s for s in out if s is not None)


def _chained(steps: tuple[str, ...], found: list[re.Match[str] | None]) -> Iterator[str]:
    """The variables that link a chain: found once (not by a class alone), read once, and
    only by a find."""
    targets = [m.group(2) for m in found if m]
    for match in found:
        if match is None or " whose type is " in match.group(1):
            continue
        variable = match.group(2)
        reads = [s for s, m in zip(steps, found, strict=True) if variable in _VAR.findall(m.group(1) if m else s)]
        if targets.count(variable) == 1 and len(reads) == 1 and _FIND.match(reads[0]):
            yield variable
