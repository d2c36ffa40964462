"""A memory bank from gold queries (WebQSP train, or any file of questions with SPARQL).

Each gold query is parsed by the compiler (Virtuoso dialect for WebQSP / CWQ), read into
a :class:`QueryGraph` with the example's topic entities and names, and decomposed with
the Freebase schema judging CVTs. The same statement from many queries is one entry whose
support is the number of queries that had it. What could not be decomposed is counted by
reason, so a build says how much of its input it understood.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.compiler import SparqlSyntaxError
from nl2sparql.kg.freebase_schema import FreebaseSchema, load_schema
from nl2sparql.kg.graph_schema import GraphSchema
from nl2sparql.memory_bank.bank import MemoryBank, StatementCollector
from nl2sparql.memory_bank.build_store import all_readings, is_freebase, statement_prefixes
from nl2sparql.memory_bank.cvt import CvtJudge, SchemaJudge, StructuralJudge
from nl2sparql.memory_bank.decompose import Decomposition, decompose
from nl2sparql.memory_bank.describe import Describer, TemplateDescriber
from nl2sparql.memory_bank.describe_graph import GraphDescriber
from nl2sparql.memory_bank.embedder import Embedder
from nl2sparql.memory_bank.errors import DecompositionError, MemoryBankError
from nl2sparql.memory_bank.from_ast import graph_from_text
from nl2sparql.memory_bank.index import IndexSettings
from nl2sparql.memory_bank.statement import Entry

DATASETS = {
    "webqsp-train": "webqsp/WebQSP.train.json",
    "webqsp-test": "webqsp/WebQSP.test.part-A.json",
    "cwq-test": "cwq/cwq.test.part-A.json",
}
# Named parts of a dataset: (dataset, the dev split or the rest). A dev split is for measuring only.
SPLITS: dict[str, tuple[str, bool]] = {
    "cwq-train": ("cwq-test", False),
    "cwq-dev": ("cwq-test", True),
    "webqsp-dev": ("webqsp-train", True),
}
# What ``nl2sparql setup`` builds the default bank from (with the Freebase schema statements).
DEFAULT_SOURCES: tuple[str, ...] = ("webqsp-train", "cwq-train")


def example_topics(example: Any) -> list[str]:
    """Topic entities of an :class:`~nl2sparql.kg.datasets.Example`: WebQSP's parse topic
    (its ``entities`` also hold constraint values such as Male), else every linked entity."""
    parses = (getattr(example, "extra", None) or {}).get("parses")
    if parses:
        topic = getattr(parses[0], "topic_entity", None)
        return [topic[0]] if topic else []
    return list(getattr(example, "entities", {}) or {})


def load_examples(source: str, format: str | None = None) -> list[Any]:
    """``webqsp-train`` / ``webqsp-test`` / ``cwq-test``, a split of them (``cwq-train``: CWQ part
    A less its dev split; ``cwq-dev``; ``webqsp-dev``) from the data folder, or a dataset file;
    ``a,b`` reads several."""
    if "," in source and not Path(source).exists():
        return [e for part in source.split(",") if part.strip() for e in load_examples(part.strip(), format)]
    if source in SPLITS:
        from nl2sparql.kg.splits import is_cwq_dev, is_webqsp_dev

        whole, dev_part = SPLITS[source]
        is_dev = is_cwq_dev if whole.startswith("cwq") else is_webqsp_dev
        return [e for e in load_examples(whole, format) if is_dev(e) == dev_part]
    from nl2sparql.config import data_file
    from nl2sparql.kg.datasets import load_dataset

    path = data_file(DATASETS[source]) if source in DATASETS else Path(source)
    return load_dataset(path, format)


class QueryDecomposer:
    """Parse -> query graph -> statements, with one schema, CVT judge and describer."""

    def __init__(
        self,
        schema: FreebaseSchema | None = None,
        judge: CvtJudge | None = None,
        describer: Describer | None = None,
        dialect: str = "virtuoso",
    ) -> None:
        if schema is None and judge is None:
            schema = load_schema()
        self.schema = schema
        self.judge = judge or (SchemaJudge(schema) if schema is not None else StructuralJudge())
        self.describer = describer or TemplateDescriber(schema)
        self.dialect = dialect
        self._descriptions: dict[str, str] = {}

    def describe(self, entry: Entry) -> str:
        key = entry.key
        text = self._descriptions.get(key)
        if text is None:
            text = self._descriptions[key] = self.describer.describe(entry)
        return text

    def decompose(
        self, text: str, topics: Iterable[str] = (), labels: Mapping[str, str] | None = None
    ) -> Decomposition:
        try:
            graph = graph_from_text(text, self.dialect, topics, labels)
        except SparqlSyntaxError as exc:
            raise DecompositionError(f"gold query does not parse: {exc}") from exc
        return decompose(graph, self.judge, self.describe)

    def decompose_example(self, example: Any) -> Decomposition:
        if not getattr(example, "gold_sparql", None):
            raise DecompositionError(f"{example.id}: no gold SPARQL")
        labels = {f"ns:{k}": v for k, v in (example.entities or {}).items() if v}
        return self.decompose(example.gold_sparql, [f"ns:{t}" for t in example_topics(example)], labels)


@dataclass(slots=True)
class BuildReport:
    """What a build from queries read and what it could not use."""

    queries: int = 0
    decomposed: int = 0
    complete: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    problems: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": self.queries,
            "decomposed": self.decomposed,
            "complete": self.complete,
            "failed": dict(self.failed.most_common()),
            "problems": dict(self.problems.most_common(20)),
        }


def _problem_kind(problem: str) -> str:
    return problem.split(" ?")[0].split(" ns:")[0].split(" <")[0][:60]


def collect_from_examples(
    examples: Sequence[Any],
    decomposer: QueryDecomposer | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Entry], BuildReport]:
    decomposer = decomposer or QueryDecomposer()
    collector = StatementCollector()
    report = BuildReport()
    for example in examples:
        report.queries += 1
        try:
            result = decomposer.decompose_example(example)
        except MemoryBankError as exc:
            report.failed[str(exc).split(":")[1].strip()[:60] if ":" in str(exc) else str(exc)] += 1
            if progress:
                progress(1)
            continue
        report.decomposed += 1
        report.complete += result.complete
        for problem in result.problems:
            report.problems[_problem_kind(problem)] += 1
        collector.add_query(o.entry for o in (*result.statements, *result.constraints))
        if progress:
            progress(1)
    return collector.entries(), report


def build_bank_from_queries(
    examples: Sequence[Any],
    embedder: Embedder | None = None,
    decomposer: QueryDecomposer | None = None,
    index_settings: IndexSettings | None = None,
    source: str = "queries",
    progress: bool = False,
    every_reading: bool = True,
    with_schema: bool = False,
) -> tuple[MemoryBank, BuildReport]:
    """Decompose every example's gold query and embed the statements into a bank.

    With ``every_reading`` (the default) the bank also holds the other readings of what the
    queries state, with support 0: the reverse direction of each predicate and every
    input/output choice through each CVT signature seen (measured: CWQ part-A coverage by a
    WebQSP-train bank 8% -> 44%). With ``with_schema`` it also holds every statement the
    Freebase schema allows (:mod:`~nl2sparql.memory_bank.schema_statements`), support 0."""
    decomposer = decomposer or QueryDecomposer()
    bar = _bar(len(examples), "decompose", progress)
    entries, report = collect_from_examples(examples, decomposer, bar.update if bar else None)
    if bar:
        bar.close()
    entries = stored_entries(entries, decomposer.schema, every_reading, with_schema)
    if not entries:
        raise MemoryBankError(f"no statements from {report.queries} queries ({dict(report.failed)})")
    describer, kg = decomposer.describer, {}
    if not is_freebase(entries):
        # Queries over another graph: its namespaces, and descriptions from local names.
        describer = GraphDescriber(GraphSchema())
        entries = [e.with_(description="") for e in entries]
        kg = {"namespace": "", "prefixes": statement_prefixes(entries)}
    bank = MemoryBank.build(
        entries,
        embedder=embedder,
        describer=describer,
        index_settings=index_settings,
        sources=(source,),
        progress=progress,
        **kg,
    )
    return bank, report


def stored_entries(
    entries: list[Entry], schema: FreebaseSchema | None, every_reading: bool, with_schema: bool
) -> list[Entry]:
    """The query log's entries plus, on request, their other readings and the schema's statements."""
    if every_reading:
        entries = all_readings(entries, literal_predicate(schema), reverse_of(schema))
    if with_schema:
        if schema is None:
            raise MemoryBankError("schema statements need the Freebase schema (freebase-ontology/)")
        from nl2sparql.memory_bank.schema_statements import schema_statements

        collector = StatementCollector()
        for entry in entries:
            collector.add(entry, entry.support)
        for stmt in schema_statements(schema):
            collector.add(stmt, 0)
        entries = collector.entries()
    return entries


def literal_predicate(schema: FreebaseSchema | None) -> Callable[[str], bool]:
    """Whether a predicate's values are literals (its range is a ``type.*`` value type)."""

    def test(predicate: str) -> bool:
        rng = schema.range(predicate) if schema is not None else None
        return rng is not None and schema.is_value_type(rng)  # type: ignore[union-attr]

    return test


def reverse_of(schema: FreebaseSchema | None) -> Callable[[str], str | None]:
    return schema.reverse if schema is not None else (lambda predicate: None)


def _bar(total: int, desc: str, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="query")
