"""canonical(): the same text for queries that differ only in spelling, a different text
for queries that mean something else."""

from __future__ import annotations

import random

import pytest

from nl2sparql.compiler import canonical, generate, parse
from nl2sparql.compiler.ast import BGP, Node, Var

P = "PREFIX : <http://ex.org/>\n"


def same(a: str, b: str) -> bool:
    return canonical(parse(P + a)) == canonical(parse(P + b))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("SELECT ?x { ?x :p ?y . ?y :q ?z }", "SELECT ?a { ?b :q ?c . ?a :p ?b }"),
        ("SELECT ?x { ?x :p ?y }", "PREFIX e: <http://ex.org/>\nselect   ?x\nwhere{?x e:p ?y}"),
        (
            "SELECT ?x { ?x :p ?y FILTER (?y > 2 && ?x != :a) }",
            "SELECT ?x { FILTER (:a != ?x) ?x :p ?y FILTER (2 < ?y) }",
        ),
        ("SELECT ?x { { ?x :p 1 } UNION { ?x :q 2 } }", "SELECT ?x { { ?x :q 2 } UNION { ?x :p 1 } }"),
        ("SELECT ?x { ?x :p [ :q ?y ] }", "SELECT ?x { ?x :p _:node . _:node :q ?y }"),
        ("SELECT ?x { ?x :p ?a . ?x :p ?b }", "SELECT ?x { ?x :p ?b . ?x :p ?a }"),
        ("SELECT * { ?x :p ?y FILTER (?y IN (1, 2)) }", "SELECT * { ?x :p ?y FILTER (?y IN (2, 1)) }"),
        (
            "SELECT ?x { ?x :p ?y . FILTER(?y = 1) ?y :q ?z }",
            "SELECT ?x { ?y :q ?z . ?x :p ?y FILTER(1 = ?y) }",
        ),
    ],
)
def test_equal_up_to_spelling(a: str, b: str) -> None:
    assert same(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("SELECT ?x { ?x :p ?y }", "SELECT ?x { ?x :q ?y }"),
        ("SELECT ?x { ?x :p ?y }", "SELECT ?y { ?x :p ?y }"),
        ("SELECT ?x { ?x :p ?y . ?y :q ?z }", "SELECT ?x { ?x :p ?y . ?x :q ?z }"),
        ("SELECT ?x { ?x :p ?y . ?y :p ?z . ?z :p ?x }", "SELECT ?x { ?x :p ?y . ?y :p ?x . ?z :p ?z }"),
        ("SELECT ?x { ?x :p ?y }", "SELECT DISTINCT ?x { ?x :p ?y }"),
        ("SELECT ?x ?y { ?x :p ?y }", "SELECT ?y ?x { ?x :p ?y }"),
        ("SELECT ?x { ?x :p ?y FILTER (?y < 2) }", "SELECT ?x { ?x :p ?y FILTER (?y > 2) }"),
        ("SELECT ?x { ?x :p ?y OPTIONAL { ?y :q ?z } }", "SELECT ?x { ?x :p ?y . ?y :q ?z }"),
        ("SELECT ?x { ?x :p ?y } LIMIT 1", "SELECT ?x { ?x :p ?y } LIMIT 2"),
        ("SELECT ?x { ?x :p 1 }", 'SELECT ?x { ?x :p "1" }'),
        ("SELECT ?x { ?x :p ?y FILTER (?y - 1 > 0) }", "SELECT ?x { ?x :p ?y FILTER (1 - ?y > 0) }"),
    ],
)
def test_different_queries_differ(a: str, b: str) -> None:
    assert not same(a, b)


def test_the_canonical_text_is_a_query_with_full_iris_and_numbered_variables() -> None:
    text = canonical(parse(P + "SELECT ?who { ?who :knows ?friend . ?friend :name ?n }"))
    assert text == ("SELECT ?v0\nWHERE {\n  ?v0 <http://ex.org/knows> ?v1 .\n  ?v1 <http://ex.org/name> ?v2 .\n}")
    assert canonical(parse(text)) == text


def _scrambled(query: Node, rng: random.Random) -> Node:
    """The same query with fresh variable names and each BGP's triples shuffled."""
    names = sorted({n.name for n in query.walk() if isinstance(n, Var)})
    fresh = [f"r{i}" for i in range(len(names))]
    rng.shuffle(fresh)
    mapping = dict(zip(names, fresh, strict=True))

    def scramble(node: Node) -> Node:
        if isinstance(node, Var):
            return Var(mapping[node.name])
        if isinstance(node, BGP):
            triples = list(node.triples)
            rng.shuffle(triples)
            return BGP(tuple(triples))
        return node

    return query.transform(scramble)


def test_gold_queries_keep_their_canonical_text_when_scrambled() -> None:
    from test_compiler_gold import gold_queries

    rng = random.Random(7)
    queries = [
        parse(text, "virtuoso") for corpus in ("webqsp", "cwq", "grailqa") for _, text in gold_queries(corpus)[::20]
    ]
    keys = set()
    for query in queries:
        key = canonical(query)
        assert canonical(_scrambled(query, rng)) == key, generate(query)
        keys.add(key)
    distinct_texts = {generate(q, "full-iri") for q in queries}
    assert len(keys) == len(distinct_texts)  # no two different gold queries collide
