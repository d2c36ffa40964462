"""``nl2sparql eval``: run a dataset through the pipeline and score it the standard way.

Per question: the pipeline's answers against reference answers (Hits@1 on the first
answer only, F1), the predicted query against the gold one (edge hit rate, graph edit
distance, exact structural match by canonical form) and the plan against the gold plan
synthesised from the gold query (type accuracy, step F1), with the pipeline's timings.

Reference answers, by default, are the gold query's own answers on the same store, so a
small KG (FB15k-237) is judged fairly: a question whose gold query returns nothing there
is reported apart and not counted in the answer metrics. ``gold_answers=True`` uses the
dataset's answers instead, for a store that is the full KG the dataset was built on.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.compiler import canonical, parse
from nl2sparql.compiler.ast import IRI, Literal, TriplePattern, Var
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.evaluation.aggregate import scores_by_category, scores_by_hops, stage_latencies
from nl2sparql.evaluation.metrics import edge_hit_rate, f1, hits_at_1, normalise_answer
from nl2sparql.evaluation.plan_metrics import step_f1
from nl2sparql.evaluation.query_graph import count_hops, graph_edit_distance_bound, query_graph
from nl2sparql.evaluation.reconstruction_report import _answer_set, predicates
from nl2sparql.kg.atomic import write_atomic
from nl2sparql.kg.store import NS as FREEBASE_NS
from nl2sparql.training.synthesise import gold_entities


@dataclass(slots=True)
class Scored:
    """One question's outcome and scores (``None`` where a score does not apply)."""

    id: str
    question: str
    category: str | None
    hops: int | None
    gold_type: str | None = None
    type: str | None = None
    plan: list[str] = field(default_factory=list)
    sparql: str | None = None
    translation: str | None = None
    answers: list[str] = field(default_factory=list)
    reference: list[str] | None = None
    hits_at_1: float | None = None
    f1: float | None = None
    edge_hit_rate: float | None = None
    ged: float | None = None
    exact_match: bool | None = None
    edge_hit_rate_any_parse: float | None = None
    exact_match_any_parse: bool | None = None
    step_f1: float | None = None
    plan_parsed: bool = False
    error: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)


def _term(node: Any) -> str:
    if isinstance(node, Var):
        return f"?{node.name}"
    if isinstance(node, IRI):
        return node.value.removeprefix(FREEBASE_NS)
    if isinstance(node, Literal):
        return f'"{node.lexical}"'
    return str(node)


def triples(query: Any) -> list[tuple[str, str, str]]:
    """``(s, p, o)`` strings of every triple pattern (variables as ``?v``), for the query graph."""
    return [
        (_term(t.subject), _term(t.predicate), _term(t.object))
        for t in query.find_all(TriplePattern)
    ]


def _short(value: str) -> str:
    """An answer as it is scored: Freebase ids without the namespace, literals normalised."""
    return normalise_answer(value.removeprefix(FREEBASE_NS))


def translated_sparql(result: Any) -> str | None:
    """The query the plan compiles to before any execution-guided repair: what ``translate`` returns.

    With a store, the pipeline runs the compiled candidates until one answers; on a small KG
    (FB15k-237 lacks most facts the gold queries ask for) that repair can swap the right
    query for one that happens to answer there. The query metrics judge the translation, so
    they take the first candidate that compiled; the answer metrics take the final answers.
    """
    for attempt in getattr(result, "attempts", ()) or ():
        if attempt.sparql:
            return str(attempt.sparql)
    return result.sparql  # type: ignore[no-any-return]


def score_one(
    pipeline: Any,
    example: Any,
    *,
    synthesiser: Any | None,
    execute: bool,
    gold_answers: bool,
    ged_timeout: float,
    link: bool = False,
) -> Scored:
    """Run one example and score it; ``link``: the pipeline links the entities itself.

    The dataset's entities stay the gold plan's either way, so ``--link`` is judged
    against the same reference plan as a run with the entities given.
    """
    gold = parse(example.gold_sparql, "virtuoso") if example.gold_sparql else None
    gold_triples = triples(gold) if gold is not None else []
    answer_var = gold.projection[0] if gold is not None and getattr(gold, "projection", None) else None
    hops = None
    if gold_triples:
        try:
            name = getattr(answer_var, "name", None) or getattr(getattr(answer_var, "var", None), "name", None)
            hops = count_hops(gold_triples, f"?{name}") if name else None
        except (KeyError, ValueError, TypeError):
            hops = None
    scored = Scored(example.id, example.question, example.category, hops)
    gold_plan = None
    if synthesiser is not None and example.gold_sparql:
        try:
            gold_plan = synthesiser.synthesise_example(example).plan
            scored.gold_type = gold_plan.type
        except Nl2SparqlError:
            gold_plan = None
    reference: set[str] | None = None
    if execute:
        if gold_answers:
            reference = {_short(a) for a in example.answers}
        elif gold is not None and pipeline.store is not None:
            found = _answer_set(pipeline.store, gold, pipeline.settings.timeout)
            reference = {_short(a) for a in found} if found is not None else None
    try:
        # A question without reference answers is only translated: nothing could score its
        # answers, and its entities may be missing from a small store.
        result = pipeline.ask(
            example.question,
            None if link else gold_entities(example) or None,
            execute=execute and bool(reference),
            gold_sparql=example.gold_sparql,
        )
    except Nl2SparqlError as exc:
        scored.error = str(exc)
        result = None
    if result is not None:
        scored.type, scored.plan, scored.sparql = result.type, list(result.plan), result.sparql
        scored.answers = [_short(a.id) for a in result.answers]
        scored.error = result.error
        scored.timings_ms = dict(result.timings_ms)
        scored.plan_parsed = bool(result.plan) and result.type is not None
    if reference:
        scored.reference = sorted(reference)
        scored.hits_at_1 = hits_at_1(scored.answers, reference)
        scored.f1 = f1(scored.answers, reference)
    if gold is not None:
        predicted = None
        translation = scored.translation = translated_sparql(result) if result is not None else None
        if translation:
            try:
                predicted = parse(translation, "sparql11")
            except Nl2SparqlError:
                predicted = None
        if predicted is None:
            scored.edge_hit_rate = 0.0 if gold_triples else None
            scored.exact_match = False
        else:
            scored.edge_hit_rate = edge_hit_rate(predicates(predicted), predicates(gold))
            scored.exact_match = canonical(predicted) == canonical(gold)
            bound = graph_edit_distance_bound(query_graph(triples(predicted)), query_graph(gold_triples), ged_timeout)
            scored.ged = float(bound.value)
        scored.edge_hit_rate_any_parse, scored.exact_match_any_parse = _best_over_parses(
            predicted, example, scored.edge_hit_rate, scored.exact_match
        )
    if gold_plan is not None and result is not None and result.plan:
        scored.step_f1 = step_f1(list(result.plan)[1:], [s for s in gold_plan.steps])
    return scored


def _best_over_parses(
    predicted: Any, example: Any, edge_hit: float | None, exact: bool | None
) -> tuple[float | None, bool | None]:
    """The query metrics against the question's best-matching annotated parse.

    WebQSP annotates 56 of the 630 part-A questions (268 of train) with more than one parse
    ("what language do people from thailand speak?": ``languages_spoken`` and
    ``official_language``); its official evaluation scores an answer by the best parse.
    ``Parses[0]`` stays the reference of the other metrics.
    """
    others = [p.sparql for p in example.extra.get("parses", ())[1:] if p.sparql]
    if predicted is None or not others:
        return edge_hit, exact
    found = predicates(predicted)
    shape = canonical(predicted)
    for sparql in others:
        try:
            gold = parse(sparql, "virtuoso")
        except Nl2SparqlError:
            continue
        edge_hit = max(edge_hit or 0.0, edge_hit_rate(found, predicates(gold)))
        exact = bool(exact) or shape == canonical(gold)
    return edge_hit, exact


def _mean(values: Sequence[float | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None


ANSWER_METRICS = ("hits_at_1", "f1")
QUERY_METRICS = ("edge_hit_rate", "exact_match")


def _records(rows: Sequence[Scored], metrics: Sequence[str]) -> list[dict[str, Any]]:
    """Rows that have every one of ``metrics``, as records for :mod:`~nl2sparql.evaluation.aggregate`."""
    return [
        {
            "category": r.category or r.gold_type or "none",
            "hops": r.hops if r.hops is not None else -1,
            **{m: float(getattr(r, m)) for m in metrics},
        }
        for r in rows
        if all(getattr(r, m) is not None for m in metrics)
    ]


def groupings(rows: Sequence[Scored]) -> dict[str, dict[str, Any]]:
    """Mean scores by category and by hops, for the answer metrics and the query metrics."""
    out: dict[str, dict[str, Any]] = {}
    for name, metrics in (("answers", ANSWER_METRICS), ("queries", QUERY_METRICS)):
        records = _records(rows, metrics)
        out[name] = {
            "by_category": scores_by_category(records, metrics) if records else {},
            "by_hops": scores_by_hops(records, metrics) if records else {},
        }
    return out


def summarise(rows: Sequence[Scored]) -> dict[str, Any]:
    answered = [r for r in rows if r.reference]
    typed = [r for r in rows if r.gold_type is not None]
    summary: dict[str, Any] = {
        "questions": len(rows),
        "answer_metrics_on": len(answered),
        "no_reference_answers": len(rows) - len(answered),
        "hits_at_1": _mean([r.hits_at_1 for r in answered]),
        "f1": _mean([r.f1 for r in answered]),
        "edge_hit_rate": _mean([r.edge_hit_rate for r in rows]),
        "ged": _mean([r.ged for r in rows]),
        "exact_match": _mean([float(r.exact_match) for r in rows if r.exact_match is not None]),
        "edge_hit_rate_any_parse": _mean([r.edge_hit_rate_any_parse for r in rows]),
        "exact_match_any_parse": _mean(
            [float(r.exact_match_any_parse) for r in rows if r.exact_match_any_parse is not None]
        ),
        "plan_type_accuracy": _mean([float(r.type == r.gold_type) for r in typed]),
        "step_f1": _mean([r.step_f1 for r in rows]),
        "plan_failures": sum(1 for r in rows if not r.plan_parsed),
        "misses": miss_attribution(rows),
        "errors": dict(Counter((r.error or "").split(":")[0] for r in rows if r.error).most_common(10)),
    }
    timed = [r.timings_ms for r in rows if r.timings_ms]
    summary["latency_ms"] = {k: asdict(v) for k, v in stage_latencies(timed).items()} if timed else {}
    summary["groups"] = {
        name: {
            by: {str(k): {"n": g.n, **{m: round(v, 4) for m, v in g.means.items()}} for k, g in groups.items()}
            for by, groups in grouped.items()
        }
        for name, grouped in groupings(rows).items()
    }
    return summary


def miss_attribution(rows: Sequence[Scored]) -> dict[str, int]:
    """The questions whose query misses a gold edge, by the stage that lost it.

    ``planner``: the plan's steps differ from the gold plan's; ``reconstruction``: the
    planner wrote the gold plan's steps (step F1 1.0) and recall, compilation or repair
    lost the edge; ``no gold plan``: the gold query has no plan to compare with. It says
    which half of the pipeline a better edge hit rate has to come from.

    >>> rows = [Scored("a", "q", None, 1, edge_hit_rate=0.5, step_f1=1.0),
    ...         Scored("b", "q", None, 1, edge_hit_rate=0.0, step_f1=0.4),
    ...         Scored("c", "q", None, 1, edge_hit_rate=1.0, step_f1=0.4),
    ...         Scored("d", "q", None, 1, edge_hit_rate=0.0)]
    >>> miss_attribution(rows)
    {'planner': 1, 'reconstruction': 1, 'no gold plan': 1}
    """
    counts = {"planner": 0, "reconstruction": 0, "no gold plan": 0}
    for r in rows:
        if r.edge_hit_rate is None or r.edge_hit_rate >= 1.0:
            continue
        stage = "no gold plan" if r.step_f1 is None else "reconstruction" if r.step_f1 == 1.0 else "planner"
        counts[stage] += 1
    return counts


def markdown(summary: dict[str, Any], title: str) -> str:
    def fmt(value: Any) -> str:
        return "n/a" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))

    keys = (
        "questions", "answer_metrics_on", "no_reference_answers", "hits_at_1", "f1", "edge_hit_rate",
        "ged", "exact_match", "edge_hit_rate_any_parse", "exact_match_any_parse", "plan_type_accuracy", "step_f1",
        "plan_failures",
    )
    lines = [f"# {title}", "", "| metric | value |", "|---|---|", *(f"| {k} | {fmt(summary.get(k))} |" for k in keys)]
    misses = summary.get("misses") or {}
    lines += [f"| misses by stage: {stage} | {n} |" for stage, n in misses.items()]
    for name, metrics in (("answers", ANSWER_METRICS), ("queries", QUERY_METRICS)):
        for by in ("by_category", "by_hops"):
            groups = summary["groups"][name][by]
            if not groups:
                continue
            lines += ["", f"## {name} {by.replace('_', ' ')}", "", f"| group | n | {' | '.join(metrics)} |"]
            lines.append("|---" * (len(metrics) + 2) + "|")
            for group, row in groups.items():
                lines.append(f"| {group} | {row['n']} | " + " | ".join(fmt(row[m]) for m in metrics) + " |")
    if summary["latency_ms"]:
        lines += ["", "## Latency (ms, nearest rank)", "", "| stage | p50 | p95 | p99 |", "|---|---|---|---|"]
        for stage, lat in summary["latency_ms"].items():
            lines.append(f"| {stage} | {lat['p50']:.1f} | {lat['p95']:.1f} | {lat['p99']:.1f} |")
    return "\n".join(lines) + "\n"


def write_report(rows: Sequence[Scored], summary: dict[str, Any], out: Path, title: str) -> list[Path]:
    """``report.json``, ``report.md`` and the PNG plots, each written atomically into ``out``."""
    from nl2sparql.evaluation.plots import plot_latency_histogram, plot_scores_by_category, plot_scores_by_hops

    out.mkdir(parents=True, exist_ok=True)
    report = {"summary": summary, "questions": [asdict(r) for r in rows]}
    write_atomic(out / "report.json", json.dumps(report, indent=1))
    write_atomic(out / "report.md", markdown(summary, title))
    written = [out / "report.json", out / "report.md"]
    for name, grouped in groupings(rows).items():
        if grouped["by_category"]:
            written.append(plot_scores_by_category(grouped["by_category"], out / f"{name}_by_category.png"))
        if grouped["by_hops"]:
            written.append(plot_scores_by_hops(grouped["by_hops"], out / f"{name}_by_hops.png"))
    stages: dict[str, list[float]] = {}
    for r in rows:
        for stage, ms in r.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    if stages:
        written.append(plot_latency_histogram(stages, out / "latency.png"))
    return written
