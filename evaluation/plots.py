"""PNG figures for evaluation reports: scores by category, scores by hops, latency histograms.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no global backend
switch), so they work headless, in threads and in tests. Each file is written to a
temporary name in the target folder and moved into place, so a crash never leaves a
half-written PNG behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from nl2sparql.evaluation.aggregate import GroupScore

_DPI = 100


def _save(figure: Figure, path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(figure)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".png", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            figure.savefig(out, format="png", dpi=_DPI)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _metrics_of(groups: Mapping[Hashable, GroupScore], metrics: Sequence[str] | None) -> list[str]:
    if not groups:
        raise ValueError("no groups to plot")
    names = list(metrics) if metrics else list(next(iter(groups.values())).means)
    missing = [(group, m) for group, score in groups.items() for m in names if m not in score.means]
    if missing:
        raise ValueError(f"group {missing[0][0]!r} has no score {missing[0][1]!r}")
    return names


def _grouped_bars(
    groups: Mapping[Hashable, GroupScore], metrics: Sequence[str] | None, xlabel: str, title: str
) -> Figure:
    names = _metrics_of(groups, metrics)
    figure = Figure(figsize=(max(4.0, 1.2 * len(groups) + 2), 3.6))
    axes = figure.add_subplot()
    width = 0.8 / len(names)
    positions = range(len(groups))
    for i, metric in enumerate(names):
        offsets = [p - 0.4 + width * (i + 0.5) for p in positions]
        bars = axes.bar(offsets, [score.means[metric] for score in groups.values()], width, label=metric)
        axes.bar_label(bars, fmt="%.2f", fontsize=7)
    axes.set_xticks(list(positions), [f"{group}\n(n={score.n})" for group, score in groups.items()])
    axes.set_ylim(0, 1.25)  # headroom above 1.0 for the bar labels and the legend
    axes.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    axes.set_xlabel(xlabel)
    axes.set_ylabel("score")
    axes.set_title(title)
    axes.legend(loc="upper center", ncol=len(names), fontsize=8, frameon=False)
    figure.tight_layout()
    return figure


def plot_scores_by_category(
    groups: Mapping[Hashable, GroupScore],
    path: str | os.PathLike[str],
    metrics: Sequence[str] | None = None,
    title: str = "Scores by question category",
) -> Path:
    """A bar chart of each metric per category (``groups`` from ``aggregate.scores_by_category``)."""
    return _save(_grouped_bars(groups, metrics, "category", title), path)


def plot_scores_by_hops(
    groups: Mapping[Hashable, GroupScore],
    path: str | os.PathLike[str],
    metrics: Sequence[str] | None = None,
    title: str = "Scores by number of hops",
) -> Path:
    """A bar chart of each metric per number of hops (``groups`` from ``aggregate.scores_by_hops``)."""
    return _save(_grouped_bars(groups, metrics, "hops", title), path)


def plot_latency_histogram(
    latencies_ms: Mapping[str, Sequence[float]],
    path: str | os.PathLike[str],
    bins: int = 30,
    title: str = "Latency per stage",
) -> Path:
    """Overlaid histograms of each stage's latencies in milliseconds (``{stage: [ms, ...]}``)."""
    stages = {stage: list(values) for stage, values in latencies_ms.items() if len(values)}
    if not stages:
        raise ValueError("no latencies to plot")
    if bins < 1:
        raise ValueError("bins must be at least 1")
    figure = Figure(figsize=(6.0, 3.6))
    axes = figure.add_subplot()
    low = min(min(values) for values in stages.values())
    high = max(max(values) for values in stages.values())
    edges = [low + (high - low) * i / bins for i in range(bins + 1)] if high > low else bins
    for stage, values in stages.items():
        axes.hist(values, bins=edges, alpha=0.55, label=f"{stage} (n={len(values)})")
    axes.set_xlabel("milliseconds")
    axes.set_ylabel("questions")
    axes.set_title(title)
    axes.legend(fontsize=8)
    figure.tight_layout()
    return _save(figure, path)
