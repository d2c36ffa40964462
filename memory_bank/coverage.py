"""How much of a question set a bank can rebuild: the share of gold queries whose every graph
statement is in the bank.

This is the ceiling of memory-based reconstruction: a query with a statement the bank
lacks cannot be rebuilt from recalled statements, whatever the planner writes. Queries
that did not decompose completely (a FILTER form with no statement kind) are counted
apart, and the statements most often missing are listed, since they say what to add.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nl2sparql.memory_bank.build_queries import QueryDecomposer
from nl2sparql.memory_bank.errors import MemoryBankError
from nl2sparql.memory_bank.statement import Statement


@dataclass(slots=True)
class CoverageReport:
    dataset: str
    queries: int = 0
    with_statements: int = 0
    covered: int = 0  # every graph statement of the query is in the bank
    covered_complete: int = 0  # ... and the query decomposed with nothing left over
    statements: int = 0
    statements_found: int = 0
    by_structure: dict[int, list[int]] = field(default_factory=lambda: {1: [0, 0], 2: [0, 0], 3: [0, 0]})
    missing: Counter[str] = field(default_factory=Counter)
    by_category: dict[str, list[int]] = field(default_factory=dict)  # category -> [covered, queries]

    @property
    def fraction(self) -> float:
        return self.covered / self.queries if self.queries else 0.0

    def to_json(self, top: int = 10) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "queries": self.queries,
            "with_statements": self.with_statements,
            "covered": self.covered,
            "covered_fraction": round(self.fraction, 4),
            "covered_complete": self.covered_complete,
            "statements": self.statements,
            "statements_found": self.statements_found,
            "statement_recall_by_structure": {
                str(k): {"found": v[0], "total": v[1]} for k, v in self.by_structure.items()
            },
            "most_missing": [{"sparql": k, "queries": n} for k, n in self.missing.most_common(top)],
            "by_category": {c: {"covered": v[0], "queries": v[1]} for c, v in sorted(self.by_category.items())},
        }

    def line(self) -> str:
        parts = [
            f"{self.dataset}: {self.covered}/{self.queries} queries covered ({self.fraction:.1%})",
            f"statements {self.statements_found}/{self.statements}",
            "by structure " + " ".join(f"{k}:{v[0]}/{v[1]}" for k, v in self.by_structure.items()),
        ]
        if self.by_category:
            parts.append("by category " + " ".join(f"{c}:{v[0]}/{v[1]}" for c, v in sorted(self.by_category.items())))
        return "; ".join(parts)


def coverage(
    keys: Iterable[str] | Any,
    examples: Sequence[Any],
    dataset: str,
    decomposer: QueryDecomposer | None = None,
) -> CoverageReport:
    """Coverage of ``examples`` by a bank (or any collection of statement keys)."""
    have = keys.keys() if hasattr(keys, "keys") and callable(keys.keys) else frozenset(keys)
    decomposer = decomposer or QueryDecomposer()
    report = CoverageReport(dataset)
    for example in examples:
        report.queries += 1
        tally = report.by_category.setdefault(getattr(example, "category", None) or "none", [0, 0])
        tally[1] += 1
        try:
            result = decomposer.decompose_example(example)
        except MemoryBankError:
            continue
        graph = {o.entry.key: o.entry for o in result.statements if isinstance(o.entry, Statement)}
        if not graph:
            continue
        report.with_statements += 1
        found = [k for k in graph if k in have]
        report.statements += len(graph)
        report.statements_found += len(found)
        for key, stmt in graph.items():
            report.by_structure[stmt.structure][1] += 1
            if key in have:
                report.by_structure[stmt.structure][0] += 1
            else:
                report.missing[key] += 1
        if len(found) == len(graph):
            tally[0] += 1
            report.covered += 1
            report.covered_complete += result.complete
    return report
