"""Drop triple patterns and filters that a group states twice.

A BGP is a set of triples, so a repeated triple adds nothing; across the BGPs of one
group a repeated triple without blank nodes joins a solution with itself (multiplicity
1 x 1), so it adds nothing either. ``FILTER(e) FILTER(e)`` is ``FILTER(e && e)``. Left
alone: triples with blank nodes across BGPs (each BGP scopes its own) and property-path
triples (a path like ``p/q`` can match a pair more than once, and its repeat squares
that count).
"""

from __future__ import annotations

from nl2sparql.compiler.ast import BGP, IRI, BlankNode, Filter, GroupPattern, Node, Query, TriplePattern, Var
from nl2sparql.compiler.optimizer.helpers import rebuild_group


def remove_duplicate_patterns(query: Query) -> Query:
    """
    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT ?x WHERE { ?x <http://ex/p> <http://ex/o> . ?x <http://ex/p> <http://ex/o> .
    ...                                FILTER(?x != <http://ex/a>) FILTER(?x != <http://ex/a>) }''')
    >>> print(remove_duplicate_patterns(q).where)
    {
      ?x <http://ex/p> <http://ex/o> .
      FILTER (?x != <http://ex/a>)
    }
    """
    return query.transform(_dedupe)  # type: ignore[return-value]


def _is_path(triple: TriplePattern) -> bool:
    return not isinstance(triple.predicate, IRI | Var)


def _has_blank(triple: TriplePattern) -> bool:
    return isinstance(triple.subject, BlankNode) or isinstance(triple.object, BlankNode)


def _dedupe(node: Node) -> Node:
    if isinstance(node, BGP):
        seen: set[TriplePattern] = set()
        unique = []
        for triple in node.triples:
            if _is_path(triple) or triple not in seen:
                seen.add(triple)
                unique.append(triple)
        return node if len(unique) == len(node.triples) else BGP(tuple(unique))
    if not isinstance(node, GroupPattern):
        return node
    seen_triples: set[TriplePattern] = set()
    seen_filters: set[Node] = set()
    out: list[Node] = []
    for element in node.patterns:
        if isinstance(element, Filter):
            if element.expr in seen_filters:
                continue
            seen_filters.add(element.expr)
        elif isinstance(element, BGP):
            kept = []
            for triple in element.triples:
                if _has_blank(triple) or _is_path(triple):
                    kept.append(triple)
                elif triple not in seen_triples:
                    seen_triples.add(triple)
                    kept.append(triple)
            if len(kept) != len(element.triples):
                element = BGP(tuple(kept))
        out.append(element)
    return rebuild_group(node, out)
