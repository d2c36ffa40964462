"""The graph part of a plan: recalled statements bound to the plan's variables, CVTs shared.

Each ``Find`` contributes its statement's triples; steps that share a variable join on
it (a chain), and two steps that assign the same variable intersect (a conjunction), so
both patterns come out of plain BGP semantics. What needs care is the CVT: a statement
through a CVT gets a fresh CVT variable, but when two statements describe the *same*
CVT (``?x`` is a sibling of Justin Bieber, and that sibling relationship's ``?start``),
the query must use one node, or it asks about two unrelated relationships. Two CVT
variables whose links to the rest of the query agree on two or more triples (same
predicate, same direction, same other end) are one CVT, which is how MemQ's structure-3
statements were cut out of a single CVT in the first place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from nl2sparql.compiler.assemble import substitute
from nl2sparql.compiler.ast import IRI, Node, TriplePattern, Var

Link = tuple[str, str, Node]


def links(node: str, triples: Iterable[TriplePattern]) -> set[Link]:
    """``(predicate, direction, other end)`` of every triple touching variable ``node``."""
    out: set[Link] = set()
    for t in triples:
        predicate = t.predicate.value if isinstance(t.predicate, IRI) else repr(t.predicate)
        if t.subject == Var(node):
            out.add((predicate, "out", t.object))
        if t.object == Var(node):
            out.add((predicate, "in", t.subject))
    return out


def merge_cvts(parts: Mapping[int, Sequence[TriplePattern]], cvts: Sequence[str]) -> dict[str, str]:
    """Which CVT variables are one node: ``{name: representative}`` (earlier steps represent)."""
    every = [t for triples in parts.values() for t in triples]
    parent = {name: name for name in cvts}

    def find(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    changed = True
    while changed:
        changed = False
        current = [substitute(t, {n: Var(find(n)) for n in cvts}) for t in every]
        groups = sorted({find(n) for n in cvts}, key=cvts.index)
        link_sets = {name: links(name, current) for name in groups}
        for position, first in enumerate(groups):
            for second in groups[position + 1 :]:
                if find(first) == find(second):
                    continue
                if len(link_sets[first] & link_sets[second]) >= 2:
                    parent[find(second)] = find(first)
                    changed = True
    return {name: find(name) for name in cvts}


def dedupe(triples: Iterable[TriplePattern], seen: set[TriplePattern]) -> tuple[TriplePattern, ...]:
    """``triples`` without those already in ``seen`` (which is updated)."""
    out = []
    for t in triples:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return tuple(out)


def value_datatype(
    var: str, triples: Iterable[TriplePattern], value_type: Callable[[str], str | None] | None
) -> str | None:
    """The XSD type of the values ``?var`` takes: the range of a predicate that binds it."""
    if value_type is None:
        return None
    for t in triples:
        if t.object == Var(var) and isinstance(t.predicate, IRI):
            found = value_type(t.predicate.value)
            if found is not None:
                return found
    return None


def positions(var: str, triples: Iterable[TriplePattern]) -> set[str]:
    """Where ``?var`` occurs in ``triples``: ``subject``, ``predicate``, ``object``."""
    found = set()
    for t in triples:
        for place in ("subject", "predicate", "object"):
            if getattr(t, place) == Var(var):
                found.add(place)
    return found
