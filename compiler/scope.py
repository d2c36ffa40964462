"""Which variables a pattern binds: the facts validation and the optimiser passes rest on.

* :func:`in_scope` is the spec's in-scope set (SPARQL 1.1, 18.2.1): the variables a
  pattern may bind. ``FILTER`` and ``MINUS`` bind nothing; a sub-select binds only what
  it projects.
* :func:`certainly_bound` is the subset bound in every solution: the triples' variables,
  the intersection over ``UNION`` branches, never what only ``OPTIONAL`` or ``BIND``
  (whose expression may fail) provides. Pushing a filter or substituting a constant is
  sound only for these.
"""

from __future__ import annotations

from nl2sparql.compiler.ast import (
    BGP,
    Aggregate,
    Alias,
    Bind,
    Exists,
    Graph,
    GroupPattern,
    Node,
    NotExists,
    Optional,
    SelectQuery,
    Service,
    SubSelect,
    TriplePattern,
    Union,
    Values,
    Var,
)


def triple_vars(triple: TriplePattern) -> set[str]:
    """Variables of one triple pattern (a property path contributes no variables)."""
    return {term.name for term in (triple.subject, triple.predicate, triple.object) if isinstance(term, Var)}


def projected(query: SelectQuery) -> list[str]:
    """The names a SELECT returns, in order (``*``: its in-scope variables, sorted)."""
    if query.projection is None:
        return sorted(in_scope(query.where))
    return [item.name if isinstance(item, Var) else item.var.name for item in query.projection]


def in_scope(pattern: Node) -> set[str]:
    """Variables ``pattern`` may bind (18.2.1)."""
    if isinstance(pattern, BGP):
        out: set[str] = set()
        for triple in pattern.triples:
            out |= triple_vars(triple)
        return out
    if isinstance(pattern, GroupPattern):
        out = set()
        for element in pattern.patterns:
            out |= in_scope(element)
        return out
    if isinstance(pattern, Optional):
        return in_scope(pattern.pattern)
    if isinstance(pattern, Union):
        out = set()
        for branch in pattern.patterns:
            out |= in_scope(branch)
        return out
    if isinstance(pattern, Graph | Service):
        out = in_scope(pattern.pattern)
        if isinstance(pattern.name, Var):
            out.add(pattern.name.name)
        return out
    if isinstance(pattern, Bind):
        return {pattern.var.name}
    if isinstance(pattern, Values):
        return {v.name for v in pattern.vars}
    if isinstance(pattern, SubSelect):
        return set(projected(pattern.query))
    return set()  # Filter, Minus


def certainly_bound(pattern: Node) -> set[str]:
    """Variables bound in every solution of ``pattern``."""
    if isinstance(pattern, BGP):
        return in_scope(pattern)
    if isinstance(pattern, GroupPattern):
        out: set[str] = set()
        for element in pattern.patterns:
            out |= certainly_bound(element)
        return out
    if isinstance(pattern, Union):
        sets = [certainly_bound(branch) for branch in pattern.patterns]
        return set.intersection(*sets) if sets else set()
    if isinstance(pattern, Graph | Service):
        out = certainly_bound(pattern.pattern)
        if isinstance(pattern.name, Var) and not (isinstance(pattern, Service) and pattern.silent):
            out.add(pattern.name.name)
        return out
    if isinstance(pattern, Values):
        return {v.name for i, v in enumerate(pattern.vars) if all(row[i] is not None for row in pattern.rows)}
    if isinstance(pattern, SubSelect):
        query = pattern.query
        if query.projection is None:
            return certainly_bound(query.where)
        inner = certainly_bound(query.where)
        return {item.name for item in query.projection if isinstance(item, Var) and item.name in inner}
    return set()  # Optional, Bind, Filter, Minus


def expression_vars(expr: Node, *, inside_aggregates: bool = True, inside_exists: bool = False) -> set[str]:
    """Variables an expression reads. Aggregated ones and those of ``EXISTS`` patterns
    are included only when asked."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Var):
            out.add(node.name)
        elif (
            isinstance(node, Aggregate)
            and not inside_aggregates
            or isinstance(node, Exists | NotExists)
            and not inside_exists
        ):
            continue
        else:
            stack.extend(node.iter_children())
    return out


def has_aggregate(node: Node) -> bool:
    """True when ``node`` contains an aggregate outside any nested sub-select."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Aggregate):
            return True
        if isinstance(current, SubSelect):
            continue
        stack.extend(current.iter_children())
    return False


def is_grouped(query: SelectQuery) -> bool:
    """A SELECT aggregates when it has GROUP BY or uses an aggregate in its head or modifiers."""
    if query.group_by:
        return True
    parts: list[Node] = [*(query.projection or ()), *query.having, *query.order_by]
    return any(has_aggregate(part) for part in parts)


def group_keys(query: SelectQuery) -> set[str]:
    """Variables a grouped SELECT may use outside aggregates."""
    keys: set[str] = set()
    for condition in query.group_by:
        if isinstance(condition, Var):
            keys.add(condition.name)
        elif isinstance(condition, Alias):
            keys.add(condition.var.name)
    return keys
