"""The same queries give the same answers on Oxigraph, rdflib and a real Virtuoso endpoint.

All three stores hold the Freebase-shaped fixture graph of ``conftest.fixture_graph_nt``
(CVT nodes, numbers, dates, language tags). Results are compared as multisets of
normalised rows. The normalisation is deliberately narrow and only covers differences in
how engines *write* equal values:

- numeric literals compare by value, whatever their numeric datatype and lexical form.
  Measured on this graph: ``AVG`` of ``xsd:float`` heights is ``"1.78"^^xsd:float`` on
  Oxigraph, ``"1.78"^^xsd:double`` on rdflib and ``"1.779999988419669"^^xsd:decimal`` on
  Virtuoso (it averages the float32 values exactly); a fractional ``AVG`` of integers has
  24, 25 or 21 decimals depending on the engine. Integral values must be equal exactly;
  others are compared rounded to 6 significant digits (float32 precision);
- language tags compare case-insensitively (``Term`` lower-cases them);
- ``xsd:string`` and plain literals are the same thing in RDF 1.1 (``Term`` drops the
  datatype).

Anything else (an IRI, a date, a missing or extra row) must match exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest
from conftest import FIXTURE_GRAPH, VirtuosoEndpoint

from nl2sparql.kg.store import Store, open_store
from nl2sparql.kg.terms import XSD, SelectResult, Term

NUMERIC = {
    XSD + t
    for t in (
        *("integer", "decimal", "float", "double", "int", "long", "short", "byte"),
        *("nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger"),
        *("unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte"),
    )
}

PREFIXES = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"


def ns(local: str) -> str:
    return f"<http://rdf.freebase.com/ns/{local}>"


NAME = ns("type.object.name")

# name: query. Full IRIs throughout (Oxigraph rejects ns:a.b.c).
QUERIES: dict[str, str] = {
    "sibling through CVT with gender constraint": f"""
        SELECT DISTINCT ?x WHERE {{
          {ns("m.0p_cy")} {ns("people.person.sibling_s")} ?y .
          ?y {ns("people.sibling_relationship.sibling")} ?x .
          ?x {ns("people.person.gender")} {ns("m.0g_female")} .
          FILTER (?x != {ns("m.0p_cy")})
          FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en'))
        }}""",
    "latest spouse by marriage start (ORDER BY DESC LIMIT 1)": f"""
        SELECT ?x WHERE {{
          {ns("m.0p_eli")} {ns("people.person.spouse_s")} ?y .
          ?y {ns("people.marriage.spouse")} ?x .
          ?y {ns("people.marriage.from")} ?d .
          FILTER (?x != {ns("m.0p_eli")})
        }} ORDER BY DESC(?d) LIMIT 1""",
    "current marriages (NOT EXISTS end date)": f"""
        SELECT ?cvt ?a WHERE {{
          ?cvt {ns("people.marriage.spouse")} ?a .
          FILTER NOT EXISTS {{ ?cvt {ns("people.marriage.to")} ?end }}
        }}""",
    "people with a marriage (EXISTS)": f"""
        SELECT ?p WHERE {{
          ?p {ns("people.person.gender")} ?g .
          FILTER EXISTS {{ ?p {ns("people.person.spouse_s")} ?m }}
        }}""",
    "time window on a CVT (held during 2005)": PREFIXES
    + f"""
        SELECT ?holder ?title WHERE {{
          ?cvt {ns("government.government_position_held.office_holder")} ?holder ;
               {ns("government.government_position_held.basic_title")} ?title ;
               {ns("government.government_position_held.from")} ?from .
          FILTER (?from <= "2005-12-31"^^xsd:date)
          FILTER (NOT EXISTS {{ ?cvt {ns("government.government_position_held.to")} ?t }} ||
                  EXISTS {{ ?cvt {ns("government.government_position_held.to")} ?to .
                           FILTER (?to >= "2005-01-01"^^xsd:date) }})
        }}""",
    "films per actor through CVT (COUNT GROUP BY)": f"""
        SELECT ?actor (COUNT(?film) AS ?n) WHERE {{
          ?actor {ns("film.actor.film")} ?perf .
          ?perf {ns("film.performance.film")} ?film .
        }} GROUP BY ?actor""",
    "actors with more than one film (HAVING)": f"""
        SELECT ?actor WHERE {{
          ?actor {ns("film.actor.film")} ?perf .
          ?perf {ns("film.performance.film")} ?film .
        }} GROUP BY ?actor HAVING (COUNT(DISTINCT ?film) > 1)""",
    "count distinct cities (COUNT DISTINCT)": f"""
        SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE {{ ?c {ns("location.location.containedby")} ?country }}""",
    "big cities (numeric FILTER)": f"""
        SELECT ?c ?pop WHERE {{
          ?c {ns("location.location.containedby")} ?country ;
             {ns("location.statistical_region.population")} ?pop .
          FILTER (?pop > 400000)
        }}""",
    "born before 1970 (date FILTER)": PREFIXES
    + f"""
        SELECT ?p ?d WHERE {{
          ?p {ns("people.person.date_of_birth")} ?d .
          FILTER (?d < "1970-01-01"^^xsd:date)
        }}""",
    "tallest person (MAX)": f"""
        SELECT (MAX(?h) AS ?tallest) WHERE {{ ?p {ns("people.person.height_meters")} ?h }}""",
    "average city population per country (AVG)": f"""
        SELECT ?country (AVG(?pop) AS ?avg) WHERE {{
          ?c {ns("location.location.containedby")} ?country ;
             {ns("location.statistical_region.population")} ?pop .
        }} GROUP BY ?country""",
    "average height (AVG of floats)": f"""
        SELECT (AVG(?h) AS ?avg) (SUM(?h) AS ?sum) WHERE {{ ?p {ns("people.person.height_meters")} ?h }}""",
    "average of three populations (fractional AVG of integers)": f"""
        SELECT (AVG(?pop) AS ?avg) WHERE {{
          VALUES ?c {{ {ns("m.0t_port")} {ns("m.0t_lumen")} {ns("m.0t_vale")} }}
          ?c {ns("location.statistical_region.population")} ?pop .
        }}""",
    "three shortest people, second to fourth (ORDER BY ASC LIMIT OFFSET)": f"""
        SELECT ?p ?h WHERE {{ ?p {ns("people.person.height_meters")} ?h }}
        ORDER BY ASC(?h) LIMIT 3 OFFSET 1""",
    "spouses or siblings (UNION)": f"""
        SELECT DISTINCT ?x WHERE {{
          {{ {ns("m.0p_gus")} {ns("people.person.spouse_s")} ?m . ?m {ns("people.marriage.spouse")} ?x . }}
          UNION
          {{ {ns("m.0p_gus")} {ns("people.person.sibling_s")} ?s .
             ?s {ns("people.sibling_relationship.sibling")} ?x . }}
          FILTER (?x != {ns("m.0p_gus")})
        }}""",
    "birthplace where known (OPTIONAL)": f"""
        SELECT ?p ?place WHERE {{
          ?p {ns("people.person.gender")} ?g .
          OPTIONAL {{ ?p {ns("people.person.place_of_birth")} ?place }}
        }}""",
    "names of given entities (VALUES)": f"""
        SELECT ?e ?n WHERE {{
          VALUES ?e {{ {ns("m.0p_ada")} {ns("m.0f_tide")} {ns("m.0t_nord")} }}
          ?e {NAME} ?n .
        }}""",
    "English names only (langMatches)": f"""
        SELECT ?e ?n WHERE {{
          ?e {ns("location.location.containedby")} ?c ; {NAME} ?n .
          FILTER (langMatches(lang(?n), "en"))
        }}""",
    "CVT nodes are the entities without a name (NOT EXISTS)": f"""
        SELECT DISTINCT ?c WHERE {{
          ?s ?p ?c . FILTER (isIRI(?c))
          FILTER NOT EXISTS {{ ?c {NAME} ?n }}
        }}""",
    "people not married (MINUS)": f"""
        SELECT ?p WHERE {{
          ?p {ns("people.person.gender")} ?g .
          MINUS {{ ?p {ns("people.person.spouse_s")} ?m }}
        }}""",
    "names with a string function (BIND, STRSTARTS)": f"""
        SELECT ?p ?first WHERE {{
          ?p {ns("people.person.gender")} ?g ; {NAME} ?n .
          FILTER (STRSTARTS(STR(?n), "Quill") || CONTAINS(STR(?n), "Quill"))
          BIND (STRBEFORE(STR(?n), " ") AS ?first)
        }}""",
    "subquery: people born in the most populous city": f"""
        SELECT ?p WHERE {{
          ?p {ns("people.person.place_of_birth")} ?city .
          {{ SELECT ?city WHERE {{ ?city {ns("location.location.containedby")} ?x ;
                                     {ns("location.statistical_region.population")} ?pop . }}
            ORDER BY DESC(?pop) LIMIT 1 }}
        }}""",
    "property path through a CVT (sequence path)": f"""
        SELECT DISTINCT ?co WHERE {{
          {ns("m.0p_cy")} {ns("film.actor.film")}/{ns("film.performance.film")} ?film .
          ?other {ns("film.actor.film")}/{ns("film.performance.film")} ?film .
          FILTER (?other != {ns("m.0p_cy")})
          BIND (?other AS ?co)
        }}""",
    "character notes of a film (plain literals)": f"""
        SELECT ?actor ?note WHERE {{
          ?perf {ns("film.performance.film")} {ns("m.0f_glass")} ;
                {ns("film.performance.actor")} ?actor ;
                {ns("film.performance.character_note")} ?note .
        }}""",
    "films released after 2000 with their year (YEAR)": PREFIXES
    + f"""
        SELECT ?f (YEAR(?d) AS ?year) WHERE {{
          ?f {ns("film.film.initial_release_date")} ?d .
          FILTER (?d > "2000-01-01"^^xsd:date)
        }}""",
}

ASKS: dict[str, tuple[str, bool]] = {
    "a sibling pair exists": (
        f"ASK {{ {ns('m.0p_gus')} {ns('people.person.sibling_s')}/"
        f"{ns('people.sibling_relationship.sibling')} {ns('m.0p_hal')} }}",
        True,
    ),
    "nobody is taller than 2 m": (
        f"ASK {{ ?p {ns('people.person.height_meters')} ?h FILTER (?h > 2) }}",
        False,
    ),
}


def normalise(term: Term | None) -> tuple[str, ...]:
    if term is None:
        return ("unbound",)
    if term.type == "literal" and term.datatype in NUMERIC:
        try:
            number = Decimal(term.value.strip())
        except InvalidOperation:
            return ("literal", term.value, term.datatype)
        if term.datatype in (XSD + "float", XSD + "double"):
            return ("number", f"{float(number):.6g}")
        return (
            "number",
            f"{float(number):.6g}" if number != number.to_integral_value() else str(int(number)),
        )
    return (term.type, term.value, term.datatype or "", term.lang or "")


def rows(result: SelectResult) -> Counter[tuple[tuple[str, tuple[str, ...]], ...]]:
    return Counter(tuple((v, normalise(row.get(v))) for v in result.variables) for row in result.rows)


@pytest.fixture(scope="module")
def local_stores(fixture_nt: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Store]]:
    oxigraph = open_store("oxigraph", path=tmp_path_factory.mktemp("equiv") / "store")
    oxigraph.load(fixture_nt, progress=False)  # type: ignore[attr-defined]
    opened = {"oxigraph": oxigraph, "rdflib": open_store("rdflib", paths=[fixture_nt])}
    yield opened
    for store in opened.values():
        store.close()


@pytest.fixture(scope="module")
def stores(local_stores: dict[str, Store], virtuoso: VirtuosoEndpoint) -> Iterator[dict[str, Store]]:
    endpoint = open_store("endpoint", url=virtuoso.url, default_graph=FIXTURE_GRAPH)
    yield {**local_stores, "endpoint": endpoint}
    endpoint.close()


def test_there_are_at_least_twenty_queries() -> None:
    assert len(QUERIES) + len(ASKS) >= 20


@pytest.mark.virtuoso
@pytest.mark.parametrize("name", sorted(QUERIES))
def test_select_gives_the_same_rows_on_every_store(stores: dict[str, Store], name: str) -> None:
    results = {store_name: store.select(QUERIES[name], timeout=30) for store_name, store in stores.items()}
    reference = rows(results["oxigraph"])
    assert reference, f"{name}: the query returns nothing, so agreeing would prove little"
    for store_name, result in results.items():
        assert result.variables == results["oxigraph"].variables, store_name
        assert rows(result) == reference, f"{name}: {store_name} differs from oxigraph"


@pytest.mark.virtuoso
@pytest.mark.parametrize("name", sorted(ASKS))
def test_ask_gives_the_same_answer_on_every_store(stores: dict[str, Store], name: str) -> None:
    query, expected = ASKS[name]
    for store_name, store in stores.items():
        assert store.ask(query, timeout=30) is expected, store_name


@pytest.mark.virtuoso
def test_labels_and_stats_agree(stores: dict[str, Store]) -> None:
    ids = ["m.0p_ada", "m.0t_vale", "cvt.m1", "m.0does_not_exist"]
    expected = {"m.0p_ada": "Ada Quill", "m.0t_vale": "Vale"}  # English before French, none for a CVT
    stats = {}
    for store_name, store in stores.items():
        assert store.labels(ids) == expected, store_name
        stats[store_name] = store.stats()
    assert stats["oxigraph"].triples == len(fixture_lines())
    assert stats["rdflib"] == stats["oxigraph"]
    assert stats["endpoint"] == stats["oxigraph"]


def fixture_lines() -> list[str]:
    from conftest import fixture_graph_nt

    return [line for line in fixture_graph_nt().splitlines() if line.strip()]


def test_spot_checks_against_the_fixture_data(local_stores: dict[str, Store]) -> None:
    """A few answers known from how the fixture graph was written, on the embedded store."""
    oxigraph = local_stores["oxigraph"]
    latest = oxigraph.select(QUERIES["latest spouse by marriage start (ORDER BY DESC LIMIT 1)"])
    assert [t.freebase_id for t in latest.column("x") if t] == ["m.0p_fay"]
    sibling = oxigraph.select(QUERIES["sibling through CVT with gender constraint"])
    assert [t.freebase_id for t in sibling.column("x") if t] == ["m.0p_dee"]
    window = oxigraph.select(QUERIES["time window on a CVT (held during 2005)"])
    assert {(r["holder"].freebase_id, r["title"].freebase_id) for r in window.rows} == {
        ("m.0p_gus", "m.0o_gov"),
        ("m.0p_ben", "m.0o_may"),
    }
