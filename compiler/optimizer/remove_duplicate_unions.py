"""Drop a UNION branch that repeats another, where repeated answers cannot matter.

``{ ?x :p ?y } UNION { ?x :p ?y }`` returns every answer twice. Removing the repeat is
sound only where multiplicity is invisible: under ``SELECT DISTINCT`` with no
aggregates (and, in a sub-select, no LIMIT / OFFSET that would count the repeats), in
``ASK``, ``CONSTRUCT`` and ``DESCRIBE``, and inside ``EXISTS`` / ``NOT EXISTS`` /
``MINUS`` patterns, which only ask whether a match exists. Branches are compared
with the triples of each BGP in a fixed order. Nested unions are flattened everywhere
(``{ {A} UNION {B} } UNION {C}`` is ``{A} UNION {B} UNION {C}`` under bag semantics).
"""

from __future__ import annotations

from nl2sparql.compiler.ast import (
    BGP,
    Exists,
    Filter,
    GroupPattern,
    Minus,
    Node,
    NotExists,
    Query,
    SelectQuery,
    SubSelect,
    Union,
)
from nl2sparql.compiler.optimizer.helpers import rebuild_group
from nl2sparql.compiler.scope import is_grouped


def remove_duplicate_unions(query: Query) -> Query:
    """
    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT DISTINCT ?x WHERE { { ?x <http://ex/p> ?y . ?y <http://ex/q> 1 }
    ...              UNION { ?y <http://ex/q> 1 . ?x <http://ex/p> ?y } UNION { ?x <http://ex/r> ?y } }''')
    >>> print(remove_duplicate_unions(q).where)
    {
      {
        ?x <http://ex/p> ?y .
        ?y <http://ex/q> 1 .
      }
      UNION
      {
        ?x <http://ex/r> ?y .
      }
    }
    """
    if query.where is None:
        return query
    multiset_free = not isinstance(query, SelectQuery) or _distinct(query, outer=False)
    return query.replace(where=_group(query.where, multiset_free))


def _distinct(select: SelectQuery, outer: bool) -> bool:
    """Whether repeated solutions of ``select``'s pattern can change its answers."""
    if is_grouped(select):
        return False
    if select.distinct:
        return True
    return outer and select.limit is None and select.offset is None


def _sorted_bgps(group: GroupPattern) -> Node:
    return group.transform(lambda n: BGP(tuple(sorted(n.triples, key=repr))) if isinstance(n, BGP) else n)


def _flatten(union: Union) -> list[GroupPattern]:
    branches: list[GroupPattern] = []
    for branch in union.patterns:
        if len(branch.patterns) == 1 and isinstance(branch.patterns[0], Union):
            branches += _flatten(branch.patterns[0])
        else:
            branches.append(branch)
    return branches


def _group(group: GroupPattern, free: bool) -> GroupPattern:
    out: list[Node] = []
    for element in group.patterns:
        if isinstance(element, Union):
            branches = [_group(b, free) for b in _flatten(element)]
            if free:
                seen: set[Node] = set()
                unique = []
                for branch in branches:
                    key = _sorted_bgps(branch)
                    if key not in seen:
                        seen.add(key)
                        unique.append(branch)
                branches = unique
            out.append(branches[0] if len(branches) == 1 else Union(tuple(branches)))
        else:
            out.append(_element(element, free))
    return rebuild_group(group, out)


def _element(element: Node, free: bool) -> Node:
    if isinstance(element, GroupPattern):
        return _group(element, free)
    if isinstance(element, Minus):
        return Minus(_group(element.pattern, True))
    if isinstance(element, SubSelect):
        select = element.query
        return SubSelect(select.replace(where=_group(select.where, _distinct(select, outer=free))))
    if isinstance(element, Filter):
        return Filter(element.expr.transform(_exists))
    if hasattr(element, "pattern"):  # Optional, Graph, Service
        return element.replace(pattern=_group(element.pattern, free))  # type: ignore[attr-defined]
    return element


def _exists(node: Node) -> Node:
    if isinstance(node, Exists):
        return Exists(_group(node.pattern, True))
    if isinstance(node, NotExists):
        return NotExists(_group(node.pattern, True))
    return node
