"""Planner pairs for complex questions: WebQSP train queries extended as CWQ extended them.

``nl2sparql planner data --complex N`` adds up to N pairs to ``train.jsonl`` (never to
``dev.jsonl``), spread evenly over composition, conjunction, comparative and superlative.
Each starts from a WebQSP train question outside the dev split
(:mod:`~nl2sparql.training.complex_source`), is extended with a well-typed relation and a
real entity or value (:mod:`~nl2sparql.training.complex_extend`,
:mod:`~nl2sparql.training.complex_facts`), gets a question from templates
(:mod:`~nl2sparql.training.complex_verbalise`) and its plan from the gold-plan synthesiser,
and is kept only when that plan rebuilds its own query through the bank
(:mod:`~nl2sparql.training.complex_rebuild`). Every attempt, kept or not, goes to
``complex.jsonl`` with its query, plan and reason, and the report counts the exceptions.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.freebase_schema import FreebaseSchema
from nl2sparql.planner.pairs import PlanPair, make_pair
from nl2sparql.planner.target_text import STEP_SEPARATOR
from nl2sparql.training.complex_extend import CATEGORIES, Extension, numeric_paths
from nl2sparql.training.complex_extend import comparative as _comparative
from nl2sparql.training.complex_extend import composition as _composition
from nl2sparql.training.complex_extend import conjunction as _conjunction
from nl2sparql.training.complex_extend import superlative as _superlative
from nl2sparql.training.complex_facts import FactIndex, build_fact_index, training_records
from nl2sparql.training.complex_rebuild import rebuild_failure
from nl2sparql.training.complex_source import Source, read_source
from nl2sparql.training.complex_verbalise import VerbaliseError, verbalise

COMPLEX_FILE = "complex.jsonl"
#: the largest --complex accepted: four pairs per WebQSP train question is more than it can give
MAX_COMPLEX = 20_000


@dataclass
class ComplexReport:
    """What one run built, kept and left out (by category and reason), and how long it took."""

    sources: int = 0
    tried: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    exceptions: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    name: str = "complex"

    def to_json(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "tried": dict(self.tried),
            "kept": dict(self.kept),
            "exceptions": dict(self.exceptions.most_common()),
            "seconds": round(self.seconds, 1),
        }

    def lines(self) -> list[str]:
        kept = ", ".join(f"{c} {self.kept[c]}/{self.tried[c]}" for c in self.tried)
        lines = [f"{self.name} pairs from {self.sources} WebQSP train questions (kept/rebuilt of tried): {kept}"]
        lines.append(f"{self.name} pairs took {self.seconds:.0f} s")
        if self.exceptions:
            lines.append(f"{self.name} left out: " + "; ".join(f"{k} {v}" for k, v in self.exceptions.most_common()))
        return lines


class ComplexBuilder:
    """Builds, verbalises, synthesises and checks synthetic complex pairs with one set of resources."""

    #: what its pairs are called in reports, and the categories it builds
    name = "complex"
    categories: tuple[str, ...] = CATEGORIES
    #: how many pairs of a category one source may give (each a fresh draw; 1 unless named)
    turns: ClassVar[Mapping[str, int]] = {}

    def __init__(self, schema: FreebaseSchema, facts: FactIndex, synthesiser: Any, compiler: Any) -> None:
        self.schema = schema
        self.facts = facts
        self.synthesiser = synthesiser
        self.compiler = compiler
        self.paths = numeric_paths(schema)

    def extend(self, source: Source, category: str, rng: random.Random) -> Extension | str:
        """The ``category`` extension of ``source``, or why there is none."""
        if category == "composition":
            return _composition(source, self.facts, self.schema, rng)
        if category == "conjunction":
            return _conjunction(source, self.facts, self.schema, rng)
        if category == "comparative":
            return _comparative(source, self.facts, self.schema, rng, self.paths)
        if category == "superlative":
            return _superlative(source, self.facts, self.schema, rng, self.paths)
        raise ValueError(f"unknown category {category!r}; known: {', '.join(CATEGORIES)}")

    def verbalise(self, extension: Extension, source: Source, rng: random.Random) -> str:
        """The question of ``extension`` (:class:`VerbaliseError` when none can be written)."""
        return verbalise(extension, source, self.synthesiser.decomposer)

    def attempt(
        self, source: Source, category: str, seed: int = 0, turn: int = 1
    ) -> tuple[PlanPair | None, dict[str, Any]]:
        """One synthetic pair (``None`` when left out) and its record for ``complex.jsonl``;
        a later ``turn`` of the same source and category draws again (its id ends ``-<category><turn>``)."""
        label = category if turn == 1 else f"{category}{turn}"
        rng = random.Random(f"{seed}:{source.id}:{category}" + (f":{turn}" if turn > 1 else ""))
        record: dict[str, Any] = {"id": f"{source.id}-{label}", "source": source.id, "category": category}
        extension = self.extend(source, category, rng)
        if isinstance(extension, str):
            return None, record | {"status": f"no extension: {extension}"}
        record |= {"sparql": extension.sparql, "entities": dict(extension.entities), "detail": dict(extension.detail)}
        try:
            record["question"] = question = self.verbalise(extension, source, rng)
            synthesis = self.synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
        except VerbaliseError as exc:
            return None, record | {"status": "verbalise", "error": str(exc)}
        except Nl2SparqlError as exc:
            return None, record | {"status": "synthesis", "error": str(exc)[:300]}
        record |= {"plan": synthesis.text.splitlines(), "type": synthesis.plan.type}
        failure = rebuild_failure(extension.sparql, synthesis, dict(extension.entities), self.compiler)
        if failure is not None:
            return None, record | {"status": f"rebuild: {failure}"}
        pair = make_pair(record["id"], question, extension.entities, synthesis.plan)
        if STEP_SEPARATOR.strip() in pair.output:
            return None, record | {"status": "plan holds ';'"}
        return pair, record | {"status": "kept"}


def complex_pairs(
    builder: ComplexBuilder,
    sources: Sequence[Source],
    total: int,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[PlanPair], list[dict[str, Any]], ComplexReport]:
    """Up to ``total`` pairs, an equal share per category of ``builder``, from ``sources`` in a seeded
    order; a source gives up to ``builder.turns[category]`` pairs of a category (one unless named),
    drawn until one is left out."""
    if not 0 <= total <= MAX_COMPLEX:
        raise ValueError(f"the number of complex pairs must be between 0 and {MAX_COMPLEX}, not {total}")
    start = time.perf_counter()
    report, categories = ComplexReport(sources=len(sources), name=builder.name), builder.categories
    quota = {c: total // len(categories) + (i < total % len(categories)) for i, c in enumerate(categories)}
    order = list(sources)
    random.Random(seed).shuffle(order)
    pairs: list[PlanPair] = []
    records: list[dict[str, Any]] = []
    draws = _draws(builder, categories)
    for number, source in enumerate(order, 1):
        failed: set[str] = set()  # a later turn would fail as its first did: the chain is the source's
        for category, turn in draws:
            if report.kept[category] >= quota[category] or category in failed:
                continue
            pair, record = builder.attempt(source, category, seed, turn)
            if not record["status"].startswith("no extension"):
                report.tried[category] += 1
                records.append(record)
            if pair is None:
                failed.add(category)
                report.exceptions[f"{category}: {record['status']}"] += 1
                continue
            report.kept[category] += 1
            pairs.append(pair)
        if all(report.kept[c] >= quota[c] for c in categories):
            break
        if progress and number % 250 == 0:
            progress(f"{report.name}: {number}/{len(order)} questions, kept {sum(report.kept.values())}")
    report.seconds = time.perf_counter() - start
    return pairs, records, report


def _draws(builder: ComplexBuilder, categories: Sequence[str]) -> list[tuple[str, int]]:
    """Each category with each of its turns, the first turns of all categories first."""
    most = max((builder.turns.get(c, 1) for c in categories), default=1)
    return [(c, turn) for turn in range(1, most + 1) for c in categories if turn <= builder.turns.get(c, 1)]


class Loaded(NamedTuple):
    """What the complex and shape pairs are built from, loaded once for both."""

    builder: ComplexBuilder
    sources: list[Source]
    records: list[dict[str, Any]]


def load_builder(bank: str | Path | Any) -> Loaded:
    """The builder over the Freebase schema, the WebQSP train facts and ``bank``, its sources
    and the WebQSP train records (outside the dev split) they come from."""
    from nl2sparql.config import data_file
    from nl2sparql.kg.freebase_schema import load_schema
    from nl2sparql.memory_bank.bank_file import load_bank
    from nl2sparql.reconstruction import PlanCompiler, freebase_options
    from nl2sparql.training.synthesise import PlanSynthesiser

    schema = load_schema()
    records = training_records(data_file("webqsp/WebQSP.train.json"))
    facts = build_fact_index(records, schema)
    memory = load_bank(bank) if isinstance(bank, (str, Path)) else bank
    compiler = PlanCompiler(memory, options=freebase_options("cwq", schema))
    sources = [s for s in (read_source(r, schema) for r in records) if isinstance(s, Source)]
    return Loaded(ComplexBuilder(schema, facts, PlanSynthesiser(), compiler), sources, records)


def write_complex_data(
    out: str | Path,
    total: int,
    loaded: Loaded,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    exemplars: tuple[Any, int] | None = None,
) -> tuple[int, ComplexReport]:
    """Add up to ``total`` complex pairs to ``out/train.jsonl`` and every attempt to ``complex.jsonl``;
    the number of training pairs now in ``train.jsonl`` and the report. ``exemplars``: (memory,
    k) to end each input with k exemplars, never one of the pair's own source question.
    ``loaded``: what :func:`load_builder` loads (the bank the pairs must rebuild through)."""
    return write_built_pairs(Path(out) / COMPLEX_FILE, loaded.builder, loaded.sources, total, seed, progress, exemplars)


def write_built_pairs(
    attempts: Path,
    builder: ComplexBuilder,
    sources: Sequence[Source],
    total: int,
    seed: int,
    progress: Callable[[str], None] | None,
    exemplars: tuple[Any, int] | None,
) -> tuple[int, ComplexReport]:
    """Build up to ``total`` pairs of ``builder``'s categories, add them to the ``train.jsonl`` beside
    ``attempts`` and write every attempt to ``attempts``; the pairs now in the train file."""
    from nl2sparql.kg.atomic import write_atomic
    from nl2sparql.planner.pairs import TRAIN_FILE
    from nl2sparql.training.pattern_data import add_pairs

    pairs, records, report = complex_pairs(builder, sources, total, seed, progress)
    if exemplars is not None:
        from nl2sparql.planner.exemplars import with_exemplars

        memory, k = exemplars
        pairs = with_exemplars(pairs, memory, k, own=True, sources=[source_question(p.id) for p in pairs])
    write_atomic(attempts, _jsonl(records))
    return add_pairs(attempts.parent / TRAIN_FILE, pairs), report


def source_question(pair_id: str) -> str:
    """The id of the WebQSP question a complex pair was made from.

    >>> source_question("WebQTrn-12-superlative")
    'WebQTrn-12'
    """
    return pair_id.rsplit("-", 1)[0]


def _jsonl(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
