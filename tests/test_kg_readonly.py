"""Stores are read-only: every SPARQL Update form and every non-allowed SERVICE is refused.

Checked on all three stores, the endpoint against a live Virtuoso whose anonymous SPARQL
user *is* allowed to update (see ``conftest.virtuoso``; the control test shows an update
sent around the store does change the server), and the server's content is compared
before and after. Keywords inside strings, IRIs, comments and names must not trip the guard.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURE_GRAPH, VirtuosoEndpoint, free_port

from nl2sparql.config import data_file
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.kg.errors import QueryError, UnsupportedQuery
from nl2sparql.kg.readonly import ReadOnlyViolation, check_read_only, tokenize
from nl2sparql.kg.store import Store, open_store

G = f"<{FIXTURE_GRAPH}>"
NAME = "<http://rdf.freebase.com/ns/type.object.name>"

# (keyword the refusal must name, update request). All aim at the fixture graph, so a guard
# that let one through would visibly change the server.
UPDATES: list[tuple[str, str]] = [
    ("INSERT", f"INSERT DATA {{ GRAPH {G} {{ <urn:x:a> <urn:x:b> <urn:x:c> }} }}"),
    (
        "DELETE",
        f"DELETE DATA {{ GRAPH {G} {{ <http://rdf.freebase.com/ns/m.0p_ada> {NAME} 'Ada Quill'@en }} }}",
    ),
    ("DELETE", f"DELETE WHERE {{ GRAPH {G} {{ ?s {NAME} ?o }} }}"),
    ("INSERT", f"INSERT {{ GRAPH {G} {{ ?s <urn:x:copy> ?o }} }} WHERE {{ GRAPH {G} {{ ?s {NAME} ?o }} }}"),
    ("WITH", f"WITH {G} DELETE {{ ?s {NAME} ?o }} INSERT {{ ?s <urn:x:n> ?o }} WHERE {{ ?s {NAME} ?o }}"),
    ("LOAD", f"LOAD <http://127.0.0.1:9/data.nt> INTO GRAPH {G}"),
    ("CLEAR", f"CLEAR GRAPH {G}"),
    ("CLEAR", "CLEAR ALL"),
    ("DROP", f"DROP SILENT GRAPH {G}"),
    ("DROP", "drop all"),
    ("CREATE", "CREATE GRAPH <urn:x:new>"),
    ("ADD", f"ADD {G} TO <urn:x:other>"),
    ("MOVE", f"MOVE {G} TO <urn:x:other>"),
    ("COPY", f"COPY {G} TO <urn:x:other>"),
    ("INSERT", "PREFIX ex: <urn:x:> SELECT * WHERE { ?s ?p ?o } ; Insert Data { ex:a ex:b ex:c }"),
    (
        "DELETE",
        f"# a comment first\nBASE <urn:x:>\nDELETE {{ GRAPH {G} {{ ?s ?p ?o }} }} USING {G} WHERE {{ ?s ?p ?o }}",
    ),
]

SERVICES: list[str] = [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { SERVICE ?endpoint { ?s ?p ?o } }",
    "PREFIX remote: <http://127.0.0.1:9/> SELECT * WHERE { service remote:sparql { ?s ?p ?o } }",
]

# Update keywords hidden where they are data, not syntax: all four string forms, an IRI, a
# comment, a prefixed name, a variable and a language tag.
HIDDEN = f"""PREFIX drop: <urn:x:drop/>
# INSERT DATA {{ <a> <b> <c> }} ; DROP ALL
SELECT ?e ?n WHERE {{
  ?e {NAME} ?n .
  FILTER (?n != "INSERT DATA {{ GRAPH <g> {{ <a> <b> <c> }} }}" && ?n != 'DELETE WHERE {{ ?s ?p ?o }}')
  FILTER (?n != \"\"\"CLEAR ALL
  ; DROP ALL\"\"\" && ?n != '''LOAD <http://example.org/x>''' && ?n != "copy"@insert)
  FILTER (?e != <http://example.org/insert/delete/drop> && ?e != drop:load)
  OPTIONAL {{ ?e <urn:x:create> ?delete }}
}}"""


def raw_sparql(url: str, query: str) -> dict:
    """Send a query straight to the endpoint, bypassing every guard (test control only)."""
    data = urllib.parse.urlencode({"query": query}).encode()
    request = urllib.request.Request(url, data=data, headers={"Accept": "application/sparql-results+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def server_snapshot(url: str) -> Counter[tuple[str, ...]]:
    """Every quad of every graph on the server."""
    result = raw_sparql(url, "SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }")
    return Counter(
        tuple(json.dumps(b.get(v), sort_keys=True) for v in ("g", "s", "p", "o")) for b in result["results"]["bindings"]
    )


@pytest.fixture(scope="module")
def local_stores(fixture_nt: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Store]]:
    oxigraph = open_store("oxigraph", path=tmp_path_factory.mktemp("readonly") / "store")
    oxigraph.load(fixture_nt, progress=False)  # type: ignore[attr-defined]
    stores = {"oxigraph": oxigraph, "rdflib": open_store("rdflib", paths=[fixture_nt])}
    yield stores
    for store in stores.values():
        store.close()


@pytest.fixture(scope="module")
def all_stores(local_stores: dict[str, Store], virtuoso: VirtuosoEndpoint) -> Iterator[dict[str, Store]]:
    endpoint = open_store("endpoint", url=virtuoso.url, default_graph=FIXTURE_GRAPH, retries=0)
    yield {**local_stores, "endpoint": endpoint}
    endpoint.close()


# -- the guard on its own --------------------------------------------------------------------


@pytest.mark.parametrize(("keyword", "update"), UPDATES)
def test_guard_names_the_update_keyword(keyword: str, update: str) -> None:
    with pytest.raises(ReadOnlyViolation, match=rf"refused: {keyword} \(line \d+\)"):
        check_read_only(update)


def test_keywords_in_strings_iris_comments_and_names_do_not_trip_the_guard() -> None:
    assert check_read_only(HIDDEN) == "SELECT"
    kinds = Counter(token.kind for token in tokenize(HIDDEN))
    assert kinds["string"] == 5 and kinds["iri"] >= 3 and kinds["lang"] == 1


@pytest.mark.parametrize("form", ["CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "DESCRIBE <urn:x:a>"])
def test_construct_and_describe_are_refused_clearly(form: str) -> None:
    keyword = form.split()[0]
    with pytest.raises(UnsupportedQuery, match=f"{keyword} queries are not run.*only SELECT and ASK"):
        check_read_only("PREFIX ex: <urn:x:>\n" + form)


@pytest.mark.parametrize("query", ["", "# only a comment", "PREFIX ex: <urn:x:>", "DEFINE sql:x 1 SELECT * {}"])
def test_queries_without_a_select_or_ask_form_are_refused(query: str) -> None:
    with pytest.raises(UnsupportedQuery):
        check_read_only(query)


def test_unterminated_string_is_refused_with_its_line() -> None:
    with pytest.raises(UnsupportedQuery, match="unterminated string literal at line 2"):
        check_read_only("SELECT * WHERE {\n ?s ?p 'DROP ALL }")


def test_service_allow_list_resolves_prefixed_names() -> None:
    query = "PREFIX r: <http://kb.example/> SELECT * WHERE { SERVICE r:sparql { ?s ?p ?o } }"
    assert check_read_only(query, {"http://kb.example/sparql"}) == "SELECT"
    with pytest.raises(ReadOnlyViolation, match="not on this store's allow-list"):
        check_read_only(query, {"http://kb.example/other"})
    with pytest.raises(ReadOnlyViolation, match="variable is never allowed"):
        check_read_only("SELECT * WHERE { SERVICE ?s { ?a ?b ?c } }", {"http://kb.example/sparql"})


# -- every store -------------------------------------------------------------------------------


def _check_refusals(stores: dict[str, Store]) -> None:
    for name, store in stores.items():
        for keyword, update in UPDATES:
            for method in (store.select, store.ask, store.query):
                with pytest.raises(ReadOnlyViolation, match=keyword):
                    method(update)
        for query in SERVICES:
            with pytest.raises(ReadOnlyViolation, match="SERVICE"):
                store.select(query)
        assert store.select(HIDDEN).rows, name


def test_local_stores_refuse_updates_and_services_and_stay_unchanged(local_stores: dict[str, Store]) -> None:
    before = {name: store.stats() for name, store in local_stores.items()}
    _check_refusals(local_stores)
    assert {name: store.stats() for name, store in local_stores.items()} == before


@pytest.mark.virtuoso
def test_control_the_test_server_does_accept_updates_sent_around_the_store(
    virtuoso: VirtuosoEndpoint,
) -> None:
    control = "<urn:nl2sparql:control>"
    raw_sparql(virtuoso.url, f"INSERT DATA {{ GRAPH {control} {{ <urn:x:a> <urn:x:b> <urn:x:c> }} }}")
    try:
        found = raw_sparql(virtuoso.url, f"SELECT ?o WHERE {{ GRAPH {control} {{ <urn:x:a> <urn:x:b> ?o }} }}")
        assert found["results"]["bindings"] == [{"o": {"type": "uri", "value": "urn:x:c"}}]
    finally:
        raw_sparql(virtuoso.url, f"DROP SILENT GRAPH {control}")


@pytest.mark.virtuoso
def test_endpoint_refuses_everything_and_the_server_is_unchanged(
    all_stores: dict[str, Store], virtuoso: VirtuosoEndpoint
) -> None:
    before = server_snapshot(virtuoso.url)
    assert sum(1 for quad in before if FIXTURE_GRAPH in quad[0]) > 100
    _check_refusals({"endpoint": all_stores["endpoint"]})
    assert server_snapshot(virtuoso.url) == before


@pytest.mark.virtuoso
def test_hidden_keywords_give_the_same_rows_everywhere(all_stores: dict[str, Store]) -> None:
    counts = {name: len(store.select(HIDDEN).rows) for name, store in all_stores.items()}
    assert len(set(counts.values())) == 1 and counts["oxigraph"] > 20, counts


def test_an_allowed_service_gets_past_the_guard_to_the_engine(tmp_path: Path) -> None:
    """Oxigraph really calls an allow-listed service: here a closed local port, so the call fails.

    (A federated call to the test Virtuoso is not possible: Virtuoso 7.2.5 never answers the
    ``application/sparql-query`` POST that Oxigraph sends.)
    """
    url = f"http://127.0.0.1:{free_port()}/sparql"
    query = f"SELECT ?o WHERE {{ SERVICE <{url}> {{ <urn:x:a> <urn:x:b> ?o }} }}"
    allowed = open_store("oxigraph", path=tmp_path / "allowed", allowed_services=[url])
    with pytest.raises(QueryError, match="(?i)connection refused") as caught:
        allowed.select(query, timeout=30)
    assert not isinstance(caught.value, ReadOnlyViolation)
    other = open_store("oxigraph", path=tmp_path / "other")
    with pytest.raises(ReadOnlyViolation, match="allow-list"):
        other.select(query)


@pytest.mark.parametrize("store_name", ["oxigraph", "rdflib"])
def test_select_and_ask_insist_on_their_form(local_stores: dict[str, Store], store_name: str) -> None:
    store = local_stores[store_name]
    with pytest.raises(UnsupportedQuery, match="use ask"):
        store.select("ASK { ?s ?p ?o }")
    with pytest.raises(UnsupportedQuery, match="use select"):
        store.ask("SELECT * WHERE { ?s ?p ?o }")
    assert store.query("ASK { ?s ?p ?o }") is True


@pytest.mark.parametrize(
    "relative",
    [
        "webqsp/WebQSP.train.json",
        "webqsp/WebQSP.test.part-A.json",
        "cwq/cwq.test.part-A.json",
        "grailqa/grailqa.sample-1000.json",
    ],
)
def test_every_gold_query_of_the_datasets_passes_the_guard(relative: str) -> None:
    """Real read queries (Virtuoso dialect included) must never be mistaken for updates."""
    queries = []
    for example in load_dataset(data_file(relative)):
        parses = example.extra.get("parses")
        queries += [p.sparql for p in parses] if parses else [example.gold_sparql]
    forms = Counter(check_read_only(q) for q in queries if q)
    assert forms == {"SELECT": len(queries)} and len(queries) >= 630


def test_module_doctests() -> None:
    import doctest

    import nl2sparql.kg.fb15k237 as fb15k237
    import nl2sparql.kg.readonly as readonly

    for module in (readonly, fb15k237):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0 and outcome.failed == 0, module.__name__
