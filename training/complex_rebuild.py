"""The check every synthetic complex pair must pass: its plan rebuilds its own query through a bank.

The plan is compiled the way the oracle reconstruction does it (recall per step, the
compiler's lowering, CWQ's style of casts), and the result is compared with the
synthetic query by canonical form (equal up to variable names and the order of triples
and filters). A pair whose plan does not come back is left out with its reason:
``not in bank`` (a statement of the query is missing from the bank), ``recall`` (another
statement was chosen), ``lowering`` (the right statements, a different query) or
``compile`` (compiling raised).
"""

from __future__ import annotations

from typing import Any

from nl2sparql.compiler import canonical, parse
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.memory_bank.statement import Statement


def rebuild_failure(sparql: str, synthesis: Any, entities: dict[str, str], compiler: Any) -> str | None:
    """``None`` when the plan of ``synthesis`` compiles back to ``sparql``; else the reason."""
    expected = {i: e for i, e in synthesis.entries.items() if isinstance(e, Statement)}
    missing = [e.id for e in expected.values() if e.key not in compiler.bank]
    try:
        result = compiler.compile(synthesis.plan, entities)
    except Nl2SparqlError as exc:
        return "not in bank" if missing else f"compile: {type(exc).__name__}"
    if result.query is None:
        return "not in bank" if missing else "compile: no query"
    if canonical(result.query) == canonical(parse(sparql, "virtuoso")):
        return None
    if missing:
        return "not in bank"
    chosen = result.reconstruction.choices
    if any(i in chosen and chosen[i].sparql != e.sparql for i, e in expected.items()):
        return "recall"
    return "lowering"
