"""Plan sentences as a question words them: a chain of finds written as one nested phrase
(*the age of the winner of the series Series 10*). The scorer reads candidates so
(:mod:`nl2sparql.ranker.reading`), and the agent writes a reading into one step so (an
absence over a whole reading: :func:`nl2sparql.candidates.shapes.not_found_by`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_VAR = re.compile(r"\?\w+")


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
    >>> nested(("Find the placement whose outcome is WIN, assign it to ?m.",
    ...         "Find the placement whose episode is Drag on a Dime, assign it to ?m.",
    ...         "Find the contestant of the placement ?m, assign it to ?x.", "The answer is ?x."))[0]
    'Find the contestant of the placement whose outcome is WIN and whose episode is Drag on a Dime, assign it to ?x.'
    """
    steps = _joined(steps)
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


def _joined(steps: tuple[str, ...]) -> tuple[str, ...]:
    """The steps with the finds of one node by several of its edges written as one find
    (*the placement whose outcome is WIN and whose episode is Drag on a Dime*), where each
    says *the <class> whose* alike and names no other node, so that the node can nest."""
    finds: dict[str, list[tuple[int, re.Match[str] | None]]] = {}
    for i, step in enumerate(steps):
        if (match := _FIND.match(step)) and "?" not in match.group(1):
            finds.setdefault(match.group(2), []).append((i, _WHOSE.match(match.group(1))))
    out: list[str | None] = list(steps)
    for target, places in finds.items():
        heads = [head for _, head in places if head]
        if len(places) < 2 or len(heads) < len(places) or len({h.group(1) for h in heads}) > 1:
            continue
        said = " and ".join(f"whose {h.group(2)}" for h in heads)
        out[places[0][0]] = f"Find the {heads[0].group(1)}{said}, assign it to {target}."
        for i, _ in places[1:]:
            out[i] = None
    return tuple(s for s in out if s is not None)


_WHOSE = re.compile(r"^the ((?:\w+ ){1,3}?)whose (.+)$")
