"""``Make sure ?v holds during 2011``: WebQSP's time window on a CVT.

Freebase records when a relation held on its CVT (a roster spell, a marriage, an office
term) with a start and an end predicate, either of which may be missing. WebQSP writes
"held at date D" as two filters that also accept an open start or end::

    FILTER(NOT EXISTS {?cvt :from ?a} || EXISTS {?cvt :from ?b . FILTER(xsd:dateTime(?b) <= D_end)})
    FILTER(NOT EXISTS {?cvt :to ?c}   || EXISTS {?cvt :to ?d .   FILTER(xsd:dateTime(?d) >= D_start)})

For a year (or a month) the start must fall before its last day and the end after its
first (the spell overlaps the year). Several windows on one CVT combine into the
tightest bounds (start before the earliest, end after the latest), which is what two
``holds during`` steps mean together. The start and end predicates come from a recalled
``time_window`` constraint whose predicates belong to the CVT's type.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from nl2sparql.compiler.assemble import Recalled, compact_term
from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    XSD_DATETIME,
    BinaryOp,
    Exists,
    Expression,
    Filter,
    FunctionCall,
    GroupPattern,
    Literal,
    NotExists,
    TriplePattern,
    UnaryOp,
    Var,
)
from nl2sparql.compiler.lowering.filters import complete_datetime
from nl2sparql.compiler.lowering.options import LoweringError

_PART = re.compile(
    r"NOT EXISTS \{\?e1 (?P<pred>\S+) \?\w+\} \|\| EXISTS \{\?e1 (?P=pred) \?\w+ \. "
    r"FILTER\(xsd:dateTime\(\?\w+\) (?P<op>[<>]=?) \?e2\)\}"
)


@dataclass(frozen=True, slots=True)
class Window:
    """The bounds a CVT's spell must meet: start <= ``start_bound``, end >= ``end_bound``."""

    node: Var
    start: IRI | None
    end: IRI | None
    start_bound: Expression
    end_bound: Expression


def window_predicates(recalled: Recalled) -> tuple[IRI | None, IRI | None]:
    """``(start, end)`` predicates of a ``time_window`` constraint (either may be ``None``)."""
    start = end = None
    for m in _PART.finditer(recalled.sparql):
        term = compact_term(m["pred"])
        if not isinstance(term, IRI):
            continue
        if m["op"].startswith("<"):
            start = start or term
        else:
            end = end or term
    return start, end


def _type_of(predicate: str) -> str:
    local = predicate.rstrip("/").rsplit("/", 1)[-1]
    return local.rsplit(".", 1)[0]


def node_types(node: Var, triples: Iterable[TriplePattern], range_of: Callable[[str], str | None] | None) -> set[str]:
    """What ``node`` is, as Freebase types: the type of each predicate leaving it, and the
    range (``range_of``) of each predicate reaching it."""
    types = set()
    for t in triples:
        if not isinstance(t.predicate, IRI):
            continue
        if t.subject == node:
            types.add(_type_of(t.predicate.value))
        if t.object == node and range_of is not None:
            found = range_of(t.predicate.value)
            if found:
                types.add(found)
    return types


def _fitting(candidates: Sequence[Recalled], types: set[str]) -> tuple[IRI | None, IRI | None]:
    start = end = None
    for recalled in candidates:
        if recalled.kind != "time_window":
            continue
        s, e = window_predicates(recalled)
        if any(p is not None and _type_of(p.value) not in types for p in (s, e)):
            continue
        start = start or s
        end = end or e
    return start, end


def choose_window(
    nodes: Sequence[Var],
    candidates: Sequence[Recalled],
    triples: Sequence[TriplePattern],
    range_of: Callable[[str], str | None] | None = None,
) -> tuple[Var, IRI | None, IRI | None]:
    """The node a window is on and its start and end predicates.

    ``nodes``: where the window may be, best first (the CVT behind a variable, then the
    variable). A candidate fits a node when its predicates belong to one of the node's
    types (a roster CVT's window uses ``sports_team_roster.from`` / ``.to``; a film's,
    ``film.film.initial_release_date``).
    """
    for node in nodes:
        start, end = _fitting(candidates, node_types(node, triples, range_of))
        if start is not None or end is not None:
            return node, start, end
    names = " or ".join(f"?{node.name}" for node in nodes)
    raise LoweringError(f"no recalled time-window statement fits {names}")


def bounds(value: Expression, kind: str) -> tuple[Expression, Expression]:
    """``(start bound, end bound)`` for a plan value: a date, a month, a year or a variable."""
    if not isinstance(value, Literal):
        return value, value
    text = value.lexical
    if kind == "year" or re.fullmatch(r"\d{4}", text):
        return Literal(f"{text}-12-31", XSD_DATETIME), Literal(f"{text}-01-01", XSD_DATETIME)
    month = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if month:
        year, mon = int(month[1]), int(month[2])
        if not 1 <= mon <= 12:
            raise LoweringError(f"{text} is not a month")
        last = calendar.monthrange(year, mon)[1]
        return Literal(f"{text}-{last:02d}", XSD_DATETIME), Literal(f"{text}-01", XSD_DATETIME)
    return Literal(text, XSD_DATETIME), Literal(text, XSD_DATETIME)


def merge(a: Window, b: Window) -> Window:
    """Two windows on one node: start before the earlier start bound, end after the later end bound."""
    return Window(
        a.node,
        a.start or b.start,
        a.end or b.end,
        _pick(a.start_bound, b.start_bound, earliest=True),
        _pick(a.end_bound, b.end_bound, earliest=False),
    )


def _pick(a: Expression, b: Expression, earliest: bool) -> Expression:
    """The earlier (or later) of two date literals (ISO dates order as text); ``a`` otherwise."""
    if isinstance(a, Literal) and isinstance(b, Literal):
        return a if (a.lexical <= b.lexical) == earliest else b
    return a


def _side(node: Var, predicate: IRI, op: str, bound: Expression, names: list[str]) -> Expression:
    missing, present = Var(names.pop(0)), Var(names.pop(0))
    absent = NotExists(GroupPattern((BGP((TriplePattern(node, predicate, missing),)),)))
    check = Filter(BinaryOp(op, FunctionCall(IRI(XSD_DATETIME), (present,)), complete_datetime(bound)))
    found = Exists(GroupPattern((BGP((TriplePattern(node, predicate, present),)), check)))
    return BinaryOp("||", absent, found)


def window_filters(window: Window, names: list[str], negated: bool = False) -> list[Filter]:
    """The FILTERs of ``window``; ``names`` supplies fresh variable names (two per side)."""
    sides = []
    if window.start is not None:
        sides.append(_side(window.node, window.start, "<=", window.start_bound, names))
    if window.end is not None:
        sides.append(_side(window.node, window.end, ">=", window.end_bound, names))
    if not negated:
        return [Filter(side) for side in sides]
    both = sides[0] if len(sides) == 1 else BinaryOp("&&", sides[0], sides[1])
    return [Filter(UnaryOp("!", both))]
