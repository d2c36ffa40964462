"""``Make sure`` steps that become FILTERs: equality, inequality and comparisons, typed right.

A plan writes ``Make sure ?d is before 1971`` or ``Make sure ?n is greater than 5000``;
the literal must be typed as the values it meets in the graph, or the comparison is
silently false (``"1971"`` the string is not less than a date). The type comes from the
predicate that binds the variable (the schema's range, ``type.datetime`` ->
``xsd:dateTime``), falling back on how the literal looks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from nl2sparql.compiler.ast import (
    IRI,
    XSD_DATETIME,
    XSD_DECIMAL,
    XSD_INTEGER,
    BinaryOp,
    BuiltinCall,
    Expression,
    Filter,
    FunctionCall,
    Literal,
    UnaryOp,
    Var,
)

#: plan comparison words -> SPARQL operators
OPERATORS: Mapping[str, str] = {
    "is": "=",
    "greater than": ">",
    "less than": "<",
    "at least": ">=",
    "at most": "<=",
    "after": ">",
    "before": "<",
}
_NEGATED = {"=": "!=", ">": "<=", "<": ">=", ">=": "<", "<=": ">", "!=": "="}
_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?\d*\.\d+")
_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")


def sparql_operator(op: str, negated: bool = False) -> str:
    """``greater than`` -> ``>``; negated: ``is not greater than`` -> ``<=``."""
    symbol = OPERATORS[op]
    return _NEGATED[symbol] if negated else symbol


def quoted_date(lexical: str, datatype: str | None) -> bool:
    """Whether a quoted plan value is a date compared with dates (``"1636"`` against a
    founding date): written as a date, as a plain string never equals one.

    >>> quoted_date("1981-10-28", XSD_DATETIME), quoted_date("1636", None), quoted_date("Up", XSD_DATETIME)
    (True, False, False)
    """
    return datatype == XSD_DATETIME and _DATE.fullmatch(lexical) is not None


def typed_literal(lexical: str, kind: str, datatype: str | None) -> Literal:
    """The literal a plan wrote (``1971``, ``2011-05-01``, ``5000``, ``"Up"``) typed for ``datatype``.

    ``datatype`` is the value type of what it is compared with (``None``: unknown). Dates
    keep the precision written: WebQSP and CWQ compare with ``"1971"^^xsd:dateTime``. A
    quoted date compared with dates is a date too: a plain string never equals one.

    >>> typed_literal("1636", "string", XSD_DATETIME).datatype == XSD_DATETIME
    True
    >>> typed_literal("240", "string", XSD_INTEGER).datatype is None
    True
    """
    if kind == "string" and not quoted_date(lexical, datatype):
        return Literal(lexical)
    if datatype == XSD_DATETIME or (datatype is None and kind in ("year", "date")):
        return Literal(lexical, XSD_DATETIME)
    if _INTEGER.fullmatch(lexical):
        return Literal(lexical, XSD_INTEGER)
    if _DECIMAL.fullmatch(lexical):
        return Literal(lexical, XSD_DECIMAL)
    if _DATE.fullmatch(lexical):
        return Literal(lexical, XSD_DATETIME)
    return Literal(lexical)


_PARTIAL_DATETIME = re.compile(r"(-?\d{4,})(?:-(\d{2}))?(?:-(\d{2}))?")


def complete_datetime(term: Expression) -> Expression:
    """``"2015-08-10"^^xsd:dateTime`` -> ``"2015-08-10T00:00:00"^^xsd:dateTime`` (a year: Jan 1st).

    A date alone is not a valid ``xsd:dateTime``: Virtuoso reads it as midnight, Oxigraph
    as an error that fails the comparison. Comparisons get the complete form (the
    compiler's Virtuoso reader writes the gold queries' literals the same way).
    """
    if not isinstance(term, Literal) or term.datatype != XSD_DATETIME:
        return term
    m = _PARTIAL_DATETIME.fullmatch(term.lexical)
    if m is None:
        return term
    year, month, day = m.groups()
    return Literal(f"{year}-{month or '01'}-{day or '01'}T00:00:00", XSD_DATETIME)


def cast(expr: Expression, to: str | None) -> Expression:
    """``xsd:dateTime(expr)`` (``to`` an XSD type IRI), or ``expr`` itself when ``to`` is ``None``."""
    return FunctionCall(IRI(to), (expr,)) if to else expr


def equality(var: str, term: Expression, as_string: bool = False, negated: bool = False) -> Filter:
    """``FILTER(?v = term)``, ``FILTER(str(?v) = "text")`` (WebQSP's test on names), or ``!=``."""
    left: Expression = BuiltinCall("STR", (Var(var),)) if as_string else Var(var)
    return Filter(BinaryOp("!=" if negated else "=", left, complete_datetime(term)))


def text_match(var: str, text: str, negated: bool = False) -> Filter:
    """``FILTER(CONTAINS(LCASE(STR(?v)), "word"))``: ``Make sure ?v contains "word"``, any case.

    ``STR`` reads a literal's text and an IRI's whole text, so a graph whose names live
    only in local names (``.../AbbeyRoadA``) is matched on them as well as on labels.

    >>> print(text_match("a", "Night"))
    FILTER (CONTAINS(LCASE(str(?a)), "night"))
    """
    haystack = BuiltinCall("LCASE", (BuiltinCall("STR", (Var(var),)),))
    test: Expression = BuiltinCall("CONTAINS", (haystack, Literal(text.lower())))
    return Filter(UnaryOp("!", test) if negated else test)


def comparison(var: str, symbol: str, value: Expression, cast_to: str | None) -> Filter:
    """``FILTER(cast(?v) symbol value)``; no cast when comparing two variables."""
    left = Var(var) if isinstance(value, Var) else cast(Var(var), cast_to)
    return Filter(BinaryOp(symbol, left, complete_datetime(value)))
