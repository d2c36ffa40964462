"""Memory records: graph statements (MemQ structures 1 / 2 / 3) and constraint statements.

A statement is identified by its canonical SPARQL (slots ``?e1 ?e2 ...`` numbered inputs
first, the CVT as ``?cvt``), so the same statement found in many queries or in two banks is
one record; ``id`` is derived from that text, which keeps ids stable across builds and
merges. Constraints (an entity a variable must equal, a comparison, a time window on a CVT,
an order with a limit, a count) are kept apart from graph statements: a plan's ``Find``
steps recall graph statements, its ``Make sure`` / ``Rank`` / ``Count`` steps constraints.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nl2sparql.memory_bank.errors import BankFormatError

STRUCTURES: tuple[int, ...] = (1, 2, 3)
CONSTRAINT_KINDS: tuple[str, ...] = ("equals", "comparison", "time_window", "order", "count")
CVT_SLOT = "?cvt"
NS_PREFIX = "ns:"
#: slots separated by single spaces (a statement's inputs and output, joined)
_SLOTS = re.compile(r"\?e[1-9][0-9]*(?: \?e[1-9][0-9]*)*")


def slot(n: int) -> str:
    """The ``n``-th statement slot (``slot(1) == "?e1"``)."""
    return f"?e{n}"


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


@dataclass(frozen=True, slots=True)
class Triple:
    """One triple pattern of a statement: slots, ``?cvt`` or ``ns:`` prefixed names."""

    subject: str
    predicate: str
    object: str

    def text(self) -> str:
        return f"{self.subject} {self.predicate} {self.object} ."


def render_triples(triples: tuple[Triple, ...]) -> str:
    return " ".join(t.text() for t in triples)


def parse_triples(sparql: str) -> tuple[Triple, ...]:
    """Read back the canonical text ``s p o . s p o .`` that :func:`render_triples` writes."""
    tokens = _checked_tokens(sparql)
    return tuple(Triple(*tokens[i : i + 3]) for i in range(0, len(tokens), 4))


def _checked_tokens(sparql: str) -> list[str]:
    """The tokens of ``s p o . s p o .``, checked for the shape of that text."""
    tokens = sparql.split()
    if len(tokens) % 4 or not tokens:
        raise BankFormatError(f"statement SPARQL is not a list of 's p o .' triples: {sparql!r}")
    for i in range(3, len(tokens), 4):
        if tokens[i] != ".":
            raise BankFormatError(f"statement SPARQL misses a '.' after triple {i // 4 + 1}: {sparql!r}")
    return tokens


@dataclass(frozen=True, slots=True)
class Statement:
    """A graph statement: a path between non-CVT nodes that passes through at most one CVT."""

    id: str
    structure: int
    sparql: str
    inputs: tuple[str, ...]
    output: str
    description: str
    predicates: tuple[str, ...]
    support: int = 1

    kind = "graph"

    @property
    def key(self) -> str:
        return self.sparql

    @property
    def triples(self) -> tuple[Triple, ...]:
        return parse_triples(self.sparql)

    @classmethod
    def create(
        cls,
        structure: int,
        triples: tuple[Triple, ...],
        inputs: tuple[str, ...],
        output: str,
        support: int = 1,
    ) -> Statement:
        sparql = render_triples(triples)
        predicates = tuple(dict.fromkeys(t.predicate.removeprefix(NS_PREFIX) for t in triples))
        return cls(
            id=f"s-{_digest(sparql)}",
            structure=structure,
            sparql=sparql,
            inputs=inputs,
            output=output,
            description="",
            predicates=predicates,
            support=support,
        )

    def with_(self, **changes: Any) -> Statement:
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "structure": self.structure,
            "sparql": self.sparql,
            "inputs": list(self.inputs),
            "output": self.output,
            "description": self.description,
            "predicates": list(self.predicates),
            "support": self.support,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any], where: str = "statement") -> Statement:
        # a bank reads tens of thousands of these before a fresh ``ask`` can plan: checks stay cheap
        try:
            stmt = cls(
                id=str(record["id"]),
                structure=int(record["structure"]),
                sparql=str(record["sparql"]),
                inputs=tuple(map(str, record["inputs"])),
                output=str(record["output"]),
                description=str(record["description"]),
                predicates=tuple(map(str, record["predicates"])),
                support=int(record.get("support", 1)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BankFormatError(f"{where}: bad graph statement record ({exc!r})") from exc
        if stmt.structure not in STRUCTURES:
            raise BankFormatError(f"{where}: structure must be one of {STRUCTURES}, got {stmt.structure}")
        slots = " ".join((*stmt.inputs, stmt.output))
        if not _SLOTS.fullmatch(slots) or slots.count(" ") != len(stmt.inputs):
            raise BankFormatError(f"{where}: inputs and output must be slots ?e1, ?e2, ...")
        _checked_tokens(stmt.sparql)
        return stmt


@dataclass(frozen=True, slots=True)
class Constant:
    """A constant a constraint keeps because it carries meaning (``ns:m.05zppz`` = Male)."""

    term: str
    label: str


@dataclass(frozen=True, slots=True)
class Constraint:
    """A constraint statement: FILTER / EXISTS time window / ORDER BY+LIMIT / COUNT, kept apart."""

    id: str
    kind: str
    sparql: str
    inputs: tuple[str, ...]
    description: str
    predicates: tuple[str, ...] = ()
    constants: tuple[Constant, ...] = ()
    support: int = 1

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.sparql}"

    @classmethod
    def create(
        cls,
        kind: str,
        sparql: str,
        inputs: tuple[str, ...],
        predicates: tuple[str, ...] = (),
        constants: tuple[Constant, ...] = (),
        support: int = 1,
    ) -> Constraint:
        if kind not in CONSTRAINT_KINDS:
            raise ValueError(f"constraint kind must be one of {CONSTRAINT_KINDS}, got {kind!r}")
        return cls(
            id=f"c-{_digest(f'{kind}|{sparql}')}",
            kind=kind,
            sparql=sparql,
            inputs=inputs,
            description="",
            predicates=predicates,
            constants=constants,
            support=support,
        )

    def with_(self, **changes: Any) -> Constraint:
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "sparql": self.sparql,
            "inputs": list(self.inputs),
            "description": self.description,
            "predicates": list(self.predicates),
            "constants": [{"term": c.term, "label": c.label} for c in self.constants],
            "support": self.support,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any], where: str = "constraint") -> Constraint:
        try:
            item = cls(
                id=str(record["id"]),
                kind=str(record["kind"]),
                sparql=str(record["sparql"]),
                inputs=tuple(str(x) for x in record["inputs"]),
                description=str(record["description"]),
                predicates=tuple(str(x) for x in record.get("predicates", ())),
                constants=tuple(Constant(str(c["term"]), str(c["label"])) for c in record.get("constants", ())),
                support=int(record.get("support", 1)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BankFormatError(f"{where}: bad constraint record ({exc!r})") from exc
        if item.kind not in CONSTRAINT_KINDS:
            raise BankFormatError(f"{where}: constraint kind must be one of {CONSTRAINT_KINDS}, got {item.kind!r}")
        return item


Entry = Statement | Constraint


def entry_section(record: Any, where: str) -> str:
    """The section of a ``statements.jsonl`` record: ``graph`` (it has ``structure``) or
    ``constraint`` (it has ``kind``)."""
    if not isinstance(record, Mapping):
        raise BankFormatError(f"{where}: expected a JSON object")
    if "structure" in record:
        return "graph"
    if "kind" in record:
        return "constraint"
    raise BankFormatError(f"{where}: record has neither 'structure' (graph) nor 'kind' (constraint)")


def entry_from_json(record: Mapping[str, Any], where: str) -> Entry:
    """A ``statements.jsonl`` line, as the entry of its section."""
    maker = Statement if entry_section(record, where) == "graph" else Constraint
    return maker.from_json(record, where)
