"""The SPARQL compiler: typed AST, readers per dialect, validation, optimiser passes and generators.

The facade (rdflib's habit: one call per stage)::

    query = parse(text, dialect="virtuoso")   # text -> AST (SparqlSyntaxError on bad input)
    validate(query, catalog=predicates)       # SparqlValidationError when a rule is broken
    query = optimize(query, stats=counts)     # the passes of compiler/optimizer/, in order
    text = generate(query, "full-iri")        # AST -> text for Oxigraph / rdflib / Virtuoso
    key = canonical(query)                    # equal for queries equal up to renaming

``validate`` and ``canonical`` share their names with their modules, so they are bound
here eagerly (a module imported later cannot shadow them). The SPARQL reader
(``sparql.lark``, :mod:`.sparql_transformer`, :mod:`.parser`) is part of the compiler, as
it builds the compiler's nodes; it is imported on first use only because importing lark
costs start-up time that commands which never read SPARQL should not pay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nl2sparql.compiler.canonical import canonical
from nl2sparql.compiler.dialects import reader_for
from nl2sparql.compiler.errors import SparqlSyntaxError, SparqlValidationError
from nl2sparql.compiler.generator import generate
from nl2sparql.compiler.optimizer import optimize
from nl2sparql.compiler.validate import check, validate

if TYPE_CHECKING:
    from nl2sparql.compiler.parser import parse, parse_expression, parse_pattern

__all__ = [
    "SparqlSyntaxError",
    "SparqlValidationError",
    "canonical",
    "check",
    "generate",
    "optimize",
    "parse",
    "parse_expression",
    "parse_pattern",
    "reader_for",
    "validate",
]

_PARSER_NAMES = frozenset({"parse", "parse_expression", "parse_pattern"})


def __getattr__(name: str) -> Any:
    if name not in _PARSER_NAMES:
        raise AttributeError(f"module 'nl2sparql.compiler' has no attribute {name!r}")
    from nl2sparql.compiler import parser

    value = getattr(parser, name)
    globals()[name] = value
    return value
