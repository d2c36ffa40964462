"""The renamed graph (training/renamed_graph.py): the vocabulary's clash rule, the renamed triples,
and a gold query that asks the renamed graph what it asked the Freebase one."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import SimpleNamespace

import pyoxigraph as ox
import pytest

from nl2sparql.training.renamed_graph import (
    FREEBASE_NS,
    ID_NS,
    RDF_TYPE,
    RDFS_LABEL,
    VOCAB_NS,
    RenameError,
    labels,
    main,
    rename_graph,
    rename_query,
    renamed_dataset,
    scan_graph,
    vocabulary,
)

NS = FREEBASE_NS
FIXTURE = f"""\
<{NS}m.01> <{NS}type.object.name> "Al Pacino"@en .
<{NS}m.02> <{NS}type.object.name> "New York City"@en .
<{NS}m.03> <{NS}type.object.name> "Heat"@en .
<{NS}m.04> <{NS}type.object.name> "Crime Fiction"@en .
<{NS}m.01> <{NS}type.object.type> <{NS}people.person> .
<{NS}m.01> <{NS}people.person.place_of_birth> <{NS}m.02> .
<{NS}m.01> <{NS}film.actor.film> <{NS}cvt.1> .
<{NS}cvt.1> <{NS}film.performance.film> <{NS}m.03> .
<{NS}m.03> <{NS}film.film.genre> <{NS}m.04> .
"""
# The actor's films' names, with WebQSP's language filter and the actor's type.
GOLD = f"""SELECT DISTINCT ?n
WHERE {{
  FILTER (!isLiteral(?n) || lang(?n) = "" || langMatches(lang(?n), "en"))
  <{NS}m.01> <{NS}type.object.type> <{NS}people.person> .
  <{NS}m.01> <{NS}film.actor.film> ?c .
  ?c <{NS}film.performance.film> ?f .
  ?f <{NS}type.object.name> ?n .
}}"""
# The films' genres: an entity answer.
GOLD_ENTITY = (
    f"SELECT ?g WHERE {{ <{NS}m.01> <{NS}film.actor.film> ?c . "
    f"?c <{NS}film.performance.film> ?f . ?f <{NS}film.film.genre> ?g }}"
)


@pytest.fixture()
def fixture_nt(tmp_path: Path) -> Path:
    path = tmp_path / "fb.nt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(FIXTURE)
    return path


def _store(path: Path) -> ox.Store:
    store = ox.Store()
    with gzip.open(path, "rb") as handle:
        store.load(handle, format=ox.RdfFormat.N_TRIPLES)
    return store


def _answers(store: ox.Store, query: str) -> set[tuple[str, ...]]:
    return {tuple(str(term) for term in row) for row in store.query(query)}


def test_vocabulary_names_by_last_segment_then_type_then_domain() -> None:
    predicates = [
        NS + "people.person.place_of_birth",
        NS + "film.film.genre",
        NS + "music.artist.genre",
        NS + "film.performance.character",
        NS + "tv.performance.character",
        NS + "music.instrument.name",
    ]
    v = vocabulary(predicates, [NS + "people.person", NS + "film.film"])
    local = {old[len(NS) :]: new.rpartition("#")[2] for old, new in v.items()}
    assert local["people.person.place_of_birth"] == "placeOfBirth"
    assert (local["film.film.genre"], local["music.artist.genre"]) == ("filmGenre", "artistGenre")
    # same type segment too: the domain is spelt out
    assert local["film.performance.character"] == "filmPerformanceCharacter"
    assert local["tv.performance.character"] == "tvPerformanceCharacter"
    # "name" belongs to type.object.name
    assert (local["type.object.name"], local["music.instrument.name"]) == ("name", "instrumentName")
    assert v[NS + "type.object.type"] == RDF_TYPE
    assert (v[NS + "people.person"], v[NS + "film.film"]) == (VOCAB_NS + "Person", VOCAB_NS + "Film")
    # deterministic whatever the order
    assert vocabulary(reversed(predicates), [NS + "film.film", NS + "people.person"]) == v
    words = labels(v)
    assert words[VOCAB_NS + "placeOfBirth"] == "place of birth"
    assert words[VOCAB_NS + "artistGenre"] == "artist genre"
    assert words[VOCAB_NS + "Person"] == "person"


def test_renamed_graph_triples(fixture_nt: Path, tmp_path: Path) -> None:
    terms = scan_graph(fixture_nt)
    v = vocabulary(terms.predicates, terms.types)
    out = tmp_path / "renamed.nt.gz"
    written = rename_graph(fixture_nt, out, v)
    text = gzip.decompress(out.read_bytes()).decode()
    assert "freebase" not in text
    assert f'<{ID_NS}m.01> <{VOCAB_NS}name> "Al Pacino" .' in text.splitlines()
    assert f"<{ID_NS}m.01> <{RDF_TYPE}> <{VOCAB_NS}Person> ." in text.splitlines()
    assert f"<{ID_NS}m.01> <{VOCAB_NS}placeOfBirth> <{ID_NS}m.02> ." in text.splitlines()
    assert f"<{ID_NS}cvt.1> <{VOCAB_NS}performanceFilm> <{ID_NS}m.03> ." in text.splitlines()
    assert f'<{VOCAB_NS}placeOfBirth> <{RDFS_LABEL}> "place of birth" .' in text.splitlines()
    assert f'<{VOCAB_NS}Person> <{RDFS_LABEL}> "person" .' in text.splitlines()
    assert f"<{ID_NS}m.01> <{RDFS_LABEL}>" not in text  # entities keep no label
    assert written == len(text.splitlines()) == _store(out).__len__()
    assert not list(tmp_path.glob(".*.tmp"))
    # CVTs as blank nodes on request
    rename_graph(fixture_nt, out, v, named=terms.named)
    blank = gzip.decompress(out.read_bytes()).decode()
    assert f"_:cvt_1 <{VOCAB_NS}performanceFilm> <{ID_NS}m.03> ." in blank.splitlines()


def test_renamed_query_answers_the_same(fixture_nt: Path, tmp_path: Path) -> None:
    terms = scan_graph(fixture_nt)
    v = vocabulary(terms.predicates, terms.types)
    out = tmp_path / "renamed.nt.gz"
    rename_graph(fixture_nt, out, v)
    before, after = _store(fixture_nt), _store(out)
    names = rename_query(GOLD, v)
    assert names is not None and "lang" not in names and "freebase" not in names
    assert _answers(before, GOLD) == {('"Heat"@en',)}
    assert _answers(after, names) == {('"Heat"',)}
    genres = rename_query(GOLD_ENTITY, v)
    assert genres is not None
    renamed = {tuple(t.replace(NS, ID_NS) for t in row) for row in _answers(before, GOLD_ENTITY)}
    assert renamed == _answers(after, genres) == {(f"<{ID_NS}m.04>",)}
    # a predicate the graph lacks cannot be asked
    assert rename_query(GOLD.replace("film.actor.film", "film.actor.dubbing_performances"), v) is None


def test_dataset_skips_dev_and_unrenamable() -> None:
    v = vocabulary([NS + "people.person.place_of_birth"])
    gold = "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ns:m.01 ns:people.person.place_of_birth ?x }"
    examples = [
        SimpleNamespace(id="WebQTrn-1", question="where was he born", gold_sparql=gold),
        SimpleNamespace(id="WebQTrn-10", question="dev", gold_sparql=gold),
        SimpleNamespace(id="WebQTrn-2", question="no", gold_sparql=gold.replace("place_of_birth", "nationality")),
    ]
    data = renamed_dataset(examples, v)
    assert [q["id"] for q in data["questions"]] == ["WebQTrn-1"]
    question = data["questions"][0]
    assert question["question"] == [{"language": "en", "string": "where was he born"}]
    assert f"<{VOCAB_NS}placeOfBirth>" in question["query"]["sparql"]
    json.dumps(data)


def test_bad_input_is_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.nt"
    broken.write_text("<a> <b> .\n")
    with pytest.raises(RenameError, match="not readable N-Triples"):
        scan_graph(broken)
    webqsp = tmp_path / "missing.json"
    with pytest.raises(SystemExit, match="renamed_graph: .*missing.json"):
        main(["--graph", str(broken), "--webqsp", str(webqsp), "--out", str(tmp_path / "out")])


def test_truncated_gzip_is_a_message(tmp_path: Path) -> None:
    data = gzip.compress(FIXTURE.encode() * 50)
    cut = tmp_path / "cut.nt.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(RenameError, match="cut.nt.gz"):
        scan_graph(cut)
    out = tmp_path / "out.nt.gz"
    with pytest.raises(RenameError):
        rename_graph(cut, out, vocabulary([]))
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))
