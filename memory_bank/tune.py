"""Choose the adaptive-recall thresholds (MemQ eq. 4) on the WebQSP dev split, and say how well recall works.

Dev split: WebQSP train questions ``WebQTrn-N`` with ``N % 10 == 0``; the bank is built
from the other train questions, exactly as ``bank build`` builds one, so dev statements the
rest of train never had are missing from it, as unseen statements are at test time.

Queries, per gold graph statement of a dev question:

* ``grounded``: the statement's description as a plan sentence would say it: the
  ``?e2 is`` head dropped and inputs replaced by the entity names the question links
  (``the sibling of the person Justin Bieber``); what the planner is trained to write;
* ``question``: the question itself (a lower bound: one question, several statements).

For each, recall@k over the queries whose gold statement is in the bank. Then
``gamma1`` is the lowest threshold at which the best match is right at least
``precision`` of the time, and ``gamma2`` the one that keeps the gold statement in the
selection most often while selecting at most ``max_mean`` statements on average.

Measured (``nl2sparql bank tune``; 309 dev questions, 397 gold statements, 376 of them in
the 1,170-statement bank built from the other train questions):

=========================  ======  ======  ======  =======
queries                    R@1     R@3     R@5     R@10
=========================  ======  ======  ======  =======
grounded, no prior         0.838   0.963   0.987   0.997
grounded, support prior    0.928   0.992   0.995   1.000
question, support prior    0.279   0.465   0.572   0.662
=========================  ======  ======  ======  =======

With the prior, top-1 precision first reaches 0.93 at ``gamma1 = 0.75`` (44.6% of the
queries are then answered by one statement, precision 0.932); with it, ``gamma2 = 0.55``
keeps the gold statement in the selection for 91.2% of all dev statements (96% of those
in the bank) while selecting 1.90 statements on average (``max_n = 5``). These are the defaults of
:class:`~nl2sparql.memory_bank.recall.RecallSettings`. The grounded queries are written
from this describer's own descriptions, so real planner sentences will score lower.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.build_queries import QueryDecomposer, collect_from_examples, stored_entries
from nl2sparql.memory_bank.embedder import Embedder
from nl2sparql.memory_bank.recall import RecallSettings, select
from nl2sparql.memory_bank.statement import Statement

KS = (1, 3, 5, 10)
_HEAD = re.compile(r"^\?e\d+ is (?:the |what |who )?")


def is_dev(example_id: str) -> bool:
    """``WebQTrn-N`` with ``N % 10 == 0``."""
    try:
        return int(example_id.rsplit("-", 1)[1]) % 10 == 0
    except (IndexError, ValueError):
        return False


def ground(description: str, bindings: Mapping[str, str], labels: Mapping[str, str], output: str) -> str:
    """``?e2 is the sibling of the person ?e1`` -> ``the sibling of the person Justin Bieber``."""
    text = _HEAD.sub("the ", description, count=1) if description.startswith(output) else description
    if text.startswith("the what") or text.startswith("the who"):
        text = text[4:]
    for slot_name, term in sorted(bindings.items(), key=lambda kv: -len(kv[0])):
        if slot_name in (output, "?cvt"):
            continue
        name = labels.get(term) or (term if term.startswith("?") else term.removeprefix("ns:"))
        text = text.replace(slot_name, name)
    return text


@dataclass(slots=True)
class QuerySet:
    texts: list[str] = field(default_factory=list)
    gold: list[int] = field(default_factory=list)  # bank row of the gold statement, -1 if absent


@dataclass(slots=True)
class TuneReport:
    dev_questions: int
    bank_statements: int
    dev_statements: int
    in_bank: int
    recall_at: dict[str, dict[int, float]]
    grid: list[dict[str, float]]
    gamma1: float
    gamma2: float
    max_n: int
    chosen: dict[str, float]
    examples: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "dev_questions": self.dev_questions,
            "bank_statements": self.bank_statements,
            "dev_statements": self.dev_statements,
            "dev_statements_in_bank": self.in_bank,
            "recall_at": {q: {str(k): round(v, 4) for k, v in r.items()} for q, r in self.recall_at.items()},
            "gamma1": self.gamma1,
            "gamma2": self.gamma2,
            "max_n": self.max_n,
            "chosen": self.chosen,
            "grounded_examples": self.examples,
        }


Ranked = list[tuple[float, int]]  # (score, bank row), best first


def _rank_of(ranked: Ranked, gold: int) -> int:
    """0-based rank of the gold row; -2 when the gold statement is not in the bank, a big
    number when it is but was not among the candidates."""
    if gold < 0:
        return -2
    return next((r for r, (_, row) in enumerate(ranked) if row == gold), 10**6)


def recall_at(ranked: Sequence[Ranked], gold: Sequence[int]) -> dict[int, float]:
    ranks = np.array([_rank_of(r, g) for r, g in zip(ranked, gold, strict=True)])
    found = ranks[ranks >= 0]
    if not len(found):
        return dict.fromkeys(KS, 0.0)
    return {k: float(np.mean(found < k)) for k in KS}


def evaluate(ranked: Sequence[Ranked], gold: Sequence[int], settings: RecallSettings) -> dict[str, float]:
    """Hit rate of the adaptive selection (gold among the selected), mean size, top-1 precision."""
    hits = sizes = sure = sure_right = 0
    for candidates, g in zip(ranked, gold, strict=True):
        n, rule = select([score for score, _ in candidates], settings)
        sizes += n
        hits += int(g >= 0 and any(row == g for _, row in candidates[:n]))
        if rule == "top1":
            sure += 1
            sure_right += int(candidates[0][1] == g)
    total = max(len(gold), 1)
    return {
        "hit_rate": hits / total,
        "mean_selected": sizes / total,
        "top1_share": sure / total,
        "top1_precision": sure_right / sure if sure else 1.0,
    }


def rank_all(bank: MemoryBank, vectors: np.ndarray, support_weight: float) -> list[Ranked]:
    settings = RecallSettings(candidates=50, support_weight=support_weight)
    row_of = {s.key: i for i, s in enumerate(bank.statements)}
    return [
        [(c.score, row_of[c.entry.key]) for c in r.candidates] for r in bank.recall_vectors(vectors, "graph", settings)
    ]


def tune(
    examples: Sequence[Any],
    embedder: Embedder | None = None,
    decomposer: QueryDecomposer | None = None,
    precision: float = 0.93,
    max_mean: float = 2.0,
    max_n: int = 5,
    cwq: Sequence[Any] = (),
    with_schema: bool = False,
    store_cwq: bool = True,
) -> TuneReport:
    """Recall@k and the thresholds, on the WebQSP dev split (and the CWQ dev split when ``cwq``
    is given), with a bank built as the default is from everything else: WebQSP train less
    its dev split, CWQ part A less its dev split (unless not ``store_cwq``), and with
    ``with_schema`` the schema's statements."""
    from nl2sparql.kg.splits import is_cwq_dev

    decomposer = decomposer or QueryDecomposer()
    dev_sets = {"": [e for e in examples if is_dev(e.id)]}
    stored = [e for e in examples if not is_dev(e.id)]
    if cwq:
        dev_sets["cwq dev "] = [e for e in cwq if is_cwq_dev(e)]
        stored += [e for e in cwq if not is_cwq_dev(e)] if store_cwq else []
    entries, _ = collect_from_examples(stored, decomposer)
    entries = stored_entries(entries, decomposer.schema, True, with_schema)
    bank = MemoryBank.build(entries, embedder=embedder, describer=decomposer.describer, sources=("webqsp-train-dev",))
    row_of = {s.key: i for i, s in enumerate(bank.statements)}
    sets: dict[str, QuerySet] = {}
    dev_statements = in_bank = 0
    for prefix, dev in dev_sets.items():
        grounded, question = (
            sets.setdefault(f"{prefix}grounded", QuerySet()),
            sets.setdefault(f"{prefix}question", QuerySet()),
        )
        for example in dev:
            try:
                result = decomposer.decompose_example(example)
            except Exception:  # noqa: BLE001 - a dev question that does not decompose has no gold
                continue
            labels = {f"ns:{k}": v for k, v in (example.entities or {}).items() if v}
            for occ in result.statements:
                stmt = occ.entry
                assert isinstance(stmt, Statement)
                dev_statements += 1
                gold = row_of.get(stmt.key, -1)
                in_bank += gold >= 0
                grounded.texts.append(ground(stmt.description, dict(occ.bindings), labels, stmt.output))
                grounded.gold.append(gold)
                question.texts.append(example.question)
                question.gold.append(gold)
    figures: dict[str, dict[int, float]] = {}
    ranked: list[Ranked] = []
    gold: list[int] = []
    for name, qs in sets.items():
        vectors = bank.embedder.encode(qs.texts)
        for weight in (0.0, RecallSettings().support_weight):
            ranks = rank_all(bank, vectors, weight)
            figures[f"{name}, support prior {weight}"] = recall_at(ranks, qs.gold)
            if name.endswith("grounded") and weight:
                ranked += ranks
                gold += qs.gold
    grid = []
    for g1 in np.arange(0.50, 1.001, 0.05):
        for g2 in np.arange(0.30, g1 + 1e-9, 0.05):
            settings = RecallSettings(gamma1=round(float(g1), 2), gamma2=round(float(g2), 2), max_n=max_n)
            figures_at = evaluate(ranked, gold, settings)
            grid.append({"gamma1": settings.gamma1, "gamma2": settings.gamma2, **figures_at})
    sure = [g for g in grid if g["top1_precision"] >= precision]
    gamma1 = min((g["gamma1"] for g in sure), default=1.0)
    candidates = [g for g in grid if g["gamma1"] == gamma1 and g["mean_selected"] <= max_mean]
    pool = candidates or [g for g in grid if g["gamma1"] == gamma1]
    best = max(pool, key=lambda g: (g["hit_rate"], g["gamma2"]))
    return TuneReport(
        dev_questions=sum(len(dev) for dev in dev_sets.values()),
        bank_statements=len(bank.statements),
        dev_statements=dev_statements,
        in_bank=in_bank,
        recall_at=figures,
        grid=grid,
        gamma1=gamma1,
        gamma2=best["gamma2"],
        max_n=max_n,
        chosen={k: round(v, 4) for k, v in best.items()},
        examples=sets["grounded"].texts[:5],
    )
