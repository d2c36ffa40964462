"""How plan text is written as a model's target, and how a model's output becomes plan text again.

Byte-level tokenizers (GPT-2, Qwen, Llama) give back exactly what they were given, so the
plan is the target as it is (codec ``plain``). WordPiece and SentencePiece tokenizers do
not: MiniLM's tokenizer lower-cases, strips accents, drops line breaks, and its decoder
writes ``? x`` for ``?x`` and ``2011 - 05 - 01`` for a date. For those (codec ``flat``)
the target is the plan on one line with the steps joined by :data:`STEP_SEPARATOR`, and
:func:`decode_output` puts the text back together: line breaks at the separators, the
spacing of variables, numbers, dates, quotes and braces, and the exact spelling of every
entity name of the question wherever the output spells it with other case, accents or
spacing (the plan names entities, and recall matches those names against the question's).

Which codec a tokenizer needs is measured (:func:`choose_codec`), not assumed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Literal, Protocol

Codec = Literal["plain", "flat"]
CODECS: tuple[Codec, ...] = ("plain", "flat")

#: Joins the steps of a ``flat`` target; the plan language never needs a ``;``.
STEP_SEPARATOR = " ; "

_PROBE = 'Type: composition\nFind the spouse of {Beyoncé Knowles}, assign it to ?x1.\nMake sure ?x1 is "Up".\n'


class TextTokenizer(Protocol):
    def encode(self, text: str, add_special_tokens: bool = ...) -> list[int]: ...

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = ...) -> str: ...


def choose_codec(tokenizer: TextTokenizer) -> Codec:
    """``plain`` when ``tokenizer`` gives back a plan exactly as written, ``flat`` otherwise."""
    ids = tokenizer.encode(_PROBE, add_special_tokens=False)
    return "plain" if tokenizer.decode(ids, skip_special_tokens=True) == _PROBE else "flat"


def encode_target(plan_text: str, codec: Codec) -> str:
    """The training target for canonical ``plan_text`` (one step per line)."""
    lines = [line.strip() for line in plan_text.strip().split("\n") if line.strip()]
    if codec == "plain":
        return "\n".join(lines)
    if codec == "flat":
        for number, line in enumerate(lines, start=1):
            if STEP_SEPARATOR.strip() in line:
                raise ValueError(f"plan line {number} contains {STEP_SEPARATOR.strip()!r}: {line!r}")
        return STEP_SEPARATOR.join(lines)
    raise ValueError(f"unknown target codec {codec!r}; one of {', '.join(CODECS)}")


def decode_output(text: str, codec: Codec, names: Sequence[str] = ()) -> str:
    """Plan text (one step per line, final newline) from a model's decoded output.

    >>> decode_output("type : composition ; find the siblings of justin bieber, assign it to? x. ; "
    ...               "the answer is? x.", "flat", ["Justin Bieber"])
    'type: composition\\nfind the siblings of Justin Bieber, assign it to ?x.\\nthe answer is ?x.\\n'
    """
    if codec == "plain":
        lines = [line.strip() for line in text.strip().split("\n")]
    elif codec == "flat":
        lines = [_respace(part) for part in text.split(STEP_SEPARATOR.strip())]
        lines = [restore_names(line, names) for line in lines]
    else:
        raise ValueError(f"unknown target codec {codec!r}; one of {', '.join(CODECS)}")
    lines = [line for line in lines if line]
    return "\n".join(lines) + "\n" if lines else ""


_SPACING: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\s+", " "),
        (r"^(type)\s*:\s*", r"\1: "),
        (r"^(type: [A-Za-z]+)\s+-(?:\s+(?=[A-Za-z])|$)", r"\1-"),  # WordPiece spaces "yes - no"
        (r"\?\s+(?=[A-Za-z_])", "?"),
        (r"(?<=[^\s{(\"])\?(?=[A-Za-z_])", " ?"),
        (r"(?<=[^\s{(\"])\?$", " ?"),  # a variable begun at the end of a partial output
        (r"\s+([,.])", r"\1"),
        (r",(?=\S)", ", "),
        (r"(?<=\d)\s*-\s*(?=\d)", "-"),
        (r"(?<![^\s])-\s+(?=\d)", "-"),
        (r"(?<=\d)\.\s+(?=\d)", "."),
        (r"\b([mg])\s*\.\s+(?=[0-9][0-9a-z_]*\b)", r"\1."),
        (r"(?<=\d)\s+\.(?=\d)", "."),
        (r"\{\s+", "{"),
        (r"\s+\}", "}"),
        (r"\(\s+", "("),
        (r"\s+\)", ")"),
        (r"\s*'\s*", "'"),
    )
)
_QUOTED = re.compile(r'"\s*([^"]*?)\s*"')
_SPLIT_VARIABLE = re.compile(r"\?[A-Za-z_][A-Za-z0-9_]*(?:\s*_\s*[A-Za-z0-9_]*)+")


def _respace(line: str) -> str:
    line = line.strip()
    for pattern, replacement in _SPACING:
        line = pattern.sub(replacement, line)
    line = _SPLIT_VARIABLE.sub(lambda match: re.sub(r"\s+", "", match.group()), line)
    return _QUOTED.sub(r'"\1"', line).strip()


def _fold(char: str) -> str:
    decomposed = unicodedata.normalize("NFKD", char)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased, without accents and blanks, and each folded char's index in ``text``."""
    chars: list[str] = []
    index: list[int] = []
    for position, char in enumerate(text):
        if char.isspace():
            continue
        for folded in _fold(char):
            chars.append(folded)
            index.append(position)
    return "".join(chars), index


_THE_BEFORE = re.compile(r"(?:^|\W)the $", re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s+\w")


def _type_word(line: str, begin: int, end: int) -> bool:
    """Whether ``line[begin:end]`` sits where plans put a type, not a name: after a bare "the"
    and before another word (``the marriage with spouse ?x``, ``the city London``). In the
    training plans no entity name stands there and 79 lower-case type words do."""
    return bool(_THE_BEFORE.search(line[:begin])) and bool(_WORD_AFTER.match(line[end:]))


def restore_names(line: str, names: Sequence[str]) -> str:
    """``line`` with every spelling of one of ``names`` that differs only in case, accents or
    blanks replaced by the name itself (longest names first, whole words only).

    >>> restore_names("find the spouse of beyonce knowles, assign it to ?x.", ["Beyoncé Knowles"])
    'find the spouse of Beyoncé Knowles, assign it to ?x.'
    """
    folded_line, index = _folded(line)
    spans: list[tuple[int, int, str]] = []
    for name in sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True):
        key, _ = _folded(name)
        if not key:
            continue
        start = folded_line.find(key)
        while start >= 0:
            begin, end = index[start], index[start + len(key) - 1] + 1
            whole_word = (begin == 0 or not line[begin - 1].isalnum()) and (end == len(line) or not line[end].isalnum())
            free = all(end <= b or begin >= e for b, e, _ in spans)
            if whole_word and free and not _type_word(line, begin, end):
                spans.append((begin, end, name))
            start = folded_line.find(key, start + 1)
    for begin, end, name in sorted(spans, reverse=True):
        line = line[:begin] + name + line[end:]
    return line
