"""``nl2sparql planner eval``: a planner judged against the gold plans, before any compiling.

The splits are the ones nobody trains on: ``dev`` is the WebQSP train questions with
``N % 10 == 0`` plus the CWQ part-A questions whose WebQSP id has ``N % 5 == 0``
(:mod:`nl2sparql.training.data`); ``part-a`` is WebQSP test part A. Gold plans are
synthesised from each question's gold SPARQL; a question whose gold query has no plan is
counted apart (``no_gold_plan``), not scored. Per split and per category it reports
plan-type accuracy, step precision / recall / F1 (macro over questions, steps compared
by :func:`~nl2sparql.evaluation.plan_metrics.step_scores`), exact plan match, the share
of questions for which the planner wrote no readable plan, how many first outputs did not
parse (the planner needed another try: beams, sampling), and the planner's latency per
question (its share of a batch).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.evaluation.aggregate import percentile
from nl2sparql.evaluation.plan_metrics import normalise_steps, step_scores

SPLITS = ("dev", "part-a")


def split_examples(split: str) -> list[Any]:
    """The examples of ``split`` (see the module docstring), in file order."""
    from nl2sparql.config import data_file
    from nl2sparql.kg.datasets import load_dataset
    from nl2sparql.training.data import is_cwq_dev, is_webqsp_dev

    if split == "dev":
        webqsp = [e for e in load_dataset(data_file("webqsp/WebQSP.train.json"), "webqsp") if is_webqsp_dev(e)]
        cwq = [e for e in load_dataset(data_file("cwq/cwq.test.part-A.json"), "cwq") if is_cwq_dev(e)]
        return webqsp + cwq
    if split == "part-a":
        return load_dataset(data_file("webqsp/WebQSP.test.part-A.json"), "webqsp")
    raise Nl2SparqlError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")


@dataclass(frozen=True, slots=True)
class PlanScore:
    """One question: gold and predicted type, step scores, and whether the plans are equal."""

    id: str
    group: str
    gold_type: str
    type: str | None
    precision: float
    recall: float
    f1: float
    exact: bool
    failed: bool
    latency_ms: float
    #: the planner's first output did not parse (it needed another try, or found no plan)
    unparsed_first: bool = False


def score_plans(planner: Any, examples: Sequence[Any], batch_size: int = 16, progress: bool = False) -> dict[str, Any]:
    """Plan every example with ``planner`` and score it against its synthesised gold plan."""
    from tqdm import tqdm

    from nl2sparql.planner.backends import PlanRequest
    from nl2sparql.planner.errors import PlannerError
    from nl2sparql.training.synthesise import PlanSynthesiser

    synthesiser = PlanSynthesiser()
    gold: list[tuple[Any, Any]] = []
    no_gold = 0
    for example in examples:
        try:
            gold.append((example, synthesiser.synthesise_example(example).plan))
        except Nl2SparqlError:
            no_gold += 1
    scores: list[PlanScore] = []
    began = time.perf_counter()
    bar = tqdm(total=len(gold), desc="planner eval", unit="q", disable=not progress)
    for start in range(0, len(gold), batch_size):
        chunk = gold[start : start + batch_size]
        requests = [PlanRequest(e.question, dict(e.entities), e.gold_sparql) for e, _ in chunk]
        outputs = planner.plan_batch(requests, batch_size=batch_size, errors="return")
        for (example, plan), output in zip(chunk, outputs, strict=True):
            group = f"{example.dataset}/{example.category or plan.type}"
            if isinstance(output, PlannerError):
                scores.append(PlanScore(example.id, group, plan.type, None, 0.0, 0.0, 0.0, False, True, 0.0, True))
                continue
            precision, recall, f1 = step_scores(output.plan.steps, plan.steps)
            exact = output.plan.type == plan.type and normalise_steps(output.plan.steps) == normalise_steps(plan.steps)
            scores.append(
                PlanScore(
                    example.id, group, plan.type, output.plan.type, precision, recall, f1, exact, False,
                    output.latency_ms, output.attempts > 1,
                )
            )
        bar.update(len(chunk))
    bar.close()
    report = summarise_scores(scores)
    report["no_gold_plan"] = no_gold
    report["seconds"] = round(time.perf_counter() - began, 1)
    report["by_group"] = {g: summarise_scores(s) for g, s in sorted(_groups(scores).items())}
    return report


def _groups(scores: Sequence[PlanScore]) -> dict[str, list[PlanScore]]:
    grouped: dict[str, list[PlanScore]] = defaultdict(list)
    for score in scores:
        grouped[score.group].append(score)
    return grouped


def summarise_scores(scores: Sequence[PlanScore]) -> dict[str, Any]:
    """Means over ``scores`` (a failed question scores 0 on every step metric and type).

    >>> s = [PlanScore("a", "g", "simple", "simple", 1.0, 0.5, 2 / 3, False, False, 10.0),
    ...      PlanScore("b", "g", "composition", None, 0.0, 0.0, 0.0, False, True, 0.0)]
    >>> r = summarise_scores(s)
    >>> r["type_accuracy"], r["step_f1"], r["parse_failure_rate"], r["latency_ms"]["p50"]
    (0.5, 0.3333, 0.5, 10.0)
    """
    n = len(scores)
    if n == 0:
        return {"questions": 0}
    timed = [s.latency_ms for s in scores if not s.failed]

    def mean(values: Sequence[float]) -> float:
        return round(sum(values) / len(values), 4)

    return {
        "questions": n,
        "type_accuracy": mean([float(s.type == s.gold_type) for s in scores]),
        "step_precision": mean([s.precision for s in scores]),
        "step_recall": mean([s.recall for s in scores]),
        "step_f1": mean([s.f1 for s in scores]),
        "exact_plan": mean([float(s.exact) for s in scores]),
        "parse_failures": sum(s.failed for s in scores),
        "parse_failure_rate": mean([float(s.failed) for s in scores]),
        "first_output_unparsed": sum(s.unparsed_first for s in scores),
        "latency_ms": {"p50": round(percentile(timed, 50), 1), "p95": round(percentile(timed, 95), 1)}
        if timed
        else {},
    }


def markdown(report: dict[str, Any], title: str) -> str:
    """The report as a Markdown table: the whole split, then one row per group."""
    keys = (
        "questions", "type_accuracy", "step_precision", "step_recall", "step_f1", "exact_plan", "parse_failures",
        "first_output_unparsed",
    )
    lines = [f"# {title}", "", "| group | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    rows = [("all", report), *report.get("by_group", {}).items()]
    for name, row in rows:
        lines.append(f"| {name} | " + " | ".join(str(row.get(k, "")) for k in keys) + " |")
    lines += ["", f"no gold plan (not scored): {report.get('no_gold_plan', 0)}; {report.get('seconds')} s"]
    return "\n".join(lines) + "\n"
