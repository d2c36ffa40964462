"""Which nodes of a query are CVTs (compound value types), judged from the evidence at hand.

Three sources, strongest first:

* the Freebase schema: a node's type follows from the predicates around it (the domain of
  one it is the subject of, the range of one it is the object of); a type that is not a
  subclass of ``common.topic`` is a CVT;
* a KG: an entity without a name is a CVT (how the store-derived bank finds them);
* the query alone: a variable that is not projected, not constrained, and only links
  other nodes (degree two or more) looks like a CVT. This is weak (``?c`` in "the team
  whose mascot is Lou Seal" passes it), so it only decides where the schema is silent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from nl2sparql.kg.freebase_schema import FreebaseSchema
from nl2sparql.memory_bank.query_graph import (
    Comparison,
    Count,
    Order,
    QueryGraph,
    TimeWindow,
    is_var,
)

# Generic predicates that every type has: they say nothing about a node's type.
GENERIC_TYPES = frozenset({"common.topic", "type.object"})
# User-contributed domains often lack their ``common.topic`` line in ``fb_types``: their
# types look like CVTs when they are not, so their evidence weighs half.
WEAK_DOMAINS = ("base.", "user.", "freebase.")


class CvtJudge(Protocol):
    def cvt_nodes(self, graph: QueryGraph) -> frozenset[str]: ...


def _constrained_vars(graph: QueryGraph) -> set[str]:
    out: set[str] = set()
    for c in graph.constraints:
        match c:
            case Comparison(left=left, right=right):
                out.update(t for t in (left, right) if is_var(t))
            case Order(key=key):
                out.add(key)
            case Count(var=var):
                out.add(var)
            case TimeWindow():
                pass  # a time window is what a CVT typically carries
    return out


class StructuralJudge:
    """CVT = a variable not projected, not compared/ordered/counted, linking two or more nodes."""

    def cvt_nodes(self, graph: QueryGraph) -> frozenset[str]:
        degree: dict[str, int] = {}
        for e in graph.edges:
            for node in (e.subject, e.object):
                degree[node] = degree.get(node, 0) + 1
        blocked = set(graph.answers) | _constrained_vars(graph)
        return frozenset(n for n, d in degree.items() if is_var(n) and n not in blocked and d >= 2)


class SchemaJudge:
    """CVT from the types the schema gives a node's predicates; the structure decides where it is silent."""

    def __init__(self, schema: FreebaseSchema, fallback: CvtJudge | None = None) -> None:
        self.schema = schema
        self.fallback = fallback if fallback is not None else StructuralJudge()

    def node_verdict(self, node: str, graph: QueryGraph) -> bool | None:
        """True / False from the schema, None when no predicate around the node is known.

        Each predicate around the node votes with the type it gives the node (domain when
        the node is the subject, range when it is the object); types of user domains
        (``base.*``) vote with half weight, a tie is not a CVT.
        """
        score, votes = 0.0, 0
        for e in graph.edges:
            types: list[str | None] = []
            if e.subject == node:
                types.append(self.schema.domain(e.predicate))
            if e.object == node:
                types.append(self.schema.range(e.predicate))
            for t in types:
                if t is None or t in GENERIC_TYPES:
                    continue
                verdict = self.schema.is_cvt_type(t)
                if verdict is not None:
                    weight = 0.5 if t.startswith(WEAK_DOMAINS) else 1.0
                    score += weight if verdict else -weight
                    votes += 1
        if not votes:
            return None
        return score > 0

    def cvt_nodes(self, graph: QueryGraph) -> frozenset[str]:
        fallback = self.fallback.cvt_nodes(graph)
        out: set[str] = set()
        answers = set(graph.answers)
        for node in graph.nodes():
            if not is_var(node) or node in answers:
                continue  # constants are topic entities or values; an answer is what a user reads
            verdict = self.node_verdict(node, graph)
            if verdict is True or (verdict is None and node in fallback):
                out.add(node)
        return frozenset(out)


class NamelessJudge:
    """CVT = a constant the KG gives no name (for graphs whose nodes are concrete entities)."""

    def __init__(self, has_name: Callable[[Iterable[str]], set[str]]) -> None:
        self.has_name = has_name

    def cvt_nodes(self, graph: QueryGraph) -> frozenset[str]:
        consts = [n for n in graph.nodes() if not is_var(n) and not n.startswith('"')]
        named = self.has_name(consts)
        return frozenset(n for n in consts if n not in named)


class FixedJudge:
    """CVTs named up front (statements built from a KG's CVT signatures, tests)."""

    def __init__(self, cvts: Iterable[str]) -> None:
        self.cvts = frozenset(cvts)

    def cvt_nodes(self, graph: QueryGraph) -> frozenset[str]:
        return frozenset(n for n in graph.nodes() if n in self.cvts)


class SignatureJudge:
    """CVT = a variable that a predicate leads into or out of the way it does to a CVT in a
    bank's statements (``?e1 p ?cvt``, ``?cvt q ?e2``): a bank built from a graph other
    than Freebase knows its CVTs (blank nodes) only by those predicates, and a query over
    that graph must be cut where the bank was, or its statements are not the bank's."""

    def __init__(self, into: Iterable[str], out_of: Iterable[str]) -> None:
        self.into = frozenset(into)
        self.out_of = frozenset(out_of)

    @classmethod
    def from_statements(cls, statements: Iterable[object]) -> SignatureJudge:
        """The judge for the CVT predicates of ``statements`` (the bank's graph statements)."""
        into, out_of = set(), set()
        for statement in statements:
            for t in getattr(statement, "triples", ()):
                if t.object == "?cvt":
                    into.add(t.predicate)
                if t.subject == "?cvt":
                    out_of.add(t.predicate)
        return cls(into, out_of)

    def cvt_nodes(self, graph: QueryGraph) -> frozenset[str]:
        blocked = set(graph.answers) | _constrained_vars(graph)
        out = set()
        for e in graph.edges:
            if e.predicate in self.into and is_var(e.object) and e.object not in blocked:
                out.add(e.object)
            if e.predicate in self.out_of and is_var(e.subject) and e.subject not in blocked:
                out.add(e.subject)
        return frozenset(out)
