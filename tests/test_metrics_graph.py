"""Query graphs, graph edit distance (MemQ's GoldGED) and hops: hand cases and WebQSP gold queries."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from nl2sparql.config import data_file
from nl2sparql.evaluation.metrics import graph_edit_distance, graph_edit_distance_bound, query_graph
from nl2sparql.evaluation.query_graph import ANY_PREDICATE, count_hops

SIBLING = [
    ("ns:m.06w2sn5", "ns:people.person.sibling_s", "?y"),
    ("?y", "ns:people.sibling_relationship.sibling", "?x"),
    ("?x", "ns:people.person.gender", "ns:m.05zppz"),
]


def renamed(triples: list[tuple[str, str, str]], prefix: str = "r_") -> list[tuple[str, str, str]]:
    return [tuple(f"?{prefix}{t[1:]}" if t.startswith("?") else t for t in triple) for triple in triples]  # type: ignore[misc]


def ged(pred: list[tuple[str, str, str]], gold: list[tuple[str, str, str]]) -> float:
    result = graph_edit_distance_bound(query_graph(pred), query_graph(gold), timeout=60)
    assert result.exact
    return result.value


def test_query_graph_nodes_and_edges() -> None:
    graph = query_graph([*SIBLING, SIBLING[0], ("?x", "?p", "?y"), ("?x", "ns:a", "?y")])
    assert graph.nodes[("const", "ns:m.06w2sn5")] == {"kind": "const", "value": "ns:m.06w2sn5"}
    assert graph.nodes[("var", "x")] == {"kind": "var", "value": None}
    assert graph.number_of_nodes() == 4
    # The repeated triple adds nothing; parallel triples share one edge with a predicate multiset.
    assert graph.edges[("const", "ns:m.06w2sn5"), ("var", "y")]["predicates"] == ("ns:people.person.sibling_s",)
    assert graph.edges[("var", "x"), ("var", "y")]["predicates"] == (ANY_PREDICATE, "ns:a")


def test_renamed_variable_copy_is_zero() -> None:
    assert ged(renamed(SIBLING), SIBLING) == 0


@pytest.mark.parametrize(
    ("pred", "distance"),
    [
        # One extra triple between nodes that are already there: one edge insertion.
        ([*SIBLING, ("?x", "ns:people.person.parents", "?y")], 1),
        ([*SIBLING, ("ns:m.06w2sn5", "ns:people.person.sibling_s", "?x")], 1),
        # A parallel triple next to an existing one: still one edit.
        ([*SIBLING, ("?y", "ns:people.sibling_relationship.other", "?x")], 1),
        # One extra triple to a new variable: the edge and the node.
        ([*SIBLING, ("?x", "ns:people.person.spouse_s", "?z")], 2),
        # One triple missing; its constant goes too.
        (SIBLING[:2], 2),
        # A different predicate: one substitution.
        ([SIBLING[0], ("?y", "ns:people.sibling_relationship.other", "?x"), SIBLING[2]], 1),
        # A different constant: one node substitution.
        ([*SIBLING[:2], ("?x", "ns:people.person.gender", "ns:m.02zsn")], 1),
        # A constant turned into a variable: one node substitution.
        ([*SIBLING[:2], ("?x", "ns:people.person.gender", "?g")], 1),
        # The same triple pointing the other way: delete and insert the edge.
        ([SIBLING[0], ("?x", "ns:people.sibling_relationship.sibling", "?y"), SIBLING[2]], 2),
        # A variable predicate matches nothing constant.
        ([SIBLING[0], ("?y", "?p", "?x"), SIBLING[2]], 1),
    ],
)
def test_known_distances(pred: list[tuple[str, str, str]], distance: int) -> None:
    assert ged(renamed(pred), SIBLING) == distance
    assert ged(SIBLING, renamed(pred)) == distance  # edit costs are symmetric


def test_variable_predicates_match_each_other_and_empty_graphs() -> None:
    assert ged([("?x", "?p", "?y")], [("?a", "?q", "?b")]) == 0
    assert ged([], []) == 0
    assert ged([], [("ns:a", "ns:p", "?x")]) == 3  # two nodes and an edge


def test_timeout_returns_an_upper_bound_marked_inexact() -> None:
    big = [(f"?v{i}", f"ns:p{i % 3}", f"?v{i + 1}") for i in range(9)]
    other = [(f"?w{i}", f"ns:p{(i + 1) % 3}", f"?w{(i * 4) % 10}") for i in range(9)]
    hurried = graph_edit_distance_bound(query_graph(big), query_graph(other), timeout=1e-9)
    assert hurried.exact is False
    small = [("?a", "ns:p0", "?b")]
    exact = graph_edit_distance_bound(query_graph(small), query_graph(small[:0]), timeout=60)
    assert exact.exact and exact.value == 3
    assert hurried.value >= graph_edit_distance(query_graph(big[:2]), query_graph(other[:2]), timeout=60)
    assert hurried.value <= 9 * 2 + 10 + 10  # never worse than deleting one graph and inserting the other
    with pytest.raises(ValueError):
        graph_edit_distance_bound(query_graph(small), query_graph(small), timeout=0)


_TRIPLE = re.compile(r"^(\S+)\s+(\S+)\s+(\S+)\s*\.$")


def gold_triples(sparql: str) -> list[tuple[str, str, str]]:
    """The distinct plain triple patterns of a WebQSP gold query (enough for these tests; no compiler).

    Some gold queries repeat a triple; a basic graph pattern is a set, and so is the query graph.
    """
    body = re.sub(r"#[^\n]*", "", sparql[sparql.index("WHERE") :])
    parts = (line.strip() for line in re.split(r"[{}\n]", body))
    found = [m.groups() for part in parts if not part.startswith("FILTER") and (m := _TRIPLE.match(part))]
    return list(dict.fromkeys(found))  # type: ignore[arg-type]


@cache
def _webqsp(name: str) -> list[dict[str, object]]:
    return json.loads(data_file(f"webqsp/{name}").read_text(encoding="utf-8"))["Questions"]


def test_webqsp_gold_queries_versus_renamed_and_trimmed_copies() -> None:
    """Renaming variables costs 0; dropping a triple costs 1 plus each node it leaves alone."""
    checked = 0
    for question in _webqsp("WebQSP.test.part-A.json"):
        triples = gold_triples(question["Parses"][0]["Sparql"])  # type: ignore[index]
        if len(triples) < 2:
            continue
        assert ged(renamed(triples), triples) == 0
        kept = triples[:-1]
        still_there = {term for s, _p, o in kept for term in (s, o)}
        dropped = triples[-1]
        expected = 1 + len({dropped[0], dropped[2]} - still_there)
        assert ged(kept, triples) == expected, triples
        checked += 1
    assert checked > 200


def test_count_hops_agrees_with_webqsp_inferential_chains() -> None:
    """From the answer ?x to the topic entity, a CVT counting as a node: the chain's length."""
    agree = total = 0
    for question in _webqsp("WebQSP.train.json"):
        parse = question["Parses"][0]  # type: ignore[index]
        chain, mid = parse.get("InferentialChain"), parse.get("TopicEntityMid")
        triples = gold_triples(parse["Sparql"])
        if not (chain and mid and triples):
            continue
        total += 1
        agree += count_hops(triples, "?x", constants=[f"ns:{mid}"]) == len(chain)
    assert total > 3000
    assert agree / total > 0.99  # the rest are hand-written gold queries that skip the topic entity


def test_count_hops_hand_cases() -> None:
    assert count_hops(SIBLING, "?x") == 2
    assert count_hops(SIBLING, "?x", constants=["ns:m.05zppz"]) == 1
    assert count_hops(SIBLING, "?nowhere") == 0
    assert count_hops([("?x", "ns:p", "?y")], "?x") == 0
