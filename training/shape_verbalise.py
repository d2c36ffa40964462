"""Questions for the QALD shapes of :mod:`.shape_extend`, from the source question's own words.

A yes/no question turns the wh-question around its answer, the way QALD words them
(*where was john lennon born?* -> *was john lennon born in Liverpool?*); the other shapes
put a short frame around the question (*..., which have "night" in their name?*) or, half
the time, say it in one clause around the question's answers as a noun phrase, as QALD
asks (*what is the average length of the albums that queen recorded?*, *what are the two
latest albums that queen recorded?*). The value words of aggregates and rankings come
from the superlative question the complex verbaliser wrote (*..., which has the latest
date of rate of the target of exchange?*).
"""

from __future__ import annotations

import random
import re

from nl2sparql.training.complex_verbalise import stem

_AUX = r"(?P<aux>is|was|are|were|do|does|did|has|have|had)"
_WH_AUX = re.compile(rf"^(?:what|which|who|whom)(?: (?P<noun>[a-z]+(?: [a-z]+)?))? {_AUX} (?P<rest>.+)$")
_WHERE = re.compile(rf"^(?:where|when) {_AUX} (?P<rest>.+)$")
_WHO_VERB = re.compile(r"^(?:who|what) (?P<verb>[a-z]+) (?P<rest>.+)$")
_PREPOSITION = frozenset({"in", "on", "at", "of", "for", "from", "to", "with", "by", "into", "under", "as"})
_ARTICLES = frozenset({"the", "a", "an"})
_BE = frozenset({"is", "was", "are", "were"})
_K_WORDS = {2: ("two", "2"), 3: ("three", "3", "top 3"), 5: ("five", "top 5")}
_FUNCTION_WORDS = {
    ("AVG", "number"): ("average", "mean"),
    ("SUM", "number"): ("total", "sum of the"),
    ("MIN", "number"): ("smallest", "lowest", "minimum"),
    ("MAX", "number"): ("largest", "highest", "maximum"),
    ("MIN", "date"): ("earliest", "first"),
    ("MAX", "date"): ("latest", "last", "most recent"),
}
_RANK_ADJECTIVES = {
    "latest": ("latest", "most recent", "last"),
    "earliest": ("earliest", "first", "oldest"),
    "largest": ("largest", "biggest"),
    "smallest": ("smallest",),
}
_PARTICIPLES = frozenset({"born", "held", "made", "found", "spoken", "grown", "built", "shot", "taken", "written"})
_OF_TOPIC = re.compile(r"^the (?P<noun>[a-z]+(?: [a-z]+)?) of (?P<owner>.+)$")
_SUPERLATIVE = re.compile(
    r"^(?P<stem>.+?), which has the (?P<rank>latest|earliest|largest|smallest) (?P<value>.+?)\??$"
)


def yes_no(question: str, answer: str) -> str | None:
    """A yes/no question whose answer is whether ``answer`` answers ``question`` (``None``: no rule fits).

    >>> yes_no("where was john lennon born?", "Liverpool")
    'was john lennon born in Liverpool?'
    >>> yes_no("what is the capital of france?", "Paris")
    'is Paris the capital of france?'
    >>> yes_no("what movies did morgan freeman star in?", "Se7en")
    'did morgan freeman star in Se7en?'
    >>> yes_no("who played luke skywalker?", "Mark Hamill")
    'is it true that Mark Hamill played luke skywalker?'
    """
    text = stem(question).lower()
    if found := _WHERE.match(text):
        return f"{found['aux']} {found['rest']} in {answer}?"
    if found := _WH_AUX.match(text):
        rest = found["rest"]
        if found["aux"] in _BE and rest.split()[0] in _ARTICLES and rest.split()[-1] not in _PREPOSITION:
            return f"{found['aux']} {answer} {rest}?"
        return f"{found['aux']} {rest} {answer}?"
    if found := _WHO_VERB.match(text):
        return f"is it true that {answer} {found['verb']} {found['rest']}?"
    return None


def answers_phrase(question: str) -> str | None:
    """The answers of a wh-question as a noun phrase (``None``: no rule fits), for one-clause
    questions about them.

    >>> answers_phrase("what movies did morgan freeman star in?")
    'the movies that morgan freeman star in'
    >>> answers_phrase("what is the capital of france?")
    'the capital of france'
    >>> answers_phrase("who played luke skywalker?")
    'the people who played luke skywalker'
    >>> answers_phrase("where was john lennon born?")
    'the places where john lennon was born'
    >>> answers_phrase("where is santa clara university?")
    'the places where santa clara university is'
    >>> answers_phrase("where did robert hooke get his education?")
    'the places where robert hooke get his education'
    """
    text = stem(question).lower()
    if found := _WHERE.match(text):
        words = found["rest"].split()
        if not text.startswith("where") or len(words) < 2:
            return None
        if found["aux"] in ("do", "does", "did"):  # the tense is lost: "where did X go" -> "where X go"
            return f"the places where {found['rest']}"
        if words[-1].endswith("ed") or words[-1] in _PARTICIPLES:  # "where was X born" -> "where X was born"
            return f"the places where {' '.join(words[:-1])} {found['aux']} {words[-1]}"
        return f"the places where {found['rest']} {found['aux']}"
    if found := _WH_AUX.match(text):
        rest, noun = found["rest"], found["noun"]
        if noun:
            return f"the {noun} that {rest}"
        if found["aux"] in _BE and rest.split()[0] in _ARTICLES:
            return rest
        return None
    if (found := _WHO_VERB.match(text)) and text.startswith("who"):
        return f"the people who {found['verb']} {found['rest']}"
    return None


def before_year(question: str, year: int, rng: random.Random) -> str | None:
    """``when was X born?`` -> ``was X born before 1962?`` (``None``: not a when-question).

    >>> before_year("when was abraham lincoln born?", 1810, random.Random(1))
    'was abraham lincoln born before 1810?'
    """
    found = _WHERE.match(stem(question).lower())
    if found is None or not stem(question).lower().startswith("when"):
        return None
    word = rng.choice(("before", "earlier than", "prior to"))
    return f"{found['aux']} {found['rest']} {word} {year}?"


def contains(question: str, word: str, rng: random.Random) -> str:
    """The question narrowed to answers whose name holds ``word``."""
    frame = rng.choice(
        (
            '{q}, which have "{w}" in their name?',
            "{q}, whose name contains '{w}'?",
            "{q} with the word {w} in the name?",
            "which of these have '{w}' in their name: {q}?",
        )
    )
    return frame.format(q=stem(question), w=word)


def superlative_parts(question: str) -> tuple[str, str] | None:
    """``(stem, value words)`` of a question the complex verbaliser wrote for a superlative."""
    found = _SUPERLATIVE.match(question.strip())
    return (found["stem"], found["value"]) if found else None


def possessive(answers: str, rng: random.Random) -> str:
    """``the albums of queen`` -> ``queen's albums`` half the time, as QALD often words it.

    >>> possessive("the albums of queen", random.Random(1))
    "queen's albums"
    >>> possessive("the places where john lennon was born", random.Random(0))
    'the places where john lennon was born'
    """
    found = _OF_TOPIC.match(answers)
    if found is None or " " in found["noun"] or rng.random() >= 0.5:
        return answers
    return f"{found['owner']}'s {found['noun']}"


def aggregate(question: str, function: str, kind: str, rng: random.Random) -> str | None:
    """``what is the average <value> of ...`` over a superlative question's answers."""
    parts = superlative_parts(question)
    if parts is None:
        return None
    base, value = parts
    word = rng.choice(_FUNCTION_WORDS[(function, kind)])
    answers = answers_phrase(base)
    if answers and rng.random() < 0.5:
        frame = rng.choice(
            ("what is the {f} {v} of {a}?", "give me the {f} {v} of {a}.", "what is the {f} {v} of all {a}?")
        )
        return frame.format(f=word, v=value, a=possessive(answers, rng))
    frame = rng.choice(
        (
            "{q}: what is the {f} {v} among them?",
            "what is the {f} {v} of the answers to: {q}?",
            "{q}, and what is their {f} {v}?",
        )
    )
    return frame.format(q=base, f=word, v=value)


def top_k(question: str, k: int, rng: random.Random) -> str | None:
    """``the two ... with the latest <value>`` over a superlative question's answers."""
    found = _SUPERLATIVE.match(question.strip())
    if found is None:
        return None
    count = rng.choice(_K_WORDS[k])
    answers = answers_phrase(found["stem"])
    if answers and answers.startswith("the ") and rng.random() < 0.5:
        rank = rng.choice(_RANK_ADJECTIVES[found["rank"]])
        frame = rng.choice(("what are the {k} {r} {a}?", "give me the {k} {r} {a}.", "which are the {k} {r} {a}?"))
        by = f" by {found['value']}" if rng.random() < 0.5 else ""
        return frame.format(k=count.removeprefix("top "), r=rank, a=possessive(answers, rng).removeprefix("the ") + by)
    frame = rng.choice(
        ("{q}: which {k} have the {r} {v}?", "{q}, the {k} with the {r} {v}?", "name the {k} with the {r} {v}: {q}?")
    )
    return frame.format(q=found["stem"], k=count, r=found["rank"], v=found["value"])


def more_than(question: str, mention: str, other: str, comparison: str, rng: random.Random) -> str | None:
    """Whether the question's topic has more (``>``) or fewer (``<``) answers than ``other``.

    >>> more_than("what movies did morgan freeman star in?", "morgan freeman", "Tom Hanks", ">", random.Random(0))
    'did morgan freeman star in more movies than Tom Hanks?'
    >>> more_than("who are the members of radiohead?", "radiohead", "Oasis", "<", random.Random(1))
    'does radiohead have fewer members than Oasis?'
    """
    word = "more" if comparison == ">" else "fewer"
    text = stem(question).lower()
    answers = answers_phrase(question)
    found = _WH_AUX.match(text)
    if found and found["noun"] and found["aux"] not in _BE and mention.lower() in found["rest"]:
        return f"{found['aux']} {found['rest']} {word} {found['noun']} than {other}?"
    if answers and (owner := _OF_TOPIC.match(answers)) and owner["owner"] == mention.lower():
        frame = rng.choice(("does {o} have {w} {n} than {y}?", "has {o} got {w} {n} than {y}?"))
        return frame.format(o=owner["owner"], w=word, n=owner["noun"], y=other)
    if answers and mention.lower() in answers:
        than = answers.replace(mention.lower(), other, 1)
        return f"are there {word} of {answers} than of {than}?"
    return None
