"""The one place that writes a planner's input, so training and inference read the same text.

Format (version :data:`INPUT_FORMAT_VERSION`)::

    question: <question> entities: <name 1> | <name 2>[ relations: <phrase> | <phrase>][ examples: <plan> // <plan>]

The question is kept as given (whitespace runs collapse to one blank); the entity names
follow in the order of the mapping, without their ids (the plan refers to entities by
name, and ids carry no meaning a language model could use). With no entities the text
ends in ``entities:`` with nothing after it. A trained model records the version in its
``planner.json``; a model trained on another version is refused at load time. A planner
trained with exemplars (``exemplars`` in its ``planner.json``) reads the plans of similar
training questions after the entities (:func:`with_examples`); one trained with relation
hints (``relations``) reads phrases of the graph's memory before them (:func:`with_relations`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

INPUT_FORMAT_VERSION = 1

_BLANKS = re.compile(r"\s+")
ENTITY_SEPARATOR = " | "
EXAMPLES_MARKER = " examples: "
RELATIONS_MARKER = " relations: "
#: joins exemplar plans after :data:`EXAMPLES_MARKER`; the steps inside one are joined by " ; "
EXEMPLAR_SEPARATOR = " // "


def _clean(text: str) -> str:
    return _BLANKS.sub(" ", text).strip()


def format_input(question: str, entities: Mapping[str, str] | None = None) -> str:
    """``question: ... entities: a | b``: the planner's input for ``question`` and ``{id: name}``.

    >>> format_input("who is  justin bieber's brother?", {"m.06w2sn5": "Justin Bieber"})
    "question: who is justin bieber's brother? entities: Justin Bieber"
    """
    if not isinstance(question, str) or not question.strip():
        raise ValueError("a planner input needs a non-empty question")
    names = [_clean(name) for name in (entities or {}).values() if name and name.strip()]
    separator = ENTITY_SEPARATOR.strip()
    names = [name.replace(separator, "/") for name in names]
    tail = ENTITY_SEPARATOR.join(names)
    return f"question: {_clean(question)} entities:{' ' + tail if tail else ''}"


def with_examples(text: str, examples: Sequence[str]) -> str:
    """A :func:`format_input` text followed by exemplar plans (``planner/exemplars.py``).

    >>> with_examples("question: q? entities: A", ["Type: simple ; Find the b of X, assign it to ?x."])
    'question: q? entities: A examples: Type: simple ; Find the b of X, assign it to ?x.'
    """
    if not examples:
        return text
    return text + EXAMPLES_MARKER + EXEMPLAR_SEPARATOR.join(_clean(e) for e in examples)


def with_relations(text: str, phrases: Sequence[str]) -> str:
    """A :func:`format_input` text with relation hints (``planner/relation_hints.py``) after the
    entities, before any exemplars (which a long input loses first when it is cut).

    >>> with_relations("question: q? entities: A examples: P", ["the sibling of the person", "the parents"])
    'question: q? entities: A relations: the sibling of the person | the parents examples: P'
    """
    if not phrases:
        return text
    head, marker, tail = text.partition(EXAMPLES_MARKER)
    hints = RELATIONS_MARKER + ENTITY_SEPARATOR.join(_clean(p).replace(ENTITY_SEPARATOR.strip(), "/") for p in phrases)
    return head + hints + marker + tail


def relations_in_input(text: str) -> tuple[str, ...]:
    """The relation hints a :func:`with_relations` text holds."""
    _, marker, tail = text.partition(RELATIONS_MARKER)
    tail = tail.partition(EXAMPLES_MARKER)[0]
    return tuple(p.strip() for p in tail.split(ENTITY_SEPARATOR.strip()) if p.strip()) if marker else ()


def examples_in_input(text: str) -> int:
    """How many exemplars a :func:`with_examples` text holds."""
    _, marker, tail = text.partition(EXAMPLES_MARKER)
    return len(tail.split(EXEMPLAR_SEPARATOR)) if marker and tail.strip() else 0


def question_from_input(text: str) -> str:
    """The question of a :func:`format_input` text."""
    body = text.removeprefix("question: ")
    head, marker, _ = body.rpartition(" entities:")
    return head if marker else body


def entity_names(entities: Mapping[str, str] | None) -> tuple[str, ...]:
    """The names of ``entities`` as :func:`format_input` writes them (blank runs collapsed)."""
    return tuple(_clean(name) for name in (entities or {}).values() if name and name.strip())


def names_from_input(text: str) -> tuple[str, ...]:
    """The entity names written in a :func:`format_input` text (for restoring them in output)."""
    _, marker, tail = text.rpartition(" entities:")
    if not marker:
        return ()
    tail = tail.partition(EXAMPLES_MARKER)[0].partition(RELATIONS_MARKER)[0]
    return tuple(name.strip() for name in tail.split(ENTITY_SEPARATOR.strip()) if name.strip())
