"""What a question asks of the readings the agent builds: which class it counts or groups
by, whether it asks a kind of a class, names a class in the plural, asks how far apart two
times are by an age, counts the things a reading finds, or reads a number a graph keeps
under the words it counts then a verb. Kept apart from :mod:`~.agent`, which searches the
graph, as plain functions of the question's words and a reading's sentences."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nl2sparql.candidates.candidate import Anchor, Candidate
from nl2sparql.candidates.cues import GROUPED_BY, Cues, singular_word
from nl2sparql.candidates.shapes import AGE_WORDS, answer_step, attribute_words
from nl2sparql.kg.verbs import verb_written

#: words after a compared number that name no things (*older than 60 when they won*)
NOT_COUNTED = frozenset({
    "and", "or", "but", "when", "where", "while", "since", "before", "after", "than", "that", "which", "who",
    "whose", "with", "without", "from", "for", "per", "each", "the", "this", "these", "those", "its", "their",
    "times", "percent", "years", "old",
})  # fmt: skip


def counted_class(anchor: Anchor, cues: Cues) -> bool:
    """Whether the question counts things of the class ``anchor`` names (*the most airports*,
    *more than 3 films*: the word after the compared number), or by its head noun alone
    (*at least four lines*: metro lines).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> line = Anchor("<L>", "metro line", "class", 1.0)
    >>> served = read_cues("which stations are served by at least four lines")
    >>> counted_class(line, served), counted_class(line, read_cues("lines"))
    (True, False)
    """
    words = [singular_word(w) for w in anchor.name.lower().split()]
    counted = [singular_word(w) for w in (cues.counted or (cues.compare_unit if cues.compare else "")).split()]
    return bool(counted) and (set(words) <= set(counted) or counted == words[-1:])


def asks_kind_of(name: str, question: str) -> bool:
    """Whether the question asks a kind of the class ``name`` (*what type of plot*).

    >>> asks_kind_of("plot", "What type of plot is Plot 12?"), asks_kind_of("plot", "Which plot has most?")
    (True, False)
    """
    said = rf"\b(?:type|kind|sort)s? of (?:an? |the )?{re.escape(name.lower())}s?\b"
    return re.search(said, question.lower()) is not None


def plural_class(grounding: Any) -> bool:
    """Whether the question names a class in the plural, as several things (*the districts*).

    >>> from types import SimpleNamespace as Match
    >>> plural_class(Match(classes=[Match(mention="districts", name="school district", match="inflected")]))
    True
    >>> plural_class(Match(classes=[Match(mention="series", name="series", match="exact")]))
    False
    """
    for cls in getattr(grounding, "classes", ()):
        last = str(cls.mention).lower().split()[-1:]
        if cls.match in ("exact", "inflected") and last and singular_word(last[0]) != last[0]:
            return True
    return False


def finds_counted(reading: Candidate, text: str) -> bool:
    """Whether the nodes a reading finds are named by the words *how many more* counts (*how
    many more captures of A*: the captures of A; not the subject of a periodical, for *how
    many more pages*).

    >>> step = "Find the subject of the periodical A, assign it to ?x."
    >>> finds_counted(Candidate("lookup", (step,), ()), "how many more pages does a have than b")
    False
    >>> step = "Find the capture whose species is A, assign it to ?x."
    >>> finds_counted(Candidate("lookup", (step,), ()), "how many more captures of a than of b are there")
    True
    """
    said = _MORE_OF.search(text)
    counted = {singular_word(w) for w in said.group(1).split()} if said else set()
    # the reading's own find, before a class joined after it (*the entity whose type is capture*)
    step = next((s for s in reading.steps if s.endswith("assign it to ?x.")), "")
    found = {singular_word(w) for w in (*kind_found(step).split(), *attribute_words(step).split())}
    return bool(counted & found)


#: what *how many more* counts: the words before a verb, *than* or a preposition
_MORE_OF = re.compile(
    r"\bhow (?:many|much) (?:more|fewer|less) ((?:\w+ )*?)"
    r"(?:do|does|did|is|are|was|were|has|have|had|than|of|in|at|for)\b"
)


def age_of_times(reading: Candidate, cues: Cues) -> bool:
    """Whether an age is asked of two times (*how many years older is A than B*: B's founding
    year less A's, the older one's being the earlier).

    >>> steps = ("Find the founding year of the journal A, assign it to ?x.", "The answer is ?x.")
    >>> from nl2sparql.candidates.cues import read_cues
    >>> founded = Candidate("lookup", steps, ())
    >>> older, later = read_cues("How many years older is A than B?"), read_cues("How much later?")
    >>> age_of_times(founded, older), age_of_times(founded, later)
    (True, False)
    """
    found = attribute_words(answer_step(reading))
    return bool(AGE_WORDS.search(cues.text)) and bool({"year", "date"} & set(found.split()))


def kind_read(candidate: Candidate, name: str) -> bool:
    """Whether a reading's answer is a value named as a kind of the class ``name`` (*covered
    entity type*, *type of covered entity*).

    >>> step = "Find the covered entity type of the covered entity X, assign it to ?x."
    >>> kind_read(Candidate("lookup", (step,), ()), "covered entity")
    True
    >>> kind_read(Candidate("lookup", (step.replace("covered entity type", "state"),), ()), "covered entity")
    False
    """
    said = attribute_words(answer_step(candidate)).split()
    own = set(name.lower().split())
    rest = set(said) - own - {"of"}
    return own <= set(said) and len(rest) == 1 and rest <= _KIND_WORDS


_KIND_WORDS = frozenset({"type", "kind", "sort", "category", "class"})


def counted_then_done(named: Sequence[str], counted: Sequence[str], text: str) -> bool:
    """Whether an attribute's name is the words counted and then verbs the question writes
    too (*individuals affected*: *how many individuals did it affect*).

    >>> counted_then_done(["individual", "affected"], ["individual"], "how many individuals did it affect")
    True
    >>> counted_then_done(["individual", "affected"], ["individual"], "how many individuals are there")
    False
    """
    rest = named[len(counted) :]
    words = re.findall(r"[a-z]+", text.lower())
    return named[: len(counted)] == counted and bool(rest) and all(verb_written(w, words) for w in rest)


def grouped_by(anchor: Anchor, text: str) -> bool:
    """Whether the question names a class right after *each* or *per* (*each order*).

    >>> order = Anchor("<O>", "order", "class", 1.0)
    >>> grouped_by(order, "how many mammals does each order have"), grouped_by(order, "which order")
    (True, False)
    """
    head = singular_word(anchor.name.lower().split()[-1]) if anchor.name.strip() else ""
    return any(head in {singular_word(w) for w in m.group(1).split()[:3]} for m in GROUPED_BY.finditer(text))


def kind_found(step: str) -> str:
    """What a reading's step finds, where it says so before *whose* or *that*.

    >>> kind_found("Find the placement whose episode is Pilot, assign it to ?x."), kind_found("Find the age of X.")
    ('placement', '')
    """
    match = _KIND_FOUND.match(step)
    return match.group(1).strip() if match else ""


_KIND_FOUND = re.compile(r"^Find the ((?:[\w-]+ ){1,3}?)(?:whose|that) ")
