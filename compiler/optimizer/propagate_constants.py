"""Put the constant of ``FILTER(?v = <iri>)`` into the triples and drop the test.

``?x ns:gender ?g . FILTER(?g = ns:m.male)`` becomes ``?x ns:gender ns:m.male .``: the
store matches the constant instead of enumerating ``?g`` and testing each value.

Sound only where the filter's equality is term identity:

* the constant is an IRI, or a simple string (``"abc"``, ``"abc"^^xsd:string``), whose
  ``=`` is identity; numbers, dates, booleans and language-tagged strings compare by
  value (``1 = 1.0``, ``"a"@EN = "a"@en``) and are left alone, except under
  ``sameTerm(?v, c)``, which is identity for every term;
* ``?v`` is certainly bound by a triple of the same group (an unbound ``?v`` makes the
  filter fail, a triple with the constant would not);
* ``?v`` is not bound by ``BIND`` / ``VALUES``, not read by ``BOUND``, and does not occur
  in a ``MINUS`` (which matches on shared variables) or a sub-select (its own scope);
  a literal is never put in predicate position.

If ``?v`` is used outside the group (projected, ordered by, joined), the group ends
with ``BIND(<iri> AS ?v)`` so every solution keeps the same binding.
"""

from __future__ import annotations

from collections import Counter

from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    XSD_STRING,
    BinaryOp,
    Bind,
    BuiltinCall,
    Filter,
    GroupPattern,
    Literal,
    Minus,
    Node,
    Query,
    SelectQuery,
    SubSelect,
    TriplePattern,
    Values,
    Var,
)
from nl2sparql.compiler.optimizer.helpers import conjunction, conjuncts, rebuild_group
from nl2sparql.compiler.scope import in_scope, triple_vars


def propagate_constants(query: Query) -> Query:
    """
    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT ?x WHERE { ?x <http://ex/gender> ?g . ?x <http://ex/name> ?n .
    ...                                FILTER(?g = <http://ex/male> && ?n != "Bob") }''')
    >>> print(propagate_constants(q).where)
    {
      ?x <http://ex/gender> <http://ex/male> .
      ?x <http://ex/name> ?n .
      FILTER (?n != "Bob")
    }
    """
    counts = Counter(node.name for node in query.walk() if isinstance(node, Var))
    exposed = _exposed(query)
    return query.transform(lambda node: _propagate(node, counts, exposed))  # type: ignore[return-value]


def _exposed(query: Query) -> set[str]:
    """Variables visible through a ``SELECT *`` (the outer query or a sub-select)."""
    out: set[str] = set()
    selects = [query] if isinstance(query, SelectQuery) else []
    selects += [node.query for node in query.walk() if isinstance(node, SubSelect)]
    for select in selects:
        if select.projection is None:
            out |= in_scope(select.where)
    return out


def _identity_constant(expr: Node) -> tuple[str, Node] | None:
    """``(variable name, constant)`` when ``expr`` holds only if the variable is that term."""
    if isinstance(expr, BinaryOp) and expr.op == "=":
        pairs = [(expr.left, expr.right), (expr.right, expr.left)]
        for var, const in pairs:
            if isinstance(var, Var) and _equality_is_identity(const):
                return var.name, const
    if isinstance(expr, BuiltinCall) and expr.name == "SAMETERM" and len(expr.args) == 2:
        for var, const in (expr.args, expr.args[::-1]):
            if isinstance(var, Var) and isinstance(const, IRI | Literal):
                return var.name, const
    return None


def _equality_is_identity(const: Node) -> bool:
    if isinstance(const, IRI):
        return True
    return isinstance(const, Literal) and const.lang is None and const.datatype in (None, XSD_STRING)


def _blocked(group: GroupPattern, name: str, const: Node) -> bool:
    bound_here = any(
        name in triple_vars(t) for element in group.patterns if isinstance(element, BGP) for t in element.triples
    )
    if not bound_here:
        return True
    for node in group.walk():
        if isinstance(node, Minus | SubSelect) and any(isinstance(n, Var) and n.name == name for n in node.walk()):
            return True
        if isinstance(node, Bind) and node.var.name == name:
            return True
        if isinstance(node, Values) and any(v.name == name for v in node.vars):
            return True
        if (
            isinstance(node, BuiltinCall)
            and node.name == "BOUND"
            and any(isinstance(a, Var) and a.name == name for a in node.args)
        ):
            return True
        literal_predicate = isinstance(const, Literal) and isinstance(node, TriplePattern)
        if literal_predicate and isinstance(node.predicate, Var) and node.predicate.name == name:
            return True
    return False


def _propagate(node: Node, counts: Counter[str], exposed: set[str]) -> Node:
    if not isinstance(node, GroupPattern):
        return node
    group = node
    for index, element in enumerate(group.patterns):
        if not isinstance(element, Filter):
            continue
        parts = conjuncts(element.expr)
        for position, part in enumerate(parts):
            found = _identity_constant(part)
            if found is None or _blocked(group, found[0], found[1]):
                continue
            name, const = found
            rest = conjunction(parts[:position] + parts[position + 1 :])
            elements = list(group.patterns)
            if rest is None:
                del elements[index]
            else:
                elements[index] = Filter(rest)
            before = sum(1 for n in group.walk() if isinstance(n, Var) and n.name == name)
            target = Var(name)
            elements = [e.transform(lambda n, t=target, c=const: c if n == t else n) for e in elements]
            if counts[name] > before or name in exposed:
                elements.append(Bind(const, Var(name)))
            # the rebuilt group may hold more equalities: look again
            return _propagate(rebuild_group(group, elements), counts, exposed)
    return group
