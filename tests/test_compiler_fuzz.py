"""Mutated gold queries: the readers raise nothing but SparqlSyntaxError (with a line and
a column), and whatever still reads round-trips through every generator and validates
without crashing. The big run (10,000 mutants) is slow; a small one runs always."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compiler_gold import gold_queries

from nl2sparql.compiler import (
    SparqlSyntaxError,
    SparqlValidationError,
    canonical,
    generate,
    optimize,
    parse,
    reader_for,
)
from nl2sparql.compiler.validate import check

TOKEN = re.compile(r"\s+|[A-Za-z_?$:.][\w.:-]*|<[^>\s]*>|\"[^\"]*\"|'[^']*'|\S")
PIECES = list("{}()[].;,?!^|/*+-=<>\"'#@:_$") + [
    "FILTER",
    "OPTIONAL",
    "UNION",
    " OR ",
    "&&",
    "SELECT",
    "?x",
    "ns:a.b",
    "1.5e3",
    "\n",
]


@functools.cache
def corpus() -> list[str]:
    return [text for name in ("webqsp", "cwq", "grailqa") for _, text in gold_queries(name)]


@st.composite
def mutants(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(corpus()))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "swap", "truncate", "drop-token", "repeat-token"]))
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        if kind == "delete":
            text = text[:at] + text[at + 1 :]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
        elif kind == "swap" and at + 1 < len(text):
            text = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
        elif kind == "truncate":
            text = text[:at]
        else:
            tokens = TOKEN.findall(text)
            index = draw(st.integers(0, len(tokens) - 1))
            tokens[index : index + 1] = [] if kind == "drop-token" else [tokens[index]] * 2
            text = "".join(tokens)
    return text


def survive(text: str) -> str:
    """What happened to one mutant; raises if anything but the product's errors escapes."""
    outcome = "refused"
    for reader in ("virtuoso", "sparql11"):
        try:
            query = parse(text, reader)
        except SparqlSyntaxError as error:
            assert error.line >= 1 and error.column >= 1, error
            continue
        outcome = "read"
        for dialect in ("sparql11", "full-iri", "virtuoso"):
            assert parse(generate(query, dialect), reader_for(dialect)) == query
        check(query, run=True)
        try:
            optimize(query)
            canonical(query)
        except SparqlValidationError:
            pass
    return outcome


def test_known_nasty_mutants() -> None:
    for text in [
        "",
        "{",
        "SELECT",
        "SELECT ?x {",
        '"""',
        "SELECT * { ?x ?p 1e }",
        "SELECT * { FILTER(((((1" + ")" * 5,
    ]:
        survive(text)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_mutated_gold_queries_small(text: str) -> None:
    survive(text)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutants())
def test_mutated_gold_queries_10000(text: str) -> None:
    survive(text)
