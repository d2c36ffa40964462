"""Operators over a base: what the question's cues open on the nodes a base finds (``?x``).

Each function takes a base candidate (a lookup whose answer is ``?x``) and returns the
candidates of one shape, written in the plan language's sentences. Attributes (a number,
a date, a name of ``?x``) are hops from ``?x`` that the agent found; they arrive here as
:class:`~nl2sparql.candidates.hops.Hop` values ending at ``?v``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from nl2sparql.candidates.anchors import asked_words, asks_for
from nl2sparql.candidates.candidate import TYPED, TYPED_STEP, Candidate
from nl2sparql.candidates.cues import (
    AGE_WORDS,
    GROUPED_BY,
    HOW_MEASURED,
    MEASURED_BY,
    SPEED_WORDS,
    WITH_THEIR,
    Cues,
    singular_word,
)
from nl2sparql.candidates.hops import Hop
from nl2sparql.candidates.units import rescaled, unit
from nl2sparql.candidates.wording import nested
from nl2sparql.kg.verbs import agent_nouns, past_forms

_ANSWER = "The answer is ?x."
#: the plan language's comparisons as SPARQL operators
SYMBOLS = {
    "greater than": ">", "less than": "<", "at least": ">=", "at most": "<=", "after": ">", "before": "<",
    "equal to": "=",
}  # fmt: skip
DECADE = "in the decade from"  # *in the 1970s*: the ten years from 1970


def condition(value: str, op: str, number: str) -> str:
    """``value`` compared with ``number`` as ``op`` says; a decade is the ten years from it.

    >>> condition("?v", "greater than", "3"), condition("?v", DECADE, "1970")
    ('?v > 3', '?v >= 1970 && ?v < 1980')
    """
    if op == DECADE:
        return f"{value} >= {number} && {value} < {int(float(number)) + 10}"
    return f"{value} {SYMBOLS[op]} {number}"


FUNCTIONS = {"average": "AVG", "sum": "SUM", "minimum": "MIN", "maximum": "MAX"}


def without_answer(base: Candidate) -> tuple[str, ...]:
    return tuple(s for s in base.steps if s != _ANSWER)


def kept_rows(offset: int, keep: int) -> str:
    """How a Rank step says which rows it keeps (``keep the first 5``, ``keep results 6 to 10``)."""
    if offset:
        return f"keep results {offset + 1} to {offset + keep}"
    return f"keep the first {keep}" if keep > 1 else "keep the first"


def counted(base: Candidate) -> Candidate:
    """How many ``?x`` there are."""
    steps = (*without_answer(base), "Count ?x, assign it to ?n.", "The answer is ?n.")
    return replace(base, shape="count", steps=steps, head="SELECT (COUNT(DISTINCT ?x) AS ?n)", answer_kind="literal")


def ranked(base: Candidate, attribute: Hop, descending: bool, offset: int, keep: int) -> Candidate:
    """The ``?x`` with the largest (or smallest) ``?v``, or a window of the ranking."""
    order = "descending" if descending else "ascending"
    window = kept_rows(offset, keep)
    steps = (*without_answer(base), attribute.sentence, f"Rank ?x by ?v in {order} order and {window}.", _ANSWER)
    tail = f"ORDER BY {'DESC' if descending else 'ASC'}(?v) LIMIT {keep}" + (f" OFFSET {offset}" if offset else "")
    return replace(
        base, shape="rank", steps=steps, patterns=base.patterns + attribute.patterns, tail=tail, hops=base.hops + 1
    )


def ranked_value(base: Candidate, attribute: Hop, descending: bool) -> Candidate:
    """The largest (or smallest) ``?v`` itself, of the ``?x`` ranked by it (*the year of the last album*)."""
    chosen = ranked(base, attribute, descending, 0, 1)
    steps = (*chosen.steps[:-1], "The answer is ?v.")
    return replace(chosen, steps=steps, head="SELECT DISTINCT ?v", answer_kind="literal")


def ranked_other(base: Candidate, attribute: Hop, other: Hop, descending: bool, kind: str = "literal") -> Candidate:
    """Another value (``?w``) of the ``?x`` ranked first by ``?v`` (*in which year was the
    population of Ireland the smallest*: the year of the observation with the smallest one).

    >>> base = Candidate("lookup", ("Find the record of Ireland, assign it to ?x.", _ANSWER), ("<I> <r> ?x .",))
    >>> size = Hop("Find the population of the record ?x, assign it to ?v.", ("?x <p> ?v .",), "?v", "s1")
    >>> year = Hop("Find the year of the record ?x, assign it to ?v.", ("?x <y> ?v .",), "?v", "s2")
    >>> found = ranked_other(base, size, year, False)
    >>> found.head, found.steps[-1], found.tail
    ('SELECT DISTINCT ?w', 'The answer is ?w.', 'ORDER BY ASC(?v) LIMIT 1')
    """
    chosen = ranked(base, attribute, descending, 0, 1)
    answer = _to_w(other)
    steps = (*chosen.steps[:-2], answer.sentence, chosen.steps[-2], "The answer is ?w.")
    # the answer is ?w, whose class the base's (that of ?x) does not tell
    return replace(chosen, steps=steps, patterns=chosen.patterns + answer.patterns, head="SELECT DISTINCT ?w",
                   answer_kind=kind, answer_class="")  # fmt: skip


def _said_after(attribute: Hop, cues: Cues) -> bool:
    """Whether the words after the number the question compares with name ``attribute``, each
    of its words (*more than 30 years since their PhD*: the *years since PhD*).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> hop = Hop("Find the years since phd of the member ?x, assign it to ?v.", (), "?v", "s")
    >>> cues = read_cues("What is the average salary of members with more than 30 years since their PhD?")
    >>> _said_after(hop, cues), _said_after(hop, read_cues("the average salary of members with more than 30 years"))
    (True, False)
    """
    if cues.compare is None:
        return False
    said = cues.text.split()
    after = said[said.index(cues.compare[1]) + 1 :] if cues.compare[1] in said else []
    words = attribute_words(attribute.sentence).split()
    every = bool(words) and {singular_word(w) for w in words} <= {singular_word(w) for w in after}
    return every or named_at(attribute.sentence, " ".join(after)) >= 0  # *more than 7 cores*


def _value_as_w(kept: Candidate) -> Candidate:
    """``kept`` with its compared value ``?v`` as ``?w``, so that another ``?v`` can be read.

    >>> kept = Candidate("compare", ("Make sure ?v is greater than 3.",), ("?x <y> ?v .", "FILTER(?v > 3)"))
    >>> _value_as_w(kept).patterns
    ('?x <y> ?w .', 'FILTER(?w > 3)')
    """
    renamed = re.compile(r"\?v\b")
    return replace(kept, steps=tuple(renamed.sub("?w", s) for s in kept.steps),
                   patterns=tuple(renamed.sub("?w", p) for p in kept.patterns))  # fmt: skip


def _to_w(hop: Hop) -> Hop:
    """``hop`` reading its value into ``?w`` (its helper ``?c3`` as ``?c4``), beside another's ``?v``."""
    return replace(hop, sentence=hop.sentence.replace("?v", "?w"),
                   patterns=tuple(p.replace("?v", "?w").replace("?c3", "?c4") for p in hop.patterns))  # fmt: skip


def containing_value(base: Candidate, attribute: Hop, word: str, start: bool = False) -> Candidate:
    """The ``?x`` whose value of a named attribute contains ``word`` (*the aircraft whose
    model contains 737*), or with ``start`` begins with it (*an abbreviation starting with N*)."""
    escaped = _escaped(word)
    said, function = ("starts with", "STRSTARTS") if start else ("contains", "CONTAINS")
    steps = (*without_answer(base), attribute.sentence, f'Make sure ?v {said} "{escaped}".', _ANSWER)
    patterns = (*base.patterns, *attribute.patterns, f'FILTER({function}(LCASE(STR(?v)), "{escaped.lower()}"))')
    return replace(base, shape="contains", steps=steps, patterns=patterns, hops=base.hops + 1)


def _escaped(word: str) -> str:
    return word.replace("\\", "").replace('"', "")


def flag_holds(base: Candidate, holds: bool) -> Candidate:
    """Whether the yes/no value ``base`` reads is true (*Was flight DL 461 cancelled?*), or
    false (*Was it not cancelled?*)."""
    value = "true" if holds else "false"
    steps = (*without_answer(base), f"Make sure ?x is {value}.", "The answer is whether ?x exists.")
    patterns = (*base.patterns, f"FILTER(?x = {value})")
    return replace(base, shape="yes-no", steps=steps, patterns=patterns, head="ASK")


def containing(base: Candidate, word: str, start: bool = False) -> Candidate:
    """The ``?x`` whose name (label, else the IRI's local name) contains ``word`` (with
    ``start``, begins with it)."""
    escaped = _escaped(word)
    said, function = ("starts with", "STRSTARTS") if start else ("contains", "CONTAINS")
    steps = (*without_answer(base), f'Make sure ?x {said} "{escaped}".', _ANSWER)
    name = "COALESCE(?name, STR(?x))"
    patterns = (
        *base.patterns,
        "OPTIONAL { ?x <http://www.w3.org/2000/01/rdf-schema#label> ?name }",
        f'FILTER({function}(LCASE({name}), "{escaped.lower()}"))',
    )
    return replace(base, shape="contains", steps=steps, patterns=patterns)


def compared(base: Candidate, attribute: Hop, op: str, number: str, asked_unit: str = "", scale: int = 1) -> Candidate:
    """The ``?x`` whose ``?v`` compares with a number the question writes (in the attribute's
    unit or scale where the question writes it in another: :func:`~.units.rescaled`)."""
    number = rescaled(number, asked_unit, attribute_phrase(attribute.sentence), scale)
    if _DAY.fullmatch(number):  # a day: ISO dates and times compare as text (a time that day is after it)
        value = condition("STR(?v)", op, f'"{number}"')
    elif op in ("after", "before", "at least", DECADE) and attribute.dated and len(number) == 4:
        value = condition("YEAR(?v)", op, number)
    else:
        value = condition("?v", op, number)
    steps = (*without_answer(base), attribute.sentence, f"Make sure ?v is {op} {number}.", _ANSWER)
    patterns = (*base.patterns, *attribute.patterns, f"FILTER({value})")
    return replace(base, shape="compare", steps=steps, patterns=patterns, hops=base.hops + 1)


_DAY = re.compile(r"\d{4}-\d\d-\d\d")


def never_flagged(base: Candidate, attribute: Hop) -> Candidate | None:
    """The things of a class none of whose records holds a yes/no attribute (*which teams did
    not win their division*: no season of theirs won it), where ``base`` reads the records
    of every thing of a class (``?m``) and ``attribute`` is the records' flag; else ``None``.

    >>> base = Candidate("lookup", ("Find the entity whose type is team, assign it to ?m.",
    ...     "Find the team season whose team is ?m, assign it to ?x.", _ANSWER), ("?m a <T> .", "?x <team> ?m ."))
    >>> won = Hop("Find the won of the team season ?x, assign it to ?v.", ("?x <won> ?v .",), "?v", "s", flag=True)
    >>> found = never_flagged(base, won)
    >>> found.patterns
    ('?x a <T> .', 'FILTER NOT EXISTS { ?r <team> ?x . ?r <won> true . }')
    >>> found.steps[1]
    'Make sure nothing is the team season whose team is ?x and whose won is true.'
    """
    typed, records = base.steps[:2] if len(base.steps) == 3 else ("", "")
    kind = TYPED_STEP.match(typed)
    found = re.match(r"^Find the (.+) whose (.+) is \?m, assign it to \?x\.$", records)
    if kind is None or kind.group(2) != "?m" or found is None:
        return None
    held = tuple(p.replace("?v", "true") for p in attribute.patterns)
    inner = " ".join(p.replace("?x", "?r").replace("?m", "?x") for p in (*base.patterns[1:], *held))
    flag = attribute_words(attribute.sentence)
    steps = (typed.replace("?m", "?x"), f"Make sure nothing is the {found.group(1)} whose {found.group(2)} is ?x "
             f"and whose {flag} is true.", _ANSWER)  # fmt: skip
    patterns = (base.patterns[0].replace("?m", "?x"), f"FILTER NOT EXISTS {{ {inner} }}")
    return replace(base, shape="negation", steps=steps, patterns=patterns, hops=2, answer_kind="uri", answer_class="")


def flagged(base: Candidate, attribute: Hop, holds: bool) -> Candidate:
    """The ``?x`` whose yes/no attribute holds (*the teams that won their division*), or not."""
    value = "true" if holds else "false"
    steps = (*without_answer(base), attribute.sentence, f"Make sure ?v is {value}.", _ANSWER)
    patterns = (*base.patterns, *attribute.patterns, f"FILTER(?v = {value})")
    return replace(base, shape="compare", steps=steps, patterns=patterns, hops=base.hops + 1)


def flag_named(attribute: Hop, text: str) -> bool:
    """Whether the question's words (``text``: :attr:`Cues.text`) hold every word of a yes/no
    attribute's name but its articles (*won their division*: *won the division*).

    >>> hop = Hop("Find the won the division of the team season ?x, assign it to ?v.", (), "?v", "s", flag=True)
    >>> flag_named(hop, "how many teams won their division in 2016"), flag_named(hop, "which teams won")
    (True, False)
    """
    return attribute.flag and _flag_words_in(attribute.sentence, text)


def flag_read(reading: Candidate, text: str) -> bool:
    """Whether the question names the yes/no attribute a reading's answer is the value of
    (*was flight DL 461 cancelled*: *the cancelled of the flight DL 461*)."""
    return _flag_words_in(answer_step(reading), text)


def answer_step(candidate: Candidate) -> str:
    """The last step that finds the answer ``?x`` (``""`` when none does)."""
    return next((s for s in reversed(candidate.steps) if s.endswith("assign it to ?x.")), "")


def _flag_words_in(sentence: str, text: str) -> bool:
    """Whether the question's words hold an attribute's, a verb after *did* as its past
    (*did they win the title*: *won the title*).

    >>> _flag_words_in("Find the won the title of the team season ?x, assign it to ?v.", "did the reds win the title")
    True
    >>> _flag_words_in("Find the finale of the episode ?x, assign it to ?v.", "how many episodes were finales")
    True

    A verb in the third person is said in the plural too (*works overtime*: *employees work
    overtime*).

    >>> _flag_words_in("Find the works overtime of the employee ?x, assign it to ?v.", "how many employees work it")
    False
    >>> _flag_words_in("Find the works overtime of the employee ?x, assign it to ?v.", "who works overtime")
    True
    >>> _flag_words_in("Find the survived of the passenger ?x, assign it to ?v.", "which class had the most survivors")
    True
    >>> _flag_words_in("Find the collected at the drive-through of the test ?x, assign it to ?v.",
    ...                "how many tests were collected at the drive-through")
    True
    """
    words = set(attribute_words(sentence).split()) - {"the", "a", "an", "of", "is", "has"}
    said = text.replace("-", " ").split()  # *drive-through*: the attribute's words are split there
    written = {*said, *map(singular_word, said)}  # *finales*: *finale*
    written |= {past for word in written for past in past_forms(word)}
    # *the most survivors*: those who *survived*, named by who does it
    return bool(words) and all(w in written or singular_word(w) in written or agent_nouns(w) & written for w in words)


def whether(candidate: Candidate) -> Candidate:
    """Whether ``candidate`` finds anything (an ``ASK``)."""
    steps = (*without_answer(candidate), "The answer is whether ?x exists.")
    return replace(candidate, shape="yes-no", steps=steps, head="ASK", tail="")


def holds_compared(base: Candidate, op: str, number: str) -> Candidate:
    """Whether the value ``base`` finds compares with a number (*Was Radiohead formed before 1980?*)."""
    steps = (*without_answer(base), f"Make sure ?x is {op} {number}.", "The answer is whether ?x exists.")
    patterns = (*base.patterns, f"FILTER({condition('?x', op, number)})")
    return replace(base, shape="yes-no", steps=steps, patterns=patterns, head="ASK")


def aggregated(base: Candidate, attribute: Hop, function: str) -> Candidate:
    """The average (sum, minimum, maximum) of the ``?v`` of the ``?x``."""
    steps = (
        *without_answer(base),
        attribute.sentence,
        f"Compute the {function} of ?v, assign it to ?a.",
        "The answer is ?a.",
    )
    head = f"SELECT ({FUNCTIONS[function]}(?v) AS ?a)"
    patterns = base.patterns + attribute.patterns
    return replace(base, shape="aggregate", steps=steps, patterns=patterns, head=head, answer_kind="literal")


def grouped(base: Candidate, group: Hop, attribute: Hop | None, function: str | None) -> Candidate:
    """For each ``?g`` of the ``?x``: how many ``?x`` (or an aggregate of their ``?v``)."""
    group = replace(
        group,
        sentence=group.sentence.replace("?v", "?g"),
        patterns=tuple(p.replace("?v", "?g") for p in group.patterns),
    )
    if attribute is None or function is None:
        steps = (
            *without_answer(base),
            group.sentence,
            "Count ?x for each ?g, assign it to ?n.",
            "The answer is ?g and ?n.",
        )
        head, patterns = "SELECT ?g (COUNT(DISTINCT ?x) AS ?n)", base.patterns + group.patterns
    else:
        computed = f"Compute the {function} of ?v for each ?g, assign it to ?a."
        steps = (*without_answer(base), group.sentence, attribute.sentence, computed, "The answer is ?g and ?a.")
        head, patterns = (
            f"SELECT ?g ({FUNCTIONS[function]}(?v) AS ?a)",
            base.patterns + group.patterns + attribute.patterns,
        )
    return replace(
        base, shape="group", steps=steps, patterns=patterns, head=head, tail="GROUP BY ?g", hops=base.hops + 1
    )


def ranked_groups(
    base: Candidate,
    group: Hop,
    attribute: Hop | None,
    descending: bool,
    offset: int,
    keep: int,
    function: str = "sum",
) -> Candidate:
    """The ``?g`` with the most (or fewest) ``?x``, or the largest total (or ``function``:
    average, ...) of their ``?v`` (*the artists with the most albums*, *the customer who spent
    the most*, *the species with the highest average body mass*)."""
    group = _as_group(group)
    order = "descending" if descending else "ascending"
    window = kept_rows(offset, keep)
    if attribute is None:
        measure, sentence = "COUNT(DISTINCT ?x)", "Count ?x for each ?g, assign it to ?n."
        patterns = base.patterns + group.patterns
    else:
        measure, sentence = f"{FUNCTIONS[function]}(?v)", f"Compute the {function} of ?v for each ?g, assign it to ?n."
        patterns = base.patterns + group.patterns + attribute.patterns
    extra = (attribute.sentence,) if attribute is not None else ()
    steps = (*without_answer(base), group.sentence, *extra, sentence,
             f"Rank ?g by ?n in {order} order and {window}.", "The answer is ?g.")  # fmt: skip
    direction = "DESC" if descending else "ASC"
    tail = f"GROUP BY ?g ORDER BY {direction}({measure}) LIMIT {keep}" + (f" OFFSET {offset}" if offset else "")
    # the answer is ?g, whose class the base's (that of ?x) does not tell
    return replace(base, shape="rank-group", steps=steps, patterns=patterns, head="SELECT ?g", tail=tail,
                   hops=base.hops + 1, answer_kind="uri", answer_class="")  # fmt: skip


def kept_groups(base: Candidate, group: Hop, op: str, number: str) -> Candidate:
    """The ``?g`` whose number of ``?x`` compares with a number the question writes (*the
    countries where more than 30 players were born*: ``HAVING``)."""
    group = _as_group(group)
    steps = (*without_answer(base), group.sentence, "Count ?x for each ?g, assign it to ?n.",
             f"Make sure ?n is {op} {number}.", "The answer is ?g.")  # fmt: skip
    tail = f"GROUP BY ?g HAVING ({condition('COUNT(DISTINCT ?x)', op, number)})"
    return replace(base, shape="compare", steps=steps, patterns=base.patterns + group.patterns, head="SELECT ?g",
                   tail=tail, hops=base.hops + 1, answer_kind="", answer_class="")  # fmt: skip


def _as_group(hop: Hop) -> Hop:
    return value_as(hop, "?g")


def value_as(hop: Hop, name: str) -> Hop:
    """``hop`` with the value it reaches (``?v``) called ``name``."""
    return replace(
        hop, sentence=hop.sentence.replace("?v", name), patterns=tuple(p.replace("?v", name) for p in hop.patterns)
    )


def with_many_columns(base: Candidate, attributes: Sequence[Hop], subject: bool = True) -> Candidate:
    """The ``?x`` and several of their values, one column each (``?v1``, ``?v2``, ...); without
    ``subject``, the values alone."""
    steps = list(without_answer(base))
    patterns = list(base.patterns)
    names = []
    for number, attribute in enumerate(attributes, 1):
        name = f"?v{number}"
        steps.append(attribute.sentence.replace("?v", name))
        patterns += [p.replace("?v", name).replace("?c3", f"?c3{number}") for p in attribute.patterns]
        names.append(name)
    columns = ["?x", *names] if subject else names
    steps.append("The answer is " + " and ".join(columns) + ".")
    head = "SELECT DISTINCT " + " ".join(columns)
    return replace(base, shape="columns", steps=tuple(steps), patterns=tuple(patterns), head=head)


def keeps_subject(text: str, attributes: Sequence[Hop]) -> bool:
    """Whether the things are a column beside their values: *the countries with their capitals*
    lists the countries; *the name and ISO code of every canton* asks for the values alone, and
    so does a list that names the things by a name (*employees with their first name, last name
    and hire date*): the name stands for the thing (``text``: :attr:`Cues.text`).

    >>> keeps_subject("list the countries with their capitals", [])
    True
    >>> keeps_subject("give the population and the gdp of brazil", [])
    False
    """
    if any({"name", "title"} & set(attribute_words(hop.sentence).split()) for hop in attributes):
        return False
    return bool(WITH_THEIR.search(text))


def mentioned(attributes: Sequence[Hop], text: str) -> list[Hop]:
    """The attributes whose own words (``the hire date of the employee ?x``: *hire date*) the
    question writes (``text``: its words, as :attr:`Cues.text` holds them), in its order; not
    one whose words are part of another's the question writes (*engine type* holds *type*)."""
    spans = {id(hop): (at, at + len(attribute_words(hop.sentence))) for hop in attributes
             if (at := named_at(hop.sentence, text)) >= 0}  # fmt: skip
    inside = {key for key, (a, b) in spans.items() for c, d in spans.values() if c <= a and b <= d and d - c > b - a}
    found = [(spans[id(hop)][0], hop) for hop in attributes if id(hop) in spans and id(hop) not in inside]
    return [hop for _, hop in sorted(found, key=lambda pair: pair[0])]


def told_apart(attributes: Sequence[Hop], text: str) -> tuple[Hop, Hop] | None:
    """Two attributes the question tells apart by the words each has and the other lacks,
    in the order it writes those words (*how much more does it cost new than used at the
    bookstore*: the new and the used price at the bookstore, not on Amazon), the pair whose
    words it writes most; ``None`` where no two are so told apart.

    >>> def hop(name):
    ...     return Hop(f"Find the {name} of the book ?x, assign it to ?v.", (), "?v", name)
    >>> prices = [hop(f"{a} price {b}") for a in ("new", "used") for b in ("at the bookstore", "on amazon")]
    >>> [h.statement_id for h in told_apart(prices, "how much more does it cost new than used at the bookstore")]
    ['new price at the bookstore', 'used price at the bookstore']
    >>> [h.statement_id for h in told_apart(prices, "is it cheaper new on amazon than at the bookstore")]
    ['new price on amazon', 'new price at the bookstore']
    """
    said = text.split()
    written = set(said)
    words = {id(h): set(attribute_words(h.sentence).split()) - _FILLERS for h in attributes}
    best: tuple[int, Hop, Hop] | None = None
    for a, b in itertools.combinations(attributes, 2):
        own_a, own_b = (words[id(a)] - words[id(b)]) & written, (words[id(b)] - words[id(a)]) & written
        if not (own_a and own_b):
            continue
        score = len(words[id(a)] & written) + len(words[id(b)] & written)
        first = min(map(said.index, own_a)) < min(map(said.index, own_b))
        if best is None or score > best[0]:
            best = (score, a, b) if first else (score, b, a)
    return (best[1], best[2]) if best else None


#: the words of an attribute's name that tell no two apart
_FILLERS = frozenset({"the", "a", "an", "of", "at", "on", "in", "by", "for", "to"})


def named_at(sentence: str, text: str) -> int:
    """Where the question's words (``text``, as :attr:`Cues.text` holds them) name the
    attribute a ``Find`` sentence reads, or -1.

    >>> named_at("Find the hire date of the employee ?x, assign it to ?v.", "list employees and their hire date")
    25

    A name of three or four letters is a cut word (a database column's ``abb``, ``pop``,
    ``desc``): the question's whole word names it.

    >>> named_at("Find the abb of the state ?x, assign it to ?v.", "which states have an abbreviation starting with n")
    21

    A column named after its table is named by the rest where the question names the table
    (*the date and time of order 7*: the order date and the order time):

    >>> named_at("Find the order date of the order ?x, assign it to ?v.", "what are the date and time of order 7")
    13
    """
    words = attribute_words(sentence)
    if not words:
        return -1
    found = f" {text} ".find(f" {words} ")
    if found < 0 and 3 <= len(words) <= 4 and words.isalpha():
        cut = re.search(rf"(?<!\S){words}[a-z]{{3,}}", text)
        found = cut.start() if cut else -1
    holder = re.search(r" of (?:the|an?) (\w+)", sentence) if found < 0 else None
    first, *rest = words.split()
    if holder and rest and singular_word(first) == singular_word(holder.group(1).lower()) and _named_in(text, first):
        words = " ".join(rest)  # a column named after its table (*order date* of an order): by the rest
    return found if found >= 0 else _named_loosely(words, text)


def _named_in(text: str, word: str) -> bool:
    """Whether ``text`` (:attr:`Cues.text`) writes ``word``, singular or plural.

    >>> _named_in("the date and time of order 2015", "order"), _named_in("the orders", "order")
    (True, True)
    """
    return any(singular_word(w) == singular_word(word) for w in text.split())


def _named_loosely(words: str, text: str) -> int:
    """Where the question names an attribute in the plural, by its last two words, as the
    counted thing of a *number of* (*threads* for *number of threads*), or with a second
    modifier before their shared head (*read and write speeds*), or -1.

    >>> [_named_loosely("sequential read speed", t) for t in ("the read and write speeds of x",
    ...  "the write speeds of x", "how fast is x")]
    [4, -1, -1]
    >>> _named_loosely("number of threads", "how many more threads than cores")
    14
    """
    parts = words.split()
    forms = [words]
    if len(parts) >= 3 and parts[-2] not in _LINKS:
        forms.append(" ".join(parts[-2:]))
    if len(parts) == 3 and parts[0] in COUNT_NOUNS and parts[1] == "of":
        forms.append(parts[2])
    for form in forms:
        *modifiers, head = form.split()
        plural = rf"{head}(?:s|es)?(?!\S)"
        spoken = [rf"(?<!\S){form.removesuffix(head)}{plural}"]
        if modifiers:
            spoken.append(rf"(?<!\S){' '.join(modifiers)} (?:and|or) [a-z]+ {plural}")
        for pattern in spoken:
            if match := re.search(pattern, text):
                return match.start()
    return -1


_LINKS = frozenset({"of", "in", "at", "per", "by", "for", "to", "on", "the", "a", "and"})


def attribute_words(sentence: str) -> str:
    """*hire date* of ``Find the hire date of the employee ?x, assign it to ?v.``; a number in
    the words is left out, as questions leave out a standard's (*the ISO 3166-2 code*: *iso
    code*), and so is a unit (*the weight in pounds*: *weight*).

    >>> attribute_words("Find the iso 3166-2 code of the canton ?x, assign it to ?v.")
    'iso code'
    >>> attribute_words("Find the weight in pounds of the car ?x, assign it to ?v.")
    'weight'
    >>> attribute_words("Find the population density per square kilometre of the count ?x, assign it to ?v.")
    'population density'
    >>> attribute_words("Find the sales in billions of dollars of the company ?x, assign it to ?v.")
    'sales'
    """
    words = " ".join(re.findall(r"[^\W\d_]+", attribute_phrase(sentence)))
    per = _PER_UNIT.search(words)
    if per and unit(per.group(1)):  # *per square kilometre* too
        words = words[: per.start()]
    return re.sub(r"(?<=\w) in \w+(?: of)?( \w+)?$", "", words)


_PER_UNIT = re.compile(r"(?<=\w) per (?:square |cubic )?(\w+)$")


def own_words(sentence: str) -> list[str]:
    """The words of what a ``Find`` sentence reads less those of the kind of thing it is
    read of, which a name may repeat (*the breach submission date of the breach ?m*: *the
    largest breaches* names the breaches, not their submission date); all of them where
    nothing else is left.

    >>> own_words("Find the breach submission date of the breach ?m4, assign it to ?v.")
    ['submission', 'date']
    >>> own_words("Find the wind speed of the observation ?w1, assign it to ?v.")
    ['wind', 'speed']
    """
    words = attribute_words(sentence).split()
    kind = re.search(r" of the ([a-z][\w -]*?) \?\w+, assign it to", sentence)
    held = {singular_word(w) for w in kind.group(1).split()} if kind else set()
    return [w for w in words if singular_word(w) not in held] or words


def attribute_phrase(sentence: str) -> str:
    """What a ``Find`` sentence reads, as written (lower-cased), or ``""``.

    >>> attribute_phrase("Find the weight in pounds of the car ?x, assign it to ?v.")
    'weight in pounds'

    A name that holds *of* is read up to the *of* before the thing's kind or variable:

    >>> attribute_phrase("Find the number of threads of the processor Ryzen 9 3950X, assign it to ?v.")
    'number of threads'
    """
    match = re.match(r"Find the (.+?) of (?=the |an? |\?)", sentence) or re.match(r"Find the (.+?) of ", sentence)
    return match.group(1).lower() if match else ""


def negated(base: Candidate, attribute: Hop) -> Candidate:
    """The ``?x`` that have no ``?v`` of this kind."""
    missing = attribute.sentence.replace("Find ", "", 1).rsplit(",", 1)[0]
    steps = (*without_answer(base), f"Make sure nothing is {missing}.", _ANSWER)
    patterns = (*base.patterns, f"FILTER NOT EXISTS {{ {' '.join(attribute.patterns)} }}")
    return replace(base, shape="negation", steps=steps, patterns=patterns, hops=base.hops + 1)


def found_phrase(sentence: str) -> str:
    """What a ``Find`` sentence finds, as a phrase to say it again (*the item whose
    restaurant is ?x* of ``Find the item whose restaurant is ?x, assign it to ?w1.``).

    >>> found_phrase("Find the term whose president is the person ?x, assign it to ?w1.")
    'the term whose president is the person ?x'
    """
    return sentence.removeprefix("Find ").rsplit(", assign it to", 1)[0]


def negated_through(base: Candidate, record: Hop, attribute: Hop) -> Candidate:
    """The ``?x`` none of whose records (``record``: those that reach each) has a value of
    ``attribute``: the presidents none of whose terms had a vice president.

    >>> base = Candidate("lookup", ("Find the president of a term, assign it to ?x.", _ANSWER), ("?m <p> ?x .",))
    >>> record = Hop("Find the term whose president is the person ?x, assign it to ?w1.", ("?w1 <p> ?x .",), "?w1", "p")
    >>> vice = Hop("Find the vice president of the term ?w1, assign it to ?v.", ("?w1 <vp> ?v .",), "?v", "vp")
    >>> found = negated_through(base, record, vice)
    >>> found.steps[1]
    'Make sure nothing is the vice president of the term whose president is the person ?x.'
    >>> found.patterns[1]
    'FILTER NOT EXISTS { ?w1_n <p> ?x . ?w1_n <vp> ?v . }'
    """
    steps = (
        *without_answer(base),
        f"Make sure nothing is the {attribute_phrase(attribute.sentence)} of {found_phrase(record.sentence)}.",
        _ANSWER,
    )
    inner = " ".join(re.sub(r"\?w1\b", "?w1_n", p) for p in (*record.patterns, *attribute.patterns))
    patterns = (*base.patterns, f"FILTER NOT EXISTS {{ {inner} }}")
    return replace(base, shape="negation", steps=steps, patterns=patterns, hops=base.hops + 2)


def not_of_class(base: Candidate, term: str, name: str) -> Candidate:
    """The ``?x`` that are not of a second class (*which managers were never players*)."""
    steps = (*without_answer(base), f"Make sure ?x is not of type {name}.", _ANSWER)
    patterns = (*base.patterns, f"FILTER NOT EXISTS {{ ?x a {term} . }}")
    return replace(base, shape="negation", steps=steps, patterns=patterns, hops=base.hops + 1)


def not_found_by(whole: Candidate, reading: Candidate) -> Candidate | None:
    """The ``?x`` of ``whole`` (a class's instances) that ``reading`` does not find (*which
    airlines did not fly to O'Hare*: no flight to O'Hare is operated by them); ``None``
    where the reading's steps are no chain that reads as one phrase.

    >>> whole = Candidate("lookup", ("Find the entity whose type is airline, assign it to ?x.", _ANSWER),
    ...                   ("?x a <Airline> .",))
    >>> steps = ("Find the flight that arrives at ORD, assign it to ?m.",
    ...          "Find the airline that the flight ?m is operated by, assign it to ?x.", _ANSWER)
    >>> found = not_found_by(whole, Candidate("lookup", steps, ("?m <to> <ORD> .", "?m <by> ?x .")))
    >>> found.steps[1]
    'Make sure nothing is the airline that the flight that arrives at ORD is operated by that is ?x.'
    >>> found.patterns[1]
    'FILTER NOT EXISTS { ?m_n <to> <ORD> . ?m_n <by> ?x . }'
    """
    finds = [step for step in nested(reading.steps) if step.startswith("Find ")]
    match = re.match(r"^Find (.+), assign it to \?x\.$", finds[0]) if len(finds) == 1 else None
    if match is None or "?" in match.group(1):
        return None
    inner = _answer_named(reading, "?x", "_n")
    steps = (*without_answer(whole), f"Make sure nothing is {match.group(1)} that is ?x.", _ANSWER)
    patterns = (*whole.patterns, f"FILTER NOT EXISTS {{ {' '.join(inner.patterns)} }}")
    own = () if whole.steps[0].startswith(TYPED) else whole.anchors  # a class's instances name no item
    anchors = tuple(dict.fromkeys((*own, *reading.anchors)))
    return replace(whole, shape="negation", steps=steps, patterns=patterns, hops=reading.hops + 1, anchors=anchors)


def with_columns(base: Candidate, attribute: Hop) -> Candidate:
    """The ``?x`` and their ``?v``."""
    steps = (*without_answer(base), attribute.sentence, "The answer is ?x and ?v.")
    return replace(
        base, shape="columns", steps=steps, patterns=base.patterns + attribute.patterns, head="SELECT DISTINCT ?x ?v"
    )


def with_other_column(kept: Candidate, other: Hop) -> Candidate:
    """``kept``'s ``?x`` with another value of theirs (``?w``) that the question lists beside
    them (*the storms with a wind speed of at least 150 knots and their season*).

    >>> kept = Candidate("compare", ("Make sure ?v is at least 150.", _ANSWER), ("?o <w> ?v .", "FILTER(?v >= 150)"))
    >>> season = Hop("Find the season of the storm ?x, assign it to ?v.", ("?x <s> ?v .",), "?v", "s")
    >>> listed = with_other_column(kept, season)
    >>> listed.head, listed.steps[-1], listed.patterns[-1]
    ('SELECT DISTINCT ?x ?w', 'The answer is ?x and ?w.', '?x <s> ?w .')
    """
    answer = _to_w(other)
    steps = (*without_answer(kept), answer.sentence, "The answer is ?x and ?w.")
    return replace(kept, steps=steps, patterns=kept.patterns + answer.patterns, head="SELECT DISTINCT ?x ?w")


def ranked_by_other(ranked_things: Candidate, other: Hop) -> Candidate:
    """Another value (``?w``) of the things ranked first by their records' values (*in which
    season was the storm with the strongest winds*: the season of the storm ranked first).

    >>> steps = ("Rank ?x by ?a in descending order and keep the first.", _ANSWER)
    >>> tail = "GROUP BY ?x ORDER BY DESC(MAX(?v)) LIMIT 1"
    >>> ranked_things = Candidate("rank", steps, ("?o <s> ?x .",), head="SELECT ?x", tail=tail)
    >>> season = Hop("Find the season of the storm ?x, assign it to ?v.", ("?x <s> ?v .",), "?v", "s")
    >>> found = ranked_by_other(ranked_things, season)
    >>> found.head, found.steps[-1], found.tail
    ('SELECT ?w', 'The answer is ?w.', 'GROUP BY ?x ?w ORDER BY DESC(MAX(?v)) LIMIT 1')
    """
    answer = _to_w(other)
    steps = (*without_answer(ranked_things), answer.sentence, "The answer is ?w.")
    tail = ranked_things.tail.replace("GROUP BY ?x", "GROUP BY ?x ?w", 1)
    # the answer is ?w, whose kind and class the things' (those of ?x) do not tell
    return replace(ranked_things, steps=steps, patterns=ranked_things.patterns + answer.patterns, head="SELECT ?w",
                   tail=tail, answer_kind="", answer_class="")  # fmt: skip


def difference(first: Candidate, second: Candidate, later: bool) -> Candidate:
    """The number ``second`` finds minus the one ``first`` finds (``later``), or the other way
    round; each reading keeps its own helper nodes.

    >>> a = Candidate("lookup", ("Find the height of A, assign it to ?x.", _ANSWER), ("<A> <h> ?x .",))
    >>> b = Candidate("lookup", ("Find the height of B, assign it to ?x.", _ANSWER), ("<B> <h> ?x .",))
    >>> d = difference(a, b, later=True)
    >>> d.head, d.steps[-2]
    ('SELECT ((?b - ?a) AS ?d)', 'Compute ?b minus ?a, assign it to ?d.')
    """
    a = _answer_named(first, "?a", "")
    b = _answer_named(second, "?b", "_b")
    return subtracted(first, second, later, (*a.steps, *b.steps), a.patterns + b.patterns)


def counted_difference(first: Candidate, second: Candidate, later: bool) -> Candidate:
    """How many more things ``first`` finds than ``second`` (``later``: the other way round),
    each counted on its own (*how many more captures of A than of B*).

    >>> a = Candidate("lookup", ("Find the capture whose species is A, assign it to ?x.", _ANSWER), ("?x <s> <A> .",))
    >>> b = Candidate("lookup", ("Find the capture whose species is B, assign it to ?x.", _ANSWER), ("?x <s> <B> .",))
    >>> found = counted_difference(a, b, later=False)
    >>> found.head, found.patterns[1]
    ('SELECT ((?a - ?b) AS ?d)', '{ SELECT (COUNT(DISTINCT ?x_b) AS ?b) WHERE { ?x_b <s> <B> . } }')
    """
    a, b = _answer_named(first, "?x", ""), _answer_named(second, "?x_b", "_b")
    steps = (*a.steps, "Count ?x, assign it to ?a.", *b.steps, "Count ?x_b, assign it to ?b.")
    patterns = (
        f"{{ SELECT (COUNT(DISTINCT ?x) AS ?a) WHERE {{ {' '.join(a.patterns)} }} }}",
        f"{{ SELECT (COUNT(DISTINCT ?x_b) AS ?b) WHERE {{ {' '.join(b.patterns)} }} }}",
    )
    return subtracted(first, second, later, steps, patterns)


def subtracted(
    first: Candidate, second: Candidate, later: bool, steps: tuple[str, ...], patterns: tuple[str, ...]
) -> Candidate:
    """``?a`` minus ``?b`` (``later``: ``?b`` minus ``?a``), bound by ``steps`` and ``patterns``
    that read both from the two candidates."""
    minuend, subtrahend = ("?b", "?a") if later else ("?a", "?b")
    steps = (*steps, f"Compute {minuend} minus {subtrahend}, assign it to ?d.", "The answer is ?d.")
    return replace(
        first, shape="difference", steps=steps, patterns=patterns, head=f"SELECT (({minuend} - {subtrahend}) AS ?d)",
        anchors=tuple(dict.fromkeys(first.anchors + second.anchors)), hops=max(first.hops, second.hops),
        answer_kind="literal", names_answer=False, answer_class="",
    )  # fmt: skip


def outranks(first: Candidate, second: Candidate, op: str) -> Candidate:
    """Whether the number ``first`` finds compares so with the one ``second`` finds (*did
    Gare du Nord have more passengers than Châtelet*); each reading keeps its own helpers.

    >>> a = Candidate("lookup", ("Find the height of A, assign it to ?x.", _ANSWER), ("<A> <h> ?x .",))
    >>> b = Candidate("lookup", ("Find the height of B, assign it to ?x.", _ANSWER), ("<B> <h> ?x .",))
    >>> found = outranks(a, b, "greater than")
    >>> found.head, found.patterns[-1], found.steps[-2]
    ('ASK', 'FILTER(?a > ?b)', 'Make sure ?a is greater than ?b.')
    """
    a = _answer_named(first, "?a", "")
    b = _answer_named(second, "?b", "_b")
    steps = (*a.steps, *b.steps, f"Make sure ?a is {op} ?b.", "The answer is whether ?a exists.")
    return replace(
        first, shape="yes-no", steps=steps, patterns=(*a.patterns, *b.patterns, f"FILTER(?a {SYMBOLS[op]} ?b)"),
        head="ASK", tail="", anchors=tuple(dict.fromkeys(first.anchors + second.anchors)),
        hops=max(first.hops, second.hops), answer_kind="", names_answer=False, answer_class="",
    )  # fmt: skip


def share(part: Candidate, whole: Candidate, percentage: bool) -> Candidate:
    """How many of the ``?x`` that ``whole`` finds ``part`` keeps, as a percentage (or a
    fraction) of them (*what percentage of order lines were shipped Standard Class*).

    >>> whole = Candidate("lookup", ("Find the entity whose type is line, assign it to ?x.", _ANSWER), ("?x a <L> .",))
    >>> part = replace(whole, steps=(whole.steps[0], 'Find the line whose mode is "Air", assign it to ?x.', _ANSWER),
    ...                patterns=("?x a <L> .", '?x <mode> "Air" .'))
    >>> found = share(part, whole, True)
    >>> found.head, found.steps[-2]
    ('SELECT ((100.0 * ?n1 / ?n2) AS ?p)', 'Compute ?n1 as a percentage of ?n2, assign it to ?p.')
    """
    kept = _answer_named(part, "?x", "")
    every = _answer_named(whole, "?y", "_w")
    steps = (*kept.steps, "Count ?x, assign it to ?n1.", *every.steps, "Count ?y, assign it to ?n2.")
    if percentage:
        steps += ("Compute ?n1 as a percentage of ?n2, assign it to ?p.", "The answer is ?p.")
        head = "SELECT ((100.0 * ?n1 / ?n2) AS ?p)"
    else:
        steps += ("Compute ?n1 divided by ?n2, assign it to ?p.", "The answer is ?p.")
        head = "SELECT ((?n1 / ?n2) AS ?p)"
    patterns = (
        f"{{ SELECT (COUNT(DISTINCT ?x) AS ?n1) WHERE {{ {' '.join(kept.patterns)} }} }}",
        f"{{ SELECT (COUNT(DISTINCT ?y) AS ?n2) WHERE {{ {' '.join(every.patterns)} }} }}",
    )
    return replace(part, shape="share", steps=steps, patterns=patterns, head=head, tail="",
                   answer_kind="literal", names_answer=False, answer_class="")  # fmt: skip


def _answer_named(reading: Candidate, answer: str, suffix: str) -> Candidate:
    """``reading`` without its answer line, ``?x`` called ``answer`` and its helpers suffixed."""

    def renamed(text: str) -> str:
        text = re.sub(r"\?(?!x\b)(\w+)", lambda m: f"?{m.group(1)}{suffix}", text)
        return re.sub(r"\?x\b", answer, text)

    steps = tuple(renamed(s) for s in without_answer(reading))
    return replace(reading, steps=steps, patterns=tuple(renamed(p) for p in reading.patterns))


#: what a question asks for where it asks for dates
_DAYS_ASKED = frozenset({"day", "date"})


def _group_keys(base: Candidate, others: Sequence[Hop]) -> list[Hop]:
    """The relations ``?x`` may be grouped by: not its type where the base has typed it (one
    group, of the class the base asks for), nor an edge by which the base already reached it
    (*the films that have a genre*, grouped by genre, count a film once for each of its
    genres in every group).

    >>> base = Candidate("lookup", (), ("?m a <G> .", "?x <http://x/genre> ?m ."))
    >>> hop = Hop("Find the genre of ?x, assign it to ?v.", ("?x <http://x/genre> ?v .",), "?v", "s")
    >>> _group_keys(base, [hop])
    []
    """
    typed = any(step.startswith(TYPED) for step in base.steps)
    return [
        hop
        for hop in others
        if not hop.flag  # true and false are no groups a question asks for
        and not (typed and hop.sentence.startswith("Find the type of "))
        and not (len(hop.patterns) == 1 and edge_at(hop.patterns[0], hop.via) in _reached(base, hop.via))
    ]


def _named_keys(keys: Sequence[Hop], text: str) -> list[Hop]:
    """The group keys the question names after *each* or *per*, by their words or their last
    word (*the average age of the passengers in each class*: the passenger class, not the
    sex); all of them where it names none.

    >>> hop = lambda name: Hop(f"Find the {name} of the passenger ?x, assign it to ?v.", (), "?v", name)
    >>> [h.statement_id for h in _named_keys([hop("sex"), hop("passenger class")], "the average age in each class")]
    ['passenger class']
    """
    each = GROUPED_BY.search(text)
    if each is None:
        return list(keys)
    said = {singular_word(w) for w in each.group(1).split()}
    named = [
        hop
        for hop in keys
        if (words := attribute_words(hop.sentence).split())
        and (named_at(hop.sentence, each.group(1)) >= 0 or singular_word(words[-1]) in said)
    ]
    return named or list(keys)


def _numbers_grouped(numbers: Sequence[Hop], text: str) -> list[Hop]:
    """The numbers of ``?x`` the question groups by, naming them after *each* or *per* (*on
    each day of the pandemic*: the day, an integer), beside the relations and strings.

    >>> day = Hop("Find the day of the pandemic of the test ?x, assign it to ?v.", (), "?v", "s")
    >>> [h.statement_id for h in _numbers_grouped([day], "how many positive tests were there on each day")]
    ['s']
    """
    each = GROUPED_BY.search(text)
    return [hop for hop in numbers if each and hop.via == "?x" and named_at(hop.sentence, each.group(1)) >= 0]


def _reached(base: Candidate, node: str) -> set[tuple[str, str]]:
    """The edges ``base`` meets ``node`` by (a node on the way too: the airline that
    operates the routes groups none of them by the routes it operates)."""
    return {edge for p in base.patterns if (edge := edge_at(p, node))}


def edge_at(pattern: str, node: str) -> tuple[str, str] | None:
    """The predicate and direction of a pattern's edge at ``node`` (``None``: not at it), the
    object a term or a literal with spaces.

    >>> edge_at('?m <result> "STAR BAKER" .', "?m"), edge_at("?a <p> ?b . ?b <q> ?m .", "?m")
    (('<result>', 'out'), None)
    """
    parts = pattern.split(maxsplit=2)
    if len(parts) != 3 or not parts[2].endswith(" ."):
        return None
    subject, predicate, thing = parts[0], parts[1], parts[2][:-2].strip()
    if " " in thing and not thing.startswith('"'):
        return None
    if subject == node:
        return predicate, "out"
    return (predicate, "in") if thing == node else None


#: the values *where* asks for, in English at large
_PLACES = frozenset({"place", "location", "address", "city", "country", "region", "site"})


def _asked_of_the_first(other: Hop, cues: Cues) -> bool:
    """Whether the question asks for ``other``'s value of the thing a superlative picks: one
    it names, a date where it asks *when*, a place where it asks *where*."""
    words = attribute_words(other.sentence)
    measured = HOW_MEASURED.search(cues.text)  # *how deep was ...*: the depth
    return (
        named_at(other.sentence, cues.text) >= 0
        or (cues.value and other.dated)
        or (cues.text.startswith("where ") and bool(set(words.split()) & _PLACES))
        or (measured is not None and words in MEASURED_BY[measured.group(1)])
    )


def _doer_asked(words: str, text: str) -> bool:
    """Whether *who* asks for the doer an attribute names (*who won*: the *winner*; *who
    directed*: the *director*; *who wrote*: the *writer*), or the one it names by what was
    done to them (*who was eliminated*: the *eliminated baker*).

    >>> [_doer_asked(w, "who won the series with the most viewers") for w in ("winner", "runner")]
    [True, False]
    >>> _doer_asked("director", "who directed the longest film"), _doer_asked("writer", "who wrote it")
    (True, True)
    >>> _doer_asked("eliminated baker", "who was eliminated in the first episode")
    True
    """
    said = text.split()
    if len(said) > 2 and said[0] == "who" and said[1] in ("was", "were", "is", "are"):
        return words.split()[:1] == said[2:3]  # *who was eliminated*: the *eliminated baker*
    if len(said) < 2 or said[0] != "who" or " " in words or not words.endswith(("er", "or")):
        return False
    stem = words[:-2]
    stems = {stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem}
    return any(said[1] in (s, s + "s", *past_forms(s)) for s in stems)


def reads_counted(candidate: Candidate, cues: Cues) -> bool:
    """Whether the answer is a value the graph keeps under the words the question counts
    (*how many home runs did he hit*: *the home runs of the batting season*): the count
    itself, not things to count.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the home runs of the batting season ?m, assign it to ?x.", "The answer is ?x.")
    >>> lookup = Candidate("lookup", steps, (), answer_kind="literal")
    >>> reads_counted(lookup, read_cues("How many home runs did he hit?"))
    True

    A count noun in the value's name goes without saying (*how many measles cases*: the case
    count of the report), and the counted words may begin with a kind (*measles*).

    >>> steps = ("Find the case count of ?m, assign it to ?x.", "The answer is ?x.")
    >>> reads_counted(replace(lookup, steps=steps), read_cues("How many measles cases did Ohio report?"))
    True
    """
    literal = candidate.answer_kind == "literal" and candidate.shape == "lookup"
    return literal and names_counted(answer_step(candidate), cues)


def names_counted(sentence: str, cues: Cues) -> bool:
    """Whether the value a ``Find`` sentence reads is named by the words the question counts
    (*the most pertussis cases*: the case count), a count noun in its name going without
    saying.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> names_counted("Find the case count of ?m, assign it to ?v.", read_cues("Which state had the most cases?"))
    True
    """
    read = [singular_word(w) for w in attribute_words(sentence).split()]
    read = [w for w in read if w not in COUNT_NOUNS and w != "of"] or read  # *number of teachers*
    counted = [singular_word(w) for w in cues.counted.split()]
    return bool(read) and read in (counted[: len(read)], counted[-len(read) :])


#: words that name a value as a count of what the other words name (*case count*)
COUNT_NOUNS = frozenset({"count", "number", "total", "amount", "tally"})


def _types_counted_unasked(base: Candidate, cues: Cues) -> bool:
    """Whether ``base`` finds the classes of one item and the question asks no kind: *how
    many guards are there* counts the players whose position is Guard, never Guard's types.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> base = Candidate("lookup", ("Find the type of Guard, assign it to ?x.", _ANSWER), ())
    >>> _types_counted_unasked(base, read_cues("How many guards are there?"))
    True
    >>> _types_counted_unasked(base, read_cues("How many types does Guard have?"))
    False
    """
    return base.steps[0].startswith("Find the type of ") and not _KIND_WORDS.search(cues.text)


#: the words that ask for kinds of a thing
_KIND_WORDS = re.compile(r"\b(?:types?|kinds?|sorts?|class(?:es)?|categor(?:y|ies))\b")


def operators(base: Candidate, cues: Cues, numbers: Sequence[Hop], others: Sequence[Hop]) -> Iterator[Candidate]:
    """Every shape the cues open on ``base``, with ``numbers`` (number- or date-valued
    attributes of ``?x``) and ``others`` (any other attribute or relation of ``?x``, or of a
    node on the way, which only groups)."""
    keys, others = others, [hop for hop in others if hop.via == "?x"]
    if cues.count and not reads_counted(base, cues) and not _types_counted_unasked(base, cues):
        yield counted(base)
    for attribute in (a for a in others if flag_named(a, cues.text)):
        kept = flagged(base, attribute, not cues.negation)
        yield kept
        if cues.negation and (never := never_flagged(base, attribute)):
            yield never
        if cues.yes_no:  # *did the Royals' 2015 season win the World Series*
            yield whether(kept)
        if cues.count:
            yield counted(kept)
        if cues.per_group:  # *how many employees left the company in each department*
            yield from (grouped(kept, group, None, None) for group in _named_keys(_group_keys(kept, keys), cues.text))
        if cues.group_rank:  # *which passenger class had the most survivors*
            offset, keep = cues.window or (0, 1)
            for group in _group_keys(kept, keys):
                yield ranked_groups(kept, group, None, not cues.least, offset, keep)
        for function in cues.aggregates:  # *the average age of the passengers who survived*
            yield from (aggregated(_value_as_w(kept), number, function) for number in numbers)
        for number in numbers if cues.ranking and not cues.group_rank else ():  # *the oldest survivor*
            most, least = direction(cues, number)
            yield from _listed(ranked(_value_as_w(kept), number, most or not least, *(cues.window or (0, 1))), cues)
            yield ranked_value(_value_as_w(kept), number, most or not least)
    if cues.contains:
        yield containing(base, cues.contains, cues.starts)
        for attribute in (a for a in others if named_at(a.sentence, cues.text) >= 0):
            yield containing_value(base, attribute, cues.contains, cues.starts)
            if cues.count:  # *how many earthquakes have Sarangani in their place*
                yield counted(containing_value(base, attribute, cues.contains, cues.starts))
        if cues.count:  # *how many airports have "Regional" in their name*
            yield counted(containing(base, cues.contains, cues.starts))
    if cues.ranking:
        offset, keep = cues.window or (0, 1)
        # *which manufacturer makes the drive with the highest read speed*: its manufacturer, the
        # first of all things of a kind (no total of each: *the lowest total profit*); not where
        # the things ranked are those asked for (*which team season had the most wins*)
        wanted, typed = asked_words(cues.text), TYPED_STEP.match(base.steps[0])
        ranked_asked = typed is not None and typed.group(2) == "?x" and asks_for(typed.group(1), wanted)
        whole = typed is not None and not ranked_asked and not (cues.named_functions or cues.by_total)
        for attribute in numbers:
            most, least = direction(cues, attribute)
            if most or (cues.window and not least):  # *the three cheapest*: the least alone
                yield from _listed(ranked(base, attribute, True, offset, keep), cues)
            if least:
                yield from _listed(ranked(base, attribute, False, offset, keep), cues)
            if cues.value and not cues.window:
                yield ranked_value(base, attribute, most or not least)
            # *in which year was it the smallest*, *where did the strongest earthquake happen*,
            # *the magnitude class of the deepest*: another value of the first, one the question
            # asks for (not where it asks for things: *which countries have the ...*)
            # (*who won the series with the most viewers*: the winner of the first series)
            for other in () if cues.window else (*numbers, *others):
                words = attribute_words(other.sentence)
                asked = _doer_asked(words, cues.text) or (whole and asks_for(words, wanted))
                if other is not attribute and (asked or not cues.things and _asked_of_the_first(other, cues)):
                    kind = "literal" if other in numbers else ""
                    yield ranked_other(base, attribute, other, most or not least, kind)
        # a value that is the count the question ranks by is ranked, not counted again
        counts = (cues.group_rank or cues.count or cues.per_group) and not reads_counted(base, cues)
        for group in _group_keys(base, keys) if counts else ():
            yield ranked_groups(base, group, None, not cues.least, offset, keep)
            for attribute in numbers:
                yield ranked_groups(base, group, attribute, not cues.least, offset, keep)
        # *on which date were the most captures made*, *which two days had the most orders*: the
        # dates grouped, one asked for; so is a number the question asks for by its name (*on
        # which day of the pandemic were the most tests collected*)
        days = counts and (cues.value or bool(_DAYS_ASKED & wanted))
        for day in (a for a in numbers if a.via == "?x") if counts else ():
            if (day.dated and days) or asks_for(attribute_words(day.sentence), wanted):
                yield replace(ranked_groups(base, day, None, not cues.least, offset, keep), answer_kind="literal")
        # *which species has the highest average body mass*: groups ranked by the function named
        for group in _group_keys(base, others) if cues.things else ():
            for function in cues.named_functions:
                for attribute in numbers:
                    yield ranked_groups(base, group, attribute, not cues.least, offset, keep, function)
    if cues.compare and cues.counts_compared and cues.things:  # *the countries where more than 30 players ...*
        for group in _group_keys(base, keys):
            yield kept_groups(base, group, *cues.compare)
    if cues.compare and not cues.counts_compared:  # *more than 3 films* compares a count, not a value
        day = bool(_DAY.fullmatch(cues.compare[1]))  # *after 2024-07-30* compares dates alone
        for attribute in (a for a in numbers if a.dated or not day):
            kept = compared(base, attribute, *cues.compare, cues.compare_unit, cues.compare_scale)
            yield from _listed(kept, cues)  # *the passengers older than 65 with their age*
            if cues.count and not _rereads(base, attribute):  # *how many countries had more than ...*
                yield counted(kept)
            if cues.yes_no:  # *was there an earthquake with a magnitude above 7*
                yield whether(kept)
        if cues.yes_no and base.answer_kind == "literal":
            yield holds_compared(base, *cues.compare)
    for function in cues.aggregates:
        for attribute in numbers:
            yield aggregated(base, attribute, _aged(function, cues, attribute))
    # *the average salary of the members with more than 30 years since their PhD*: of those kept
    for kept_by in (a for a in numbers if cues.compare and cues.aggregates and _said_after(a, cues)):
        kept = _value_as_w(compared(base, kept_by, *cues.compare, cues.compare_unit, cues.compare_scale))
        for function in cues.aggregates:
            for attribute in (a for a in numbers if a is not kept_by):
                yield aggregated(kept, attribute, _aged(function, cues, attribute))
    for attribute in (a for a in numbers if cues.placed and _PLACES_KEPT & set(attribute_words(a.sentence).split())):
        yield compared(base, attribute, "equal to", str(cues.placed))  # *finished second*: a rank of 2
    if cues.per_group:
        for group in _named_keys([*_group_keys(base, keys), *_numbers_grouped(numbers, cues.text)], cues.text):
            yield grouped(base, group, None, None)
            for function in cues.aggregates:
                for attribute in numbers:
                    yield grouped(base, group, attribute, function)
    own = [hop for hop in numbers if hop.via == "?x"]  # a value on the way is not one ?x lacks or lists
    if cues.against and (pair := either_side(own, cues.text)):
        kept = values_compared(base, *pair, cues.against)
        yield counted(kept) if cues.count else kept
    if cues.negation:
        for attribute in (*own, *others):
            without = negated(base, attribute)
            yield counted(without) if cues.count else without  # *how many courses have no textbook*
    if cues.columns:
        for attribute in (*own, *others):
            yield with_columns(base, attribute)
        named = mentioned((*own, *others), cues.text)
        if len(named) > 1:
            yield with_many_columns(base, named, keeps_subject(cues.text, named))


def _rereads(base: Candidate, attribute: Hop) -> bool:
    """Whether ``attribute`` reads again the very values ``base`` answers (the time in hours of
    each win, compared by the time in hours of the same win): counted, they would count
    values, not the things the question counts.

    >>> base = Candidate("lookup", ("Find the time in hours of a win, assign it to ?x.",), ("?m <h> ?x .",))
    >>> _rereads(base, Hop("Find the time in hours of the win ?m, assign it to ?v.", ("?m <h> ?v .",), "?v", "s"))
    True
    """
    answered = {re.sub(r"\?x\b", "?v", p) for p in base.patterns}
    return set(attribute.patterns) <= answered


def either_side(attributes: Sequence[Hop], text: str) -> tuple[Hop, Hop] | None:
    """The two values a question compares with *than* (*a higher percentage for Clinton
    than for Trump*: ``clinton pct`` and ``trump pct``), each named by a word of its own, one
    before *than* and one after; ``None`` unless there are exactly such two.

    >>> hop = lambda name: Hop(f"Find the {name} of the state ?x, assign it to ?v.", (), "?v", name)
    >>> pair = either_side([hop("clinton pct"), hop("trump pct"), hop("others pct")],
    ...                    "in how many states did clinton get a higher percentage than trump")
    >>> [h.statement_id for h in pair]
    ['clinton pct', 'trump pct']
    """
    than = f" {text} ".find(" than ")
    words = {id(hop): set(attribute_words(hop.sentence).split()) for hop in attributes}
    placed = []
    for hop in attributes:
        own = words[id(hop)] - {w for other in attributes if other is not hop for w in words[id(other)]}
        at = [f" {text} ".find(f" {w} ") for w in own if len(w) > 2]
        if any(a >= 0 for a in at):
            placed.append((min(a for a in at if a >= 0), hop))
    before = [hop for at, hop in placed if at < than]
    after = [hop for at, hop in placed if at > than]
    return (before[0], after[0]) if than > 0 and len(before) == 1 and len(after) == 1 else None


def values_compared(base: Candidate, first: Hop, second: Hop, op: str) -> Candidate:
    """The ``?x`` whose value ``first`` compares so with its value ``second``."""
    other = _to_w(second)
    steps = (*without_answer(base), first.sentence, other.sentence, f"Make sure ?v is {op} ?w.", _ANSWER)
    patterns = (*base.patterns, *first.patterns, *other.patterns, f"FILTER({condition('?v', op, '?w')})")
    return replace(base, shape="compare", steps=steps, patterns=patterns, hops=base.hops + 1)


def _listed(chosen: Candidate, cues: Cues) -> Iterator[Candidate]:
    """A ranking (or a comparison), and where the question asks for more columns (*the three
    oldest winners and their ages*) the same with the value it ranks by beside each thing.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> chosen = Candidate("rank", ("Rank ?x by ?v in descending order and keep the first 3.", _ANSWER), ())
    >>> [c.head for c in _listed(chosen, read_cues("List the three oldest winners and their ages."))]
    ['SELECT DISTINCT ?x', 'SELECT DISTINCT ?x ?v']
    """
    yield chosen
    if cues.columns and not _reads_twice(chosen):
        yield replace(chosen, steps=(*chosen.steps[:-1], "The answer is ?x and ?v."), head="SELECT DISTINCT ?x ?v")


def _reads_twice(chosen: Candidate) -> bool:
    """Whether the things are the very values they are ranked or compared by (the years of the
    wins, compared by the year of each): listed beside them, a column would say them twice.

    >>> steps = ("Find the year of the win ?m, assign it to ?x.", "Find the year of the win ?m, assign it to ?v.")
    >>> _reads_twice(Candidate("compare", steps, ()))
    True
    """
    found = {s.removesuffix("?x.") for s in chosen.steps if s.endswith(", assign it to ?x.")}
    return any(s.removesuffix("?v.") in found for s in chosen.steps if s.endswith(", assign it to ?v."))


def direction(cues: Cues, attribute: Hop) -> tuple[bool, bool]:
    """Whether a ranking by ``attribute`` goes to the most and to the least: the cues', but
    *oldest* is the greatest age where the attribute is a number, not a date (the earliest
    birth date).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> age = Hop("Find the age of the baker ?x, assign it to ?v.", (), "?v", "s")
    >>> direction(read_cues("Who was the oldest baker?"), age)
    (True, False)
    >>> direction(read_cues("Who was the oldest baker?"), replace(age, dated=True))
    (False, True)

    *Fastest* is the least time where the attribute keeps a time or a duration:

    >>> hours = Hop("Find the time in hours of the race win ?x, assign it to ?v.", (), "?v", "s")
    >>> direction(read_cues("Who won with the fastest time?"), hours)
    (False, True)
    """
    if SPEED_WORDS.search(cues.text) and _TIMED.search(attribute_phrase(attribute.sentence)):
        return cues.least, cues.most
    if _timed(attribute) or not AGE_WORDS.search(cues.text):
        return cues.most, cues.least
    return cues.least, cues.most


def _timed(attribute: Hop) -> bool:
    """Whether a value is a time: a date, or a year kept as a number (*founding year*: the
    oldest journal has the earliest).

    >>> _timed(Hop("Find the founding year of the journal ?x, assign it to ?v.", (), "?v", "s"))
    True
    """
    return attribute.dated or attribute_words(attribute.sentence).split()[-1:] == ["year"]


#: the words of an attribute that keeps a time taken (*time in hours*, *duration*, *minutes*)
_TIMED = re.compile(r"\b(?:time|times|duration|hours|minutes|seconds|milliseconds)\b")


def by_one_value(cues: Cues, attribute: Hop) -> bool:
    """Whether things ranked or compared by ``attribute`` of their records are so by one value,
    not by a total: a measure of intensity that does not add up (a wind speed, a pressure, an
    age, a score: *which storms had a central pressure below 920 millibars*), a time taken
    ranked by speed (*which runner won with the fastest time*) or compared in a unit of time
    (*which runners won with a time under 2.1 hours*), an age by *oldest* or *youngest*.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> hours = Hop("Find the time in hours of the race win ?w1, assign it to ?v.", (), "?v", "s")
    >>> by_one_value(read_cues("Which runner won with the fastest time?"), hours)
    True
    >>> by_one_value(read_cues("Which runners won with a time under 2.1 hours?"), hours)
    True
    >>> by_one_value(read_cues("Which runner won the most hours?"), hours)
    False
    >>> wind = Hop("Find the maximum sustained wind speed in knots of the observation ?w1, assign it to ?v.", (),
    ...            "?v", "s")
    >>> by_one_value(read_cues("Which storm had the strongest winds?"), wind)
    True
    """
    phrase = attribute_phrase(attribute.sentence)
    said = SPEED_WORDS.search(cues.text) or bool(cues.compare) and _TIMED.search(cues.compare_unit)
    aged = AGE_WORDS.search(cues.text) and re.search(r"\bage\b", phrase)
    return bool(said and _TIMED.search(phrase) or aged or _INTENSIVE & set(attribute_words(attribute.sentence).split()))


#: the words of measures that do not add up over a thing's records (a storm's wind speeds, a
#: patient's temperatures): the one value ranks and compares, not their sum
_INTENSIVE = frozenset({
    "speed", "pressure", "temperature", "age", "latitude", "longitude", "diameter", "radius", "height", "depth",
    "elevation", "altitude", "magnitude", "rating", "score", "rate", "ratio", "percentage", "percent", "density",
    "humidity", "grade", "level", "intensity", "category",
})  # fmt: skip


#: the words of an attribute that keeps the place a thing finished in
_PLACES_KEPT = frozenset({"rank", "place", "placement", "position", "standing", "finish", "ranking"})


def _aged(function: str, cues: Cues, attribute: Hop) -> str:
    """The maximum or minimum *youngest* or *oldest* names, as :func:`_direction` ranks: the
    youngest age is the least where the attribute is a number (the latest birth date else).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> age = Hop("Find the age of the queen ?x, assign it to ?v.", (), "?v", "s")
    >>> cues = read_cues("What is the youngest age of a queen?")
    >>> cues.aggregates, _aged("maximum", cues, age), _aged("maximum", cues, replace(age, dated=True))
    (('maximum',), 'minimum', 'maximum')
    """
    return FLIPPED[function] if function in cues.aged_extremes and not _timed(attribute) else function


FLIPPED = {"maximum": "minimum", "minimum": "maximum"}


_FUNCTION_WORDS = {
    "average": ("average", "mean"), "sum": ("total", "sum"), "minimum": ("minimum",), "maximum": ("maximum",),
}  # fmt: skip


def function_in_name(function: str, words: str, text: str) -> bool:
    """Whether an attribute's name (``words``) says the function and the question names that
    attribute by its other words too (*the highest average viewers*: *average UK viewers*):
    the question's word is that name, not an aggregate. An attribute named by the word alone
    (an invoice's *total*) is summed all the same.

    >>> function_in_name("average", "average uk viewers", "who won the series with the highest average viewers")
    True
    >>> function_in_name("sum", "total", "what is the total amount invoiced")
    False

    A name that holds the word is no function the question writes otherwise (*their highest
    wind speed*: the maximum of the *maximum sustained wind speed*):

    >>> function_in_name("maximum", "maximum sustained wind speed", "with their highest wind speed")
    False
    """
    named, written = set(words.split()), set(text.split())
    said = set(_FUNCTION_WORDS.get(function, (function,)))
    return bool(named & said & written) and bool((named - said) & written)
