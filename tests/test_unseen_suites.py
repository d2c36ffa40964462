"""The unseen-graph suites (issue 40) stay usable: enough questions, and gold that still holds.

Each suite under ``tests/fixtures/unseen/`` is a graph and QALD questions whose stored
answers were computed from the gold SPARQL on that graph. If the graph or a gold query is
edited without rebuilding the answers (``scripts/build_unseen_suites.py questions``), the
set F1 figures would be measured against stale answers; this test catches that.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from functools import cache
from pathlib import Path

import pyoxigraph as ox
import pytest

SUITES = Path(__file__).parent / "fixtures" / "unseen"
NAMES = sorted(p.parent.name for p in SUITES.glob("*/questions-qald.json"))
SHAPES = {
    "lookup",
    "two-hop",
    "count-class",
    "class-entity",
    "superlative",
    "ranking-window",
    "comparison",
    "literal-match",
    "yes-no",
    "multi-column",
    "aggregate",
    "group-aggregate",
    "negation",
    "class-relation-constraint",
    "count",
    "top-k",
    "computed",
    "same",
    "text-match",
}


@cache
def store(name: str) -> ox.Store:
    graph = ox.Store()
    with gzip.open(SUITES / name / "graph.nt.gz", "rb") as handle:
        graph.load(handle.read(), format=ox.RdfFormat.N_TRIPLES)
    return graph


def questions(name: str) -> list[dict]:
    return json.loads((SUITES / name / "questions-qald.json").read_text(encoding="utf-8"))["questions"]


def rows(result: dict) -> Counter | bool:
    """A SPARQL JSON result as a multiset of rows (order-free), or its boolean."""
    if "boolean" in result:
        return bool(result["boolean"])
    names = result["head"]["vars"]
    return Counter(
        tuple((n, row[n]["value"], row[n].get("datatype"), row[n].get("xml:lang")) for n in names if n in row)
        for row in result["results"]["bindings"]
    )


def test_at_least_three_suites() -> None:
    assert len(NAMES) >= 3


@pytest.mark.parametrize("name", NAMES)
def test_suite_has_30_questions_and_a_readme(name: str) -> None:
    items = questions(name)
    assert len(items) >= 30
    assert len({q["id"] for q in items}) == len(items)
    assert (SUITES / name / "README.md").is_file()
    assert {shape for q in items for shape in q["shapes"]} <= SHAPES


@pytest.mark.parametrize("name", NAMES)
def test_every_gold_query_gives_its_stored_answer(name: str) -> None:
    for item in questions(name):
        raw = store(name).query(item["query"]["sparql"]).serialize(format=ox.QueryResultsFormat.JSON)
        got, stored = rows(json.loads(raw)), rows(item["answers"][0])
        assert got == stored, item["id"]
        assert isinstance(got, bool) or sum(got.values()) > 0, f"{item['id']}: empty gold answer"
