"""End-to-end latency of ``ask``: each stage of the pipeline and the whole question.

    python benchmarks/bench_ask.py [--store DIR | --endpoint URL] [--bank FILE] [--planner SPEC]
                                   [--questions 100] [--warmup 3] [--link] [--json]
                                   [--dataset FILE [--format qald] [--baseline-webqsp N]]

One :class:`~nl2sparql.pipeline.Pipeline` is loaded once, as the CLI loads it (the flags,
then the config file and ``NL2SPARQL_*`` variables, then the home folder's embedded
default). It is asked the first N WebQSP test part-A questions whose topic entity is in
the store, with the dataset's entities that the store holds (``--link``: none, so the
linker finds them), and the gold SPARQL, which only ``--planner oracle`` reads. A few
other eligible questions are asked first, untimed (``--warmup``): they load the
embedder and, with ``--link``, the linker's label index. Then each question is asked
once and the script prints p50 / p95 / mean (nearest rank, milliseconds) of every stage
in ``result.timings_ms`` and of the whole ``ask`` call (wall time), questions/s, and how
many questions were answered. Figures only: nothing is asserted; a question that fails
still counts, with the stages it reached.

``--old-vs-new`` times the same questions twice in one run: the pipeline as it was before
grounded discrimination (``candidates = "off"``: the planner's plans only) and as it is
(``--candidates``, default ``auto``: candidates built over the graph and ranked first on a
graph other than Freebase), and prints both and the ratio of their question p50 and p95.

``--dataset FILE`` asks the questions of another file instead (any format ``nl2sparql
eval`` reads: a QALD file for your own graph, with ``--store`` and ``--bank`` naming that
graph's), with the file's entities, or linked when it names none. ``--baseline-webqsp N``
then also times N WebQSP questions on the home pipeline in the same run and prints the
ratio of the two planning p95s (issue 18: planning on a new graph within 2x of WebQSP's).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from nl2sparql.config import data_file
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.evaluation.aggregate import percentile
from nl2sparql.kg.datasets import Example, load_dataset
from nl2sparql.kg.store import NS as FREEBASE_NS
from nl2sparql.pipeline import Pipeline
from nl2sparql.results import STAGES
from nl2sparql.settings import load_settings

# (question, entities or None to link them, gold SPARQL)
Question = tuple[str, "dict[str, str] | None", "str | None"]


def known_entities(store: Any, ids: set[str]) -> set[str]:
    """The ids among ``ids`` that occur in a triple of the store."""
    found: set[str] = set()
    ordered = sorted(ids)
    for start in range(0, len(ordered), 200):
        values = " ".join(f"<{FREEBASE_NS}{i}>" for i in ordered[start : start + 200])
        query = f"SELECT DISTINCT ?e WHERE {{ VALUES ?e {{ {values} }} {{ ?e ?p ?o }} UNION {{ ?s ?p ?e }} }}"
        found.update(row["e"].value.removeprefix(FREEBASE_NS) for row in store.select(query).rows)
    return found


def eligible_questions(pipeline: Pipeline, examples: Sequence[Example], link: bool) -> list[Question]:
    """Questions whose topic entity (the first of its entities) is in the store, in dataset order."""
    known = known_entities(pipeline.store, {e for example in examples for e in example.entities})
    out: list[Question] = []
    for example in examples:
        ids = list(example.entities)
        if not ids or ids[0] not in known:
            continue
        entities = {i: name for i, name in example.entities.items() if i in known}
        out.append((example.question, None if link else entities, example.gold_sparql))
    return out


def file_questions(examples: Sequence[Example]) -> list[Question]:
    """Every question of a file, with its entities (``None`` when it names none: linked)."""
    return [(e.question, dict(e.entities) or None, e.gold_sparql) for e in examples]


def ask(pipeline: Pipeline, question: Question) -> tuple[float, Mapping[str, float], str | None, int]:
    """Wall milliseconds, stage timings, error and answer count of one ``ask``."""
    text, entities, gold = question
    began = time.perf_counter()
    try:
        result = pipeline.ask(text, entities, gold_sparql=gold)
    except Nl2SparqlError as exc:
        return (time.perf_counter() - began) * 1000, {}, str(exc), 0
    return (time.perf_counter() - began) * 1000, result.timings_ms, result.error, len(result.answers)


def summary(values: Sequence[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "mean": float("nan")}
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "mean": sum(values) / len(values),
    }


def measure(pipeline: Pipeline, questions: Sequence[Question], warmup: Sequence[Question]) -> dict[str, Any]:
    for question in warmup:
        ask(pipeline, question)
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    errors: list[str] = []
    answered = 0
    began = time.perf_counter()
    for question in questions:
        total, timings, error, answers = ask(pipeline, question)
        totals.append(total)
        for stage, ms in timings.items():
            stages.setdefault(stage, []).append(ms)
        if error is not None:
            errors.append(error)
        answered += answers > 0
    elapsed = time.perf_counter() - began
    order = [s for s in STAGES if s in stages] + sorted(set(stages) - set(STAGES))
    return {
        "questions": len(questions),
        "warmup": len(warmup),
        "seconds": elapsed,
        "questions_per_s": len(questions) / elapsed if elapsed else float("nan"),
        "stages": {stage: summary(stages[stage]) for stage in order},
        "total": summary(totals),
        "answered": answered,
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
    }


def report(figures: Mapping[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(figures, indent=2))
        return
    print(f"pipeline: {figures['pipeline']}")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    how = "linked by the pipeline" if figures["link"] else "the dataset's, as given"
    source = figures.get("source") or "WebQSP test part-A questions with the topic entity in the store"
    print(
        f"questions: {figures['questions']} of {figures['eligible']} {source} "
        f"({figures['dataset']} in all); entities {how}; warm-up {figures['warmup']}"
    )
    print(f"  {'stage':<10} {'n':>4} {'p50 ms':>9} {'p95 ms':>9} {'mean ms':>9}")
    rows = [*figures["stages"].items(), ("total", figures["total"])]
    for stage, row in rows:
        print(f"  {stage:<10} {row['n']:>4} {row['p50']:>9.2f} {row['p95']:>9.2f} {row['mean']:>9.2f}")
    print(f"questions/s: {figures['questions_per_s']:.2f} ({figures['seconds']:.1f} s for {figures['questions']})")
    print(f"answered: {figures['answered']}/{figures['questions']}; errors: {figures['errors']}")
    if figures["first_error"]:
        print(f"  first error: {figures['first_error']}")


def describe(pipeline: Pipeline) -> str:
    info = pipeline.describe()
    store = info.get("store", {})
    return (
        f"{store.get('kind', '?')} {store.get('location', '?')} ({store.get('triples', 0):,} triples), "
        f"bank {info.get('bank', {}).get('location', '?')}, planner {info.get('planner', {}).get('spec', '?')}"
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--store", metavar="DIR", help="Oxigraph store folder (default: <home>/store)")
    where.add_argument("--endpoint", metavar="URL", help="SPARQL 1.1 endpoint URL instead of a store")
    parser.add_argument("--bank", metavar="FILE", help="memory bank file (default: <home>/bank.nl2sq)")
    parser.add_argument("--planner", metavar="SPEC", help="default | plain | oracle | hf:PATH | openai:URL#MODEL")
    parser.add_argument("--timeout", type=float, help="query timeout in seconds (default 30)")
    parser.add_argument("--config", help="TOML settings file (default: ./nl2sparql.toml)")
    parser.add_argument("--questions", type=int, default=100, help="questions to time (default 100)")
    parser.add_argument("--warmup", type=int, default=3, help="other questions asked first, untimed (default 3)")
    parser.add_argument("--link", action="store_true", help="link entities instead of giving the dataset's")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--dataset", metavar="FILE", help="ask this file's questions instead of WebQSP's")
    parser.add_argument("--format", help="the --dataset file's format (default: guessed)")
    parser.add_argument(
        "--baseline-webqsp", type=int, default=0, metavar="N", help="with --dataset: also time N WebQSP questions"
    )
    parser.add_argument("--candidates", choices=("auto", "graph", "off"), help="the pipeline's candidates setting")
    parser.add_argument("--old-vs-new", action="store_true", help="also time the pipeline with candidates off")
    args = parser.parse_args(argv)
    if args.questions < 1 or args.warmup < 0 or not 0 <= args.baseline_webqsp <= 1000:
        parser.error("--questions must be positive, --warmup not negative, --baseline-webqsp 0 to 1000")
    if args.baseline_webqsp and not args.dataset:
        parser.error("--baseline-webqsp compares a --dataset file with WebQSP; give --dataset")
    return args


def webqsp_figures(pipeline: Pipeline, count: int, warmup: int, link: bool) -> dict[str, Any] | None:
    """The figures of ``count`` eligible WebQSP part-A questions (``None``: the store has none)."""
    examples = load_dataset(data_file("webqsp/WebQSP.test.part-A.json"), "webqsp")
    eligible = eligible_questions(pipeline, examples, link)
    if not eligible:
        return None
    timed = eligible[:count]
    rest = eligible[len(timed) :]
    figures = measure(pipeline, timed, (rest or eligible)[:warmup])  # other questions: no cache is primed
    figures.update(pipeline=describe(pipeline), link=link, eligible=len(eligible), dataset=len(examples))
    return figures


def dataset_figures(pipeline: Pipeline, args: argparse.Namespace) -> dict[str, Any]:
    """The figures of the --dataset file's questions (warm-up: its last ones, asked first)."""
    questions = file_questions(load_dataset(args.dataset, args.format))
    timed = questions[: args.questions]
    figures = measure(pipeline, timed, questions[::-1][: args.warmup])
    figures.update(pipeline=describe(pipeline), link=args.link, eligible=len(questions), dataset=len(questions))
    figures["source"] = f"questions of {args.dataset}"
    return figures


def compare_planning(own: Mapping[str, Any], webqsp: Mapping[str, Any], as_json: bool) -> None:
    """Planning p50/p95 of the file's questions against WebQSP's, measured in the same run."""
    mine, theirs = own["stages"].get("planned", {}), webqsp["stages"].get("planned", {})
    ratio = {q: mine.get(q, float("nan")) / theirs.get(q, float("nan")) for q in ("p50", "p95")}
    if as_json:
        print(json.dumps({"planning_ratio": ratio}))
        return
    print(
        f"planning, this file vs WebQSP (same run): p50 {mine.get('p50', float('nan')):.0f} vs "
        f"{theirs.get('p50', float('nan')):.0f} ms (x{ratio['p50']:.2f}), p95 {mine.get('p95', float('nan')):.0f} "
        f"vs {theirs.get('p95', float('nan')):.0f} ms (x{ratio['p95']:.2f}; issue 18's bound: x2)"
    )


def timed(args: argparse.Namespace, candidates: str | None) -> dict[str, Any] | None:
    """The figures of one pipeline (``candidates`` overrides the setting); ``None`` on no questions."""
    flags = {key: getattr(args, key) for key in ("store", "endpoint", "bank", "planner", "timeout")}
    flags["candidates"] = candidates
    with Pipeline.from_settings(load_settings(flags, args.config)) as pipeline:
        if args.dataset:
            figures = dataset_figures(pipeline, args)
        else:
            figures = webqsp_figures(pipeline, args.questions, args.warmup, args.link)
        if figures is not None:
            figures["pipeline"] += f", candidates {pipeline.settings.candidates}"
        return figures


def compare_old_new(old: Mapping[str, Any], new: Mapping[str, Any], as_json: bool) -> None:
    """Question p50/p95 of the pipeline with candidates against the one without, same run."""
    ratio = {q: new["total"][q] / old["total"][q] for q in ("p50", "p95")}
    if as_json:
        print(json.dumps({"new_over_old": ratio}))
        return
    print(
        f"question, new vs old (same run): p50 {new['total']['p50']:.0f} vs {old['total']['p50']:.0f} ms "
        f"(x{ratio['p50']:.2f}), p95 {new['total']['p95']:.0f} vs {old['total']['p95']:.0f} ms (x{ratio['p95']:.2f})"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        old = timed(args, "off") if args.old_vs_new else None
        found = timed(args, args.candidates)
    except Nl2SparqlError as exc:
        print(f"bench_ask: {exc}", file=sys.stderr)
        return 1
    if found is None:
        print("bench_ask: no WebQSP test question has its topic entity in this store", file=sys.stderr)
        return 1
    figures = found
    if old is not None:
        report(old, args.json)
    report(figures, args.json)
    if old is not None:
        compare_old_new(old, figures, args.json)
    if args.baseline_webqsp:
        with Pipeline.from_settings(load_settings({"planner": args.planner}, args.config)) as home:
            baseline = webqsp_figures(home, args.baseline_webqsp, args.warmup, link=False)
        if baseline is None:
            print("bench_ask: the home store holds no WebQSP test question's entity", file=sys.stderr)
            return 1
        report(baseline, args.json)
        compare_planning(figures, baseline, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
