"""Every beam of the default planner on a WebQSP or CWQ split, compiled and scored (experiment).

For each question (gold entities given, home bank, no store) the planner decodes with beam
search (``decoding = "beams"``: the plan and up to three other beams that parse); each beam
is resolved, recalled and compiled as the pipeline does, and its query is scored against
the gold parses (edge hit rate and exact match, ``ehr0``/``exact0`` against ``Parses[0]``).
Features beside: the beam's rank, the zero-shot cosine of the question and the plan, and
each step's best recall scores. One JSON line per question; a cut run goes on where it stopped.

    .venv/bin/python docs/experiments/scripts/beam_features.py DATASET dev|all OUT.jsonl [LIMIT]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from nl2sparql.compiler import canonical, generate, parse
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.evaluation.metrics import edge_hit_rate
from nl2sparql.evaluation.reconstruction_report import predicates
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.pipeline import Pipeline
from nl2sparql.plan.writer import format_plan
from nl2sparql.training.data import is_cwq_dev, is_webqsp_dev
from nl2sparql.training.synthesise import gold_entities


def gold_parses(example: Any) -> list[Any]:
    texts = [example.gold_sparql, *(p.sparql for p in example.extra.get("parses", ())[1:] if p.sparql)]
    found = []
    for text in texts:
        try:
            found.append(parse(text, "virtuoso"))
        except Nl2SparqlError:
            continue
    return found


def scored_beam(pipe: Pipeline, plan: Any, linked: dict, seen: dict, golds: list[Any]) -> dict[str, Any]:
    beam: dict[str, Any] = {"type": plan.type, "steps": len(plan.steps), "sparql": None}
    try:
        resolved = pipe.compiler.resolve(plan, linked)
        recalls = pipe.compiler.recall(resolved, seen)
        beam["recall"] = [[round(c.score, 4) for c in r.candidates[:3]] + [r.rule] for r in recalls.values()]
        query = pipe.compiler.compile_resolved(resolved, recalls, store=None).reconstruction.query
        beam["sparql"] = generate(query, "sparql11") if query is not None else None
    except Nl2SparqlError as exc:
        beam["error"] = str(exc)[:200]
    beam.update(ehr0=0.0, exact0=False, ehr=0.0, exact=False)
    if beam["sparql"] and golds:
        predicted = parse(beam["sparql"], "sparql11")
        for index, gold in enumerate(golds):
            hit, same = edge_hit_rate(predicates(predicted), predicates(gold)), canonical(predicted) == canonical(gold)
            if index == 0:
                beam["ehr0"], beam["exact0"] = hit, same
            beam["ehr"], beam["exact"] = max(beam["ehr"], hit), beam["exact"] or same
    return beam


def main(dataset: str, split: str, out: Path, limit: int | None = None) -> None:
    examples = load_dataset(dataset)
    if split == "dev":
        examples = [e for e in examples if (is_cwq_dev(e) if e.dataset == "cwq" else is_webqsp_dev(e))]
    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    pipe = Pipeline.from_settings(decoding="beams")
    if examples and examples[0].dataset == "cwq":
        from nl2sparql.reconstruction import freebase_options

        pipe.compiler.options = freebase_options("cwq")
    with out.open("a", encoding="utf-8") as handle:
        for example in examples[:limit]:
            if example.id in done:
                continue
            linked = pipe._entities(example.question, gold_entities(example) or None, execute=False)
            row: dict[str, Any] = {"id": example.id, "question": example.question, "beams": []}
            try:
                planned = pipe.planner.plan(example.question, linked, example.gold_sparql)
            except Nl2SparqlError as exc:
                row["error"] = str(exc)
            else:
                plans = [planned.plan, *getattr(planned, "alternatives", ())]
                texts = [format_plan(p) for p in plans]
                vectors = pipe.bank.embedder.encode([example.question, *texts])
                golds, seen = gold_parses(example), {}
                for rank, (plan, text) in enumerate(zip(plans, texts, strict=True)):
                    beam = scored_beam(pipe, plan, linked, seen, golds)
                    cosine = float(vectors[0] @ vectors[rank + 1])
                    row["beams"].append({"rank": rank, "plan": text, "cos": cosine, **beam})
            handle.write(json.dumps(row) + "\n")
            handle.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else None)
