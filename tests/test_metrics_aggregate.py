"""Report aggregation: nearest-rank percentiles, stage latencies, scores by category and by hops."""

from __future__ import annotations

import json

import pytest

from nl2sparql.config import data_file
from nl2sparql.evaluation.aggregate import (
    percentile,
    scores_by,
    scores_by_category,
    scores_by_hops,
    stage_latencies,
    summarise_latencies,
)


def test_nearest_rank_percentiles() -> None:
    values = [15, 20, 35, 40, 50]  # the textbook nearest-rank example
    assert percentile(values, 5) == 15
    assert percentile(values, 30) == 20
    assert percentile(values, 40) == 20
    assert percentile(values, 50) == 35
    assert percentile(values, 100) == 50
    assert percentile(values, 0) == 15
    hundred = list(range(100, 0, -1))  # 1..100, unsorted
    assert (percentile(hundred, 50), percentile(hundred, 95), percentile(hundred, 99)) == (50, 95, 99)
    # No interpolation: the answer is always a measured value.
    assert percentile([1.0, 2.0], 50) == 1.0 and percentile([1.0, 2.0], 51) == 2.0
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_stage_latencies_and_total() -> None:
    timings = [{"plan": 10.0, "execute": 1.0}, {"plan": 30.0, "execute": 3.0}, {"plan": 20.0}]
    summary = stage_latencies(timings)
    assert summary["plan"].n == 3 and summary["plan"].mean == 20.0 and summary["plan"].p50 == 20.0
    assert summary["execute"].n == 2 and summary["execute"].p99 == 3.0
    assert [summary["total"].p50, summary["total"].max] == [20.0, 33.0]
    assert "total" not in stage_latencies(timings, total=None)
    latency = summarise_latencies([float(v) for v in range(1, 201)])
    assert (latency.p50, latency.p95, latency.p99, latency.max) == (100.0, 190.0, 198.0, 200.0)
    with pytest.raises(ValueError):
        summarise_latencies([])


RECORDS = [
    {"category": "composition", "hops": 2, "hits@1": 1.0, "f1": 0.5},
    {"category": "composition", "hops": 1, "hits@1": 0.0, "f1": 0.0},
    {"category": "superlative", "hops": 2, "hits@1": 1.0, "f1": 1.0},
    {"category": "conjunction", "hops": 10, "hits@1": 1.0, "f1": 0.25},
]


def test_scores_by_category_and_hops() -> None:
    by_category = scores_by_category(RECORDS)
    assert list(by_category) == ["composition", "conjunction", "superlative"]
    assert by_category["composition"].n == 2
    assert by_category["composition"].means == {"hits@1": 0.5, "f1": 0.25}
    by_hops = scores_by_hops(RECORDS, metrics=("f1",))
    assert list(by_hops) == [1, 2, 10]  # numeric order, not text order
    assert by_hops[2].means == {"f1": 0.75} and by_hops[2].n == 2
    by_answered = scores_by(RECORDS, lambda r: r["hits@1"] > 0, ("f1",))
    assert by_answered[True].n == 3
    gap = [RECORDS[0], {"category": "composition", "hits@1": 1.0}]
    with pytest.raises(ValueError, match=r"record 1 \('composition'\) has no 'f1'"):
        scores_by_category(gap)


def test_cwq_categories_group_real_questions() -> None:
    questions = json.loads(data_file("cwq/cwq.test.part-A.json").read_text(encoding="utf-8"))
    records = [{"category": q["compositionality_type"], "answered": float(bool(q["answers"]))} for q in questions]
    groups = scores_by_category(records, metrics=("answered",))
    assert set(groups) == {"composition", "conjunction", "comparative", "superlative"}
    assert sum(group.n for group in groups.values()) == len(questions) == 1351
    assert all(0.0 <= group.means["answered"] <= 1.0 for group in groups.values())
