"""A verb's other forms, so that a question's *won* meets a graph's *win* and a graph's
*won the title* meets a question's *did they win the title*."""

from __future__ import annotations

from collections.abc import Iterable

#: verbs whose past is not written with *-ed*
IRREGULAR_PAST = {
    "win": "won", "lose": "lost", "hold": "held", "make": "made", "build": "built", "lead": "led",
    "take": "took", "give": "gave", "get": "got", "run": "ran", "sell": "sold", "buy": "bought",
    "write": "wrote", "leave": "left", "begin": "began", "become": "became", "go": "went", "see": "saw",
}  # fmt: skip
_PRESENT = {past: verb for verb, past in IRREGULAR_PAST.items()}


def past_forms(verb: str) -> tuple[str, ...]:
    """The pasts a verb may have (more than one guess for a regular verb).

    >>> past_forms("win"), past_forms("place"), past_forms("play")
    (('won',), ('placed',), ('played', 'plaied'))
    """
    if verb in IRREGULAR_PAST:
        return (IRREGULAR_PAST[verb],)
    return (verb + "d",) if verb.endswith("e") else (verb + "ed", verb[:-1] + "ied")


def present_of(word: str) -> str | None:
    """The verb an irregular past is of (*won*: *win*), else None.

    >>> present_of("won"), present_of("lost"), present_of("played")
    ('win', 'lose', None)
    """
    return _PRESENT.get(word)


def agent_nouns(word: str) -> set[str]:
    """Who does what a verb in the past or present says (*won*: *winner*; *directed*:
    *director*), guessed every way the spelling allows; a guess no graph writes meets nothing.

    >>> "winner" in agent_nouns("won"), "director" in agent_nouns("directed"), "writer" in agent_nouns("wrote")
    (True, True, True)
    >>> "founder" in agent_nouns("founded"), "composer" in agent_nouns("composed"), "player" in agent_nouns("plays")
    (True, True, True)
    """
    bases = {present_of(word)} - {None} or _regular_bases(word)
    nouns: set[str] = set()
    for base in bases:
        if base.endswith("e"):
            nouns |= {base + "r", base[:-1] + "or"}
        elif len(base) > 2 and base[-1] not in "aeiouwxy" and base[-2] in "aeiou" and base[-3] not in "aeiou":
            nouns |= {base + base[-1] + "er", base + "er", base + "or"}
        else:
            nouns |= {base + "er", base + "or"}
    return nouns


def verb_written(word: str, words: Iterable[str]) -> bool:
    """Whether ``words`` write the verb of ``word`` in some form (*affected* in a name: the
    question's *affect*, *affected* or *affecting*).

    >>> verb_written("affected", ["did", "it", "affect"]), verb_written("affected", ["affecting"])
    (True, True)
    >>> verb_written("won", ["win"]), verb_written("affected", ["effect"]), verb_written("new", ["news"])
    (True, False, False)
    """
    bases = _bases(word)
    return any(bases & _bases(other) for other in words)


def _bases(word: str) -> set[str]:
    if present := present_of(word):
        return {present}
    if word.endswith("ing") and len(word) > 5:
        return {word[:-3], word[:-3] + "e"} | ({word[:-4]} if word[-4] == word[-5] else set())
    return _regular_bases(word) if word.endswith("ed") else {word}


def _regular_bases(word: str) -> set[str]:
    """The present forms a regular verb form may be of (*directed*: *direct*, *directe*)."""
    if word.endswith("ied") or word.endswith("ies"):
        return {word[:-3] + "y"}
    if word.endswith("ed"):
        bases = {word[:-2], word[:-1]}
        return bases | ({word[:-3]} if len(word) > 4 and word[-3] == word[-4] else set())
    if word.endswith("es"):
        return {word[:-2], word[:-1]}
    return {word[:-1]} if word.endswith("s") else {word}
