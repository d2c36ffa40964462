"""Read SPARQL text into the AST: ``parse`` (a query), ``parse_pattern`` and ``parse_expression``.

The LALR parser is built once per process from ``compiler/sparql.lark`` (lark's own
cache keeps the built tables on disk between processes). Every failure leaves as a
:class:`SparqlSyntaxError` with line, column, the offending token and what was
expected: lark's exceptions never reach a caller.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from nl2sparql.compiler.ast import Expression, GroupPattern, Query
from nl2sparql.compiler.dialects import reader_options
from nl2sparql.compiler.errors import SparqlSyntaxError
from nl2sparql.compiler.sparql_options import ReaderOptions
from nl2sparql.compiler.sparql_transformer import ReaderError, SparqlTransformer

_STARTS = ["query_unit", "group_graph_pattern", "expression"]

# How terminals are named in error messages (the rest are shown as their keyword or character).
_TERMINAL_NAMES = {
    "IRIREF": "an IRI <...>",
    "PNAME_LN": "a prefixed name",
    "PNAME_NS": "a prefix",
    "VAR1": "a variable",
    "VAR2": "a variable",
    "BLANK_NODE_LABEL": "a blank node",
    "ANON": "[]",
    "NIL": "()",
    "LANGTAG": "a language tag",
    "INTEGER": "a number",
    "DECIMAL": "a number",
    "DOUBLE": "a number",
    "INTEGER_POSITIVE": "a number",
    "DECIMAL_POSITIVE": "a number",
    "DOUBLE_POSITIVE": "a number",
    "INTEGER_NEGATIVE": "a number",
    "DECIMAL_NEGATIVE": "a number",
    "DOUBLE_NEGATIVE": "a number",
    "STRING_LITERAL1": "a string",
    "STRING_LITERAL2": "a string",
    "STRING_LITERAL_LONG1": "a string",
    "STRING_LITERAL_LONG2": "a string",
    "BOOLEAN": "true/false",
    "BUILTIN_0": "a function",
    "BUILTIN_1": "a function",
    "BUILTIN_2": "a function",
    "BUILTIN_3": "a function",
    "BUILTIN_N": "a function",
    "BUILTIN_BOUND": "'BOUND'",
    "BUILTIN_BNODE": "'BNODE'",
    "BUILTIN_2_3": "a function",
    "BUILTIN_3_4": "'REPLACE'",
    "AGGREGATE_NAME": "an aggregate",
    "GROUP_CONCAT": "'GROUP_CONCAT'",
    "COMPARE_OP": "a comparison",
    "ORDER_DIRECTION": "'ASC'/'DESC'",
    "OR_KEYWORD": "'OR'",
    "AND_KEYWORD": "'AND'",
    "$END": "end of query",
}


@functools.cache
def sparql_parser() -> Lark:
    """The shared LALR parser (built on first use)."""
    return Lark.open_from_package(
        "nl2sparql.compiler",
        "sparql.lark",
        parser="lalr",
        lexer="contextual",
        start=_STARTS,
        cache=True,
        maybe_placeholders=False,
    )


@functools.cache
def _display_names() -> dict[str, str]:
    names = dict(_TERMINAL_NAMES)
    for terminal in sparql_parser().terminals:
        if terminal.name in names:
            continue
        pattern = terminal.pattern
        if pattern.type == "str":
            value = pattern.value.upper() if "i" in pattern.flags else pattern.value
            names[terminal.name] = f"'{value}'"
        else:
            names[terminal.name] = terminal.name.lower()
    return names


def _expected(names: Any) -> tuple[str, ...]:
    display = _display_names()
    return tuple(sorted({display.get(name, name) for name in names or ()}))


def _end_position(text: str) -> tuple[int, int]:
    line = text.count("\n") + 1
    column = len(text) - (text.rfind("\n") + 1) + 1
    return line, column


def _syntax_error(exc: UnexpectedInput, text: str) -> SparqlSyntaxError:
    if isinstance(exc, UnexpectedCharacters):
        char = text[exc.pos_in_stream] if 0 <= exc.pos_in_stream < len(text) else ""
        return SparqlSyntaxError(f"unexpected character {char!r}", exc.line, exc.column, char, _expected(exc.allowed))
    if isinstance(exc, UnexpectedToken):
        token: Token = exc.token
        if token.type == "$END":
            line, column = _end_position(text)
            return SparqlSyntaxError("unexpected end of query", line, column, None, _expected(exc.expected))
        return SparqlSyntaxError(
            f"unexpected {str(token)!r}",
            token.line or 1,
            token.column or 1,
            str(token),
            _expected(exc.expected),
        )
    if isinstance(exc, UnexpectedEOF):
        line, column = _end_position(text)
        return SparqlSyntaxError("unexpected end of query", line, column, None, _expected(exc.expected))
    line, column = getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1
    return SparqlSyntaxError(str(exc).splitlines()[0], line, column)


def _read(text: str, start: str, options: ReaderOptions) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"SPARQL text must be str, not {type(text).__name__}")
    try:
        tree = sparql_parser().parse(text, start=start)
        transformer = SparqlTransformer(options, text)
        result = transformer.transform(tree)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    except VisitError as exc:
        inner = exc.orig_exc
        if isinstance(inner, ReaderError):
            line, column = inner.line, inner.column
            if line is None:
                line, column = _position_of(exc, text)
            raise SparqlSyntaxError(inner.message, line, column or 1, inner.token, inner.expected) from None
        if isinstance(inner, RecursionError):
            raise SparqlSyntaxError("the query nests too deeply to read", 1, 1) from None
        raise
    except RecursionError:
        raise SparqlSyntaxError("the query nests too deeply to read", 1, 1) from None
    if transformer.errors:
        first = min(transformer.errors, key=lambda e: (e.line or 0, e.column or 0))
        raise SparqlSyntaxError(first.message, first.line or 1, first.column or 1, first.token, first.expected)
    return result


def _position_of(exc: VisitError, text: str) -> tuple[int, int]:
    """Where the rule that failed starts: its first token, else the start of the text."""
    obj = exc.obj
    for token in getattr(obj, "scan_values", lambda _: ())(lambda v: isinstance(v, Token)):
        if token.line is not None:
            return token.line, token.column or 1
    return 1, 1


def parse(text: str, dialect: str = "sparql11") -> Query:
    """Read one query (SELECT, ASK, CONSTRUCT or DESCRIBE) written in ``dialect``.

    >>> q = parse("PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ns:m.0 ns:a.b ?x }")
    >>> q.where.patterns[0].triples[0].predicate
    IRI(value='http://rdf.freebase.com/ns/a.b')
    """
    return _read(text, "query_unit", reader_options(dialect))


def _with_prefixes(dialect: str, prefixes: Mapping[str, str] | None) -> ReaderOptions:
    options = reader_options(dialect)
    if not prefixes:
        return options
    return ReaderOptions(
        builtin_prefixes=options.builtin_prefixes + tuple(prefixes.items()),
        virtuoso=options.virtuoso,
        iri_aliases=options.iri_aliases,
    )


_OPENS_GROUP = re.compile(r"\s*(#[^\n]*\n\s*)*\{")


def parse_pattern(text: str, dialect: str = "sparql11", prefixes: Mapping[str, str] | None = None) -> GroupPattern:
    """Read a group graph pattern; the braces may be left out (``?x ns:a.b ?y .``).

    ``prefixes`` adds prefixes usable without declaration (e.g. ``{"ns": FREEBASE}``).
    """
    body = text if _OPENS_GROUP.match(text) else "{" + text + "\n}"
    return _read(body, "group_graph_pattern", _with_prefixes(dialect, prefixes))


def parse_expression(text: str, dialect: str = "sparql11", prefixes: Mapping[str, str] | None = None) -> Expression:
    """Read one expression (``?d >= "2011"^^xsd:dateTime``)."""
    return _read(text, "expression", _with_prefixes(dialect, prefixes))
