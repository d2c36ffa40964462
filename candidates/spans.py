"""How long a thing lasted: the value the graph keeps for its end minus the one for its start
(*how many years did the term of Ronald Reagan last*: the term's end year minus its start
year). Graphs keep spans so, as a start and an end of one record, far more often than as a
length; a question of how long names neither."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.hops import Hop
from nl2sparql.candidates.shapes import attribute_phrase, subtracted, value_as

_START = re.compile(r"\b(?:start|starting|started|begin|beginning|began|from|opening|opened)\b")
_END = re.compile(r"\b(?:end|ending|ended|finish|finishing|finished|until|to|closing|closed)\b")


def _without(pattern: re.Pattern[str], phrase: str) -> str | None:
    """``phrase`` less the one word ``pattern`` finds in it, or ``None`` where it finds none."""
    if not pattern.search(phrase):
        return None
    return " ".join(pattern.sub(" ", phrase).split())


def span_pairs(hops: Sequence[Hop]) -> Iterator[tuple[Hop, Hop]]:
    """The start and end attributes among ``hops`` (of the things themselves, not of a node on
    their way) that differ in that word alone.

    >>> def hop(name):
    ...     return Hop(f"Find the {name} of the term ?x, assign it to ?v.", (), "?v", name)
    >>> [(a.statement_id, b.statement_id) for a, b in span_pairs([hop("start year"), hop("party"), hop("end year")])]
    [('start year', 'end year')]
    """
    for start in (hop for hop in hops if hop.via == "?x"):
        rest = _without(_START, attribute_phrase(start.sentence))
        if rest is None:
            continue
        for end in hops:
            if end.via == start.via and _without(_END, attribute_phrase(end.sentence)) == rest:
                yield start, end


def spanned(base: Candidate, start: Hop, end: Hop) -> Candidate:
    """The end value of each thing ``base`` finds minus its start value.

    >>> base = Candidate("lookup", ("Find the term whose president is R, assign it to ?x.", "The answer is ?x."),
    ...                  ("?x <p> <R> .",))
    >>> a = Hop("Find the start year of the term ?x, assign it to ?v.", ("?x <s> ?v .",), "?v", "s")
    >>> b = Hop("Find the end year of the term ?x, assign it to ?v.", ("?x <e> ?v .",), "?v", "e")
    >>> found = spanned(base, a, b)
    >>> found.head, found.patterns[1:], found.steps[-2]
    ('SELECT ((?b - ?a) AS ?d)', ('?x <s> ?a .', '?x <e> ?b .'), 'Compute ?b minus ?a, assign it to ?d.')
    """
    first, last = value_as(start, "?a"), _apart(value_as(end, "?b"))
    steps = (*base.steps[:-1], first.sentence, last.sentence)
    return subtracted(base, base, True, steps, base.patterns + first.patterns + last.patterns)


def _apart(hop: Hop) -> Hop:
    """``hop`` with helper nodes of its own (``?c3`` -> ``?c3_b``), so the two values are not
    made to share one."""
    rename = re.compile(r"\?(c\d+)\b")
    return replace(
        hop, sentence=rename.sub(r"?\1_b", hop.sentence), patterns=tuple(rename.sub(r"?\1_b", p) for p in hop.patterns)
    )
