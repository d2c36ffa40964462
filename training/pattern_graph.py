"""The relations a KG-pattern walk can take: a store-derived bank's statements with their extensions.

:mod:`.patterns` grounds query patterns by walking these. A relation is a one-input
graph statement of a bank built from the store (:mod:`nl2sparql.memory_bank.build_store`),
so a path through a CVT is one relation, worded as the memory words it. Statements the
memory cannot tell apart (the same embedded description) are one relation, the one that
comes first in the bank's order, because that is the one recall returns for a plan
sentence that says it. Each relation's extension is read with one SELECT and held in
memory (fine for graphs of up to a few million triples); statements that end at literals
are kept as *value* relations when the literals are numbers or ISO dates (comparisons and
superlatives need them) and left out otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nl2sparql.memory_bank.bank import embedding_text
from nl2sparql.memory_bank.build_store import FREEBASE_NS
from nl2sparql.memory_bank.statement import Entry, Statement
from nl2sparql.training import pattern_questions as say

#: an instance answers with 1 to this many entities (an anchor has at most this many outputs)
MAX_ANSWERS = 20

_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMBER_TYPES = frozenset(
    _XSD + t
    for t in ("integer", "decimal", "float", "double", "int", "long", "short", "nonNegativeInteger", "positiveInteger")
)
_DATE_TYPES = frozenset({_XSD + "date", _XSD + "dateTime"})
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_LOCAL_ID = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?")
_BAD_NAME = re.compile(r'[?{}";\n]')


@dataclass(frozen=True, slots=True)
class Relation:
    """A one-input statement with its extension in the store: ``forward[input] -> outputs``.

    ``kind`` is ``entity`` or, for statements that end at literals, ``number`` / ``date``
    (outputs are then the literals' lexical forms). ``anchors``: named inputs with 1 to
    :data:`MAX_ANSWERS` outputs (for value relations: every input with a value).
    """

    statement: Statement
    phrase: str
    forward: Mapping[str, tuple[str, ...]]
    backward: Mapping[str, tuple[str, ...]]
    anchors: tuple[str, ...]
    kind: str = "entity"

    def outputs(self, nodes: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for node in nodes:
            found.update(self.forward.get(node, ()))
        return found


def _rank(statement: Statement) -> tuple[int, int, str]:
    """The bank's order (and so recall's order among equal descriptions)."""
    return (statement.structure, -statement.support, statement.sparql)


def relation_statements(entries: Iterable[Entry]) -> list[Statement]:
    """One-input graph statements, one per embedded description (the first in the bank's order)."""
    best: dict[str, Statement] = {}
    for entry in entries:
        if not isinstance(entry, Statement) or len(entry.inputs) != 1 or entry.structure not in (1, 2):
            continue
        key = embedding_text(entry)
        if key not in best or _rank(entry) < _rank(best[key]):
            best[key] = entry
    return sorted(best.values(), key=_rank)


def store_statements(store: Any) -> list[Entry]:
    """The described statements of a bank built from ``store`` (no embedder needed)."""
    from nl2sparql.kg.freebase_schema import load_schema
    from nl2sparql.memory_bank.build_store import scan_store, statements_from_scan
    from nl2sparql.memory_bank.describe import TemplateDescriber, describe_all

    entries = statements_from_scan(scan_store(store))
    return describe_all(entries, TemplateDescriber(load_schema()))  # type: ignore[arg-type]


def _full_iris(sparql: str) -> str:
    return " ".join(f"<{FREEBASE_NS}{t[3:]}>" if t.startswith("ns:") else t for t in sparql.split())


def _local(iri: str) -> str | None:
    if not iri.startswith(FREEBASE_NS):
        return None
    local = iri[len(FREEBASE_NS) :]
    return local if _LOCAL_ID.fullmatch(local) else None


def _value_kind(terms: Sequence[Any]) -> str | None:
    """``number`` / ``date`` when every literal is a plain number / an ISO date, else ``None``."""
    if all(t.datatype in _NUMBER_TYPES and _PLAIN_NUMBER.fullmatch(t.value) for t in terms):
        return "number"
    if all(t.datatype in _DATE_TYPES and _ISO_DATE.match(t.value) for t in terms):
        return "date"
    return None


def read_relation(store: Any, statement: Statement) -> Relation | None:
    """``statement``'s extension in ``store`` (``None`` when it is empty or ends at strings)."""
    rows = store.select(f"SELECT DISTINCT ?e1 ?e2 WHERE {{ {_full_iris(statement.sparql)} }}").rows
    pairs = [(r["e1"], r["e2"]) for r in rows if "e1" in r and "e2" in r and r["e1"].type == "uri"]
    if not pairs:
        return None
    literal = [o for _, o in pairs if o.type == "literal"]
    if literal and len(literal) != len(pairs):
        return None
    kind = _value_kind(literal) if literal else "entity"
    if kind is None:
        return None
    forward: dict[str, set[str]] = {}
    backward: dict[str, set[str]] = {}
    for subject, obj in pairs:
        source = _local(subject.value)
        target = obj.value if kind != "entity" else _local(obj.value)
        if source is None or target is None:
            continue
        forward.setdefault(source, set()).add(target)
        backward.setdefault(target, set()).add(source)
    return Relation(
        statement,
        say.phrase(statement.description),
        {k: tuple(sorted(v)) for k, v in sorted(forward.items())},
        {k: tuple(sorted(v)) for k, v in sorted(backward.items())} if kind == "entity" else {},
        tuple(sorted(forward)),
        kind,
    )


def usable_name(name: str) -> bool:
    """Whether a name can stand in a question and a plan (no ``? { } " ;``, no final full stop)."""
    return bool(name.strip()) and not _BAD_NAME.search(name) and not name.rstrip().endswith(".")


class PatternGraph:
    """The relations of a store with their extensions, the names, and which relations meet at a node."""

    def __init__(self, relations: Sequence[Relation], names: Mapping[str, str]) -> None:
        self.names = dict(names)
        self.relations: list[Relation] = []
        self.values = [r for r in relations if r.kind != "entity"]
        for r in relations:
            if r.kind == "entity":
                anchors = tuple(a for a in r.anchors if a in self.names and len(r.forward[a]) <= MAX_ANSWERS)
                self.relations.append(Relation(r.statement, r.phrase, r.forward, r.backward, anchors))
        self.starts: dict[str, list[Relation]] = {}
        self.ends: dict[str, list[Relation]] = {}
        for r in self.relations:
            for node in r.forward:
                self.starts.setdefault(node, []).append(r)
            for node in r.backward:
                self.ends.setdefault(node, []).append(r)
        self.rooted = [r for r in self.relations if r.anchors]

    @classmethod
    def load(cls, store: Any, entries: Iterable[Entry], progress: Callable[[str], None] | None = None) -> PatternGraph:
        statements = relation_statements(entries)
        if progress:
            progress(f"reading {len(statements)} relations from the store")
        relations = [r for s in statements if (r := read_relation(store, s)) is not None]
        ids = sorted({n for r in relations for n in (*r.forward, *r.backward)})
        if progress:
            progress(f"reading names of {len(ids):,} nodes")
        names = {k: v for k, v in store.labels(ids).items() if usable_name(v)}
        return cls(relations, names)

    def unavailable(self, pattern: str) -> str | None:
        """Why ``pattern`` cannot be grounded in this graph (``None``: it can be)."""
        if not self.rooted:
            return "the store has no relation between named entities"
        if pattern in ("compare", "superlative") and not self.values:
            return "the store has no relation with numeric or date values"
        return None
