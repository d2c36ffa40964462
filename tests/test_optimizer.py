"""Each optimiser pass against its fixture file, on a real graph.

For every case in ``tests/fixtures/optimizer/<pass>.rq`` (format in the files' headers):
the pass turns the input into exactly the expected query, is idempotent, and the input
and output give the same answers on ``graph.ttl`` loaded into an in-memory Oxigraph.
"""

from __future__ import annotations

import inspect
from collections import Counter
from pathlib import Path

import pyoxigraph
import pytest

from nl2sparql.compiler import generate, parse
from nl2sparql.compiler.ast import Query
from nl2sparql.compiler.optimizer import RULES, optimize

FIXTURES = Path(__file__).parent / "fixtures" / "optimizer"
GRAPH = FIXTURES / "graph.ttl"


def load_cases(name: str) -> list[tuple[str, str, str]]:
    """``(title, input, expected)`` for each case of ``<name>.rq``, prologue prepended."""
    text = (FIXTURES / f"{name}.rq").read_text(encoding="utf-8")
    prologue, *blocks = text.split("\n====\n")
    cases = []
    for block in blocks:
        source, expected = block.split("\n----\n")
        title = source.strip().splitlines()[0].lstrip("# ")
        cases.append((title, prologue + "\n" + source, prologue + "\n" + expected))
    return cases


CASES = [(rule, *case) for rule in RULES for case in load_cases(rule.__name__)]


@pytest.fixture(scope="module")
def graph() -> pyoxigraph.Store:
    store = pyoxigraph.Store()
    store.load(path=str(GRAPH), format=pyoxigraph.RdfFormat.TURTLE)
    return store


@pytest.fixture(scope="module")
def stats(graph: pyoxigraph.Store) -> dict[str, int]:
    rows = graph.query("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p")
    return {row["p"].value: int(row["n"].value) for row in rows}


def answers(graph: pyoxigraph.Store, query: Query) -> list[tuple[str, ...]] | Counter[tuple[str, ...]]:
    """The rows (as N-Triples terms): a list when the query orders them, else a multiset."""
    result = graph.query(generate(query, "full-iri"))
    variables = [v.value for v in result.variables]
    rows = [tuple(str(row[v]) if row[v] is not None else "UNBOUND" for v in variables) for row in result]
    return rows if query.order_by else Counter(rows)


def run_rule(rule, query: Query, stats: dict[str, int]) -> Query:  # noqa: ANN001 - a pass
    if "stats" in inspect.signature(rule).parameters:
        return rule(query, stats=stats)
    return rule(query)


@pytest.mark.parametrize(
    ("rule", "title", "source", "expected"),
    CASES,
    ids=[f"{rule.__name__}: {title}" for rule, title, *_ in CASES],
)
def test_pass_on_fixture(rule, title: str, source: str, expected: str, graph, stats) -> None:  # noqa: ANN001
    query = parse(source)
    want = parse(expected)
    got = run_rule(rule, query, stats)
    assert got == want, f"{title}\n--- got:\n{generate(got)}\n--- expected:\n{generate(want)}"
    assert run_rule(rule, got, stats) == got, "the pass is not idempotent"
    before, after = answers(graph, query), answers(graph, got)
    assert before == after
    assert len(before) > 0, "a case should have answers, or the comparison proves nothing"


@pytest.mark.parametrize("rule", RULES, ids=[r.__name__ for r in RULES])
def test_every_pass_has_cases_that_change_and_cases_that_must_not(rule) -> None:  # noqa: ANN001
    cases = load_cases(rule.__name__)
    changed = [t for t, source, expected in cases if parse(source) != parse(expected)]
    unchanged = [t for t, source, expected in cases if parse(source) == parse(expected)]
    assert len(changed) >= 2, changed
    assert unchanged or rule.__name__ == "order_by_selectivity", "no case guards a rewrite the pass must not make"


def test_optimize_runs_the_passes_in_order_and_keeps_answers(graph, stats) -> None:  # noqa: ANN001
    source = """PREFIX : <http://example.org/>
        SELECT DISTINCT ?x ?n WHERE {
          { ?x :name ?n . ?x :gender ?g } UNION { ?x :gender ?g . ?x :name ?n }
          ?x :age ?a . ?x :age ?a .
          FILTER (?g = :male) FILTER (?n != "Ben")
        }"""
    query = parse(source)
    optimized = optimize(query, stats=stats)
    assert optimized != query
    text = generate(optimized)
    assert "UNION" not in text and "?g" not in text and text.count(":age") == 1
    assert answers(graph, optimized) == answers(graph, query)
    assert optimize(optimized, stats=stats) == optimized


def test_optimize_accepts_no_stats_and_custom_rules() -> None:
    query = parse("SELECT ?x WHERE { ?x <http://ex/p> ?y . ?x <http://ex/p> ?y }")
    assert optimize(query, rules=()) == query
    assert len(optimize(query).where.patterns[0].triples) == 1
