"""How ``Find <text>`` splits into a description and the things it is "of".

The planner writes ``Find the capital of Republic of Ireland`` and ``Find the country of
origin of ?x``: the description is free text, an entity name may contain " of " or
" and ", and parsing happens before the names are matched against the question's
entities. No lexer can settle this, so the rule lives here, in one place, and the
alternatives stay available (:func:`find_readings`) for the entity matcher.

The rule, applied to the text between ``Find`` and ``, assign it to``:

1. A *ref list* is refs joined by `` and ``. A ref is a variable (``?x``), a quoted
   string (``"Up"``), a braced name (``{Trinidad and Tobago}``), a date (``2011-05-01``,
   ``2011-05``), a number (``2011``, ``-3.5``), or a bare name: any other text without
   ``? { } "``. Two bare names joined by `` and `` stay one name ("Tom Hanks and Meg
   Ryan" is one mention; see :func:`find_readings` for the split reading).
2. If the text after some `` of `` is a ref list made only of variables, quoted strings
   and braced names, the first such `` of `` splits (``the country of origin of ?x``).
3. Otherwise the first `` of `` whose remainder is a ref list splits
   (``the capital`` of ``Republic of Ireland``).
4. Otherwise there are no refs: the whole text is the description
   (``the championships won by the sports team Dallas Cowboys``).

The formatter writes a name in braces whenever the bare form would read back
differently, so every plan it writes parses back to itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nl2sparql.plan.steps import Find, Literal, Mention, Ref, Var

# "of"/"and" preceded and followed by blanks; the look-behind lets "component of of X" see both.
_OF = re.compile(r"(?<=[ \t])of[ \t]+")
_AND_WORD = re.compile(r"(?<=[ \t])and[ \t]+")
_AND = re.compile(r"[ \t]+and[ \t]+")
_EXPLICIT = re.compile(
    r"""(?P<var>\?[A-Za-z_][A-Za-z0-9_]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*")
      | \{(?P<braced>[^{}\n]*)\}
      | (?P<date>\d{4}-\d{2}(?:-\d{2})?)(?![\w.-])
      | (?P<number>[-+]?\d+(?:\.\d+)?)(?![\w.-])""",
    re.VERBOSE,
)
_NOT_IN_BARE = re.compile(r'[?{}"\n]')
_STRING_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def unquote(token: str) -> str:
    """The content of a ``"..."`` string token (``\\"`` and ``\\\\`` unescaped)."""
    return _STRING_ESCAPE.sub(r"\1", token[1:-1])


def quote(value: str) -> str:
    """``value`` as a ``"..."`` string token."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def is_bare_name(text: str) -> bool:
    """Whether ``text`` can be written as a mention without braces (before context is considered)."""
    return bool(text) and text == text.strip() and not _NOT_IN_BARE.search(text)


def _explicit_ref(match: re.Match[str]) -> Ref:
    if match["var"]:
        return Var(match["var"][1:])
    if match["string"]:
        return Literal(unquote(match["string"]), "string")
    if match["braced"] is not None:
        return Mention(match["braced"].strip())
    if match["date"]:
        return Literal(match["date"], "date")
    return Literal(match["number"], "number")


def _explicit_at(text: str, pos: int) -> re.Match[str] | None:
    """An explicit ref starting at ``pos`` that is followed by the end or by `` and ``."""
    match = _EXPLICIT.match(text, pos)
    if match is None or (match["braced"] is not None and not match["braced"].strip()):
        return None
    if match.end() == len(text) or _AND.match(text, match.end()):
        return match
    return None


def _strong(match: re.Match[str]) -> bool:
    return bool(match["var"] or match["string"] or match["braced"] is not None)


def parse_ref_list(text: str) -> tuple[tuple[Ref, ...], bool] | None:
    """Refs in ``text`` (rule 1) and whether all are strong (variables, strings, braced names).

    ``None`` when ``text`` is not a ref list (empty, a bare part holding ``?``/braces/quotes).
    """
    refs: list[Ref] = []
    strong = True
    pos = 0
    while True:
        match = _explicit_at(text, pos)
        if match is not None:
            refs.append(_explicit_ref(match))
            strong = strong and _strong(match)
            end = match.end()
        else:
            end = len(text)
            for joint in _AND_WORD.finditer(text, pos):
                if _explicit_at(text, joint.end()) is not None:
                    end = len(text[: joint.start()].rstrip(" \t"))
                    break
            name = text[pos:end]
            if not is_bare_name(name):
                return None
            refs.append(Mention(name))
            strong = False
        if end == len(text):
            return tuple(refs), strong
        joint = _AND.match(text, end)
        if joint is None:  # pragma: no cover - _explicit_at/finditer only stop before " and "
            return None
        pos = joint.end()


def _splits(text: str) -> Iterator[tuple[str, tuple[Ref, ...], bool]]:
    for joint in _OF.finditer(text):
        description = text[: joint.start()].rstrip(" \t")
        parsed = parse_ref_list(text[joint.end() :])
        if description and parsed is not None:
            yield description, parsed[0], parsed[1]


def split_find(text: str) -> tuple[str, tuple[Ref, ...]]:
    """``(description, refs)`` for the text of a ``Find`` sentence, by the module's rule."""
    first: tuple[str, tuple[Ref, ...]] | None = None
    for description, refs, strong in _splits(text):
        if strong:
            return description, refs
        if first is None:
            first = (description, refs)
    return first if first is not None else (text, ())


def ref_text(ref: Ref, braced: bool = False) -> str:
    """How a ref is written; a mention bare or, with ``braced``, in braces."""
    if isinstance(ref, Var):
        return str(ref)
    if isinstance(ref, Literal):
        return quote(ref.value) if ref.kind == "string" else ref.value
    return f"{{{ref.text}}}" if braced else ref.text


def find_text(find: Find, braced: bool = False) -> str:
    """The text between ``Find`` and ``, assign it to`` for ``find``."""
    if not find.refs:
        return find.description
    return f"{find.description} of " + " and ".join(ref_text(ref, braced) for ref in find.refs)


def _and_split(refs: tuple[Ref, ...]) -> tuple[Ref, ...]:
    out: list[Ref] = []
    for ref in refs:
        if isinstance(ref, Mention):
            out.extend(Mention(part) for part in _AND.split(ref.text) if part)
        else:
            out.append(ref)
    return tuple(out)


def find_readings(find: Find) -> tuple[tuple[str, tuple[Ref, ...]], ...]:
    """Every way to read ``find``'s text, the parser's reading first.

    The entity matcher picks the reading whose mentions match the question's entities:
    each `` of `` that leaves a ref list (``the country of origin`` / ``Ford`` as well as
    ``the country`` / ``origin of Ford``), each with bare names also split at `` and ``
    (``Tom Hanks`` / ``Meg Ryan``), and the whole text with no refs.
    """
    text = find_text(find, braced=not _reads_back_bare(find))
    readings: dict[tuple[str, tuple[Ref, ...]], None] = {(find.description, find.refs): None}
    for description, refs, _strong_refs in _splits(text):
        readings[(description, refs)] = None
        readings[(description, _and_split(refs))] = None
    readings[(find_text(find), ())] = None
    return tuple(readings)


def _reads_back_bare(find: Find) -> bool:
    return split_find(find_text(find)) == (find.description, find.refs)
