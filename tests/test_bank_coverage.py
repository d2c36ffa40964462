"""Coverage: the share of gold queries whose every graph statement a bank holds."""

from __future__ import annotations

from typing import Any

import pytest

from nl2sparql.memory_bank.build_queries import (
    QueryDecomposer,
    collect_from_examples,
    literal_predicate,
    load_examples,
    reverse_of,
)
from nl2sparql.memory_bank.build_store import all_readings, scan_store, statements_from_scan
from nl2sparql.memory_bank.coverage import coverage
from nl2sparql.memory_bank.statement import Statement


@pytest.fixture(scope="module")
def decomposer() -> QueryDecomposer:
    return QueryDecomposer()


def test_coverage_counts_missing_statements(decomposer: QueryDecomposer) -> None:
    examples = load_examples("webqsp-test")[:40]
    entries, _ = collect_from_examples(examples, decomposer)
    keys = {e.key for e in entries if isinstance(e, Statement)}
    full = coverage(keys, examples, "part", decomposer)
    assert full.covered == full.with_statements == 40 and full.statements_found == full.statements
    # drop the most used statement: exactly the queries that use it lose coverage
    top = max((e for e in entries if isinstance(e, Statement)), key=lambda e: e.support)
    less = coverage(keys - {top.key}, examples, "part", decomposer)
    assert less.covered == 40 - top.support
    assert less.missing[top.key] == top.support
    assert less.to_json()["most_missing"][0] == {"sparql": top.key, "queries": top.support}


@pytest.mark.slow  # decomposes WebQSP train, WebQSP test and CWQ test, scans FB15k-237 (about a minute)
def test_coverage_of_test_sets(decomposer: QueryDecomposer, fb15k_store: Any) -> None:
    entries, _ = collect_from_examples(load_examples("webqsp-train"), decomposer)
    observed = {e.key for e in entries}
    readings = all_readings(entries, literal_predicate(decomposer.schema), reverse_of(decomposer.schema))
    bank = {e.key for e in readings}
    store = {e.key for e in statements_from_scan(scan_store(fb15k_store))}
    webqsp = load_examples("webqsp-test")
    cwq = load_examples("cwq-test")
    # measured: 94.8% / 95.1% / 95.6% of WebQSP part A; 8.1% / 44.2% / 54.7% of CWQ part A
    assert coverage(observed, webqsp, "webqsp", decomposer).fraction > 0.9
    assert coverage(bank, webqsp, "webqsp", decomposer).fraction > 0.9
    cwq_observed = coverage(observed, cwq, "cwq", decomposer).fraction
    cwq_bank = coverage(bank, cwq, "cwq", decomposer).fraction
    cwq_merged = coverage(bank | store, cwq, "cwq", decomposer).fraction
    assert cwq_observed < cwq_bank < cwq_merged
    assert cwq_bank > 0.4 and cwq_merged > 0.5
