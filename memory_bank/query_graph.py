"""A query as the decomposer sees it: triple edges, answer variables, topic entities, constraints.

The decomposer works on this small model rather than on the compiler's AST so that the
cutting rules (CVTs, directions, slots) stay independent of how a query was read:
:mod:`nl2sparql.memory_bank.from_ast` fills it from a parsed query, the store-derived bank
and the tests fill it directly. Terms are compact strings: ``?x`` for a variable,
``ns:m.06w2sn5`` for a Freebase IRI (``<...>`` for any other IRI), a literal in its
N-Triples form (``"1971"^^xsd:dateTime``, ``"Male"@en``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


def is_var(term: str) -> bool:
    return term.startswith(("?", "$"))


def is_literal(term: str) -> bool:
    return term.startswith('"') or term[:1].isdigit() or term in {"true", "false"}


def is_entity(term: str) -> bool:
    return not is_var(term) and not is_literal(term)


@dataclass(frozen=True, slots=True)
class Edge:
    """One triple pattern of the query's graph part."""

    subject: str
    predicate: str
    object: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """``FILTER(?a op ?b)`` or ``FILTER(?a op "1971"^^xsd:dateTime)`` (op: < <= > >= = !=)."""

    left: str
    op: str
    right: str


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """WebQSP's EXISTS time window on a CVT: ``var`` holds during ``date`` by ``start`` / ``end``."""

    var: str
    start: str | None
    end: str | None
    date: str


@dataclass(frozen=True, slots=True)
class Order:
    """``ORDER BY [DESC](?key) LIMIT n [OFFSET m]``."""

    key: str
    descending: bool
    limit: int | None
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class Count:
    """A COUNT: ``SELECT (COUNT(?var) AS ?n)`` or ``GROUP BY ?var HAVING (COUNT(?var) op value)``."""

    var: str
    op: str | None = None
    value: str | None = None


@dataclass(frozen=True, slots=True)
class OneOf:
    """``FILTER(?v = a || ?v = b ...)``: the variable is one of the constants."""

    var: str
    values: tuple[str, ...]


RawConstraint = Comparison | TimeWindow | Order | Count | OneOf


@dataclass(frozen=True, slots=True)
class QueryGraph:
    """What the decomposer needs of one query."""

    edges: tuple[Edge, ...]
    answers: tuple[str, ...] = ()
    topics: frozenset[str] = frozenset()
    constraints: tuple[RawConstraint, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    # Parts the reader saw but could not model (a variable predicate, a property path, ...).
    unsupported: tuple[str, ...] = ()

    def nodes(self) -> list[str]:
        seen: dict[str, None] = {}
        for e in self.edges:
            seen.setdefault(e.subject)
            seen.setdefault(e.object)
        return list(seen)
