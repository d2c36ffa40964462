"""A canonical text for a query: equal for queries that differ only in variable names,
blank-node labels, the order of triples in a BGP, filter order and splitting, the order of
UNION branches and of commutative operands, whitespace and prefixes.

Used to recognise the same query written twice (memory-bank statements, recalled
candidates, the planner's retries). The steps:

1. normalise the tree: split ``FILTER(a && b)`` into two filters, move a group's filters
   to its end and merge the BGPs they separated (a filter's scope is its whole group),
   write ``a > b`` as ``b < a``, flatten ``&&`` / ``||`` chains;
2. name variables by structure, not spelling: colour refinement (1-dimensional
   Weisfeiler-Leman) over the tree seen as a graph in which every occurrence of a
   variable is one vertex, with unordered edges where order does not matter (the triples
   of a BGP, union branches, commutative operands); variables still tied after
   refinement are individualised one at a time and the smallest resulting text wins;
3. sort the unordered parts by their text and write the query with full IRIs.

Two queries with different answers can only share a canonical text if they are
isomorphic as trees, i.e. the same query; two equal queries always do, except when the
search among tied variables would exceed :data:`MAX_LEAVES` (large symmetric queries),
where the first choice is taken.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from nl2sparql.compiler.ast import (
    BGP,
    BinaryOp,
    BlankNode,
    Filter,
    GroupPattern,
    In,
    Node,
    NotIn,
    Query,
    Union,
    Values,
    Var,
)
from nl2sparql.compiler.generator import FullIriGenerator
from nl2sparql.compiler.optimizer.helpers import conjuncts

#: give up exhaustive tie-breaking beyond this many complete namings
MAX_LEAVES = 64

_COMMUTATIVE = {"=", "!=", "&&", "||", "+", "*"}
_ASSOCIATIVE = {"&&", "||", "+", "*"}
_FLIPPED = {">": "<", ">=": "<="}
_UNORDERED_FIELDS = {
    (BGP, "triples"),
    (Union, "patterns"),
    (In, "values"),
    (NotIn, "values"),
    (Values, "rows"),
}


def canonical(query: Query) -> str:
    """The canonical text of ``query`` (full IRIs, variables ``?v0``, ``?v1``, ...).

    >>> from nl2sparql.compiler import parse
    >>> a = parse("SELECT ?x WHERE { ?x <http://ex/p> ?y . ?y <http://ex/q> 1 FILTER(?y > 2) }")
    >>> b = parse("SELECT ?s WHERE { ?o <http://ex/q> 1 . FILTER(2 < ?o) ?s <http://ex/p> ?o }")
    >>> canonical(a) == canonical(b)
    True
    """
    normal = _normalise(query)
    graph = _Graph()
    graph.build(normal)
    colours = graph.refine(graph.initial_colours())
    names = graph.variable_names(colours, lambda naming: _text(normal, naming))
    # Number the variables in the order the canonical text first mentions them: a function
    # of that text, so still canonical, and easier to read than colour order.
    text = _text(normal, names)
    order = {name: index for index, name in enumerate(dict.fromkeys(_MENTION.findall(text)))}
    return _text(normal, {key: _renumber(name, order) for key, name in names.items()})


# ------------------------------------------------------------ 1. normalise


def _normalise(query: Query) -> Query:
    return query.transform(_normal_node)  # type: ignore[return-value]


def _normal_node(node: Node) -> Node:
    if isinstance(node, BinaryOp):
        if node.op in _FLIPPED:
            return BinaryOp(_FLIPPED[node.op], node.right, node.left)
        return node
    if not isinstance(node, GroupPattern):
        return node
    filters: list[Node] = []
    rest: list[Node] = []
    for element in node.patterns:
        if isinstance(element, Filter):
            filters += [Filter(part) for part in conjuncts(element.expr)]
        elif isinstance(element, BGP) and rest and isinstance(rest[-1], BGP):
            rest[-1] = BGP(rest[-1].triples + element.triples)
        else:
            rest.append(element)
    return GroupPattern((*rest, *filters))


# ------------------------------------------------------------ 2. colour refinement


class _Graph:
    """The tree as a labelled graph: vertices, labels, and (label, target) edges both ways."""

    def __init__(self) -> None:
        self.labels: list[Any] = []
        self.edges: list[list[tuple[Any, int]]] = []
        self.variables: dict[tuple[str, str], int] = {}

    def vertex(self, label: Any) -> int:
        self.labels.append(label)
        self.edges.append([])
        return len(self.labels) - 1

    def link(self, parent: int, label: Any, child: int) -> None:
        self.edges[parent].append((("down", label), child))
        self.edges[child].append((("up", label), parent))

    def build(self, node: Any) -> int:
        if node is None:
            return self.vertex(("UNDEF",))
        if isinstance(node, tuple):  # a row of VALUES
            row = self.vertex(("row",))
            for index, item in enumerate(node):
                self.link(row, index, self.build(item))
            return row
        if isinstance(node, Var | BlankNode):
            key = ("var", node.name) if isinstance(node, Var) else ("blank", node.label)
            if key not in self.variables:
                self.variables[key] = self.vertex((key[0],))
            return self.variables[key]
        vid = self.vertex(_label(node))
        commutative = isinstance(node, BinaryOp) and node.op in _COMMUTATIVE
        position = 0
        for field in node.children:
            value = getattr(node, field)
            if value is None:
                continue
            unordered = commutative or (type(node), field) in _UNORDERED_FIELDS
            for item in value if isinstance(value, tuple) else (value,):
                if commutative:
                    edge: Any = ("operand", "*")
                elif isinstance(node, GroupPattern) and isinstance(item, Filter):
                    edge = (field, "filter")
                elif unordered:
                    edge = (field, "*")
                else:
                    edge = (field, position)
                    position += 1
                self.link(vid, edge, self.build(item))
        return vid

    def initial_colours(self) -> list[int]:
        return _rank([repr(label) for label in self.labels])

    def refine(self, colours: list[int]) -> list[int]:
        count = len(set(colours))
        while True:
            signatures = [
                (colours[v], tuple(sorted((repr(label), colours[u]) for label, u in self.edges[v])))
                for v in range(len(colours))
            ]
            new = _rank(signatures)
            new_count = len(set(new))
            if new_count == count:
                return new
            colours, count = new, new_count

    def variable_names(
        self, colours: list[int], text: Callable[[dict[tuple[str, str], str]], str]
    ) -> dict[tuple[str, str], str]:
        leaves = [0]

        def search(colours: list[int]) -> tuple[str, dict[tuple[str, str], str]]:
            by_colour: dict[int, list[tuple[str, str]]] = {}
            for key, vid in self.variables.items():
                by_colour.setdefault(colours[vid], []).append(key)
            tied = sorted((c, keys) for c, keys in by_colour.items() if len(keys) > 1)
            if not tied:
                naming = _naming(sorted(self.variables, key=lambda k: colours[self.variables[k]]))
                leaves[0] += 1
                return text(naming), naming
            _, members = tied[0]
            best: tuple[str, dict[tuple[str, str], str]] | None = None
            for key in sorted(members):
                split = list(colours)
                split[self.variables[key]] = -1  # individualise, then spread the difference
                result = search(self.refine(split))
                if best is None or result[0] < best[0]:
                    best = result
                if leaves[0] >= MAX_LEAVES:
                    break
            assert best is not None
            return best

        return search(colours)[1]


def _label(node: Node) -> tuple[Any, ...]:
    fields = [
        getattr(node, f.name)
        for f in dataclasses.fields(node)  # type: ignore[arg-type]
        if f.name not in node.children and f.name != "prologue"
    ]
    return (type(node).__name__, *fields)


def _rank(values: list[Any]) -> list[int]:
    order = {value: rank for rank, value in enumerate(sorted(set(values)))}
    return [order[value] for value in values]


_MENTION = re.compile(r"[?]v[0-9]+|_:b[0-9]+")


def _renumber(name: str, order: dict[str, int]) -> str:
    mention = f"?{name}" if name.startswith("v") else f"_:{name}"
    kind = "v" if name.startswith("v") else "b"
    rank = sum(1 for other in order if other[0] == mention[0] and order[other] < order.get(mention, len(order)))
    return f"{kind}{rank}"


def _naming(keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    names: dict[tuple[str, str], str] = {}
    counters = {"var": 0, "blank": 0}
    for kind, name in keys:
        names[(kind, name)] = f"{'v' if kind == 'var' else 'b'}{counters[kind]}"
        counters[kind] += 1
    return names


# ------------------------------------------------------------ 3. rename, sort, write


def _text(query: Query, naming: dict[tuple[str, str], str]) -> str:
    generator = FullIriGenerator()

    def key(node: Any) -> str:
        if node is None:
            return "UNDEF"
        if isinstance(node, tuple):
            return " ".join(key(item) for item in node)
        return generator.sql(node)

    def rename(node: Node) -> Node:
        if isinstance(node, Var):
            return Var(naming[("var", node.name)])
        if isinstance(node, BlankNode):
            return BlankNode(naming[("blank", node.label)])
        if isinstance(node, BGP):
            return BGP(tuple(sorted(node.triples, key=key)))
        if isinstance(node, Union):
            return Union(tuple(sorted(node.patterns, key=key)))
        if isinstance(node, In | NotIn):
            return node.replace(values=tuple(sorted(node.values, key=key)))
        if isinstance(node, Values):
            return node.replace(rows=tuple(sorted(node.rows, key=key)))
        if isinstance(node, GroupPattern):
            rest = [p for p in node.patterns if not isinstance(p, Filter)]
            filters = sorted((p for p in node.patterns if isinstance(p, Filter)), key=key)
            return GroupPattern((*rest, *filters))
        if isinstance(node, BinaryOp) and node.op in _COMMUTATIVE:
            return _sorted_operands(node, key)
        return node

    return generator.generate(query.transform(rename))


def _sorted_operands(node: BinaryOp, key: Callable[[Any], str]) -> BinaryOp:
    operands = _chain(node, node.op) if node.op in _ASSOCIATIVE else [node.left, node.right]
    operands.sort(key=key)
    result = operands[0]
    for operand in operands[1:]:
        result = BinaryOp(node.op, result, operand)
    return result  # type: ignore[return-value]


def _chain(node: Node, op: str) -> list[Node]:
    if isinstance(node, BinaryOp) and node.op == op:
        return _chain(node.left, op) + _chain(node.right, op)
    return [node]
