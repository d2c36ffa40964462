"""A second tie of an entity to the same variable, through a relation the question never words, is dropped.

Two ``Find`` steps may tie one entity to one variable: *where is Arabic the official
language?* finds the countries where Arabic is spoken **and** those whose official language
it is. A small decoder also adds such a tie by habit: CWQ's German questions (*What country
speaks Germanic languages ...*) carry *the country whose official language is German* in
their gold plans, and the planner trained on them writes *the country whose official language
is Portuguese Language* after *the country that Portuguese Language is spoken in* for
*Portuguese-speaking countries*, which asks for fewer countries than the user did. So a later
``Find`` that ties an entity already tied to its variable is dropped when none of its
relation's own words (those the earlier tie does not write; a tie that only restates the
earlier one has none) is a word of the question, or only one that another ``Find`` of the
same variable writes too (*Which Portuguese-speaking country has Catalan as an official
language?*: *official* is Catalan's). Only ties that write the entity inside their
description (*whose ... is E*, *that E is ...*) count: a WebQSP gold plan asks *which airport
is closest to the city of chicago?* as *the nearby airports of the location Chicago* and
*the location contained by the location Chicago*, neither worded. No gold plan of WebQSP train changes,
nor any of CWQ part A but those 23 German ones (tests), nor any other of the 12,821 pairs the
default was trained on; measured in README "Measured figures".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from os.path import commonprefix

from nl2sparql.kg.linker import STOP_WORDS
from nl2sparql.plan.steps import Find, Plan, Step, Var
from nl2sparql.planner.repairs.asked import Asked

_WORD = re.compile(r"[a-z0-9]+")
#: how many first letters two words share to count as one ("main" and "mainly", "language" and "languages")
STEM = 5
#: words shorter than this are never a relation's own (``gdp`` is; ``in`` is a stop word anyway)
MIN_WORD = 3


def without_unworded_repeats(plan: Plan, asked: Asked) -> Plan:
    """``plan`` without the ``Find`` steps that tie a named entity (and no variable) to a
    variable a second time through a relation the question never words.

    >>> from nl2sparql.plan.reader import parse_plan
    >>> from nl2sparql.plan.writer import format_plan
    >>> plan = parse_plan('''Find the country that the language Portuguese is spoken in, assign it to ?x.
    ... Find the country whose official language is Portuguese, assign it to ?x.
    ... Find the calling code of the country ?x, assign it to ?v1.
    ... Make sure ?v1 is greater than 55.
    ... The answer is ?x.''')
    >>> question = "Which Portuguese-speaking countries have a calling code above 55?"
    >>> print(format_plan(without_unworded_repeats(plan, Asked(question, ("Portuguese",)))).strip())
    Find the country that the language Portuguese is spoken in, assign it to ?x.
    Find the calling code of the country ?x, assign it to ?v1.
    Make sure ?v1 is greater than 55.
    The answer is ?x.
    >>> other = Asked("Where is Portuguese the official language?", ("Portuguese",))
    >>> without_unworded_repeats(plan, other) == plan
    True
    """
    names = asked.names
    worded = _words(asked.question)
    kept: list[Step] = []
    tied: dict[tuple[str, Var], set[str]] = {}
    for step in plan.steps:
        if isinstance(step, Find) and not step.inputs:
            named = _named(step, names)
            if _unworded_repeat(plan, step, named, tied, worded):
                continue
            for name in named:
                tied.setdefault((name, step.target), _words(step.description))
        kept.append(step)
    return plan if len(kept) == len(plan.steps) else replace(plan, steps=tuple(kept))


def _unworded_repeat(
    plan: Plan, step: Find, named: list[str], tied: dict[tuple[str, Var], set[str]], asked: set[str]
) -> bool:
    """Whether ``step`` ties its one entity to its variable again (``tied``: the words of the
    first tie) through no word of its own that the question (``asked``) writes for it."""
    if len(named) != 1 or (named[0], step.target) not in tied:
        return False
    own = _words(step.description) - _words(named[0]) - tied[named[0], step.target]
    others = _others(plan, step, named[0])
    return not any(_alike(word, asked) and not _alike(word, others) for word in own)


def _named(step: Find, names: Sequence[str]) -> list[str]:
    """The entity names ``step``'s description writes as whole words, in their own case (a
    type word such as *football team* is not the entity *Football*)."""
    return [name for name in names if name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", step.description)]


def _others(plan: Plan, step: Find, name: str) -> set[str]:
    """The words of the other ``Find`` steps that assign ``step``'s variable without ``name``."""
    found = (f for f in plan.steps if isinstance(f, Find) and f is not step and f.target == step.target)
    return set().union(*(_words(f.description) for f in found if name not in _named(f, [name])))


def _words(text: str) -> set[str]:
    """The content words of ``text``, lower case."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) >= MIN_WORD}


def _alike(word: str, words: set[str]) -> bool:
    """Whether ``words`` hold ``word`` or a word that shares its first letters (up to :data:`STEM`)."""
    return any(len(commonprefix([word, other])) >= min(len(word), len(other), STEM) for other in words)
