"""What a candidate's shape and anchors say, beside its words: cheap features of a pair.

A question that asks *how many* wants a count, one that asks nothing of the kind wants
none; a candidate that uses every item the question names is more likely than one that
leaves one out (Pangu's agent prefers plans that use every grounded item). These are
facts about the pair, not about any one dataset.

>>> from nl2sparql.candidates.candidate import Candidate
>>> from nl2sparql.candidates.cues import read_cues
>>> c = Candidate("count", ("Count ?x, assign it to ?n.",), (), anchors=("Queen",))
>>> features = pair_features(c, read_cues("How many albums did Queen record?"), ("Queen",))
>>> {name: value for name, value in features.items() if value}
{'shape_asked': 1.0, 'coverage': 1.0}
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Sequence

from nl2sparql.candidates.anchors import asked_words, asks_for
from nl2sparql.candidates.candidate import TYPED, TYPED_STEP, Candidate
from nl2sparql.candidates.cues import (
    GROUPED_BY,
    HOW_MEASURED,
    MEASURED_BY,
    Cues,
    base_word,
    doers,
    pasts,
    singular_word,
)
from nl2sparql.candidates.shapes import (
    COUNT_NOUNS,
    FLIPPED,
    attribute_words,
    named_at,
    names_counted,
    own_words,
    reads_counted,
)

FEATURES: tuple[str, ...] = (
    "shape_asked", "shape_unasked", "operator_missing", "coverage", "extra_hops", "answer_typed", "value_answer",
    "answers_named", "function_match", "counted_typed", "attribute_named", "answer_class", "words_covered",
    "answers_type", "value_named", "negated_scope", "group_named", "who_not_someone", "answer_asked",
    "nameless_answer", "time_of_other", "ranked_as_said", "shared_unasked",
)  # fmt: skip
_COMPUTES = re.compile(r"^Compute the (\w+) of")
_ASSIGNS_VALUE = re.compile(r"assign it to \?v\d*\.$")
_COUNTS = re.compile(r"^Count (\?\w+)")
_EXTREME_EACH = re.compile(r"^Compute the (?:minimum|maximum) of \?\w+ for each ")
#: what a step finds, by its first words (*the destination airport* that the flight ...)
_FINDS = re.compile(r"^Find the (.+?) (?:that|of|whose|in|by|with|from|to)\b.*, assign it to (\?\w+)\.$")
#: a number of things a node keeps, read as the answer
_NUMBER_READ = re.compile(r"^Find the number of .+, assign it to \?x\.$")
#: which shape each kind of step realises, read off the plan's sentences
_STEP_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Count \?\w+ for each"), "group"),
    (re.compile(r"^Compute the \w+ of \?\w+ for each"), "group"),
    (re.compile(r"^Count "), "count"),
    (re.compile(r"^Compute the "), "aggregate"),
    (re.compile(r"^(Rank|Sort) "), "rank"),
    (
        re.compile(
            r"^Make sure \?\w+ is (greater than|less than|at least|at most|before|after|equal to|in the decade) "
        ),
        "compare",
    ),
    (re.compile(r"^Make sure nothing is |^Make sure \?x is not of type |^Make sure \?\w+ is false\.$"), "negation"),
    (re.compile(r"^Make sure \?x is not (?!of type )"), "same"),
    (re.compile(r"^Make sure \?\w+ (contains|starts with) "), "contains"),
    (re.compile(r"^The answer is whether "), "yes-no"),
    (re.compile(r"^The answer is \?\w+ and "), "columns"),
    (re.compile(r"^Compute \?\w+ minus "), "difference"),
    # a number the graph keeps of things (*the number of Academy Awards won*) is their count
    (_NUMBER_READ, "count"),
    (re.compile(r"^Compute \?\w+ (as a percentage of|divided by) "), "share"),
)


def realised_shapes(candidate: Candidate) -> frozenset[str]:
    """The shapes a candidate's steps realise (a per-group count realises a count too).

    >>> steps = ("Count ?x for each ?g, assign it to ?n.", "The answer is ?g and ?n.")
    >>> sorted(realised_shapes(Candidate("group", steps, ())))
    ['count', 'group']

    Things of a class ranked by the least of their values (*the runner with the fastest time*)
    are ranked by those values, no total computed:

    >>> steps = ("Find the entity whose type is runner, assign it to ?x.",
    ...          "Compute the minimum of ?v for each ?x, assign it to ?a.", "Rank ?x by ?a in ascending order.")
    >>> sorted(realised_shapes(Candidate("rank", steps, ())))
    ['rank']
    """
    steps = candidate.steps
    found = {shape for step in steps for pattern, shape in _STEP_SHAPES if pattern.match(step)}
    # the things of a class ranked by the least of their records' values: by those values
    if found & {"rank", "compare"} and steps[0].startswith(TYPED) and any(map(_EXTREME_EACH.match, steps)):
        return frozenset(found - {"group", "aggregate"})
    if "share" in found:  # the counts a share divides are its own
        found.discard("count")
    if "group" in found:
        found |= {"count"} if any(step.startswith("Count ") for step in candidate.steps) else {"aggregate"}
        found.discard("columns")  # the group and its value are the answer's two columns by nature
    return frozenset(found)


def _found_twice(candidate: Candidate) -> bool:
    """Whether two readings find the answer (*which films won both Best actor and Best
    actress*: the film of one award and the film of the other).

    >>> steps = ("Find the president of a term, assign it to ?x.", "Find the vice president of one, assign it to ?x.")
    >>> _found_twice(Candidate("lookup", steps, ())), _found_twice(Candidate("lookup", steps[:1], ()))
    (True, False)
    """
    finds = {s for s in candidate.steps if s.endswith(", assign it to ?x.") and not s.startswith(TYPED)}
    return len(finds) >= 2


def asked_shapes(cues: Cues, realised: frozenset[str] = frozenset()) -> set[str]:
    """The shapes the cues open. Groups are ranked by a number of things (*the most albums*)
    or, where the question says so, by a total (*spent the most money*), whichever measure a
    candidate ``realised``.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> sorted(asked_shapes(read_cues("Which customer has spent the most money?"), frozenset({"aggregate"})))
    ['aggregate', 'group', 'rank']
    """
    opened = {
        "count": cues.count or cues.group_rank or cues.counts_compared,
        "yes-no": cues.yes_no,
        "rank": cues.ranking,
        "compare": cues.compare is not None or cues.outranks is not None or bool(cues.placed) or bool(cues.against),
        # *which ... the highest* ranks things, and *in which year was it the highest* ranks
        # the years: a superlative names no maximum there
        "aggregate": bool(cues.aggregates)
        and (cues.per_group or not cues.things and not (cues.value and not cues.named_functions)),
        "group": cues.per_group or cues.group_rank or cues.counts_compared,
        "negation": cues.negation,
        "columns": cues.columns,
        "contains": cues.contains is not None,
        "same": cues.same,
        "difference": cues.difference is not None or cues.span,
        "share": cues.share is not None,
        "both": cues.both,
    }
    asked = {shape for shape, on in opened.items() if on}
    if cues.by_total and "aggregate" in realised and "count" in asked and not cues.count:
        asked = (asked - {"count"}) | {"aggregate"}
    if cues.named_functions and cues.things and cues.ranking and "group" in realised:  # *the highest average*
        asked |= {"aggregate", "group"}
    if cues.named_functions and cues.things and cues.compare and "group" in realised:  # *an average above 10000*
        asked |= {"aggregate", "group"}
    # *how many more captures of A than of B*, *how many more pages does A have*: counts subtracted,
    # and the number of pages of each that a difference is made of
    if cues.difference and cues.counted and realised & {"difference", "count"}:
        asked |= {"count"}
    return asked


def pair_features(candidate: Candidate, cues: Cues, named: Sequence[str]) -> dict[str, float]:
    """The features of (question, ``candidate``); ``named``: the items the question was grounded in."""
    realised = realised_shapes(candidate) | ({"count"} if cues.count and reads_counted(candidate, cues) else set())
    if "count" in realised and not cues.count and _number_kept(candidate, cues):  # *how many teachers does X have*
        realised -= {"count"}
    realised |= {"both"} if cues.both and _found_twice(candidate) else set()
    asked = asked_shapes(cues, realised)
    used, steps = set(candidate.anchors), candidate.steps
    strong = [name for name in named if name]
    return {
        "shape_asked": float(bool(realised & asked)),
        "shape_unasked": float(bool(realised - asked - {"columns"})),
        "operator_missing": float(bool(asked - realised - {"contains"})),
        "coverage": sum(name in used for name in strong) / len(strong) if strong else 0.0,
        "extra_hops": float(max(candidate.hops - 1, 0)),
        # or a value that says which of the class asked for (*in which midterm*: its year)
        "answer_typed": float(not cues.value and any(map(_types_answer, steps)) or candidate.answer_class == "record"),
        "value_answer": float(
            cues.value and candidate.answer_kind == "literal" or _ranked_value_asked(candidate, cues)
        ),
        "answers_named": float(candidate.names_answer and _answers_x(candidate)),
        "function_match": _function_match(candidate, cues),
        "counted_typed": _counted_typed(candidate, cues, realised),
        "attribute_named": _attribute_named(candidate, cues),
        # answering a named class is no evidence (it may be a node on the way: *the symbol of
        # the currency of India*); answering only other classes is
        "answer_class": -1.0 if candidate.answer_class == "other" else 0.0,
        "words_covered": _words_covered(candidate, cues),
        "answers_type": _answers_type(candidate, cues),
        "value_named": _value_named(candidate, cues),
        "negated_scope": _negated_scope(candidate, cues),
        "group_named": _group_named(candidate, cues),
        "who_not_someone": _who_not_someone(candidate, cues),
        "answer_asked": _answer_asked(candidate, cues),
        # an answer a reader knows by name, not a nameless record (*the award whose winner ...*)
        "nameless_answer": float(candidate.answer_nameless and "?x" in candidate.head.split()),
        "time_of_other": _time_of_other(candidate, cues),
        "ranked_as_said": _ranked_as_said(candidate, cues),
        "shared_unasked": _shared_unasked(candidate, cues),
    }


#: words a question is made of whatever it asks (question words, function words, verbs of asking)
_STOP = frozenset(
    (
        "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "had", "has",
        "have", "how", "in", "is", "it", "its", "many", "me", "much", "of", "on", "or", "the", "their", "there",
        "these", "this", "those", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose",
        "with", "give", "list", "name", "show", "tell", "all", "each", "every", "any", "most", "least", "more",
        "less", "than",
    )
)  # fmt: skip


def _content(text: str) -> set[str]:
    """The content words of a text, lower-cased, a plural ``s`` dropped, an irregular past
    as its verb (*won*: *win*, as a value *WIN* writes it)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {base_word(w) for w in words if len(w) > 1 and w not in _STOP}


def _words_covered(candidate: Candidate, cues: Cues) -> float:
    """The share of the question's content words that the candidate's sentences use: a reading
    that leaves *UTC offset* out of *the UTC offset of Japan's time zone* misses part of it.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> cues = read_cues("What is the UTC offset of Japan's time zone?")
    >>> _words_covered(Candidate("lookup", ("Find the time zone of the country Japan, assign it to ?x.",), ()), cues)
    0.6

    A regular past is covered by its verb written as a name (*ordered*: the *order item*):

    >>> steps = ("Find the order item whose menu item is ?w1, assign it to ?v.",)
    >>> round(_words_covered(Candidate("rank", steps, ()), read_cues("Which pizza was ordered most often?")), 2)
    0.33

    A doer is covered by the verb of what they did (*survivors*: *survived*):

    >>> steps = ("Find the survived of the passenger ?x, assign it to ?v.",)
    >>> _words_covered(Candidate("compare", steps, ()), read_cues("How many survivors?"))
    1.0
    """
    asked, said = _content(cues.text), _content(" ".join(candidate.steps))
    named = _content(" ".join(step for step in candidate.steps if step.startswith("Find ")))  # not *in order*
    said_past = {form for word in named for form in pasts(word)}
    done = {noun for word in named for noun in doers(word)}  # *survivors*: those who *survived*
    return len(asked & (said | said_past | done)) / len(asked) if asked else 0.0


#: the one variable a plan answers with (*The answer is ?g.*)
_ANSWER_VAR = re.compile(r"^The answer is (\?\w+)\.$")
_ASKS_TYPE = re.compile(r"\b(?:type|types|kind|kinds|sort|class|classes|category|categories)\b")


def _answers_x(candidate: Candidate) -> bool:
    """Whether the answer holds the ``?x`` a reading found (not a yes/no, nor only values of
    it: *the weight and hindfoot length of record 17230* answers two values of the record).

    >>> _answers_x(Candidate("columns", (), (), head="SELECT DISTINCT ?v1 ?v2"))
    False
    """
    return candidate.shape != "yes-no" and re.search(r"\?x\b", candidate.head) is not None


def _answers_type(candidate: Candidate, cues: Cues) -> float:
    """1 when the answer is the class of a node (*the type of X*) and the question asks for no
    type, kind or class of anything.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> c = Candidate("lookup", ("Find the type of X, assign it to ?x.", "The answer is ?x."), ())
    >>> _answers_type(c, read_cues("When was X built?")), _answers_type(c, read_cues("What kind of thing is X?"))
    (1.0, 0.0)
    >>> groups = Candidate("rank-group", ("Find the type of ?x, assign it to ?g.", "The answer is ?g."), ())
    >>> _answers_type(groups, read_cues("Which city has the highest total profit?"))
    1.0
    >>> steps = ("Find the type of Wookiee, assign it to ?x.", "Count ?x, assign it to ?n.", "The answer is ?n.")
    >>> _answers_type(Candidate("count", steps, ()), read_cues("How many Wookiees are there?"))
    1.0
    """
    finds = (_answer_find(candidate, "?x"), _counted_find(candidate))
    typed = any(find.startswith("Find the type of ") for find in finds)
    return float(typed and not _ASKS_TYPE.search(cues.text))


def _answer_asked(candidate: Candidate, cues: Cues) -> float:
    """1 when the edge the answer is found by is named by the things the question asks for
    (*who won*: the winner of the award; *which films*: the film of the award), or is the
    whole of what it asks the value of (*what was the age of the youngest*: the age).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the winner of the academy award ?m, assign it to ?x.", "The answer is ?x.")
    >>> _answer_asked(Candidate("lookup", steps, ()), read_cues("Who won Best actor in 1995?"))
    1.0
    >>> steps = ("Find the ceremony of the academy award ?m, assign it to ?x.", "The answer is ?x.")
    >>> _answer_asked(Candidate("lookup", steps, ()), read_cues("Who won Best actor in 1995?"))
    0.0
    >>> steps = ("Find the population of the record ?m, assign it to ?x.", "The answer is ?x.")
    >>> _answer_asked(Candidate("lookup", steps, ()), read_cues("What was the population density of Guelph?"))
    0.0
    >>> steps = ("Find the storm whose season is 2022, assign it to ?x.", "The answer is ?x.")
    >>> _answer_asked(Candidate("lookup", steps, ()), read_cues("Which storms of the 2022 season never formed?"))
    1.0
    >>> steps = ("Find the storm whose season is the year ?m, assign it to ?x.", "The answer is ?x.")
    >>> _answer_asked(Candidate("lookup", steps, ()), read_cues("Which storms of the 2022 season never formed?"))
    0.0
    """
    found = _answer_find(candidate, "?x")
    edge = attribute_words(found)
    read = [singular_word(w) for w in edge.split()]
    if what := _WHAT_OF.match(cues.text):  # the whole value asked (by its head noun too), or a cut name of it
        asked = [singular_word(w) for w in what.group(1).split()]
        whole = set(asked) <= set(read) and read[-1:] == asked[-1:]  # *salary*: the nine-month salary
        cut = len(set(read)) == 1 and len(asked) == 1 and named_at(found, asked[0]) == 0
        return float(whole or cut)
    if cues.count or cues.yes_no:  # what is counted or checked is read by other features
        return 0.0
    # or the things asked for, as a grounded value finds them (*which storms*: the storm whose season is 2022)
    kind = _WHOSE.match(found) if cues.things and "?" not in found.rsplit(", assign", 1)[0] else None
    return float(asks_for(edge or (kind.group(1) if kind else ""), asked_words(cues.text)))


_WHOSE = re.compile(r"^Find the ((?:[\w-]+ ){0,2}[\w-]+) whose ")


#: *what was the population density of ...*: the value asked for, named before *of*
_WHAT_OF = re.compile(r"^what (?:is|was|are|were) the ((?:\w+ ){0,3}?\w+) of\b")


def _number_kept(candidate: Candidate, cues: Cues) -> bool:
    """Whether a reading's answer is a number the graph keeps of the things the question
    counts (*the number of teachers* of a district, for *how many teachers does it have*):
    a value read, not a count made."""
    return any(_NUMBER_READ.match(s) and names_counted(s, cues) for s in candidate.steps)


def _ranked_value_asked(candidate: Candidate, cues: Cues) -> bool:
    """Whether a ranking answers the very values it ranks by where the question asks for
    them: *what were the three highest sale prices* ends on the value's head noun (the
    prices, not the sales); *what is the longest track* asks for a track.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the price in dollars of the sale ?m, assign it to ?x.",
    ...          "Find the price in dollars of the sale ?m, assign it to ?v.", "Rank ?x by ?v in descending order.")
    >>> ranking = Candidate("rank", steps, ())
    >>> _ranked_value_asked(ranking, read_cues("What were the three highest sale prices?"))
    True
    >>> _ranked_value_asked(ranking, read_cues("What is the most expensive sale?"))
    False
    """
    if candidate.shape != "rank" or not cues.text.startswith("what "):
        return False
    ranked = [s for s in candidate.steps if s.endswith("assign it to ?v.")]
    if not any(s.removesuffix("?v.") + "?x." in candidate.steps for s in ranked):
        return False
    ends = [cues.text[m.end() :].split() for m in _SUPERLATIVE.finditer(cues.text)]
    heads = {singular_word(words[-1].strip("?")) for words in ends if 0 < len(words) <= 3}
    return any(heads & {singular_word(w) for w in own_words(s)} for s in ranked)


def _shared_unasked(candidate: Candidate, cues: Cues) -> float:
    """1 when a reading goes from a thing to a node and back by the same edge to the things
    that share that node (the journals of the field of X), where the question asks for
    nothing shared (*the same*, *other*, *also*): *who publishes X* is X's publisher, not
    the publishers of the journals in X's field.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the field of the journal X, assign it to ?m.",
    ...          "Find the journal whose field is ?m, assign it to ?m3.",
    ...          "Find the publisher of the journal ?m3, assign it to ?x.")
    >>> _shared_unasked(Candidate("lookup", steps, ()), read_cues("Who publishes X?"))
    1.0
    >>> _shared_unasked(Candidate("lookup", steps, ()), read_cues("Who publishes the other journals of X's field?"))
    0.0
    """
    if cues.same or _SHARING.search(cues.text):
        return 0.0
    for first, second in itertools.pairwise(candidate.steps):
        went = _WENT.match(first)
        if went and second.startswith(f"Find the {went.group(2)} whose {went.group(1)} is {went.group(3)},"):
            return 1.0
    return 0.0


#: a step to a node by an edge: the edge's words, the kind of thing it leaves, the node's variable
_WENT = re.compile(r"^Find the (.+?) of the ([a-z][\w -]*?) .*, assign it to (\?\w+)\.$")
#: words that ask for things sharing something with another
_SHARING = re.compile(r"\b(?:other|others|also|too|another|else|both)\b")


def _ranked_as_said(candidate: Candidate, cues: Cues) -> float:
    """1 when a ranking ranks by (or an aggregate computes, for each group or in all) the value
    the question names right after its superlative (*the member with the most years of service*: by the years of
    service, not the salary; *the most home runs*: their maximum or a ranking by them).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the years of service of the member ?x, assign it to ?v.", "Rank ?x by ?v in descending order.")
    >>> question = "What is the salary of the member with the most years of service?"
    >>> _ranked_as_said(Candidate("rank", steps, ()), read_cues(question))
    1.0
    >>> steps = ("Find the maximum sustained wind speed of the observation ?w1, assign it to ?v.", "Rank ?x by ?a.")
    >>> _ranked_as_said(Candidate("rank", steps, ()), read_cues("Which storm had the strongest winds?"))
    1.0
    """
    if candidate.shape not in ("rank", "aggregate", "group"):
        return 0.0
    ranked = [attribute_words(s) for s in candidate.steps if s.startswith("Find ") and s.endswith("assign it to ?v.")]
    after = [" ".join(cues.text[m.end() :].split()[:4]) for m in _SUPERLATIVE.finditer(cues.text)]
    if any(words and f"{phrase} ".startswith(f"{words} ") for words in ranked for phrase in after):
        return 1.0
    # or by a value one of whose words is the noun right after it (*the strongest winds*: the wind speed)
    # (*the largest breaches*: not the *breach submission date* of a breach)
    owned = [own_words(s) for s in candidate.steps if s.startswith("Find ") and s.endswith("assign it to ?v.")]
    nouns = {singular_word(phrase.split()[0]) for phrase in after if phrase and phrase.split()[0] not in _STOP}
    return float(any(nouns & {singular_word(w) for w in words} for words in owned))


_SUPERLATIVE = re.compile(
    r"\b(?:most|least|highest|lowest|largest|smallest|fewest|greatest|biggest|longest|shortest|oldest|youngest"
    r"|latest|earliest|heaviest|lightest|strongest|weakest|fastest|slowest|deepest|hottest|coldest)\b"
)


def _time_of_other(candidate: Candidate, cues: Cues) -> float:
    """1 when a time compared or ranked by is of a kind the question never names (*who won in
    the 1970s*: not the winner's birth date; *who was born before 1880* names it).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the birth date of the performer ?x, assign it to ?v.", "Make sure ?v is before 1880.")
    >>> born = Candidate("compare", steps, ())
    >>> _time_of_other(born, read_cues("Who won before 1880?")), _time_of_other(born, read_cues("Who was born then?"))
    (1.0, 0.0)
    >>> steps = ("Find the year of the ceremony ?m, assign it to ?v.", "Make sure ?v is before 1880.")
    >>> _time_of_other(Candidate("compare", steps, ()), read_cues("Who won before 1880?"))
    0.0

    A thing's own time is when it starts (*the most recent term*: by its start year, which
    the term still running has; not by its end year):

    >>> steps = ("Find the start year of the term ?m, assign it to ?v.", "Rank ?x by ?v in descending order.")
    >>> recent = read_cues("Who was the president of the most recent term?")
    >>> _time_of_other(Candidate("rank", steps, ()), recent)
    0.0
    >>> _time_of_other(Candidate("rank", (steps[0].replace("start", "end"), steps[1]), ()), recent)
    1.0
    """
    if candidate.shape not in ("compare", "rank"):
        return 0.0
    said = cues.text.split()
    sized = candidate.shape == "rank" and _sized(said)
    for step in (s for s in candidate.steps if _ASSIGNS_VALUE.search(s)):
        words = attribute_words(step).split()
        kinds = [w for w in words if w not in _TIME_NOUNS and w not in _STARTS]
        if len(kinds) < len(words) and (sized or kinds and not any(_said(kind, said) for kind in kinds)):
            return 1.0
    return 0.0


def _sized(words: Sequence[str]) -> bool:
    """Whether a superlative of measure that no time is measured by ranks (*the largest
    breaches*: never by their date; *the oldest* may be by a birth date).

    >>> _sized("the largest breaches".split()), _sized("the oldest player".split()), _sized(["latest"])
    (True, False, False)
    """
    nouns = [MEASURED_BY[w] for w in words if w in MEASURED_BY and _SUPERLATIVE.fullmatch(w)]
    return bool(nouns) and not any(_TIME_NOUNS & set(n.split()[-1] for n in found) for found in nouns)


def _said(noun: str, words: Sequence[str]) -> bool:
    """Whether a noun or its verb is among the words (*birth*: *born*; *release*: *released*)."""
    return any(w == noun or _EVENT_VERBS.get(w) == noun or len(os.path.commonprefix((w, noun))) >= 4 for w in words)


#: verbs whose event noun shares no stem with them
_EVENT_VERBS = {"born": "birth", "died": "death", "dead": "death", "die": "death", "dies": "death"}


def _who_not_someone(candidate: Candidate, cues: Cues) -> float:
    """1 when the question asks *who* and the answer is a number, a date, a class or a value
    written without a letter, which no one is (*who was the oldest winner*: not the age, not
    the type of the award; *who ran the fastest time*: not the time kept as text, 02:05:06).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the age of the winner of the award ?m, assign it to ?x.", "The answer is ?x.")
    >>> aged = Candidate("lookup", steps, (), answer_kind="literal", answer_datatype="xsd:integer")
    >>> _who_not_someone(aged, read_cues("Who won in 1995?")), _who_not_someone(aged, read_cues("How old was she?"))
    (1.0, 0.0)
    >>> typed = Candidate("lookup", ("Find the type of ?m, assign it to ?x.", "The answer is ?x."), ())
    >>> _who_not_someone(typed, read_cues("Who won in 1995?"))
    1.0
    >>> timed = Candidate("lookup", ("Find the time of the win ?m, assign it to ?x.",), (), answer_wordless=True)
    >>> _who_not_someone(timed, read_cues("Who ran the fastest time?"))
    1.0
    """
    typed = _answer_find(candidate, "?x").startswith("Find the type of ")
    return float(cues.person and (bool(candidate.answer_datatype) or typed or candidate.answer_wordless))


def _answer_find(candidate: Candidate, default: str | None = None) -> str:
    """The last ``Find`` step that assigns the one variable a plan answers with (``default``
    where it answers with no single one), or ``""``."""
    answer = _ANSWER_VAR.search(candidate.steps[-1]) if candidate.steps else None
    return _find_of(candidate, answer.group(1) if answer else default)


def _find_of(candidate: Candidate, var: str | None) -> str:
    """The last ``Find`` step that assigns ``var``, or ``""``."""
    found = [s for s in candidate.steps if var and s.startswith("Find ") and s.endswith(f"assign it to {var}.")]
    return found[-1] if found else ""


def _counted_find(candidate: Candidate) -> str:
    """The last ``Find`` step that assigns what a plain count counts (``Count ?x, ...``), or ``""``."""
    counted = [m.group(1) for s in candidate.steps if (m := _COUNTS.match(s)) and " for each " not in s]
    return _find_of(candidate, counted[-1]) if counted else ""


#: *in which year ...*, *what date ...*: the value a question asks for, by its noun
_ASKED_VALUE = re.compile(r"^(?:in |on |of |for )?(?:which|what) (year|date|month|day)s?\b")
#: what *when* asks for: a value of one of these names
_TIME_NOUNS = frozenset({"date", "time", "year", "day", "month"})
#: what *where* asks for: a value of one of these names (or one ending in *place*)
_PLACE_NOUNS = frozenset({"place", "location", "site", "venue", "address"})
#: the words of a thing's own start (*start year*, *beginning date*)
_STARTS = frozenset({"start", "starting", "begin", "beginning", "opening"})


def _value_named(candidate: Candidate, cues: Cues) -> float:
    """1 when the question asks for a value by its noun (*in which year*), or asks *when*, and
    the answer is a value of that name (*the year of the observation*; a date, a time, a
    year), not the number a superlative ranks by.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the year of the observation ?x, assign it to ?w.", "The answer is ?w.")
    >>> _value_named(Candidate("rank", steps, ()), read_cues("In which year was Ireland's population smallest?"))
    1.0
    >>> steps = ("Find the time of the earthquake ?x, assign it to ?w.", "The answer is ?w.")
    >>> _value_named(Candidate("rank", steps, ()), read_cues("When did the deepest earthquake happen?"))
    1.0
    >>> steps = ("Find the birthplace of the actor Meryl Streep, assign it to ?x.", "The answer is ?x.")
    >>> _value_named(Candidate("lookup", steps, ()), read_cues("Where was Meryl Streep born?"))
    1.0
    """
    asked = _ASKED_VALUE.search(cues.text)
    nouns = {asked.group(1)} if asked else _TIME_NOUNS if cues.text.startswith("when ") else set()
    if cues.text.startswith("where "):  # *where was the information kept*: its location
        nouns = _PLACE_NOUNS
    words = attribute_words(_answer_find(candidate)).split()
    return float(bool(nouns & {*words, *("place" for w in words if w.endswith("place"))}))


def _attribute_named(candidate: Candidate, cues: Cues) -> float:
    """1 when the value an operator ranks, compares or computes (``?v``), or a column lists
    (``?v1``, ...), is one the question names in its own words (*the largest population*: the
    population of ``?m``).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> steps = ("Find the population of the observation ?m, assign it to ?v.",)
    >>> _attribute_named(Candidate("rank", steps, ()), read_cues("Which country had the largest population?"))
    1.0
    >>> steps = ("Find the weight in pounds of the car ?x, assign it to ?v.",)
    >>> _attribute_named(Candidate("rank", steps, ()), read_cues("Which car is the lightest?"))
    1.0
    >>> steps = ("Find the running time in minutes of the film Skyfall, assign it to ?x.", "The answer is ?x.")
    >>> _attribute_named(Candidate("lookup", steps, ()), read_cues("How long is Skyfall?"))
    1.0
    >>> steps = ("Find the body weight in kilograms of the mammal ?x, assign it to ?v.",)
    >>> _attribute_named(Candidate("rank", steps, ()), read_cues("Which mammal is the lightest?"))
    1.0
    >>> steps = ("Find the nine-month salary in dollars of the member ?m, assign it to ?v.",)
    >>> _attribute_named(Candidate("rank", steps, ()), read_cues("What are the three highest salaries?"))
    1.0
    """
    measures = [noun for word in cues.text.split() for noun in MEASURED_BY.get(word, ())]
    text = " ".join((cues.text, *measures))
    # *how long is Skyfall*: the value looked up is the measure the adjective speaks of
    asks_measure = bool(HOW_MEASURED.search(cues.text)) and candidate.shape == "lookup"
    valued = [s for s in candidate.steps if _ASSIGNS_VALUE.search(s) or (asks_measure and s.endswith("to ?x."))]
    # *the lightest*: a weight, whatever kind (*body weight in kilograms*)
    measured = [s for s in valued if any(f" {attribute_words(s)}".endswith(f" {noun}") for noun in measures)]
    # *the most pertussis cases*: the case count, a number the graph keeps of the things counted
    counted = [s for s in valued if _ASSIGNS_VALUE.search(s) and names_counted(s, cues)]
    # *the highest salaries*: the nine-month salary, named by its head noun
    said = {singular_word(w) for w in cues.text.split()}
    headed = [s for s in valued if (head := attribute_words(s).split()[-1:]) and _head_named(head[0], said)]
    return float(bool(measured or counted or headed) or any(named_at(step, text) >= 0 for step in valued))


def _head_named(head: str, said: set[str]) -> bool:
    """Whether a value's head noun is among the question's words, and is no noun any value
    may end in (*date*, *number*, *name*)."""
    return singular_word(head) in said and head not in _TIME_NOUNS | COUNT_NOUNS | {"name", "code", "type", "id"}


def _counted_typed(candidate: Candidate, cues: Cues, realised: frozenset[str]) -> float:
    """+1 when what a count counts (``?x``, or the ``?v`` of *Count ?v for each ?x*) is typed
    with the class the question counts (*how many countries*, *the most albums*), -1 when it
    is typed with another class."""
    if not cues.counted or not realised & {"count", "group"}:
        return 0.0
    if _sums_only(candidate):  # *affected the most individuals in total*: a sum, nothing counted
        return 0.0
    counts = next((m.group(1) for step in candidate.steps if (m := _COUNTS.match(step))), "?x")
    typed = [m.group(1) for step in candidate.steps if (m := TYPED_STEP.match(step)) and m.group(2) == counts]
    wanted = cues.counted.lower().split()
    if not typed:  # *how many different destinations*: the step that finds them names them
        found = [m.group(1) for step in candidate.steps if (m := _FINDS.match(step)) and m.group(2) == counts]
        if any(_same_noun(w, wanted) for noun in found for w in noun.lower().split()):
            return 1.0
        # values of another name counted (*how many homes sold for more than X*: not their
        # bedrooms); *how many times* counts occurrences of anything
        occurrences = [singular_word(w) for w in wanted[:1]] == ["time"]
        return -1.0 if found and not occurrences and _values_found(candidate, counts) else 0.0
    return 1.0 if any(_same_noun(t.lower().split()[-1], wanted) for t in typed) else -1.0


def _values_found(candidate: Candidate, counted: str) -> bool:
    """Whether what a count counts is an attribute's values, read off a thing found first
    (*Find the bedrooms of the sale ?m, assign it to ?x*), not things found by a relation.

    >>> steps = ("Find the bedrooms of the sale ?m, assign it to ?x.", "Count ?x, assign it to ?n.")
    >>> _values_found(Candidate("count", steps, ()), "?x")
    True
    >>> steps = ("Find the sale whose city is Galt, assign it to ?x.", "Count ?x, assign it to ?n.")
    >>> _values_found(Candidate("count", steps, ()), "?x")
    False
    """
    return any(step.endswith(f"assign it to {counted}.") and _OF_THING.search(step) for step in candidate.steps)


#: a value read of a thing a variable holds, or of any thing (*the bedrooms of the sale ?m*,
#: *the customers affected of an incident*)
_OF_THING = re.compile(r" of (?:the [\w -]+ \?\w+|an? [\w -]+), assign it to \?\w+\.$")


def _sums_only(candidate: Candidate) -> bool:
    """Whether a candidate computes a function of values and counts nothing."""
    steps = candidate.steps
    return any(_COMPUTES.match(s) for s in steps) and not any(_COUNTS.match(s) for s in steps)


def _same_noun(name: str, words: Sequence[str]) -> bool:
    """Whether a class name is one of the words, plural or not (*album* and *albums*, *country*
    and *countries*).

    >>> _same_noun("country", ["countries"]), _same_noun("continent", ["countries"])
    (True, False)
    """
    return any(singular_word(w) == singular_word(name) for w in words)


def _function_match(candidate: Candidate, cues: Cues) -> float:
    """+1 when the candidate computes the function the question names (*total*, *average*),
    -1 when the question names one and the candidate counts or ranks groups without it (a
    ranking of things by what each one's values compute is held to it too)."""
    computed = {m.group(1) for step in candidate.steps if (m := _COMPUTES.match(step))}
    ranks_computed = candidate.shape == "rank" and bool(computed)  # *the most in total*: by each one's sum
    if not cues.aggregates or candidate.shape not in ("aggregate", "group", "rank-group") and not ranks_computed:
        return 0.0
    if cues.things and candidate.shape == "aggregate":  # one number cannot be the things asked for
        return 0.0
    wanted = {*cues.aggregates, *(FLIPPED[f] for f in cues.aged_extremes)}  # *youngest*: a least age
    return 1.0 if computed & wanted else -1.0


def _types_answer(step: str) -> bool:
    """Whether a step says what class the answer is (a class the question named, *which country*)."""
    return " whose type is " in step and step.endswith("assign it to ?x.")


def _negated_scope(candidate: Candidate, cues: Cues) -> float:
    """The share of the words the question negates (*never won an episode*) that the
    candidate says under its absence, less the share it says of them as holding: *WIN* kept
    as a condition of the things asked for contradicts *never won*.

    >>> from nl2sparql.candidates.cues import read_cues
    >>> cues = read_cues("Which contestants of Season 6 never won an episode?")
    >>> held = ("Find the contestant competed in the season Season 6, assign it to ?x.",
    ...         'Find the placement whose outcome is "WIN", assign it to ?m_1.',
    ...         "Make sure nothing is the episode whose eliminated is the contestant ?x.")
    >>> absent = ("Find the contestant competed in the season Season 6, assign it to ?x.",
    ...           'Make sure nothing is the contestant of the placement whose outcome is "WIN" that is ?x.')
    >>> _negated_scope(Candidate("negation", held, ()), cues), _negated_scope(Candidate("negation", absent, ()), cues)
    (0.0, 0.5)

    A yes/no value kept false is said as absent (*do not support NVMe*):

    >>> steps = ("Find the nvme of the drive ?x, assign it to ?v.", "Make sure ?v is false.")
    >>> _negated_scope(Candidate("compare", steps, ()), read_cues("Which drives do not support NVMe?"))
    0.5
    """
    negated = _NEGATED.search(cues.text) if cues.negation else None
    scope = _content(negated.group(1)) if negated else set()
    if not scope:
        return 0.0
    falsified = {m.group(1) for s in candidate.steps if (m := _FALSE.match(s))}
    said = [(s, s.startswith(_ABSENCE) or _assigns(s) in falsified) for s in candidate.steps]
    absent = " ".join(s for s, out in said if out)
    held = " ".join(s for s, out in said if not out)
    return (len(scope & _content(absent)) - len(scope & _content(held))) / len(scope)


#: a yes/no value kept false (*do not support NVMe*: the NVMe flag false) is a negation
_FALSE = re.compile(r"^Make sure (\?\w+) is false\.$")


def _assigns(step: str) -> str:
    """The variable a step assigns (``?v`` of ``..., assign it to ?v.``), or ``""``."""
    match = re.search(r"assign it to (\?\w+)\.$", step)
    return match.group(1) if match else ""


#: what a negation word governs, up to the end of its clause
_NEGATED = re.compile(r"\b(?:no|not|never|without|none|n't|lack|lacks|missing)\b([^,;?.]*)")
_ABSENCE = ("Make sure nothing is ", "Make sure ?x is not of type ")


def _group_named(candidate: Candidate, cues: Cues) -> float:
    """1 when what a per-group candidate groups by is what the question names after *each*
    or *per* (*the average land area for each census subdivision type*: that attribute, not
    the census divisions).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> cues = read_cues("What is the average land area for each census subdivision type?")
    >>> by_type = ("Find the census subdivision type of the municipality ?x, assign it to ?g.",)
    >>> by_division = ("Find the entity whose type is census division, assign it to ?x.",
    ...                "Compute the average of ?v for each ?x, assign it to ?a.")
    >>> _group_named(Candidate("group", by_type, ()), cues), _group_named(Candidate("group", by_division, ()), cues)
    (1.0, 0.0)
    """
    phrases = [_content(m.group(1)) for m in GROUPED_BY.finditer(cues.text)] if cues.per_group else []
    if not phrases:
        return 0.0
    keys = [attribute_words(s) or _noun_found(s) for s in candidate.steps if s.endswith("assign it to ?g.")]
    if any(" for each ?x" in s for s in candidate.steps):  # the things themselves, by their class
        keys += [m.group(1) for s in candidate.steps if (m := TYPED_STEP.match(s)) and m.group(2) == "?x"]
    return float(any(key and _content(key) <= phrase for key in keys for phrase in phrases))


def _noun_found(step: str) -> str:
    """What a *Find the X that ...* or *Find the X whose ...* step finds."""
    match = _FINDS.match(step)
    return match.group(1) if match else ""
