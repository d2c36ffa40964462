"""Pattern pairs on disk and their check: what ``nl2sparql planner data --patterns N`` runs.

The pairs go after the gold pairs in ``train.jsonl`` (never into ``dev.jsonl``: the dev
split measures the gold plans); the instances, with their queries and answers, go to
``patterns.jsonl`` beside them so that any pair can be audited or checked again.
The check is the data's correctness test: each plan is reconstructed through a bank
built from the same store (recall, lowering, execution-guided repair, as the service
does it) and its answers on the store are compared with the grounded answers.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.memory_bank.statement import Entry
from nl2sparql.planner.errors import PlannerDataError
from nl2sparql.planner.pairs import TRAIN_FILE, PlanPair, is_pattern_pair, read_pairs, write_pairs
from nl2sparql.training.pattern_graph import store_statements
from nl2sparql.training.patterns import Instance, PatternReport, generate_instances

PATTERN_FILE = "patterns.jsonl"


def add_pairs(path: str | Path, pairs: Sequence[PlanPair]) -> int:
    """Append ``pairs`` to the pair file ``path`` (rewritten atomically); the number of pairs now in it."""
    path = Path(path)
    existing = read_pairs(path, check_plans=False) if path.is_file() and path.stat().st_size else []
    taken = {p.id for p in existing}
    clash = next((p.id for p in pairs if p.id in taken), None)
    if clash is not None:
        raise PlannerDataError(f"{path}: id {clash!r} is already in the file")
    return write_pairs(path, [*existing, *pairs])


def exemplars_for_patterns(folder: str | Path, memory: Any, k: int) -> int:
    """Give the KG-pattern pairs of ``folder``'s train file the ``k`` exemplars of the gold pairs'
    ``memory`` nearest to their questions (a pattern question is in no memory); how many."""
    from nl2sparql.planner.exemplars import with_exemplars

    path = Path(folder) / TRAIN_FILE
    pairs = read_pairs(path, check_plans=False)
    patterns = [p for p in pairs if is_pattern_pair(p)]
    given = {p.id: p for p in with_exemplars(patterns, memory, k, own=False)}
    write_pairs(path, [given.get(p.id, p) for p in pairs])
    return len(given)


def write_instances(path: str | Path, instances: Iterable[Instance]) -> None:
    """The instances with their queries and answers, one JSON object a line (for audits and checks)."""
    from nl2sparql.kg.atomic import write_atomic

    write_atomic(path, "".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in instances))


def open_store_folder(location: str | Path | None) -> Any:
    """A read-only store at ``location`` (an Oxigraph folder or an endpoint URL; default: the home store)."""
    from nl2sparql.config import home_dir
    from nl2sparql.kg.store import open_store

    text = str(location) if location is not None else str(home_dir() / "store")
    if text.startswith(("http://", "https://")):
        return open_store("endpoint", url=text)
    folder = Path(text).expanduser()
    if not folder.is_dir() or not any(folder.iterdir()):
        raise PlannerDataError(
            f"--store {text}: no such store folder "
            "(build one with `nl2sparql setup` or `nl2sparql kg load FILE --store DIR`)"
        )
    return open_store("oxigraph", path=str(folder))


@dataclass(slots=True)
class PatternData:
    """What :func:`write_pattern_data` did: the pattern report, the check, and the train file's size."""

    report: PatternReport
    train: int
    instances: int
    check: CheckReport | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"patterns": self.report.to_json(), "train": self.train, "instances": self.instances}
        if self.check is not None:
            out["check"] = self.check.to_json()
        return out

    def lines(self) -> list[str]:
        return self.report.lines() + (self.check.lines() if self.check is not None else [])


def write_pattern_data(
    out: str | Path,
    store: Any,
    total: int,
    seed: int = 0,
    check: int = 0,
    progress: Callable[[str], None] | None = None,
) -> PatternData:
    """Ground ``total`` pattern instances in ``store``, add their pairs to ``out/train.jsonl``,
    write the instances (queries and answers) to ``out/patterns.jsonl`` and, with ``check``,
    reconstruct that many of them through a bank built from the store (loads the embedder)."""
    out = Path(out)
    bank = None
    if check:
        from nl2sparql.memory_bank.build_store import build_bank_from_store

        if progress:
            progress("building a memory bank from the store (for the check)")
        bank, _ = build_bank_from_store(store)
        entries: Iterable[Entry] = bank.statements
    else:
        if progress:
            progress("reading the store's statements")
        entries = store_statements(store)
    instances, report = generate_instances(store, total, seed, entries=entries, progress=progress)
    train = add_pairs(out / TRAIN_FILE, [i.pair for i in instances])
    write_instances(out / PATTERN_FILE, instances)
    result = PatternData(report, train, len(instances))
    if bank is not None:
        if progress:
            progress(f"checking {min(check, len(instances))} pattern plans by reconstruction")
        result.check = check_instances(sample_instances(instances, check, seed), bank, store)
    return result


# -- the check ------------------------------------------------------------------------------------


@dataclass(slots=True)
class CheckReport:
    """How many reconstructed plans gave exactly the grounded answers, per pattern."""

    checked: Counter[str] = field(default_factory=Counter)
    agreed: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        total = sum(self.checked.values())
        return sum(self.agreed.values()) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": sum(self.checked.values()),
            "agreed": sum(self.agreed.values()),
            "rate": round(self.rate, 4),
            "by_pattern": {p: [self.agreed[p], n] for p, n in self.checked.items()},
            "failures": self.failures[:20],
        }

    def lines(self) -> list[str]:
        total, agreed = sum(self.checked.values()), sum(self.agreed.values())
        per = ", ".join(f"{p} {self.agreed[p]}/{n}" for p, n in self.checked.items())
        return [f"check: {agreed}/{total} reconstructed plans give the grounded answers ({self.rate:.1%})", f"  {per}"]


def sample_instances(instances: Sequence[Instance], size: int, seed: int = 0) -> list[Instance]:
    """Up to ``size`` instances, the same share from every pattern (seeded)."""
    groups: dict[str, list[Instance]] = {}
    for instance in instances:
        groups.setdefault(instance.pattern, []).append(instance)
    rng = random.Random(f"{seed}:check")
    for group in groups.values():
        rng.shuffle(group)
    chosen: list[Instance] = []
    while len(chosen) < size and any(groups.values()):
        for group in groups.values():
            if group and len(chosen) < size:
                chosen.append(group.pop())
    return chosen


def check_instances(instances: Iterable[Instance], bank: Any, store: Any) -> CheckReport:
    """Reconstruct each instance's plan through ``bank`` on ``store`` and compare the answers."""
    from nl2sparql.reconstruction import PlanCompiler

    compiler = PlanCompiler(bank)
    report = CheckReport()
    for instance in instances:
        report.checked[instance.pattern] += 1
        try:
            result = compiler.compile(instance.pair.output, instance.entities, store=store)
            got = tuple(sorted(set(result.answers or ())))
            error = result.reconstruction.error
        except Nl2SparqlError as exc:
            got, error = (), f"{type(exc).__name__}: {exc}"
        if got == instance.answers:
            report.agreed[instance.pattern] += 1
        else:
            report.failures.append(
                {"id": instance.id, "want": list(instance.answers)[:5], "got": list(got)[:5], "error": error}
            )
    return report
