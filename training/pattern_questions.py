"""Questions for KG-pattern instances, written from the memory's own descriptions.

LPKG has an LLM turn each grounded pattern into a question; here no model is at hand,
so questions are templates over noun phrases taken from the statements' descriptions
(``?e2 is the film of the actor ?e1`` -> ``the film of the actor Natalie Portman``).
That keeps the question's wording close to the plan's ``Find`` sentences (which is what
a planner must learn to write) while the templates vary the frame around them. A phrase
that reads from another phrase replaces its input's type noun with it: ``the director of
the film ?e1`` over ``the film of the actor X`` reads ``the director of the film of the
actor X``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

_HEAD = re.compile(r"^\?e\d+ is ")
_SLOT = "?e1"
# Words that end a noun phrase's head: "the place of birth of ...", "the person whose ...".
_BOUNDARY = frozenset(
    {"of", "that", "whose", "which", "used", "in", "by", "with", "from", "to", "for", "on", "at", "contained"}
)
_FUNCTION_WORDS = frozenset({"of", "that", "whose", "with", "and", "is", "by", "in", "the"})
_VALUE_NOUN = re.compile(r"^(?:the )?(?P<noun>.+?) (?:of|in|by) (?:the [^?]*)?\?e1$")

ONE = ("what is {a}?", "name {a}.", "tell me {a}.", "which entity is {a}?", "find {a}.")
TEMPLATES: dict[str, tuple[str, ...]] = {
    "1p": ONE,
    "2p": ONE,
    "3p": ONE,
    "ip": ONE,
    "2i": (
        "what is both {a} and {b}?",
        "which entity is {a} and also {b}?",
        "name what is {a} as well as {b}.",
        "find {a} that is also {b}.",
    ),
    "pi": (
        "what is both {a} and {b}?",
        "which entity is {a} and also {b}?",
        "find {a} that is also {b}.",
    ),
    "3i": (
        "what is {a}, {b} and {c}?",
        "which entity is {a}, {b} and also {c}?",
        "name what is at once {a}, {b} and {c}.",
    ),
    "2u": (
        "what is {a} or {b}?",
        "name everything that is {a} or {b}.",
        "which entities are either {a} or {b}?",
        "list {a} together with {b}.",
    ),
    "compare": (
        "which of {many} has a {value} {op} {n}?",
        "among {many}, which have a {value} {op} {n}?",
        "name {many} whose {value} is {op} {n}.",
        "what is {a} with a {value} {op} {n}?",
    ),
    "superlative": (
        "which of {many} has the {most} {value}?",
        "among {many}, which one has the {most} {value}?",
        "what is {a} with the {most} {value}?",
    ),
    "count": (
        "how many {bare_many} are there?",
        "what is the number of {many}?",
        "count {many}.",
    ),
    "ask": (
        "is {y} {a}?",
        "is it true that {y} is {a}?",
        "is {a} {y}?",
        "would {y} be {a}?",
    ),
}
#: "how many films does X have?" where the phrase is "the R of the T X"
COUNT_HAVE = "how many {have} does {name} have?"

#: question words for a plan operator, by value kind
OPERATOR_WORDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("number", "greater than"): ("greater than", "more than", "above"),
    ("number", "less than"): ("less than", "below", "under"),
    ("date", "after"): ("after", "later than"),
    ("date", "before"): ("before", "earlier than"),
}
SUPERLATIVE_WORDS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("number", True): ("largest", "highest", "greatest"),
    ("number", False): ("smallest", "lowest"),
    ("date", True): ("latest", "most recent"),
    ("date", False): ("earliest", "first"),
}


def phrase(description: str) -> str:
    """A statement's description as a noun phrase with its input slot: ``the film of the actor ?e1``."""
    return _HEAD.sub("", description).strip()


def about(body: str, name: str) -> str:
    """``body`` about an entity, as the plan's ``Find`` sentence words it: ``the film of the actor X``."""
    return body.replace(_SLOT, name)


def _type_noun_start(body: str) -> int | None:
    """Where ``the <type noun> ?e1`` starts in ``body``, when the slot follows a type noun."""
    at = body.find(_SLOT)
    before = body[:at]
    start = before.rfind("the ")
    if start < 0:
        return None
    words = before[start + 4 :].split()
    if not words or any(w in _FUNCTION_WORDS for w in words):
        return None
    return start


def over(body: str, inner: str) -> str:
    """``body`` read from the set ``inner`` names: its ``the <type> ?e1`` becomes ``inner``."""
    start = _type_noun_start(body)
    if start is None:
        return body.replace(_SLOT, inner)
    return body[:start] + inner + body[body.find(_SLOT) + len(_SLOT) :]


def over_both(body: str, first: str, second: str) -> str:
    """``body`` read from what both ``first`` and ``second`` name."""
    start = _type_noun_start(body)
    if start is None:
        return body.replace(_SLOT, f"the one that is {first} and {second}")
    typed = body[start : body.find(_SLOT)].strip()
    return body[:start] + f"{typed} that is {first} and {second}" + body[body.find(_SLOT) + len(_SLOT) :]


def _plural_word(word: str) -> str:
    if word.endswith("ed") or (word.endswith("s") and not word.endswith("ss")):  # "honored for", "games"
        return word
    if word.endswith(("ss", "x", "z", "ch", "sh")):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def plural(np: str) -> str:
    """``the film of the actor X`` -> ``the films of the actor X`` (the head noun, naively)."""
    words = np.split()
    start = 1 if words and words[0] == "the" else 0
    end = next((i for i in range(start + 1, len(words)) if words[i] in _BOUNDARY), len(words))
    if end <= start:
        return np
    words[end - 1] = _plural_word(words[end - 1])
    return " ".join(words)


def value_noun(body: str) -> str:
    """What a value statement gives, without its holder: ``the population of the city ?e1`` -> ``population``."""
    found = _VALUE_NOUN.match(body)
    return found["noun"] if found else body.replace(_SLOT, "").removeprefix("the ").strip()


def count_noun(body: str) -> str | None:
    """``films`` when ``body`` is ``the film of the actor ?e1`` (for :data:`COUNT_HAVE`)."""
    found = re.fullmatch(r"the (?P<noun>[a-z][a-z ]*?) of (?:the [a-z ]+ )?\?e1", body)
    if found is None or any(w in _FUNCTION_WORDS for w in found["noun"].split()):
        return None
    return plural(found["noun"])


def question(rng: random.Random, pattern: str, slots: dict[str, str], extra: Sequence[str] = ()) -> str:
    """One of the pattern's templates (or of the ``extra`` templates) filled with ``slots``."""
    choices = [*TEMPLATES[pattern], *extra]
    text = rng.choice(choices).format(**slots)
    return " ".join(text.split())
