"""Query graphs, their number of hops, and the graph edit distance between two of them (MemQ's GoldGED).

A SPARQL basic graph pattern is a graph: constants and variables are nodes, triple
patterns are edges labelled by their predicate. How far the predicted query is from
the gold one, structurally, is the number of node and edge edits between the two
graphs, where variables are interchangeable (``?x`` and ``?y`` are the same node
kind) and constants must agree. Exact GED is NP-hard, so each pair gets a time limit
and the best upper bound found within it; :class:`EditDistance` says whether that
bound is known to be exact.

The graphs are built from plain ``(subject, predicate, object)`` strings, variables
written ``?name`` (blank nodes ``_:b`` count as variables): the caller extracts triples
from its query AST, so this module never imports the compiler.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx

#: The label every variable predicate gets: a variable predicate matches any other.
ANY_PREDICATE = "?"


@dataclass(frozen=True, slots=True)
class EditDistance:
    """A graph edit distance: ``value`` is exact when ``exact``, else the best upper bound in time."""

    value: float
    exact: bool


def _is_variable(term: str) -> bool:
    return term.startswith(("?", "$", "_:"))


def _node(term: str) -> tuple[str, str]:
    return ("var", term[1:] if term[0] in "?$" else term) if _is_variable(term) else ("const", term)


def query_graph(triples: Iterable[tuple[str, str, str]]) -> nx.DiGraph:
    """The query graph of a basic graph pattern.

    Nodes are keyed ``("var", name)`` or ``("const", value)`` and carry ``kind`` and
    ``value`` (the constant's text; ``None`` for variables). Parallel triples between
    the same two nodes become one edge whose ``predicates`` attribute is the sorted
    tuple of their predicates (a multiset), variable predicates as :data:`ANY_PREDICATE`.
    Repeating an identical triple adds nothing (a BGP is a set of triple patterns).
    """
    graph = nx.DiGraph()
    seen: set[tuple[str, str, str]] = set()
    for subject, predicate, obj in triples:
        if (subject, predicate, obj) in seen:
            continue
        seen.add((subject, predicate, obj))
        ends = []
        for term in (subject, obj):
            key = _node(term)
            graph.add_node(key, kind=key[0], value=None if key[0] == "var" else term)
            ends.append(key)
        label = ANY_PREDICATE if _is_variable(predicate) else predicate
        existing = graph.get_edge_data(ends[0], ends[1], default={}).get("predicates", ())
        graph.add_edge(ends[0], ends[1], predicates=tuple(sorted((*existing, label))))
    return graph


def _node_subst(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    return 0.0 if a["kind"] == b["kind"] and a["value"] == b["value"] else 1.0


def _unit(_attributes: Mapping[str, Any]) -> float:
    return 1.0


def _edge_size(attributes: Mapping[str, Any]) -> float:
    return float(len(attributes["predicates"]))


def _edge_subst(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """Edits that turn one predicate multiset into the other (substitute, then insert/delete the rest)."""
    left, right = Counter(a["predicates"]), Counter(b["predicates"])
    any_left, any_right = left.pop(ANY_PREDICATE, 0), right.pop(ANY_PREDICATE, 0)
    matched = sum((left & right).values()) + min(any_left, any_right)
    return float(max(len(a["predicates"]), len(b["predicates"])) - matched)


def _delete_everything_bound(pred: nx.DiGraph, gold: nx.DiGraph) -> float:
    edges = sum(len(data["predicates"]) for *_ends, data in pred.edges(data=True))
    edges += sum(len(data["predicates"]) for *_ends, data in gold.edges(data=True))
    return float(pred.number_of_nodes() + gold.number_of_nodes() + edges)


def graph_edit_distance_bound(
    pred_graph: nx.DiGraph, gold_graph: nx.DiGraph, timeout: float = 10.0
) -> EditDistance:
    """The edit distance between two :func:`query_graph` graphs, searched for at most ``timeout`` s.

    Costs (MemQ's GoldGED, Xu et al., 2025, on networkx's exact search,
    ``optimize_edit_paths``, Abu-Aisheh et al., 2015): inserting or deleting a node
    costs 1; substituting a node costs 0 when both are variables or both are the same
    constant, else 1; each triple inserted or deleted costs 1, and substituting a
    bundle of parallel triples costs the predicate edits between them (a variable
    predicate matches any variable predicate). So one extra triple between nodes that
    are already there costs 1, an extra triple to a new variable costs 2 (edge and
    node), and a copy with renamed variables costs 0.

    When the search does not finish in time, the best bound found so far is returned
    with ``exact=False`` (when even none was found, the cost of deleting one graph and
    inserting the other).
    """
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    start = time.perf_counter()
    best: float | None = None
    for _nodes, _edges, cost in nx.optimize_edit_paths(
        pred_graph,
        gold_graph,
        node_subst_cost=_node_subst,
        node_del_cost=_unit,
        node_ins_cost=_unit,
        edge_subst_cost=_edge_subst,
        edge_del_cost=_edge_size,
        edge_ins_cost=_edge_size,
        strictly_decreasing=True,
        timeout=timeout,
    ):
        best = float(cost)
    finished = time.perf_counter() - start < timeout
    if best is None:
        return EditDistance(_delete_everything_bound(pred_graph, gold_graph), exact=False)
    return EditDistance(best, exact=finished)


def graph_edit_distance(pred_graph: nx.DiGraph, gold_graph: nx.DiGraph, timeout: float = 10.0) -> float:
    """The value of :func:`graph_edit_distance_bound` (exact, or the best bound within ``timeout``)."""
    return graph_edit_distance_bound(pred_graph, gold_graph, timeout).value


def count_hops(
    triples: Iterable[tuple[str, str, str]], answer: str, constants: Iterable[str] | None = None
) -> int:
    """The number of hops of a query: how many triples lie between the answer and its farthest constant.

    For each constant (topic entity, constraint value) connected to the ``answer``
    variable, the length of the shortest path between them, triples followed in either
    direction; the largest of these. A CVT counts as a node like any other, so WebQSP's
    two-predicate inferential chains through a CVT are 2 hops, as in its
    ``InferentialChain``. ``constants`` limits the ends considered (e.g. the topic
    entity only). 0 when no such constant is connected to the answer.
    """
    graph = query_graph(triples).to_undirected(as_view=True)
    source = _node(answer)
    if source not in graph:
        return 0
    wanted = None if constants is None else {_node(term) for term in constants}
    distances = nx.single_source_shortest_path_length(graph, source)
    return max(
        (d for node, d in distances.items() if node[0] == "const" and (wanted is None or node in wanted)),
        default=0,
    )
