"""The one place that writes a planner's input, so training and inference read the same text.

Format (version :data:`INPUT_FORMAT_VERSION`)::

    question: <question> entities: <name 1> | <name 2>

The question is kept as given (whitespace runs collapse to one blank); the entity names
follow in the order of the mapping, without their ids (the plan refers to entities by
name, and ids carry no meaning a language model could use). With no entities the text
ends in ``entities:`` with nothing after it. A trained model records the version in its
``planner.json``; a model trained on another version is refused at load time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

INPUT_FORMAT_VERSION = 1

_BLANKS = re.compile(r"\s+")
ENTITY_SEPARATOR = " | "


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


def entity_names(entities: Mapping[str, str] | None) -> tuple[str, ...]:
    """The names of ``entities`` as :func:`format_input` writes them (blank runs collapsed)."""
    return tuple(_clean(name) for name in (entities or {}).values() if name and name.strip())


def names_from_input(text: str) -> tuple[str, ...]:
    """The entity names written in a :func:`format_input` text (for restoring them in output)."""
    _, marker, tail = text.rpartition(" entities:")
    if not marker:
        return ()
    return tuple(name.strip() for name in tail.split(ENTITY_SEPARATOR.strip()) if name.strip())
