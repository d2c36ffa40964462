"""How often the entity linker finds a question's topic entity: top-1 and top-3 accuracy.

The pipeline can only answer a question whose entity it linked, so this figure bounds
everything after it. Measured on WebQSP questions whose gold topic entity
(``TopicEntityMid`` of the reference parse) is in the store; the others are counted and
left out. Two rows per dataset: the linker alone, and with a mention prior learned on
WebQSP train (for the dev split, on train without the dev questions, so nothing is learned
from the questions it is scored on). The dev split, ``WebQTrn-N`` with ``N % 10 == 0``,
is where the ranking weights were tuned; test part-A was never looked at while tuning.

    python -m nl2sparql.evaluation.linking_report --store ./store
    python -m nl2sparql.evaluation.linking_report --dataset webqsp-test --json

Without ``--store`` the FB15k-237 store is built once under the nl2sparql home folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from nl2sparql.config import data_file, home_dir
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.datasets import Example, load_dataset
from nl2sparql.kg.label_index import LabelIndex, load_or_build
from nl2sparql.kg.linker import EntityLinker
from nl2sparql.kg.mention_prior import MentionPrior
from nl2sparql.kg.store import Store, open_store

TRAIN = "webqsp/WebQSP.train.json"
TEST = "webqsp/WebQSP.test.part-A.json"
DATASETS = ("webqsp-test", "webqsp-dev")


@dataclass(frozen=True, slots=True)
class Accuracy:
    """Top-1 / top-3 hits of one linker setting on one question set."""

    setting: str
    considered: int
    top1: int
    top3: int
    ms_per_question: float

    @property
    def top1_rate(self) -> float:
        return self.top1 / self.considered if self.considered else 0.0

    @property
    def top3_rate(self) -> float:
        return self.top3 / self.considered if self.considered else 0.0


@dataclass(frozen=True, slots=True)
class DatasetReport:
    dataset: str
    questions: int
    in_store: int
    no_topic: int
    rows: tuple[Accuracy, ...]


def is_dev(example: Example) -> bool:
    """The WebQSP train dev split: ``WebQTrn-N`` with ``N % 10 == 0``."""
    number = example.id.rsplit("-", 1)[-1]
    return number.isdigit() and int(number) % 10 == 0


def topic_mid(example: Example) -> str | None:
    """The reference parse's topic entity."""
    parses = example.extra.get("parses") or ()
    return parses[0].topic_entity[0] if parses and parses[0].topic_entity else None


def default_store_path() -> Path:
    return home_dir() / "stores" / "fb15k-237"


def open_fb15k_store(path: Path | None) -> Store:
    """The store at ``path``; without one, the FB15k-237 store, built on first use."""
    if path is not None:
        if not path.is_dir():
            raise Nl2SparqlError(f"store folder {path} does not exist")
        return open_store("oxigraph", path=path)
    target = default_store_path()
    store = open_store("oxigraph", path=target)
    if store.stats().triples == 0:
        from nl2sparql.kg.fb15k237 import import_fb15k237

        print(f"building the FB15k-237 store in {target} (once)", file=sys.stderr)
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
            nt = Path(scratch) / "fb15k237.nt.gz"
            import_fb15k237(data_file("fb15k-237/train.txt").parent, nt)
            store.load(nt, progress=False)  # type: ignore[attr-defined]
    return store


def score(linker: EntityLinker, cases: Sequence[tuple[str, str]], setting: str) -> Accuracy:
    top1 = top3 = 0
    start = time.perf_counter()
    for question, mid in cases:
        ids = [c.entity_id for c in linker.link(question, k=3)]
        top1 += ids[:1] == [mid]
        top3 += mid in ids
    elapsed = time.perf_counter() - start
    return Accuracy(setting, len(cases), top1, top3, 1000 * elapsed / max(len(cases), 1))


def evaluate(
    index: LabelIndex, datasets: Sequence[str], with_prior: bool = True
) -> tuple[list[DatasetReport], dict[str, int]]:
    """Reports for each dataset, and how many questions each prior was learned from."""
    known = {index.entity_id(p) for p in range(len(index))}
    train = load_dataset(data_file(TRAIN), "webqsp")
    plain = EntityLinker(index)
    priors: dict[str, MentionPrior] = {}
    learned_from: dict[str, int] = {}
    if with_prior:
        for name, wanted in (("webqsp-test", lambda e: True), ("webqsp-dev", lambda e: not is_dev(e))):
            if name in datasets:
                examples = [(e.question, tuple(e.entities)) for e in train if e.entities and wanted(e)]
                priors[name] = MentionPrior.learn(examples, plain.ngram_candidates)
                learned_from[name] = len(examples)
    reports = []
    for name in datasets:
        examples = (
            load_dataset(data_file(TEST), "webqsp")
            if name == "webqsp-test"
            else [e for e in train if is_dev(e)]
        )
        mids = [topic_mid(e) for e in examples]
        cases = [(e.question, mid) for e, mid in zip(examples, mids, strict=True) if mid in known]
        rows = [score(plain, cases, "linker")]
        if name in priors:
            rows.append(
                score(EntityLinker(index, mention_prior=priors[name]), cases, "linker + mention prior")
            )
        reports.append(
            DatasetReport(name, len(examples), len(cases), sum(mid is None for mid in mids), tuple(rows))
        )
    return reports, learned_from


def _print(reports: Sequence[DatasetReport], learned_from: dict[str, int], store: str, entities: int) -> None:
    titles = {
        "webqsp-test": "WebQSP test part-A",
        "webqsp-dev": "WebQSP train dev split (WebQTrn-N, N % 10 == 0)",
    }
    print(f"entity linking, store {store} ({entities:,} named entities)")
    for report in reports:
        print(
            f"\n{titles[report.dataset]}: {report.questions} questions, topic entity in the store: "
            f"{report.in_store} (no topic entity: {report.no_topic})"
        )
        print(f"  {'setting':<24} {'top-1':>16} {'top-3':>16} {'ms/question':>12}")
        for row in report.rows:
            top1 = f"{row.top1} ({100 * row.top1_rate:.1f}%)"
            top3 = f"{row.top3} ({100 * row.top3_rate:.1f}%)"
            print(f"  {row.setting:<24} {top1:>16} {top3:>16} {row.ms_per_question:>12.2f}")
        if report.dataset in learned_from:
            print(f"  (mention prior learned on {learned_from[report.dataset]:,} WebQSP train questions)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nl2sparql.evaluation.linking_report",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m nl2sparql.evaluation.linking_report --store ./store\n"
        "  python -m nl2sparql.evaluation.linking_report --dataset webqsp-dev --no-prior --json\n",
    )
    parser.add_argument("--store", type=Path, help="Oxigraph store folder (default: FB15k-237, built once)")
    parser.add_argument(
        "--dataset", choices=(*DATASETS, "all"), default="all", help="question set (default: both)"
    )
    parser.add_argument("--no-prior", action="store_true", help="skip the mention-prior rows (faster)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    datasets = DATASETS if args.dataset == "all" else (args.dataset,)
    try:
        store = open_fb15k_store(args.store)
        index, build = load_or_build(store)
        reports, learned_from = evaluate(index, datasets, with_prior=not args.no_prior)
    except Nl2SparqlError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    where = str(getattr(store, "path", store))
    if args.json:
        out = {
            "store": where,
            "entities": len(index),
            "index_seconds": round(build.seconds, 3),
            "index_from_cache": build.loaded_from_cache,
            "prior_learned_from": learned_from,
            "datasets": [
                {
                    **asdict(r),
                    "rows": [
                        {**asdict(a), "top1_rate": a.top1_rate, "top3_rate": a.top3_rate} for a in r.rows
                    ],
                }
                for r in reports
            ],
        }
        print(json.dumps(out, indent=2))
    else:
        _print(reports, learned_from, where, len(index))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
