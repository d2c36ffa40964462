"""Order the triples of each BGP so the most selective come first and each joins the last.

Oxigraph plans joins itself, but Virtuoso with large graphs, rdflib and any naive
engine evaluate in the written order, and a reader follows the chain better. The
estimate: a triple whose subject and object are both fixed (a constant or a variable
an earlier triple binds) first, then a fixed subject, then a fixed object, then
neither; ties go to the predicate with fewer triples in ``stats`` (predicate IRI ->
count, e.g. ``Store.stats().predicates``; a predicate absent from ``stats`` has none
and comes first). After the first triple only triples sharing a variable with those
already placed are candidates, so the join stays connected. A BGP is a set: any order
has the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping

from nl2sparql.compiler.ast import BGP, IRI, Node, Path, Query, TriplePattern, Var
from nl2sparql.compiler.scope import triple_vars


def order_by_selectivity(query: Query, stats: Mapping[str, int] | None = None) -> Query:
    """
    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT ?x WHERE { ?x <http://ex/gender> <http://ex/male> . ?y <http://ex/sibling> ?x .
    ...                                <http://ex/justin> <http://ex/sibling_s> ?y . }''')
    >>> print(order_by_selectivity(q).where)
    {
      <http://ex/justin> <http://ex/sibling_s> ?y .
      ?y <http://ex/sibling> ?x .
      ?x <http://ex/gender> <http://ex/male> .
    }
    """
    total = sum(stats.values()) if stats else 0
    return query.transform(lambda node: _order(node, stats, total))  # type: ignore[return-value]


def _fixed(term: Node, bound: set[str]) -> bool:
    return not isinstance(term, Var) or term.name in bound


def _count(predicate: Var | Path, stats: Mapping[str, int] | None, total: int) -> float:
    if stats is None:
        return 0
    if isinstance(predicate, Var):
        return total or float("inf")
    if isinstance(predicate, IRI):
        return stats.get(predicate.value, 0)
    iris = [n.value for n in predicate.walk() if isinstance(n, IRI)]
    return max((stats.get(iri, 0) for iri in iris), default=total) * 2


def _cost(triple: TriplePattern, bound: set[str], stats: Mapping[str, int] | None, total: int) -> tuple[int, float]:
    subject, obj = _fixed(triple.subject, bound), _fixed(triple.object, bound)
    shape = 0 if subject and obj else 1 if subject else 2 if obj else 3
    return shape, _count(triple.predicate, stats, total)


def _order(node: Node, stats: Mapping[str, int] | None, total: int) -> Node:
    if not isinstance(node, BGP) or len(node.triples) < 2:
        return node
    remaining = list(enumerate(node.triples))
    bound: set[str] = set()
    ordered: list[TriplePattern] = []
    while remaining:
        linked = [(i, t) for i, t in remaining if triple_vars(t) & bound] if ordered else []
        pool = linked or remaining
        index, best = min(pool, key=lambda item: (_cost(item[1], bound, stats, total), item[0]))
        remaining.remove((index, best))
        ordered.append(best)
        bound |= triple_vars(best)
    return node if tuple(ordered) == node.triples else BGP(tuple(ordered))
