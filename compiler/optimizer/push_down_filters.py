"""Move each FILTER into the innermost group that binds all of its variables.

``{ { ?x :p ?y } UNION { ?x :q ?y } FILTER(?y > 3) }`` becomes
``{ { ?x :p ?y FILTER(?y > 3) } UNION { ?x :q ?y FILTER(?y > 3) } }``: the test runs
before the join, on fewer solutions.

``Filter(F, Join(A, B)) = Join(Filter(F, A), B)`` when every variable of ``F`` is
certainly bound by ``A``: then ``F`` sees the same values either way. A filter goes
into a nested group, into every branch of a ``UNION`` (filter distributes over union)
and into a ``GRAPH`` pattern under that condition, and never into ``OPTIONAL`` (there a
filter becomes the left-join condition), ``MINUS``, ``SERVICE`` or a sub-select.
Filters with ``EXISTS`` stay: their patterns see every variable of the solution.
"""

from __future__ import annotations

from nl2sparql.compiler.ast import (
    Exists,
    Filter,
    Graph,
    GroupPattern,
    Minus,
    Node,
    NotExists,
    Optional,
    Query,
    Service,
    SubSelect,
    Union,
)
from nl2sparql.compiler.optimizer.helpers import rebuild_group
from nl2sparql.compiler.scope import certainly_bound, expression_vars


def push_down_filters(query: Query) -> Query:
    """
    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT * WHERE { ?x <http://ex/age> ?a .
    ...                               { ?x <http://ex/knows> ?y . ?y <http://ex/age> ?b }
    ...                               FILTER(?b > 30) FILTER(?a < ?b) }''')
    >>> print(push_down_filters(q).where)
    {
      ?x <http://ex/age> ?a .
      {
        ?x <http://ex/knows> ?y .
        ?y <http://ex/age> ?b .
        FILTER (?b > 30)
      }
      FILTER (?a < ?b)
    }
    """
    if query.where is None:
        return query
    return query.replace(where=_push(query.where))


def _movable(expr: Node) -> bool:
    return not any(isinstance(node, Exists | NotExists) for node in expr.walk())


def _target(element: Node, names: set[str]) -> bool:
    if isinstance(element, GroupPattern):
        return (
            bool(element.patterns)
            and not isinstance(element.patterns[0], SubSelect)
            and names <= certainly_bound(element)
        )
    if isinstance(element, Union):
        return all(names <= certainly_bound(branch) for branch in element.patterns)
    if isinstance(element, Graph):
        return names <= certainly_bound(element.pattern)
    return False


def _receive(element: Node, filter_: Filter) -> Node:
    if isinstance(element, GroupPattern):
        return GroupPattern((*element.patterns, filter_))
    if isinstance(element, Union):
        return Union(tuple(GroupPattern((*b.patterns, filter_)) for b in element.patterns))
    assert isinstance(element, Graph)
    return Graph(element.name, GroupPattern((*element.pattern.patterns, filter_)))


def _push(group: GroupPattern) -> GroupPattern:
    elements = list(group.patterns)
    kept: list[Node] = []
    for element in group.patterns:
        if isinstance(element, Filter) and _movable(element.expr):
            names = expression_vars(element.expr)
            index = next(
                (i for i, e in enumerate(elements) if names and _target(e, names)),
                None,
            )
            if index is not None:
                elements[index] = _receive(elements[index], element)
                continue
        kept.append(element)
    # keep the order of what stayed, with receiving elements updated in place
    updated = {id(original): new for original, new in zip(group.patterns, elements, strict=True)}
    out = [_descend(updated.get(id(e), e)) for e in kept]
    return rebuild_group(group, out)


def _descend(element: Node) -> Node:
    if isinstance(element, GroupPattern):
        return _push(element)
    if isinstance(element, Union):
        return Union(tuple(_push(b) for b in element.patterns))
    if isinstance(element, Optional):
        return Optional(_push(element.pattern))
    if isinstance(element, Minus):
        return Minus(_push(element.pattern))
    if isinstance(element, Graph):
        return Graph(element.name, _push(element.pattern))
    if isinstance(element, Service):
        return element.replace(pattern=_push(element.pattern))
    if isinstance(element, SubSelect):
        return SubSelect(element.query.replace(where=_push(element.query.where)))
    if isinstance(element, Filter):
        return Filter(element.expr.transform(_push_exists))
    return element


def _push_exists(node: Node) -> Node:
    if isinstance(node, Exists):
        return Exists(_push(node.pattern))
    if isinstance(node, NotExists):
        return NotExists(_push(node.pattern))
    return node
