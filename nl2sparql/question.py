"""What a question must be before any stage reads it: text, not empty, bounded, UTF-8.

Its own module because the command line checks the question before it opens anything, also
when it sends the question to a running service, and that path should not import the
pipeline (and the store and compiler with it) only to check a string.
"""

from __future__ import annotations

from nl2sparql.errors import InvalidQuestion

#: the longest question read, in characters
MAX_QUESTION_CHARS = 2_000


def check_question(question: object) -> str:
    """The question, stripped; :class:`InvalidQuestion` when it is not one."""
    if not isinstance(question, str):
        raise InvalidQuestion(f"the question must be text, got {type(question).__name__}")
    text = question.strip()
    if not text:
        raise InvalidQuestion("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidQuestion(
            f"the question has {len(text):,} characters; at most {MAX_QUESTION_CHARS:,} are read (MAX_QUESTION_CHARS)"
        )
    if "\x00" in text:
        raise InvalidQuestion("the question contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # bytes that were not UTF-8 (argv) or an escaped lone surrogate (JSON)
        raise InvalidQuestion(f"the question is not valid UTF-8 text (at character {exc.start + 1})") from None
    return text
