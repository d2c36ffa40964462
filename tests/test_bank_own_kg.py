"""A bank from a graph other than Freebase whose entities have no labels (``--from-store``).

The graph is ``fixtures/own_kg/music.ttl``: an OWL schema with labels on some properties
and classes, a domain and range from an OWL restriction, instances named only by their
IRIs, and one relation through blank nodes (the graph's only CVTs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURE_GRAPH, VirtuosoEndpoint

from nl2sparql.cli import main
from nl2sparql.kg.graph_schema import GraphSchema, graph_prefixes
from nl2sparql.kg.store import Store, open_store
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.bank_file import load_bank, save_bank
from nl2sparql.memory_bank.build_store import build_bank_from_store, scan_store, statements_from_scan
from nl2sparql.memory_bank.embedder import Embedder, default_embedder

MUSIC = Path(__file__).parent / "fixtures" / "own_kg" / "music.ttl"
MO = "http://example.org/music/ontology#"
MD = "http://example.org/music/data/"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store("oxigraph", path=tmp_path_factory.mktemp("music-bank-store"))
    store.load(MUSIC, progress=False)
    return store


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture(scope="module")
def bank(store: Store, embedder: Embedder) -> MemoryBank:
    return build_bank_from_store(store, embedder=embedder, source="music")[0]


def _by_sparql(bank: MemoryBank) -> dict[str, str]:
    return {s.sparql: s.description for s in bank.statements}


def test_unlabelled_instances_are_named_nodes_and_blank_nodes_are_cvts(store: Store) -> None:
    scan = scan_store(store)
    assert scan.cvt_nodes == 2 and scan.dangling_cvts == 0  # the two award blank nodes
    plain = {p.strip("<>").rsplit("#", 1)[-1]: n for p, n in scan.plain.items()}
    assert plain == {"type": 13, "hasMember": 5, "bornIn": 5, "formedInYear": 2, "recordedBy": 2}
    assert scan.schema_triples > 20  # classes, properties, restriction: not data
    assert len(statements_from_scan(scan)) == 14


def test_descriptions_come_from_labels_domains_ranges_and_local_names(bank: MemoryBank) -> None:
    described = _by_sparql(bank)
    # rdfs:label "has member", domain Band, range Musician (both labelled)
    assert described[f"?e1 <{MO}hasMember> ?e2 ."] == "?e2 is the member of the band ?e1"
    assert described[f"?e2 <{MO}hasMember> ?e1 ."] == "?e2 is the band whose member is the musician ?e1"
    # no label: words of the local name; the classes Person and City have no label either
    assert described[f"?e1 <{MO}bornIn> ?e2 ."] == "?e2 is the city that the person ?e1 is born in"
    # domain and range from an OWL restriction on Album
    assert described[f"?e1 <{MO}recordedBy> ?e2 ."] == "?e2 is the band that the album ?e1 is recorded by"
    # a verb, a preposition, a noun: the noun says what the value is
    assert described[f"?e1 <{MO}formedInYear> ?e2 ."] == "?e2 is the year that the band ?e1 is formed in"
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    assert described[f"?e1 {rdf_type} ?e2 ."] == "?e2 is the type of ?e1"
    structure_2 = f"?e1 <{MO}wonAward> ?cvt . ?cvt <{MO}awardYear> ?e2 ."
    assert described[structure_2] == "?e2 is the award year of the won award of the musician ?e1"
    for text in described.values():
        assert not any(piece in text for piece in ("http", "#", "/", "org", "w3")), text


def test_the_bank_records_the_graphs_namespaces(bank: MemoryBank, tmp_path: Path) -> None:
    assert bank.meta.namespace == ""
    assert bank.meta.prefixes["data"] == MD and bank.meta.prefixes["ontology"] == MO
    assert "http://rdf.freebase.com/ns/" not in bank.meta.prefixes.values()
    assert bank.meta.describer == "graph"
    again = load_bank(save_bank(bank, tmp_path / "music.nl2sq"))
    assert (again.meta.namespace, again.meta.prefixes) == (bank.meta.namespace, bank.meta.prefixes)


def test_recall_finds_the_graphs_relations(bank: MemoryBank) -> None:
    top = bank.recall("the members of the band The Beatles").candidates[0].entry
    assert top.sparql == f"?e1 <{MO}hasMember> ?e2 ."
    top = bank.recall("the band that recorded the album Abbey Road").candidates[0].entry
    assert top.sparql == f"?e1 <{MO}recordedBy> ?e2 ."
    top = bank.recall("the year the band Queen was formed").candidates[0].entry
    assert top.sparql == f"?e1 <{MO}formedInYear> ?e2 ."


def test_graph_schema_reads_restrictions_and_keeps_rdfs_first(store: Store) -> None:
    schema = GraphSchema.from_store(store)
    assert schema.domain(MO + "recordedBy") == MO + "Album" and schema.range(MO + "recordedBy") == MO + "Band"
    assert schema.domain(MO + "hasMember") == MO + "Band"
    assert schema.name(MO + "hasMember") == "has member" and schema.name(MO + "formedInYear") == "formed in year"
    assert schema.name("http://example.org/p/P123") == ""  # nothing to say: no label, no words, no comment
    schema.comments["http://example.org/p/P123"] = "The year a band was formed in."
    assert schema.name("http://example.org/p/P123") == "The year a band was formed"


def test_prefix_names_do_not_clash() -> None:
    prefixes = graph_prefixes({"http://a.org/data/": 5, "http://b.org/data/": 3, "http://xmlns.com/foaf/0.1/": 1})
    assert prefixes == {
        "data": "http://a.org/data/",
        "data2": "http://b.org/data/",
        "foaf": "http://xmlns.com/foaf/0.1/",
    }


def test_bank_build_from_store_cli_reports_namespaces(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "music.nl2sq"
    code = main(["bank", "build", "--from-store", str(store.path), "--out", str(out), "--json"])  # type: ignore[attr-defined]
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["statements"] == 14
    assert payload["kg"]["namespace"] == "" and payload["kg"]["prefixes"]["ontology"] == MO
    assert main(["bank", "info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["prefixes"]["data"] == MD


def test_from_endpoint_needs_a_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bank", "build", "--from-endpoint", str(tmp_path), "--out", str(tmp_path / "x.nl2sq")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "--from-endpoint" in err[0] and "not an http(s) URL" in err[0]


@pytest.mark.virtuoso
def test_endpoint_scan_in_pages_matches_the_local_store(virtuoso: VirtuosoEndpoint, fixture_nt: Path) -> None:
    local = scan_store(open_store("rdflib", paths=[fixture_nt]))
    endpoint = open_store("endpoint", url=virtuoso.url, default_graph=FIXTURE_GRAPH)
    paged = scan_store(endpoint, page_size=7)
    assert paged.triples == local.triples and paged.plain == local.plain
    assert paged.signatures == local.signatures and paged.cvt_nodes == local.cvt_nodes
    capped = scan_store(endpoint, page_size=7, limit=10)
    assert capped.triples == 10


@pytest.mark.virtuoso
def test_bank_build_from_endpoint_cli(
    virtuoso: VirtuosoEndpoint, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "endpoint.nl2sq"
    argv = ["bank", "build", "--from-endpoint", virtuoso.url, "--default-graph", FIXTURE_GRAPH]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["kg"]["namespace"] == "http://rdf.freebase.com/ns/" and payload["scan"]["cvt_nodes"] == 15
    assert load_bank(out).meta.sources == (f"endpoint:{virtuoso.url}",)


def test_a_participle_that_qualifies_a_noun_reads_as_a_noun(tmp_path: Path, embedder: Embedder) -> None:
    """*used price at the bookstore in dollars* is a price (no verb *used ... in* whose object
    is *dollars*); *released on date* is still a verb, a preposition and a noun."""
    turtle = tmp_path / "books.ttl"
    turtle.write_text(
        "@prefix s: <http://example.org/books#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        's:Book rdfs:label "book" .\n'
        's:usedPrice rdfs:label "used price at the bookstore in dollars" ; rdfs:domain s:Book ; '
        "rdfs:range xsd:decimal .\n"
        's:released rdfs:label "released on date" ; rdfs:domain s:Book ; rdfs:range xsd:date .\n'
        '<http://example.org/b1> a s:Book ; rdfs:label "Dune" ; s:usedPrice 9.5 ; s:released "1965-08-01"^^xsd:date .\n'
    )
    store = open_store("oxigraph", path=tmp_path / "store")
    store.load(turtle, progress=False)
    described = _by_sparql(build_bank_from_store(store, embedder=embedder, source="books")[0])
    store.close()
    price = described["?e1 <http://example.org/books#usedPrice> ?e2 ."]
    assert price == "?e2 is the used price at the bookstore in dollars of the book ?e1"
    released = described["?e1 <http://example.org/books#released> ?e2 ."]
    assert released == "?e2 is the date that the book ?e1 is released on"
