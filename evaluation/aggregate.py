"""Per-question results -> the tables of a report: scores by category and by hops, latency percentiles.

A run produces one record per question (a mapping such as ``{"category":
"composition", "hops": 2, "hits@1": 1.0, "f1": 0.67, "timings_ms": {"plan": 41.2,
...}}``). Reports break scores down the way the KBQA papers do (CWQ's four
categories, number of hops) and latencies per pipeline stage. Percentiles use the
nearest-rank method, so every reported latency is one that was measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q``-th percentile (0 < q <= 100) by the nearest-rank method.

    Sorted ascending, the value at rank ``ceil(q / 100 * n)`` (1-based): the smallest
    measured value with at least q % of the values at or below it (Hyndman & Fan, 1996,
    definition 1; no interpolation). ``q = 0`` gives the minimum. Raises ``ValueError``
    for no values or q outside [0, 100].
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside [0, 100]")
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return float(ordered[rank - 1])


@dataclass(frozen=True, slots=True)
class Latency:
    """One stage's latencies in milliseconds: count, mean, nearest-rank p50/p95/p99 and max."""

    n: int
    mean: float
    p50: float
    p95: float
    p99: float
    max: float


def summarise_latencies(values: Sequence[float]) -> Latency:
    """:class:`Latency` of some measurements (``ValueError`` for none)."""
    if not values:
        raise ValueError("no latencies to summarise")
    return Latency(
        n=len(values),
        mean=sum(values) / len(values),
        p50=percentile(values, 50),
        p95=percentile(values, 95),
        p99=percentile(values, 99),
        max=float(max(values)),
    )


def stage_latencies(
    timings: Iterable[Mapping[str, float]], total: str | None = "total"
) -> dict[str, Latency]:
    """Per-stage :class:`Latency` over per-question ``{stage: ms}`` mappings.

    A stage is summarised over the questions that report it. With ``total`` (a key
    name), each question's stages are also summed into that key: the end-to-end
    percentiles, which are not the sum of the stages' percentiles.
    """
    by_stage: dict[str, list[float]] = {}
    for record in timings:
        for stage, ms in record.items():
            by_stage.setdefault(stage, []).append(float(ms))
        if total is not None and record:
            by_stage.setdefault(total, []).append(float(sum(record.values())))
    return {stage: summarise_latencies(values) for stage, values in by_stage.items()}


@dataclass(frozen=True, slots=True)
class GroupScore:
    """The mean of each metric over the ``n`` questions of one group."""

    n: int
    means: dict[str, float]


def scores_by(
    records: Iterable[Mapping[str, Any]],
    key: str | Callable[[Mapping[str, Any]], Hashable],
    metrics: Sequence[str],
) -> dict[Hashable, GroupScore]:
    """Group ``records`` by ``key`` (a field name or a function) and average each metric.

    Groups come out sorted (numbers before text). A record without one of ``metrics``
    is an error (``ValueError`` naming the record and the metric): a silent gap would
    change the mean.
    """
    get_key = key if callable(key) else (lambda record: record[key])  # type: ignore[index]
    sums: dict[Hashable, list[float]] = {}
    counts: dict[Hashable, int] = {}
    for index, record in enumerate(records):
        group = get_key(record)
        totals = sums.setdefault(group, [0.0] * len(metrics))
        for i, metric in enumerate(metrics):
            if metric not in record:
                raise ValueError(f"record {index} ({group!r}) has no {metric!r}")
            totals[i] += float(record[metric])
        counts[group] = counts.get(group, 0) + 1
    ordered = sorted(sums, key=_group_order)
    return {
        group: GroupScore(counts[group], {m: sums[group][i] / counts[group] for i, m in enumerate(metrics)})
        for group in ordered
    }


def _group_order(group: Hashable) -> tuple[int, float, str]:
    if isinstance(group, int | float) and not isinstance(group, bool):
        return (0, float(group), "")
    return (1, 0.0, str(group))


def scores_by_category(
    records: Iterable[Mapping[str, Any]], metrics: Sequence[str] = ("hits@1", "f1"), key: str = "category"
) -> dict[Hashable, GroupScore]:
    """:func:`scores_by` the question category (CWQ: composition, conjunction, comparative, superlative)."""
    return scores_by(records, key, metrics)


def scores_by_hops(
    records: Iterable[Mapping[str, Any]], metrics: Sequence[str] = ("hits@1", "f1"), key: str = "hops"
) -> dict[Hashable, GroupScore]:
    """:func:`scores_by` the number of hops (see :func:`nl2sparql.evaluation.query_graph.count_hops`)."""
    return scores_by(records, key, metrics)
