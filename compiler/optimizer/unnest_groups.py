"""Merge a nested group that holds only triples into the group around it.

``{ ?x :p ?y . { ?y :q ?z } }`` is ``{ ?x :p ?y . ?y :q ?z }``: joining two BGPs is
one BGP. Other passes leave such groups behind (a union reduced to one branch) and they
hide triples from the passes that work on one group's BGP (constant propagation,
ordering). Only groups made of nothing but triples are merged (an empty one is
dropped: it joins as the identity); a group with a filter, an OPTIONAL, a BIND or
anything else keeps its own scope, and so does the ``{ }`` of a union branch,
OPTIONAL, MINUS, GRAPH, EXISTS or a sub-select, which are not group *elements*.
"""

from __future__ import annotations

from nl2sparql.compiler.ast import BGP, GroupPattern, Node, Query
from nl2sparql.compiler.optimizer.helpers import rebuild_group


def unnest_groups(query: Query) -> Query:
    """
    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT * WHERE { ?x <http://ex/p> ?y . { ?y <http://ex/q> ?z . { } }
    ...                               OPTIONAL { { ?z <http://ex/r> ?w } } }''')
    >>> print(unnest_groups(q).where)
    {
      ?x <http://ex/p> ?y .
      ?y <http://ex/q> ?z .
      OPTIONAL {
        ?z <http://ex/r> ?w .
      }
    }
    """
    return query.transform(_unnest)  # type: ignore[return-value]


def _only_triples(node: Node) -> bool:
    return isinstance(node, GroupPattern) and all(isinstance(p, BGP) for p in node.patterns)


def _unnest(node: Node) -> Node:
    if not isinstance(node, GroupPattern) or not any(_only_triples(p) for p in node.patterns):
        return node
    out: list[Node] = []
    for element in node.patterns:
        if _only_triples(element):
            out.extend(element.patterns)  # type: ignore[attr-defined]
        else:
            out.append(element)
    if not out and node.patterns:
        return GroupPattern()
    return rebuild_group(node, out)
