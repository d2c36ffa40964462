"""Semantic checks on a parsed query, before it runs.

A query that parses can still be wrong in ways a store reports badly or not at all: a
projected variable nothing binds (always empty), a non-grouped variable next to an
aggregate, a ``BIND`` over a variable already bound, a predicate the graph does not
have, or two parts of a pattern that share no variable (their answers multiply). The
compiler's repair loop needs these as clear messages, so :func:`check` lists every
:class:`Problem` and :func:`validate` raises the errors as one
:class:`SparqlValidationError` and reports warnings through :mod:`warnings` (or raises
them too with ``strict=True``).
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    Alias,
    AskQuery,
    Bind,
    BuiltinCall,
    Exists,
    Filter,
    Graph,
    GroupPattern,
    Minus,
    Node,
    NotExists,
    Optional,
    PathAlternative,
    PathInverse,
    PathMod,
    PathNegated,
    PathSequence,
    Query,
    SelectQuery,
    Service,
    SubSelect,
    TriplePattern,
    Union,
    Values,
    Var,
)
from nl2sparql.compiler.errors import CartesianProductWarning, SparqlValidationError
from nl2sparql.compiler.scope import (
    expression_vars,
    group_keys,
    has_aggregate,
    in_scope,
    is_grouped,
    triple_vars,
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: ``level`` is ``"error"`` or ``"warning"``; ``code`` names the rule."""

    level: str
    code: str
    message: str


def validate(
    query: Query,
    catalog: Collection[str] | None = None,
    *,
    run: bool = False,
    strict: bool = False,
) -> None:
    """Raise :class:`SparqlValidationError` when ``query`` breaks a rule.

    ``catalog``: the predicate IRIs the target graph has (e.g. ``Store.stats().predicates``);
    every predicate the query names must be among them. ``run=True``: the query is about
    to be executed, so only read-only SELECT / ASK without SERVICE pass. Warnings (a
    cartesian product, a filter over a variable nothing binds) are issued with
    :func:`warnings.warn`, or raised as errors with ``strict=True``.

    >>> from nl2sparql.compiler import parse
    >>> validate(parse("SELECT ?y WHERE { ?x <http://ex/p> ?z }"))
    Traceback (most recent call last):
    ...
    nl2sparql.compiler.errors.SparqlValidationError: SELECT projects ?y, which the pattern never binds
    """
    problems = check(query, catalog, run=run)
    errors = [p for p in problems if p.level == "error" or strict]
    if errors:
        message = errors[0].message
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more: " + "; ".join(p.message for p in errors[1:]) + ")"
        raise SparqlValidationError(message, [p.message for p in errors])
    for problem in problems:
        category = CartesianProductWarning if problem.code == "cartesian-product" else UserWarning
        warnings.warn(problem.message, category, stacklevel=2)


def check(query: Query, catalog: Collection[str] | None = None, *, run: bool = False) -> list[Problem]:
    """Every problem found in ``query``, errors and warnings, in a stable order."""
    problems: list[Problem] = []
    if run:
        problems += _read_only(query)
    for select in _selects(query):
        problems += _select_rules(select)
    if query.where is not None:
        everywhere = set().union(*(in_scope(n) for n in query.walk() if isinstance(n, GroupPattern)))
        problems += _pattern_rules(query.where, set(), everywhere)
    if catalog is not None:
        problems += _catalog(query, catalog)
    return problems


# ------------------------------------------------------------ rules


def _read_only(query: Query) -> list[Problem]:
    out = []
    if not isinstance(query, SelectQuery | AskQuery):
        kind = type(query).__name__.removesuffix("Query").upper()
        out.append(Problem("error", "read-only", f"only SELECT and ASK queries run here, not {kind}"))
    if any(isinstance(node, Service) for node in query.walk()):
        out.append(Problem("error", "read-only", "SERVICE calls to other endpoints are not allowed"))
    return out


def _selects(query: Query) -> Iterator[SelectQuery]:
    if isinstance(query, SelectQuery):
        yield query
    for node in query.walk():
        if isinstance(node, SubSelect):
            yield node.query


def _select_rules(query: SelectQuery) -> list[Problem]:
    out: list[Problem] = []
    bound = in_scope(query.where)
    aliases: set[str] = set()
    for condition in query.group_by:
        if isinstance(condition, Alias):
            aliases.add(condition.var.name)
    grouped = is_grouped(query)
    keys = group_keys(query)
    if query.projection is None:
        if grouped:
            out.append(Problem("error", "aggregate", "SELECT * cannot be used with GROUP BY or aggregates"))
        return out
    for item in query.projection:
        if isinstance(item, Var):
            if item.name not in bound and item.name not in aliases:
                out.append(
                    Problem(
                        "error",
                        "unbound-projection",
                        f"SELECT projects ?{item.name}, which the pattern never binds",
                    )
                )
            elif grouped and item.name not in keys:
                out.append(
                    Problem("error", "aggregate", f"?{item.name} is projected but neither grouped nor aggregated")
                )
            continue
        name = item.var.name
        if name in bound or name in aliases:
            out.append(
                Problem("error", "alias-rebinds", f"(... AS ?{name}) names a variable the pattern already binds")
            )
        free = expression_vars(item.expr, inside_aggregates=False) - aliases - keys
        if grouped and free:
            names = ", ".join(f"?{v}" for v in sorted(free))
            out.append(
                Problem(
                    "error",
                    "aggregate",
                    f"({names} AS ?{name}) uses {names} outside an aggregate without GROUP BY",
                )
            )
        aliases.add(name)
    if grouped:
        for condition in query.having:
            free = expression_vars(condition, inside_aggregates=False) - keys - aliases
            if free:
                names = ", ".join(f"?{v}" for v in sorted(free))
                out.append(Problem("error", "aggregate", f"HAVING uses {names} outside an aggregate without GROUP BY"))
    return out


def _pattern_rules(group: GroupPattern, visible: set[str], everywhere: set[str]) -> list[Problem]:
    """BIND targets, aggregates, filters over variables their group cannot see, cartesian
    products; then the same for the groups inside.

    ``visible``: variables bound outside ``group`` that its filters may still read: the
    left side of an OPTIONAL (its filter is the left-join condition) and everything around
    an EXISTS pattern. Any other group is evaluated on its own (bottom-up), so a variable
    bound only outside it is unbound there. ``everywhere``: what the whole query binds.
    """
    out: list[Problem] = []
    seen: set[str] = set()
    bound_here = in_scope(group)
    for element in group.patterns:
        if isinstance(element, Bind):
            if element.var.name in seen:
                out.append(
                    Problem(
                        "error",
                        "bind-rebinds",
                        f"BIND (... AS ?{element.var.name}) rebinds a variable bound before it",
                    )
                )
            if has_aggregate(element.expr):
                out.append(Problem("error", "aggregate", "an aggregate cannot be used in BIND"))
        if isinstance(element, Filter):
            if has_aggregate(element.expr):
                out.append(Problem("error", "aggregate", "an aggregate cannot be used in FILTER"))
            out += _filter_scope(element, bound_here | visible, everywhere)
        seen |= in_scope(element)
    out += _cartesian(group)
    seen = set()
    for element in group.patterns:
        for child in _child_groups(element):
            out += _pattern_rules(child, visible | seen if isinstance(element, Optional) else set(), everywhere)
        if isinstance(element, Filter | Bind):
            for node in element.expr.walk():
                if isinstance(node, Exists | NotExists):
                    inner = _pattern_rules(node.pattern, visible | bound_here, everywhere)
                    out += [p for p in inner if p.code != "cartesian-product"]
        seen |= in_scope(element)
    return out


def _filter_scope(element: Filter, visible: set[str], everywhere: set[str]) -> list[Problem]:
    out = []
    for name in sorted(expression_vars(element.expr) - visible):
        if _inside_bound_check(element, name):
            continue  # FILTER(!bound(?v)) on an unbound variable is deliberate
        if name in everywhere:
            message = (
                f"FILTER reads ?{name}, which is bound only outside the filter's group, where it is "
                "unbound (SPARQL evaluates each group on its own; Virtuoso differs)"
            )
        else:
            message = f"FILTER reads ?{name}, which nothing binds"
        out.append(Problem("warning", "unbound-filter", message))
    return out


def _child_groups(element: Node) -> list[GroupPattern]:
    if isinstance(element, GroupPattern):
        return [element]
    if isinstance(element, Optional | Minus | Graph | Service):
        return [element.pattern]
    if isinstance(element, Union):
        return list(element.patterns)
    if isinstance(element, SubSelect):
        return [element.query.where]
    return []


def _cartesian(group: GroupPattern) -> list[Problem]:
    """Parts of a group that share no variable, directly or through a filter, multiply."""
    parts: list[set[str]] = []
    for element in group.patterns:
        if isinstance(element, BGP):
            parts += [triple_vars(t) for t in element.triples]
        elif isinstance(element, Bind):
            parts.append({element.var.name} | expression_vars(element.expr))
        elif isinstance(element, Values):
            if len(element.rows) > 1:
                parts.append({v.name for v in element.vars})
        elif not isinstance(element, Filter | Minus):
            parts.append(in_scope(element))
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return []
    parent: dict[str, str] = {}

    def find(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    def join(names: set[str]) -> None:
        first, *rest = names
        root = find(first)
        for name in rest:
            parent[find(name)] = root

    for part in parts:
        join(part)
    for element in group.patterns:
        if isinstance(element, Filter):
            linked = expression_vars(element.expr, inside_exists=True) & set(parent)
            if linked:
                join(linked)
    components: dict[str, set[str]] = {}
    for part in parts:
        components.setdefault(find(next(iter(part))), set()).update(part)
    if len(components) < 2:
        return []
    shown = " and ".join("{" + ", ".join(f"?{v}" for v in sorted(c)) + "}" for c in components.values())
    return [Problem("warning", "cartesian-product", f"no variable links {shown}: their answers multiply")]


def _inside_bound_check(node: Filter, name: str) -> bool:
    """``FILTER(!bound(?v))`` on an unbound variable is deliberate."""
    return any(
        isinstance(n, BuiltinCall) and n.name == "BOUND" and any(isinstance(a, Var) and a.name == name for a in n.args)
        for n in node.expr.walk()
    )


def _catalog(query: Query, catalog: Collection[str]) -> list[Problem]:
    known = catalog if isinstance(catalog, set | frozenset | dict) else set(catalog)
    missing: list[str] = []
    for node in query.walk():
        if isinstance(node, TriplePattern):
            for iri in _predicate_iris(node.predicate):
                if iri not in known and iri not in missing:
                    missing.append(iri)
    return [Problem("error", "unknown-predicate", f"the graph has no predicate <{iri}>") for iri in missing]


def _predicate_iris(predicate: Node) -> Iterator[str]:
    if isinstance(predicate, IRI):
        yield predicate.value
    elif isinstance(predicate, PathAlternative | PathSequence):
        for path in predicate.paths:
            yield from _predicate_iris(path)
    elif isinstance(predicate, PathInverse | PathMod):
        yield from _predicate_iris(predicate.path)
    elif isinstance(predicate, PathNegated):
        return
