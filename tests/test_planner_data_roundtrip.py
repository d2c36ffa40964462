"""Every training plan of the default planner reads back into its source query (slow).

The planner learns from plans synthesised from gold SPARQL (:mod:`nl2sparql.training.data`):
WebQSP train and CWQ part-A, the dev splits included. Each of those plans must parse with
the plan grammar and, through a bank built from the same queries, reconstruct to its gold
query's canonical form; otherwise the model would be taught plans that compile to
something else. The exceptions are counted by cause and listed (``-s`` prints them).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from nl2sparql.evaluation.reconstruction_report import evaluate, summarise
from nl2sparql.memory_bank.build_queries import build_bank_from_queries, load_examples
from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner.pairs import read_pairs
from nl2sparql.reconstruction import PlanCompiler, freebase_options
from nl2sparql.training.data import build_training_data
from nl2sparql.training.synthesise import PlanSynthesiser

pytestmark = pytest.mark.slow


def test_every_training_plan_parses_and_rebuilds_its_gold_query(tmp_path: Any) -> None:
    report = build_training_data(tmp_path)
    pairs = read_pairs(tmp_path / "train.jsonl") + read_pairs(tmp_path / "dev.jsonl")
    assert len(pairs) == report.train + report.dev and all(parse_plan(p.output) for p in pairs)
    planned = {p.id for p in pairs}

    webqsp, cwq = load_examples("webqsp-train"), load_examples("cwq-test")
    bank, _ = build_bank_from_queries([*webqsp, *cwq], source="planner-training")
    synthesiser = PlanSynthesiser()
    results = [
        *evaluate([e for e in webqsp if e.id in planned], synthesiser, PlanCompiler(bank)),
        *evaluate(
            [e for e in cwq if e.id in planned], synthesiser, PlanCompiler(bank, options=freebase_options("cwq"))
        ),
    ]
    assert len(results) == len(pairs)
    summary = summarise(results)
    causes = Counter(r.status for r in results if r.status != "match")
    listing = "\n".join(f"  {r.id} [{r.status}] {(r.detail or '')[:140]}" for r in results if r.status != "match")
    print(f"\ntraining plans rebuilt exactly: {summary['exact_match_count']}/{len(results)}; exceptions {dict(causes)}")
    print(listing)
    # Measured: 4,038 / 4,432 (91.1%). Exceptions: 236 lowering (137 gold queries lack the
    # answer-language filter every plan compiles to), 158 recall (in a bank of WebQSP and CWQ
    # together, another statement with the same description outranks the source's).
    assert summary["exact_match"] >= 0.90, listing
