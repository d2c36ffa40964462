"""The validator: each rule catches its mistake with a clear message and lets correct
queries through; warnings are warnings unless strict."""

from __future__ import annotations

import warnings

import pytest

from nl2sparql.compiler import SparqlValidationError, parse, validate
from nl2sparql.compiler.errors import CartesianProductWarning
from nl2sparql.compiler.validate import check
from nl2sparql.errors import Nl2SparqlError

P = "PREFIX : <http://ex.org/>\n"


def codes(text: str, **options: object) -> list[tuple[str, str]]:
    return [(p.level, p.code) for p in check(parse(P + text), **options)]  # type: ignore[arg-type]


def test_a_correct_query_has_no_problems() -> None:
    text = """SELECT ?x (COUNT(?y) AS ?n) WHERE { ?x :p ?y OPTIONAL { ?y :q ?z } BIND (?x AS ?w) }
              GROUP BY ?x HAVING (COUNT(?y) > 1) ORDER BY DESC(?n)"""
    assert codes(text) == []
    validate(parse(P + text))


@pytest.mark.parametrize(
    ("text", "problems", "message"),
    [
        (
            "SELECT ?y WHERE { ?x :p ?z }",
            [("error", "unbound-projection")],
            "SELECT projects ?y, which the pattern never binds",
        ),
        (
            "SELECT ?x ?y WHERE { ?x :p ?y } GROUP BY ?x",
            [("error", "aggregate")],
            "?y is projected but neither grouped",
        ),
        (
            "SELECT ?x (COUNT(?y) AS ?n) WHERE { ?x :p ?y }",
            [("error", "aggregate")],
            "?x is projected but neither grouped",
        ),
        (
            "SELECT (?y + COUNT(?y) AS ?n) WHERE { ?x :p ?y }",
            [("error", "aggregate")],
            "uses ?y outside an aggregate",
        ),
        (
            "SELECT * WHERE { ?x :p ?y } GROUP BY ?x",
            [("error", "aggregate")],
            "SELECT * cannot be used with GROUP BY",
        ),
        ("SELECT (1 AS ?x) WHERE { ?x :p ?y }", [("error", "alias-rebinds")], "already binds"),
        (
            "SELECT ?x WHERE { ?x :p ?y BIND (1 AS ?y) }",
            [("error", "bind-rebinds")],
            "rebinds a variable bound before it",
        ),
        (
            "SELECT ?x WHERE { ?x :p ?y FILTER (COUNT(?y) > 1) }",
            [("error", "aggregate")],
            "cannot be used in FILTER",
        ),
        (
            "SELECT ?x WHERE { ?x :p ?y } GROUP BY ?x HAVING (?y > 1)",
            [("error", "aggregate")],
            "HAVING uses ?y",
        ),
        (
            "SELECT ?x WHERE { ?x :p ?y FILTER (?z > 1) }",
            [("warning", "unbound-filter")],
            "FILTER reads ?z, which nothing binds",
        ),
        (
            "SELECT ?x WHERE { ?x :p ?y . ?a :q ?b }",
            [("warning", "cartesian-product")],
            "no variable links {?x, ?y} and {?a, ?b}",
        ),
    ],
)
def test_each_rule(text: str, problems: list[tuple[str, str]], message: str) -> None:
    assert codes(text) == problems
    assert message in check(parse(P + text))[0].message


def test_subqueries_are_checked_with_their_own_scope() -> None:
    assert codes("SELECT ?x WHERE { { SELECT ?x WHERE { ?y :p ?z } } }") == [("error", "unbound-projection")]
    assert codes("SELECT ?m WHERE { { SELECT (MAX(?y) AS ?m) WHERE { ?x :p ?y } } }") == []


def test_variables_linked_by_a_filter_or_a_shared_sub_pattern_are_no_product() -> None:
    assert codes("SELECT * WHERE { ?x :p ?a . ?y :p ?b FILTER (?a < ?b) }") == []
    assert codes("SELECT * WHERE { ?x :p ?a . { ?x :q ?c } UNION { ?x :r ?c } }") == []
    assert codes("SELECT * WHERE { :a :p :b . ?x :q ?y }") == []  # a constant triple is a check
    assert codes("SELECT * WHERE { ?x :p ?y FILTER (!bound(?z)) }") == []


def test_filters_see_only_their_own_group_except_in_optional_and_exists() -> None:
    branch = "SELECT * WHERE { ?c :pop ?n . { ?c :in :a } UNION { ?c :in ?k FILTER (?n > 1) } }"
    assert codes(branch) == [("warning", "unbound-filter")]
    assert "bound only outside the filter's group" in check(parse(P + branch))[0].message
    assert codes("SELECT * WHERE { ?x :p ?y { ?y :q ?z FILTER (?x != ?z) } }") == [("warning", "unbound-filter")]
    assert codes("SELECT * WHERE { ?x :p ?y OPTIONAL { ?y :q ?z FILTER (?x != ?z) } }") == []
    assert codes("SELECT * WHERE { ?x :p ?y FILTER EXISTS { ?y :q ?z FILTER (?x != ?z) } }") == []


def test_exists_patterns_are_not_checked_for_products() -> None:
    assert codes("SELECT ?x WHERE { ?x :p ?y FILTER EXISTS { ?y :q ?a . ?x :r ?b } }") == []


def test_validate_raises_errors_and_warns_on_warnings() -> None:
    with pytest.raises(SparqlValidationError) as caught:
        validate(parse(P + "SELECT ?a ?b WHERE { ?x :p ?y }"))
    assert isinstance(caught.value, Nl2SparqlError)
    assert str(caught.value) == (
        "SELECT projects ?a, which the pattern never binds "
        "(and 1 more: SELECT projects ?b, which the pattern never binds)"
    )
    assert len(caught.value.problems) == 2
    product = parse(P + "SELECT * WHERE { ?x :p ?y . ?a :q ?b }")
    with pytest.warns(CartesianProductWarning, match="answers multiply"):
        validate(product)
    with pytest.raises(SparqlValidationError, match="answers multiply"):
        validate(product, strict=True)


def test_run_accepts_only_read_only_select_and_ask() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validate(parse(P + "ASK { ?x :p 1 }"), run=True)
    for text, message in [
        ("CONSTRUCT { ?x :p 1 } WHERE { ?x :p 1 }", "only SELECT and ASK queries run here, not CONSTRUCT"),
        ("DESCRIBE :a", "not DESCRIBE"),
        ("SELECT * { SERVICE <http://evil> { ?x :p ?y } }", "SERVICE calls"),
    ]:
        with pytest.raises(SparqlValidationError, match=message):
            validate(parse(P + text), run=True)
    validate(parse(P + "CONSTRUCT { ?x :p 1 } WHERE { ?x :p 1 }"))  # fine when not about to run


def test_catalog_of_predicates() -> None:
    query = parse(P + "SELECT ?x WHERE { ?x :knows/:name ?n . ?x a ?t . ?x ?any ?v }")
    validate(
        query,
        catalog={
            "http://ex.org/knows",
            "http://ex.org/name",
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
        },
    )
    with pytest.raises(SparqlValidationError, match=r"the graph has no predicate <http://ex.org/name>"):
        validate(query, catalog=["http://ex.org/knows", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"])
