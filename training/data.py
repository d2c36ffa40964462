"""The planner's training data: gold plans synthesised from the gold SPARQL of WebQSP and CWQ.

Splits are fixed by id so that no number we report was trained on: the WebQSP train
questions ``WebQTrn-N`` with ``N % 10 == 0`` and the CWQ part-A questions whose
``webqsp_ID`` number has ``N % 5 == 0`` are the dev splits (written to ``dev.jsonl``,
never trained on); WebQSP test part-A is for evaluation only and is never read here.
A question whose gold query cannot be synthesised into a plan is counted by reason and
left out (reported, so a drop in synthesis shows up in the numbers).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.kg.splits import is_cwq_dev, is_webqsp_dev
from nl2sparql.planner.pairs import DEV_FILE, EXEMPLARS_DIR, TRAIN_FILE, PlanPair, make_pair, write_pairs
from nl2sparql.planner.target_text import STEP_SEPARATOR


@dataclass
class DataReport:
    train: int = 0
    dev: int = 0
    exemplars: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    by_source: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "train": self.train,
            "dev": self.dev,
            "exemplars": self.exemplars,
            "by_source": self.by_source,
            "skipped": dict(self.skipped),
        }


def synthesised_pairs(
    examples: Iterable[Any],
    is_dev: Callable[[Any], bool],
    source: str,
    report: DataReport,
    synthesiser: Any | None = None,
) -> tuple[list[PlanPair], list[PlanPair]]:
    """(train, dev) pairs of ``examples`` whose gold query synthesises into a plan."""
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.training.synthesise import PlanSynthesiser

    synthesiser = synthesiser or PlanSynthesiser()
    train: list[PlanPair] = []
    dev: list[PlanPair] = []
    counts = Counter[str]()
    for example in examples:
        try:
            synthesis = synthesiser.synthesise_example(example)
            pair = make_pair(example.id, example.question, example.entities, synthesis.plan)
        except Nl2SparqlError as exc:
            report.skipped[f"{source}: {type(exc).__name__}"] += 1
            counts["skipped"] += 1
            continue
        if STEP_SEPARATOR.strip() in pair.output:
            # The flat target codec of word-piece models joins steps with ';'.
            report.skipped[f"{source}: plan holds ';'"] += 1
            counts["skipped"] += 1
            continue
        (dev if is_dev(example) else train).append(pair)
        counts["dev" if is_dev(example) else "train"] += 1
    report.by_source[source] = dict(counts)
    return train, dev


def build_training_data(out: str | Path, sources: Iterable[str] = ("webqsp", "cwq"), exemplars: int = 0) -> DataReport:
    """Write ``train.jsonl`` and ``dev.jsonl`` of synthesised gold plans into ``out``; with
    ``exemplars`` k, each input ends with the plans of its k nearest training questions, and
    the memory they come from is saved in ``out/exemplars`` (``planner/exemplars.py``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    train, dev, report = gold_pairs(sources)
    if exemplars:
        from nl2sparql.planner.exemplars import ExemplarMemory, memory_pairs, with_exemplars

        memory = ExemplarMemory.build(memory_pairs(train))
        train = with_exemplars(train, memory, exemplars, own=True)
        dev = with_exemplars(dev, memory, exemplars, own=False)
        memory.save(out / EXEMPLARS_DIR)
        report.exemplars = len(memory.ids)
    report.train = write_pairs(out / TRAIN_FILE, train)
    report.dev = write_pairs(out / DEV_FILE, dev)
    return report


def gold_pairs(sources: Iterable[str] = ("webqsp", "cwq")) -> tuple[list[PlanPair], list[PlanPair], DataReport]:
    """(train, dev) pairs synthesised from the gold queries of WebQSP train and CWQ part A."""
    from nl2sparql.config import data_file
    from nl2sparql.kg.datasets import load_dataset
    from nl2sparql.training.synthesise import PlanSynthesiser

    report = DataReport()
    synthesiser = PlanSynthesiser()
    train: list[PlanPair] = []
    dev: list[PlanPair] = []
    chosen = set(sources)
    if "webqsp" in chosen:
        examples = load_dataset(data_file("webqsp/WebQSP.train.json"), "webqsp")
        t, d = synthesised_pairs(examples, is_webqsp_dev, "webqsp-train", report, synthesiser)
        train += t
        dev += d
    if "cwq" in chosen:
        examples = load_dataset(data_file("cwq/cwq.test.part-A.json"), "cwq")
        t, d = synthesised_pairs(examples, is_cwq_dev, "cwq-part-A", report, synthesiser)
        train += t
        dev += d
    return train, dev, report


def build_exemplar_memory(folder: str | Path) -> int:
    """Build the exemplar memory of the gold training pairs into ``folder`` (what ``nl2sparql
    setup`` does for a default planner that reads exemplars); the number of exemplars."""
    from nl2sparql.config import data_dir
    from nl2sparql.planner.exemplars import ExemplarMemory, memory_pairs

    data = data_dir()
    sources = ["webqsp"] + (["cwq"] if data is not None and (data / "cwq" / "cwq.test.part-A.json").is_file() else [])
    train, _, _ = gold_pairs(sources)
    memory = ExemplarMemory.build(memory_pairs(train))
    memory.save(folder)
    return len(memory.ids)
