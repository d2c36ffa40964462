"""Score nl2sparql on the unseen-graph suites with the TEXT2SPARQL challenge's set F1.

Issue 40 measures the system as a new user meets it: load a graph it has never seen,
build its bank, ask the questions with no entities given (the pipeline links them).
For each suite under ``tests/fixtures/unseen/`` this script does exactly that:

    nl2sparql kg load graph.nt.gz --store WORK/<suite>/store
    nl2sparql bank build --from-store WORK/<suite>/store --out WORK/<suite>/bank.nl2sq

then asks every question through :class:`nl2sparql.pipeline.Pipeline` (the default
planner and settings unless flags say otherwise), runs the produced SPARQL and the gold
SPARQL on the same store, and scores the two results with
:func:`nl2sparql.evaluation.metrics.set_f1`. It prints, per suite: questions, answered
(a query came out), set F1 (macro mean) and exactly right (F1 = 1), and writes a JSON
report with every question's query, error and score.

    .venv/bin/python scripts/eval_unseen.py --work /tmp/unseen-eval --out report.json

``--summary-only SUITE`` keeps a held-out suite's per-question rows out of what is
printed and of the report (its failures are looked at only at the end).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SUITES_DIR = ROOT / "tests" / "fixtures" / "unseen"
CLI = [sys.executable, "-m", "nl2sparql"]


@dataclass(slots=True)
class Row:
    """One question's outcome."""

    id: str
    shapes: list[str]
    question: str
    sparql: str | None
    error: str | None
    f1: float
    seconds: float


def suites(names: list[str] | None) -> list[Path]:
    """The suite folders to run: those named, else every folder with a questions file."""
    found = sorted(p.parent for p in SUITES_DIR.glob("*/questions-qald.json"))
    return [p for p in found if not names or p.name in names]


def prepare(suite: Path, work: Path, rebuild: bool) -> tuple[Path, Path]:
    """Load the suite's graph into a store and build its bank, as a user would (CLI)."""
    store, bank = work / suite.name / "store", work / suite.name / "bank.nl2sq"
    if rebuild or not store.exists():
        subprocess.run(
            [*CLI, "kg", "load", str(suite / "graph.nt.gz"), "--store", str(store), "--no-progress"], check=True
        )
    if rebuild or not bank.exists():
        subprocess.run(
            [*CLI, "bank", "build", "--from-store", str(store), "--out", str(bank), "--no-progress"], check=True
        )
    return store, bank


def run_query(store: Any, sparql: str | None, timeout: float) -> dict | None:
    """A query's SPARQL JSON result on the store, or ``None`` when there is none or it fails."""
    if not sparql:
        return None
    from nl2sparql.errors import Nl2SparqlError

    try:
        result = store.query(sparql, timeout=timeout)
    except (Nl2SparqlError, ValueError, SyntaxError, OSError):
        return None
    return {"boolean": result} if isinstance(result, bool) else result.to_json()


def ask(pipeline: Any, item: dict, timeout: float) -> Row:
    """Ask one question with no entities given, and score its query against the gold one."""
    from nl2sparql.evaluation.metrics import set_f1

    question = item["question"][0]["string"]
    began = time.monotonic()
    try:
        result = pipeline.ask(question)
        sparql, error = result.sparql, result.error
    except Exception as exc:  # noqa: BLE001 - a crash is a wrong answer, recorded with its reason
        sparql, error = None, f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - began
    gold = run_query(pipeline.store, item["query"]["sparql"], timeout)
    score = set_f1(run_query(pipeline.store, sparql, timeout), gold)
    return Row(item["id"], item.get("shapes", []), question, sparql, error, score, round(seconds, 2))


def evaluate(suite: Path, store: Path, bank: Path, flags: dict[str, Any], quiet: bool) -> list[Row]:
    """Every question of one suite through one pipeline over that suite's store and bank."""
    from nl2sparql.pipeline import Pipeline

    items = json.loads((suite / "questions-qald.json").read_text(encoding="utf-8"))["questions"]
    rows = []
    with Pipeline.from_settings(store=str(store), bank=str(bank), **flags) as pipeline:
        for item in items:
            rows.append(ask(pipeline, item, float(flags.get("timeout") or 30)))
            if not quiet:
                print(f"  {suite.name} {rows[-1].id}: f1={rows[-1].f1:.2f} ({rows[-1].seconds}s)", file=sys.stderr)
    return rows


def summary(rows: list[Row]) -> dict[str, Any]:
    """Questions, answered (a query came out), set F1 (macro mean), exactly right (F1 = 1)."""
    return {
        "questions": len(rows),
        "answered": sum(1 for r in rows if r.sparql),
        "set_f1": round(statistics.fmean(r.f1 for r in rows), 4) if rows else 0.0,
        "exactly_right": sum(1 for r in rows if r.f1 == 1.0),
        "seconds_p50": round(statistics.median(r.seconds for r in rows), 2) if rows else 0.0,
    }


def table(report: dict[str, Any]) -> str:
    lines = ["| graph | questions | answered | set F1 | exactly right |", "|---|---|---|---|---|"]
    for name, entry in report["suites"].items():
        s = entry["summary"]
        lines.append(f"| {name} | {s['questions']} | {s['answered']} | {s['set_f1']:.3f} | {s['exactly_right']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="folder for the stores and banks")
    parser.add_argument("--out", type=Path, required=True, help="the JSON report to write")
    parser.add_argument("--suite", action="append", help="only this suite (repeatable)")
    parser.add_argument("--summary-only", action="append", default=[], help="report only totals for this suite")
    parser.add_argument("--rebuild", action="store_true", help="reload the stores and rebuild the banks")
    parser.add_argument("--planner", help="planner spec (default: the configured default)")
    parser.add_argument("--timeout", type=float, default=30.0, help="query timeout in seconds")
    parser.add_argument("--ranker", help="auto (default), zero-shot or a ranker file")
    parser.add_argument("--candidates", choices=("auto", "graph", "off"), help="off: the planner alone")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    given = {"planner": args.planner, "timeout": args.timeout, "ranker": args.ranker, "candidates": args.candidates}
    flags = {k: v for k, v in given.items() if v is not None}
    report: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "suites": {},
    }
    for suite in suites(args.suite):
        store, bank = prepare(suite, args.work, args.rebuild)
        rows = evaluate(suite, store, bank, flags, args.quiet or suite.name in args.summary_only)
        entry: dict[str, Any] = {"summary": summary(rows)}
        if suite.name not in args.summary_only:
            entry["questions"] = [asdict(r) for r in rows]
        report["suites"][suite.name] = entry
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(table(report))


if __name__ == "__main__":
    main()
