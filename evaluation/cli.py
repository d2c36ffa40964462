"""``nl2sparql eval``: one command that reproduces every figure in the README."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

EVAL_EPILOG = """examples:
  nl2sparql eval --dataset $DATA/webqsp/WebQSP.test.part-A.json --planner oracle --out reports/webqsp-oracle
  nl2sparql eval --dataset $DATA/cwq/cwq.test.part-A.json --split dev --out reports/cwq-dev
  nl2sparql eval --dataset qald.json --format qald --endpoint http://127.0.0.1:8890/sparql --gold-answers --out r/
"""


def run_eval(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from nl2sparql.commands import pipeline_from_args
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.evaluation.runner import score_one, summarise, write_report
    from nl2sparql.kg.datasets import load_dataset
    from nl2sparql.training.synthesise import PlanSynthesiser

    examples = load_dataset(args.dataset, args.format)
    if args.split == "dev":
        from nl2sparql.training.data import is_cwq_dev, is_webqsp_dev

        examples = [e for e in examples if (is_cwq_dev(e) if e.dataset == "cwq" else is_webqsp_dev(e))]
    if args.limit_questions is not None:
        if args.limit_questions < 1:
            raise Nl2SparqlError(f"--limit-questions must be at least 1, got {args.limit_questions}")
        examples = examples[: args.limit_questions]
    if not examples:
        raise Nl2SparqlError(f"{args.dataset}: no questions to evaluate")
    execute = not args.no_execute
    synthesiser = PlanSynthesiser()
    began = time.perf_counter()
    rows = []
    style = args.style or ("cwq" if examples[0].dataset == "cwq" else "webqsp")
    with pipeline_from_args(args, execute=execute) as pipeline:
        if style != "webqsp":
            from nl2sparql.reconstruction import freebase_options

            pipeline.compiler.options = freebase_options(style)
        for example in tqdm(examples, desc="eval", unit="q", disable=args.quiet):
            rows.append(
                score_one(
                    pipeline,
                    example,
                    synthesiser=synthesiser,
                    execute=execute,
                    gold_answers=args.gold_answers,
                    ged_timeout=args.ged_timeout,
                    link=args.link,
                )
            )
        described = pipeline.describe()
    summary = summarise(rows)
    summary["run"] = {
        "dataset": str(args.dataset),
        "format": args.format,
        "split": args.split,
        "style": style,
        "entities": "linked" if args.link else "given",
        "reference": "dataset answers" if args.gold_answers else "gold query on the same store",
        "execute": execute,
        "pipeline": described,
        "seconds": round(time.perf_counter() - began, 1),
    }
    title = f"nl2sparql eval: {Path(args.dataset).name} ({args.split}, planner {described['planner'].get('spec')})"
    written = write_report(rows, summary, Path(args.out), title)
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "groups"}, indent=1, default=str))
    else:
        keys = ("questions", "answer_metrics_on", "hits_at_1", "f1", "edge_hit_rate", "exact_match", "ged")
        print(" ".join(f"{k}={summary[k]}" for k in keys))
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def register(subparsers: Any) -> None:
    from nl2sparql.commands import add_pipeline_flags

    parser = subparsers.add_parser(
        "eval",
        help="score a dataset: Hits@1, F1, edge hit rate, GED, exact match, plan metrics",
        epilog=EVAL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", required=True, help="dataset file (WebQSP, CWQ, GrailQA or QALD JSON)")
    parser.add_argument("--format", choices=("webqsp", "cwq", "grailqa", "qald"), help="default: detected")
    parser.add_argument("--out", required=True, help="folder for report.json, report.md and the PNG plots")
    parser.add_argument("--split", choices=("all", "dev"), default="all", help="dev: the fixed dev split only")
    parser.add_argument("--link", action="store_true", help="link entities instead of using the dataset's")
    parser.add_argument("--no-execute", action="store_true", help="score the queries only; run nothing")
    parser.add_argument(
        "--gold-answers", action="store_true", help="reference answers from the dataset (the store is the full KG)"
    )
    parser.add_argument(
        "--style",
        choices=("webqsp", "cwq", "plain"),
        help="how the compiler writes casts (default: cwq for CWQ, webqsp otherwise), as each benchmark's gold does",
    )
    parser.add_argument("--ged-timeout", type=float, default=2.0, help="seconds per graph edit distance")
    parser.add_argument("--limit-questions", type=int, help="only the first N questions")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_pipeline_flags(parser)
    parser.set_defaults(func=run_eval)
