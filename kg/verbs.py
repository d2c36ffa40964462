"""A verb's other forms, so that a question's *won* meets a graph's *win* and a graph's
*won the title* meets a question's *did they win the title*."""

from __future__ import annotations

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
