"""The read-only guard every store applies before a query leaves the process.

Stores run questions compiled from model output, and a remote endpoint such as Virtuoso
executes SPARQL Update sent on its query URL when its user is allowed to. So the guard
does not trust the engine: it lexes the text itself and lets through only SELECT and ASK
queries that contain no update operation and no ``SERVICE`` call to an IRI outside the
store's allow-list (``SERVICE ?var`` is always refused).

The lexer knows just enough SPARQL to never mistake data for syntax: comments, the four
string literal forms, IRIs, variables, prefixed names, blank node labels and language
tags are single tokens, so ``"DROP"``, ``<http://x/insert>``, ``# delete`` or
``ex:load`` do not trip it, while a bare keyword anywhere does (``SELECT * {} ; DROP ALL``).
It is independent of the compiler on purpose: it guards hand-written and third-party
queries too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.errors import UnsupportedQuery

UPDATE_KEYWORDS = frozenset(
    {"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH", "USING"}
)
READ_FORMS = frozenset({"SELECT", "ASK"})
OTHER_QUERY_FORMS = frozenset({"CONSTRUCT", "DESCRIBE"})


class ReadOnlyViolation(Nl2SparqlError):
    """A query would change the store or call a service that is not allowed."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "iri", "var", "pname", "string", "number", "lang", "bnode", "punct"
    text: str
    line: int


_IRI = re.compile(r"<([^<>\"{}|^`\\\x00-\x20]*)>")
_VAR = re.compile(r"[?$][A-Za-z0-9_\u00b7\u00c0-\ufffd]+")
_LANG = re.compile(r"@[A-Za-z]+(?:-[A-Za-z0-9]+)*")
# A prefixed name, a blank node label or a bare word: letters, digits, '_', '-', '.', ':' and
# PN_LOCAL escapes. A token containing ':' is a prefixed name, one without is a word.
_NAME = re.compile(r"(?:[A-Za-z0-9_\u00b7\u00c0-\ufffd\-.:%]|\\[^\s])+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")


def tokenize(query: str) -> Iterator[Token]:
    """The SPARQL tokens of ``query`` that matter to the guard (comments and blanks dropped)."""
    i, line, n = 0, 1, len(query)
    while i < n:
        ch = query[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == "#":
            end = query.find("\n", i)
            i = n if end < 0 else end
        elif ch in "\"'":
            end = _string_end(query, i)
            if end < 0:
                raise UnsupportedQuery(f"unterminated string literal at line {line}")
            text = query[i:end]
            yield Token("string", text, line)
            line += text.count("\n")
            i = end
        elif ch == "<":
            match = _IRI.match(query, i)
            if match:
                yield Token("iri", match.group(1), line)
                i = match.end()
            else:
                yield Token("punct", "<", line)
                i += 1
        elif ch in "?$":
            match = _VAR.match(query, i)
            if match:
                yield Token("var", match.group(0), line)
                i = match.end()
            else:
                yield Token("punct", ch, line)
                i += 1
        elif ch == "@":
            match = _LANG.match(query, i)
            text = match.group(0) if match else "@"
            yield Token("lang" if match else "punct", text, line)
            i += len(text)
        elif ch in "0123456789" or (ch == "." and i + 1 < n and query[i + 1] in "0123456789"):
            match = _NUMBER.match(query, i)
            text = match.group(0) if match else ch
            yield Token("number", text, line)
            i += len(text)
        else:
            match = _NAME.match(query, i)
            # A trailing '.' ends a triple pattern; it is not part of the name.
            text = match.group(0).rstrip(".") if match else ""
            if text:
                kind = "bnode" if text.startswith("_:") else "pname" if ":" in text else "word"
                yield Token(kind, text, line)
                i += len(text)
            else:
                yield Token("punct", ch, line)
                i += 1


def _string_end(query: str, start: int) -> int:
    """Index just past the string literal starting at ``start``, or -1 when unterminated."""
    quote = query[start]
    long = query.startswith(quote * 3, start)
    delim = quote * 3 if long else quote
    i = start + len(delim)
    n = len(query)
    while i < n:
        ch = query[i]
        if ch == "\\":
            i += 2
            continue
        if not long and ch in "\r\n":
            return -1
        if query.startswith(delim, i):
            return i + len(delim)
        i += 1
    return -1


def check_read_only(query: str, allowed_services: Collection[str] = ()) -> str:
    """Return the query form (``"SELECT"`` or ``"ASK"``) or raise.

    Raises :class:`ReadOnlyViolation` for an update keyword anywhere or a ``SERVICE`` call
    not in ``allowed_services``, and :class:`~nl2sparql.kg.errors.UnsupportedQuery` for
    CONSTRUCT, DESCRIBE, an empty or unlexable query.

    >>> check_read_only("PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ?x ns:p 'DROP' }")
    'SELECT'
    >>> check_read_only("INSERT DATA { <a> <b> <c> }")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    nl2sparql.kg.readonly.ReadOnlyViolation: refused: INSERT (line 1) is a SPARQL Update operation; ...
    """
    tokens = list(tokenize(query))
    prefixes: dict[str, str] = {}
    base = ""
    form: Token | None = None
    i = 0
    while i < len(tokens) and form is None:
        token = tokens[i]
        keyword = token.text.upper() if token.kind == "word" else ""
        if keyword == "BASE" and i + 1 < len(tokens) and tokens[i + 1].kind == "iri":
            base = tokens[i + 1].text
            i += 2
        elif keyword == "PREFIX" and i + 2 < len(tokens) and tokens[i + 2].kind == "iri":
            prefixes[tokens[i + 1].text.rstrip(":")] = tokens[i + 2].text
            i += 3
        else:
            form = token
    for token in tokens:
        if token.kind == "word" and token.text.upper() in UPDATE_KEYWORDS:
            raise ReadOnlyViolation(
                f"refused: {token.text.upper()} (line {token.line}) is a SPARQL Update operation; "
                "stores are read-only"
            )
    if form is None:
        raise UnsupportedQuery("empty query: expected SELECT or ASK after the prologue (BASE/PREFIX)")
    keyword = form.text.upper() if form.kind == "word" else ""
    if keyword in OTHER_QUERY_FORMS:
        raise UnsupportedQuery(
            f"refused: {keyword} queries are not run (line {form.line}); only SELECT and ASK are supported"
        )
    if keyword not in READ_FORMS:
        raise UnsupportedQuery(
            f"expected SELECT or ASK after the prologue (BASE/PREFIX), "
            f"found {form.text!r} at line {form.line}"
        )
    _check_services(tokens, prefixes, base, allowed_services)
    return keyword


def _check_services(
    tokens: list[Token], prefixes: dict[str, str], base: str, allowed: Collection[str]
) -> None:
    allowed_set = set(allowed)
    for i, token in enumerate(tokens):
        if token.kind != "word" or token.text.upper() != "SERVICE":
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].kind == "word" and tokens[j].text.upper() == "SILENT":
            j += 1
        target = tokens[j] if j < len(tokens) else None
        if target is None or target.kind == "var":
            shown = target.text if target else "nothing"
            raise ReadOnlyViolation(
                f"refused: SERVICE {shown} (line {token.line}): "
                "a service named by a variable is never allowed"
            )
        iri = _resolve(target, prefixes, base)
        if iri is None or iri not in allowed_set:
            shown = f"<{iri}>" if iri else target.text
            listed = ", ".join(sorted(allowed_set)) or "none"
            raise ReadOnlyViolation(
                f"refused: SERVICE {shown} (line {token.line}) is not on this store's allow-list "
                f"(allowed: {listed})"
            )


def _resolve(token: Token, prefixes: dict[str, str], base: str) -> str | None:
    if token.kind == "iri":
        if base and not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", token.text):
            return base + token.text
        return token.text
    if token.kind == "pname":
        prefix, _, local = token.text.partition(":")
        if prefix in prefixes:
            return prefixes[prefix] + local
    return None
