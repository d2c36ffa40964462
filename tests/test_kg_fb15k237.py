"""FB15k-237 imported as Freebase with its CVT nodes, loaded into Oxigraph, answering WebQSP.

The expected predicate counts are recomputed here from the raw FB15k-237 files, and the
WebQSP answers are checked against both the dataset's gold answers and a join done in
plain Python over the N-Triples file.
"""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest
from conftest import fb15k_source

from nl2sparql.config import data_file
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.kg.fb15k237 import Fb15kImportError, import_fb15k237, read_triples, relation_predicates
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.kg.rdflib_store import RdflibStore

NS = "http://rdf.freebase.com/ns/"
NAME = f"<{NS}type.object.name>"

# Measured on the files in /work/shared/data (deterministic).
TRIPLES = 532_224
CVT_NODES = 207_567
ENTITIES = 14_541
SOURCE_TRIPLES = 310_116


def ns(local: str) -> str:
    return f"<{NS}{local}>"


def count(store: OxigraphStore, where: str, what: str = "*") -> int:
    return int(store.select(f"SELECT (COUNT({what}) AS ?n) WHERE {{ {where} }}").rows[0]["n"].value)


def test_import_counts_and_determinism(fb15k_nt: Path, tmp_path: Path) -> None:
    report = import_fb15k237(fb15k_source(), tmp_path / "again.nt.gz")
    assert (report.triples, report.cvt_nodes, report.entities, report.names) == (
        TRIPLES,
        CVT_NODES,
        ENTITIES,
        ENTITIES,
    )
    assert (report.relations, report.source_triples) == (237, SOURCE_TRIPLES)
    assert report.triples == SOURCE_TRIPLES + report.cvt_nodes + report.names
    # Built twice (once for the session cache, once here): byte-identical.
    assert (tmp_path / "again.nt.gz").read_bytes() == fb15k_nt.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["again.nt.gz"]  # no temp file left


def test_import_errors(tmp_path: Path) -> None:
    with pytest.raises(Fb15kImportError, match="must end in .nt or .nt.gz"):
        import_fb15k237(fb15k_source(), tmp_path / "out.ttl")
    with pytest.raises(Fb15kImportError, match="does not exist"):
        import_fb15k237(tmp_path / "nowhere", tmp_path / "out.nt")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "FB15k_mid2name.txt").write_text("/m/01\tOne\n/m/02\tTwo\n", encoding="utf-8")
    (broken / "train.txt").write_text("/m/01\t/a/b/c\t/m/02\n/m/01 /a/b/c /m/02\n", encoding="utf-8")
    (broken / "valid.txt").write_text("", encoding="utf-8")
    with pytest.raises(Fb15kImportError, match=r"missing FB15k-237 file .*test\.txt"):
        import_fb15k237(broken, tmp_path / "out.nt")
    (broken / "test.txt").write_text("", encoding="utf-8")
    with pytest.raises(Fb15kImportError, match=r"train\.txt:2: expected 'MID<TAB>/relation<TAB>MID'"):
        import_fb15k237(broken, tmp_path / "out.nt")
    assert not list(tmp_path.glob("*.nt*")) and not list(tmp_path.glob(".out*"))


def test_store_holds_every_triple_and_cvt(fb15k_store: OxigraphStore) -> None:
    stats = fb15k_store.stats()
    assert stats.triples == TRIPLES
    cvt_filter = f'FILTER(STRSTARTS(STR(?c), "{NS}cvt."))'
    assert count(fb15k_store, f"?c ?p ?o . {cvt_filter}", "DISTINCT ?c") == CVT_NODES
    # A CVT has exactly one outgoing edge and no name (one incoming edge: see the predicate counts).
    assert count(fb15k_store, f"?c ?p ?o . {cvt_filter}") == CVT_NODES
    assert fb15k_store.ask(f"ASK {{ ?c {NAME} ?n . {cvt_filter} }}") is False
    # Every other node is an entity with an English name.
    named = count(fb15k_store, f"?e {NAME} ?n . FILTER(langMatches(lang(?n), 'en'))", "DISTINCT ?e")
    assert named == ENTITIES
    unnamed = f"?e ?p ?o FILTER NOT EXISTS {{ ?e {NAME} ?name }}"
    assert count(fb15k_store, unnamed, "DISTINCT ?e") == CVT_NODES


def test_predicate_counts_match_the_source_files(fb15k_store: OxigraphStore) -> None:
    expected: Counter[str] = Counter()
    for split in ("train.txt", "valid.txt", "test.txt"):
        for _, relation, _ in read_triples(fb15k_source() / split):
            expected.update(relation_predicates(relation))
    expected[f"{NS}type.object.name"] = ENTITIES
    assert fb15k_store.stats().predicates == dict(expected)


def _triples(nt: Path, predicates: set[str]) -> list[tuple[str, str, str]]:
    out = []
    with gzip.open(nt, "rt", encoding="utf-8") as handle:
        for line in handle:
            s, p, o = line.split(" ", 2)
            if p[1:-1] in predicates:
                out.append((s[1:-1], p[1:-1], o.rstrip(" .\n")[1:-1]))
    return out


def test_webqsp_gold_query_through_a_cvt(fb15k_store: OxigraphStore, fb15k_nt: Path) -> None:
    """WebQTrn-690, "who all has jason kidd played for?": person -> roster CVT -> team."""
    query = f"""
        SELECT DISTINCT ?x WHERE {{
          FILTER (?x != {ns("m.02cg2v")})
          FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en'))
          {ns("m.02cg2v")} {ns("sports.pro_athlete.teams")} ?y .
          ?y {ns("sports.sports_team_roster.team")} ?x .
        }}"""
    got = {t.freebase_id for t in fb15k_store.select(query).column("x") if t}
    example = {e.id: e for e in load_dataset(data_file("webqsp/WebQSP.train.json"))}["WebQTrn-690"]
    assert example.entities["m.02cg2v"] == "Jason Kidd"
    assert got == set(example.answers) and len(got) == 4
    # The same join done by hand over the file.
    edges = _triples(fb15k_nt, {f"{NS}sports.pro_athlete.teams", f"{NS}sports.sports_team_roster.team"})
    rosters = {o for s, p, o in edges if s == f"{NS}m.02cg2v" and p.endswith("pro_athlete.teams")}
    teams = {o[len(NS) :] for s, p, o in edges if s in rosters and p.endswith("roster.team")}
    assert rosters and all(r.startswith(f"{NS}cvt.") for r in rosters)
    assert teams == got
    assert sorted(fb15k_store.labels(sorted(got)).values()) == sorted(
        fb15k_store.labels(sorted(example.answers)).values()
    )


def test_webqsp_time_window_query_in_standard_sparql(fb15k_store: OxigraphStore) -> None:
    """WebQTrn-1081, "where does allen iverson live now?", with its EXISTS time window.

    FB15k-237 keeps no dates, so the NOT EXISTS branches hold and every place lived counts.
    """
    query = f"""
        PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
        SELECT DISTINCT ?x WHERE {{
          FILTER (?x != {ns("m.01sg7_")})
          {ns("m.01sg7_")} {ns("people.person.places_lived")} ?y .
          ?y {ns("people.place_lived.location")} ?x .
          FILTER (NOT EXISTS {{ ?y {ns("people.place_lived.end_date")} ?sk0 }} ||
                  EXISTS {{ ?y {ns("people.place_lived.end_date")} ?sk1 .
                           FILTER (xsd:dateTime(?sk1) >= "2015-08-10"^^xsd:dateTime) }})
          FILTER (NOT EXISTS {{ ?y {ns("people.place_lived.start_date")} ?sk2 }} ||
                  EXISTS {{ ?y {ns("people.place_lived.start_date")} ?sk3 .
                           FILTER (xsd:dateTime(?sk3) <= "2015-08-10"^^xsd:dateTime) }})
        }}"""
    got = {t.freebase_id for t in fb15k_store.select(query).column("x") if t}
    example = {e.id: e for e in load_dataset(data_file("webqsp/WebQSP.train.json"))}["WebQTrn-1081"]
    assert example.category == "time"
    assert got == set(example.answers) and len(got) == 3


def test_labels_on_freebase(fb15k_store: OxigraphStore) -> None:
    labels = fb15k_store.labels(["m.02cg2v", f"{NS}m.01sg7_", "cvt.0", "m.0nonexistent"])
    assert labels == {"m.02cg2v": "Jason Kidd", f"{NS}m.01sg7_": "Allen Iverson"}
    many = fb15k_store.labels([f"m.{i}" for i in range(450)] + ["m.02cg2v"])  # crosses query chunks
    assert many == {"m.02cg2v": "Jason Kidd"}


@pytest.mark.slow
def test_rdflib_agrees_with_oxigraph_on_the_whole_graph(fb15k_store: OxigraphStore, fb15k_nt: Path) -> None:
    """Two independent SPARQL engines over all 532k triples: same stats, same CVT answers."""
    rdflib_store = RdflibStore(fb15k_nt)
    assert rdflib_store.stats() == fb15k_store.stats()
    queries = [
        f"SELECT ?x ?c WHERE {{ {ns('m.02cg2v')} {ns('sports.pro_athlete.teams')} ?c . "
        f"?c {ns('sports.sports_team_roster.team')} ?x }}",
        f"SELECT ?film ?name WHERE {{ {ns('m.016z2j')} {ns('film.actor.film')} ?p . "
        f"?p {ns('film.performance.film')} ?film . ?film {NAME} ?name }}",
        f"SELECT ?award (COUNT(?c) AS ?n) WHERE {{ {ns('m.016z2j')} "
        f"{ns('award.award_nominee.award_nominations')} ?c . "
        f"?c {ns('award.award_nomination.award')} ?award }} GROUP BY ?award",
    ]
    for query in queries:
        expected = fb15k_store.select(query)
        got = rdflib_store.select(query)
        assert expected.rows and sorted(map(repr, got.rows)) == sorted(map(repr, expected.rows)), query
