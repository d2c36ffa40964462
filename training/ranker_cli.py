"""``nl2sparql ranker train``: enumerate, label and train the ranker in one resumable command.

The candidates are enumerated by the agent over a store and its bank (the home ones
unless ``--store``/``--bank`` say otherwise), for the questions of each ``--dataset``
whose gold query answers there; each question's groups land in ``WORK/<dataset>.jsonl``
as they are made, so a stopped run goes on where it stopped (``--resume``). Dev questions
of WebQSP and CWQ never enter (:mod:`nl2sparql.kg.splits`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from nl2sparql.errors import Nl2SparqlError

EPILOG = """examples:
  nl2sparql ranker train --work runs/ranker --out ranker/model/ranker.safetensors
  nl2sparql ranker train --dataset my-questions-qald.json --format qald --store S --bank B \\
      --work runs/my-ranker --out my-ranker.safetensors --resume
  nl2sparql ask "..." --ranker my-ranker.safetensors
"""
DIALECTS = {"webqsp": "virtuoso", "cwq": "virtuoso"}
MAX_QUESTIONS = 20_000


def _examples(path: Path, fmt: str, limit: int | None) -> list:
    from nl2sparql.kg.datasets import load_dataset
    from nl2sparql.kg.splits import is_cwq_dev, is_webqsp_dev

    examples = load_dataset(str(path), fmt)
    dev = {"cwq": is_cwq_dev, "webqsp": is_webqsp_dev}
    examples = [e for e in examples if e.dataset not in dev or not dev[e.dataset](e)]
    return examples[: min(limit or MAX_QUESTIONS, MAX_QUESTIONS)]


def _collect(args: argparse.Namespace, work: Path) -> list:
    from nl2sparql.config import data_file

    datasets = [Path(p) for p in args.dataset] if args.dataset else [data_file("webqsp/WebQSP.train.json")]
    fmt = args.format or ("webqsp" if not args.dataset else "qald")
    for path in datasets:
        if not path.is_file():
            raise Nl2SparqlError(f"no dataset at {path}")
    groups = []
    with _pipeline(args.store, args.bank) as pipeline:
        for path in datasets:
            groups += _dataset_groups(args, pipeline, path, fmt, work / f"{path.stem}.jsonl")
        if args.patterns:
            groups += _pattern_groups(args, pipeline, work)
    if args.renamed:
        store, bank, questions = _renamed_kg(work / "renamed", data_file("webqsp/WebQSP.train.json"))
        with _pipeline(str(store), str(bank)) as pipeline:
            groups += _dataset_groups(args, pipeline, questions, "qald", work / "renamed.jsonl")
    return groups


def _pipeline(store: str | None, bank: str | None) -> Any:
    from nl2sparql.pipeline import Pipeline

    return Pipeline.from_settings(store=store, bank=bank, candidates="graph", ranker="zero-shot")


def _groups_into(args: argparse.Namespace, out: Path, label: str, make: Callable[[set[str]], Iterable]) -> list:
    """The groups ``make`` labels, appended to ``out`` as they come; with ``--resume`` the
    groups already in ``out`` are kept and ``make`` is told their ids so as not to make them again."""
    from nl2sparql.training.ranker_data import read_groups, write_groups

    if out.exists() and not args.resume:
        out.unlink()
    done = {g.id for g in read_groups(out)} if out.exists() else set()
    began = time.perf_counter()
    for made, _ in enumerate(write_groups(make(done), out, done), len(done) + 1):
        if not args.quiet and made % 50 == 0:
            print(f"{label}: {made} groups ({time.perf_counter() - began:.0f} s)", file=sys.stderr)
    return read_groups(out)


def _dataset_groups(args: argparse.Namespace, pipeline: Any, path: Path, fmt: str, out: Path) -> list:
    """The labelled groups of one dataset's questions."""
    from nl2sparql.training.ranker_data import dataset_groups

    examples = _examples(path, fmt, args.limit_questions)
    dialect = DIALECTS.get(fmt, "sparql11")
    return _groups_into(
        args, out, path.name, lambda done: dataset_groups(pipeline.discriminator, examples, path.stem, dialect, done)
    )


def _renamed_kg(folder: Path, webqsp: Path) -> tuple[Path, Path, Path]:
    """The home graph with its words renamed (:mod:`.renamed_graph`), loaded, with its bank
    and the WebQSP questions rewritten for it; each part is built once and kept."""
    from nl2sparql.config import home_dir
    from nl2sparql.kg.store import open_store
    from nl2sparql.memory_bank.bank_file import save_bank
    from nl2sparql.memory_bank.build_store import build_bank_from_store
    from nl2sparql.memory_bank.embedder import default_embedder
    from nl2sparql.training.renamed_graph import run

    questions, store_dir, bank = folder / "questions-qald.json", folder / "store", folder / "bank.nl2sq"
    if not questions.is_file():
        source = home_dir() / "fb15k237.nt.gz"
        if not source.is_file():
            raise Nl2SparqlError(f"no {source}: run `nl2sparql setup` first")
        run(source, webqsp, folder)
    loaded = folder / "store.loaded"  # a load cut short leaves no marker: the store is made again
    if not loaded.is_file() or not bank.is_file():
        shutil.rmtree(store_dir, ignore_errors=True)
        store = open_store("oxigraph", path=store_dir)
        try:
            store.load(folder / "graph.nt.gz", progress=False)
            loaded.touch()
            built, _ = build_bank_from_store(store, embedder=default_embedder(), source="renamed")
        finally:
            store.close()
        save_bank(built, bank)
    return store_dir, bank, questions


def _pattern_groups(args: argparse.Namespace, pipeline: Any, work: Path) -> list:
    """Groups of ``--patterns`` questions written over the store."""
    from nl2sparql.training.patterns import generate_instances
    from nl2sparql.training.ranker_data import pattern_groups

    instances, _ = generate_instances(pipeline.store, args.patterns, seed=args.seed)
    return _groups_into(
        args, work / "patterns.jsonl", "patterns", lambda done: pattern_groups(pipeline.discriminator, instances, done)
    )


def _train(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.embedder import bundled_model_dir
    from nl2sparql.training.ranker_train import RankerTraining, train_ranker

    if not 0 <= args.patterns <= MAX_QUESTIONS:
        raise Nl2SparqlError(f"--patterns must be 0 to {MAX_QUESTIONS}, got {args.patterns}")
    if not 1 <= args.epochs <= 20:
        raise Nl2SparqlError(f"--epochs must be 1 to 20, got {args.epochs}")
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    groups = _collect(args, work)
    if not groups:
        raise Nl2SparqlError("no question had a right candidate among the agent's: nothing to train on")
    settings = RankerTraining(epochs=args.epochs, seed=args.seed)
    log = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr))
    report = train_ranker(groups, bundled_model_dir(), args.out, work, settings, args.resume, log)
    (work / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    group = subparsers.add_parser("ranker", help="train the ranker that chooses among candidates")
    commands = group.add_subparsers(dest="ranker_command", metavar="SUBCOMMAND", required=True)
    train = commands.add_parser(
        "train", help="enumerate, label and train (resumable)", epilog=EPILOG, formatter_class=formatter
    )
    train.add_argument(
        "--dataset", action="append", help="questions with gold SPARQL (repeatable; default WebQSP train)"
    )
    train.add_argument("--format", help="the datasets' format: webqsp, cwq, qald, ... (default webqsp, else qald)")
    train.add_argument("--store", help="the store candidates are built over (default: the home store)")
    train.add_argument("--bank", help="its memory bank (default: the home bank)")
    train.add_argument("--work", type=Path, required=True, help="folder for the labelled groups and checkpoints")
    train.add_argument("--out", type=Path, required=True, help="the ranker file to write")
    train.add_argument(
        "--patterns", type=int, default=0, metavar="N", help="also N questions written over the store's statements"
    )
    train.add_argument(
        "--renamed", action="store_true", help="also WebQSP over the home graph with its words renamed (not Freebase's)"
    )
    train.add_argument("--epochs", type=int, default=3)
    train.add_argument("--seed", type=int, default=13)
    train.add_argument("--limit-questions", type=int, metavar="N", help="at most N questions of each dataset")
    train.add_argument("--resume", action="store_true", help="keep the groups and checkpoint already in --work")
    train.add_argument("--quiet", action="store_true")
    train.set_defaults(func=_train)
