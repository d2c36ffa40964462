"""The memory bank: statements and constraints, their embeddings in FAISS, and recall over them.

Graph statements and constraints are searched in separate indexes: a plan's ``Find``
sentence should only ever come back with graph statements, its ``Make sure`` / ``Rank``
sentences with constraints. Row ``i`` of an index is entry ``i`` of its section. A bank
knows the embedder it was made with (name, dimension); recall embeds the sentence with the
same model. Merging keeps one entry per canonical SPARQL, sums the supports and reuses the
stored vectors, so no sentence is embedded twice.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from nl2sparql.memory_bank.describe import Describer
from nl2sparql.memory_bank.embedder import Embedder, default_embedder
from nl2sparql.memory_bank.errors import BankDimensionError, MemoryBankError
from nl2sparql.memory_bank.index import IndexSettings, VectorIndex
from nl2sparql.memory_bank.lazy_entries import LazyEntries
from nl2sparql.memory_bank.recall import Recall, RecallSettings, make_recall
from nl2sparql.memory_bank.statement import STRUCTURES, Constraint, Entry, Statement

SECTIONS = ("graph", "constraint")
FREEBASE_NS = "http://rdf.freebase.com/ns/"
DEFAULT_PREFIXES: dict[str, str] = {"ns": FREEBASE_NS, "xsd": "http://www.w3.org/2001/XMLSchema#"}


@dataclass(frozen=True, slots=True)
class BankMeta:
    """What a bank was made with and for. ``namespace`` is the one short entity ids are
    relative to (Freebase's ``ns:``), empty for a graph whose ids are full IRIs;
    ``prefixes`` are the KG's namespaces by prefix name."""

    embedder: str
    dimension: int
    namespace: str = FREEBASE_NS
    prefixes: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_PREFIXES))
    describer: str = "template"
    sources: tuple[str, ...] = ()


class StatementCollector:
    """Gathers entries from many queries: one record per canonical text, support = queries that had it."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._support: Counter[str] = Counter()

    def add_query(self, entries: Iterable[Entry]) -> None:
        seen: set[str] = set()
        for entry in entries:
            if entry.key in seen:
                continue
            seen.add(entry.key)
            self._entries.setdefault(entry.key, entry)
            self._support[entry.key] += 1

    def add(self, entry: Entry, support: int) -> None:
        self._entries.setdefault(entry.key, entry)
        self._support[entry.key] += support

    def entries(self) -> list[Entry]:
        return [replace(e, support=self._support[k]) for k, e in self._entries.items()]

    def __len__(self) -> int:
        return len(self._entries)


def _sorted(entries: Iterable[Entry]) -> tuple[list[Statement], list[Constraint]]:
    graph = [e for e in entries if isinstance(e, Statement)]
    cons = [e for e in entries if isinstance(e, Constraint)]
    graph.sort(key=lambda s: (s.structure, -s.support, _user_contributed(s), s.sparql))
    cons.sort(key=lambda c: (c.kind, -c.support, c.sparql))
    return graph, cons


_HEAD = re.compile(r"^\?e\d+ is ")
_SLOTS = re.compile(r"\?e\d+")


def _user_contributed(statement: Statement) -> bool:
    """Freebase's ``base.*`` domains were contributed by users; recall breaks an exact tie (the same
    description, the same support) by row order, so the curated domain's statement comes first
    (``education.educational_institution.school_type`` before ``base.services...school_type``)."""
    return any(p.startswith("base.") for p in statement.predicates)


def embedding_text(entry: Entry) -> str:
    """What is embedded for an entry: its description without the ``?e2 is`` head and the slots
    (``the sibling of the person``), the form a plan sentence takes once its entities are
    left out. Measured on the WebQSP dev split: recall@1 0.40 with the full description,
    0.72 with this form (before the support prior)."""
    text = _SLOTS.sub("", _HEAD.sub("", entry.description))
    return " ".join(text.split())


class MemoryBank:
    """Statements + constraints + one FAISS index per section."""

    def __init__(
        self,
        statements: Sequence[Statement],
        constraints: Sequence[Constraint],
        statement_index: VectorIndex,
        constraint_index: VectorIndex,
        meta: BankMeta,
        embedder: Embedder | None = None,
    ) -> None:
        if len(statement_index) != len(statements) or len(constraint_index) != len(constraints):
            raise MemoryBankError(
                f"index sizes ({len(statement_index)}, {len(constraint_index)}) do not match the entries "
                f"({len(statements)} statements, {len(constraints)} constraints)"
            )
        for idx in (statement_index, constraint_index):
            if idx.dimension != meta.dimension:
                raise BankDimensionError(
                    f"index dimension {idx.dimension} differs from the embedder dimension {meta.dimension}"
                )
        # a bank read from a file keeps its entries unmade until read (memory_bank/lazy_entries.py)
        self.statements: Sequence[Statement] = statements if isinstance(statements, LazyEntries) else tuple(statements)
        self.constraints: Sequence[Constraint] = (
            constraints if isinstance(constraints, LazyEntries) else tuple(constraints)
        )
        self._indexes = {"graph": statement_index, "constraint": constraint_index}
        self.meta = meta
        self._embedder = embedder

    @functools.cached_property
    def _by_key(self) -> dict[str, Entry]:
        return {e.key: e for e in (*self.statements, *self.constraints)}

    @functools.cached_property
    def _by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in (*self.statements, *self.constraints)}

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        entries: Iterable[Entry],
        embedder: Embedder | None = None,
        describer: Describer | None = None,
        index_settings: IndexSettings | None = None,
        sources: Sequence[str] = (),
        progress: bool = False,
        namespace: str = FREEBASE_NS,
        prefixes: dict[str, str] | None = None,
    ) -> MemoryBank:
        """Describe (where a description is missing), embed and index ``entries``."""
        embedder = embedder or default_embedder()
        items = list(entries)
        if describer is not None:
            items = [e if e.description else e.with_(description=describer.describe(e)) for e in items]
        missing = [e.id for e in items if not e.description]
        if missing:
            raise MemoryBankError(f"{len(missing)} entries have no description (first: {missing[0]})")
        graph, cons = _sorted(items)
        vectors = embedder.encode([embedding_text(e) for e in (*graph, *cons)], progress=progress)
        meta = BankMeta(
            embedder=embedder.name,
            dimension=embedder.dimension,
            describer=getattr(describer, "name", "template"),
            sources=tuple(sources),
            namespace=namespace,
            prefixes=dict(prefixes) if prefixes is not None else dict(DEFAULT_PREFIXES),
        )
        return cls._from_vectors(graph, cons, vectors, meta, embedder, index_settings)

    @classmethod
    def _from_vectors(
        cls,
        graph: list[Statement],
        cons: list[Constraint],
        vectors: np.ndarray,
        meta: BankMeta,
        embedder: Embedder | None,
        index_settings: IndexSettings | None,
    ) -> MemoryBank:
        vectors = vectors.reshape(len(graph) + len(cons), meta.dimension)
        return cls(
            graph,
            cons,
            VectorIndex.build(vectors[: len(graph)], index_settings),
            VectorIndex.build(vectors[len(graph) :], index_settings),
            meta,
            embedder,
        )

    # -- access --------------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        if self._embedder.dimension != self.meta.dimension:
            raise BankDimensionError(
                f"the bank was embedded with {self.meta.embedder} (dimension {self.meta.dimension}); "
                f"the embedder in use ({self._embedder.name}) has dimension {self._embedder.dimension}"
            )
        return self._embedder

    def index(self, section: str = "graph") -> VectorIndex:
        if section not in self._indexes:
            raise MemoryBankError(f"section must be one of {SECTIONS}, got {section!r}")
        return self._indexes[section]

    def entries(self, section: str = "graph") -> Sequence[Entry]:
        self.index(section)
        return self.statements if section == "graph" else self.constraints

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def get(self, key: str) -> Entry | None:
        """An entry by canonical key (statement SPARQL, or ``kind|sparql`` for a constraint)."""
        return self._by_key.get(key)

    def by_id(self, entry_id: str) -> Entry | None:
        return self._by_id.get(entry_id)

    def keys(self) -> frozenset[str]:
        return frozenset(self._by_key)

    def __len__(self) -> int:
        return len(self.statements) + len(self.constraints)

    def counts(self) -> dict[str, dict[str, int]]:
        structures = Counter(s.structure for s in self.statements)
        kinds = Counter(c.kind for c in self.constraints)
        return {
            "structure": {str(k): structures.get(k, 0) for k in STRUCTURES},
            "constraint": dict(sorted(kinds.items())),
        }

    # -- recall --------------------------------------------------------------------------------

    def recall(self, sentence: str, section: str = "graph", settings: RecallSettings | None = None) -> Recall:
        return self.recall_batch([sentence], section, settings)[0]

    def recall_batch(
        self, sentences: Sequence[str], section: str = "graph", settings: RecallSettings | None = None
    ) -> list[Recall]:
        """Adaptive recall for each sentence, embedded in one batch."""
        settings = settings or RecallSettings()
        index = self.index(section)
        entries = self.entries(section)
        if not sentences:
            return []
        vectors = self.embedder.encode(list(sentences))
        scores, ids = index.search(vectors, settings.search_k)
        return [
            make_recall(sentence, entries, scores[row], ids[row], settings) for row, sentence in enumerate(sentences)
        ]

    def recall_vectors(
        self, vectors: np.ndarray, section: str = "graph", settings: RecallSettings | None = None
    ) -> list[Recall]:
        """Recall for sentences already embedded (tuning, benchmarks)."""
        settings = settings or RecallSettings()
        scores, ids = self.index(section).search(vectors, settings.search_k)
        entries = self.entries(section)
        return [make_recall("", entries, scores[r], ids[r], settings) for r in range(len(scores))]

    # -- merging -------------------------------------------------------------------------------

    def merge(self, other: MemoryBank) -> MemoryBank:
        return merge(self, other)


def merge(a: MemoryBank, b: MemoryBank, index_settings: IndexSettings | None = None) -> MemoryBank:
    """One bank with the entries of both: shared entries once with supports added, vectors reused."""
    if a.meta.dimension != b.meta.dimension or a.meta.embedder != b.meta.embedder:
        raise BankDimensionError(
            f"cannot merge banks embedded with different models: {a.meta.embedder} ({a.meta.dimension}) "
            f"and {b.meta.embedder} ({b.meta.dimension})"
        )
    if a.meta.namespace != b.meta.namespace:
        raise MemoryBankError(f"cannot merge banks over different KGs: {a.meta.namespace} and {b.meta.namespace}")
    merged: dict[str, Entry] = {}
    vectors: dict[str, np.ndarray] = {}
    for bank in (a, b):
        for section in SECTIONS:
            stored = bank.index(section).vectors()
            for row, entry in enumerate(bank.entries(section)):
                if entry.key in merged:
                    merged[entry.key] = replace(merged[entry.key], support=merged[entry.key].support + entry.support)
                else:
                    merged[entry.key] = entry
                    vectors[entry.key] = stored[row]
    graph, cons = _sorted(merged.values())
    ordered = [vectors[e.key] for e in (*graph, *cons)]
    matrix = np.vstack(ordered) if ordered else np.zeros((0, a.meta.dimension), dtype=np.float32)
    meta = replace(
        a.meta,
        prefixes={**b.meta.prefixes, **a.meta.prefixes},
        sources=tuple(dict.fromkeys((*a.meta.sources, *b.meta.sources))),
        describer=a.meta.describer
        if a.meta.describer == b.meta.describer
        else f"{a.meta.describer}+{b.meta.describer}",
    )
    return MemoryBank._from_vectors(graph, cons, matrix, meta, a._embedder or b._embedder, index_settings)
