"""Grounding a question in a graph's classes and literal values (kg/grounding.py), with scores.

Two graphs: a small one written here (classes with and without labels, a plural-looking
label, a city stored as a plain string, numbers, dates, a short code, a long literal) and
the own-KG fixture records.ttl (bands, albums with release years, nicknames).
"""

from __future__ import annotations

import doctest
import gzip
import json
from pathlib import Path

import pytest

import nl2sparql.kg.grounding as grounding_module
from nl2sparql.cli import main
from nl2sparql.errors import InvalidQuestion
from nl2sparql.kg.grounding import (
    ClassEntry,
    ClassMatch,
    Grounder,
    GroundingError,
    GroundingIndex,
    IndexOptions,
    ValueEntry,
    build_grounding_index,
    load_or_build_grounding,
)
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.question import MAX_QUESTION_CHARS

RECORDS = Path(__file__).parent / "fixtures" / "own_kg" / "records.ttl"
REC = "http://example.org/records/schema#"
EX = "http://example.org/g#"
XSD = "http://www.w3.org/2001/XMLSchema#"

GRAPH = f"""
@prefix ex: <{EX}> .
@prefix d: <http://example.org/d/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <{XSD}> .

<http://example.org/g> a owl:Ontology .
ex:Band a owl:Class ; rdfs:label "band"@en , "Kapelle"@de .
ex:Company a rdfs:Class .
ex:Person a owl:Class ; rdfs:label "person" .
ex:RecordLabel a owl:Class .
ex:Label a owl:Class ; rdfs:label "label" .
ex:Series a owl:Class ; rdfs:label "series" .
ex:city a owl:DatatypeProperty .

d:acme a ex:Company , ex:RecordLabel ; rdfs:label "Acme Records" ; ex:city "Leipzig" ;
    ex:founded 1991 ; ex:foundedOn "1991-05-03"^^xsd:date ; ex:countryCode "DE" ;
    ex:revenue 12.5 ; ex:motto "The Best Sound" .
d:globex a ex:Company ; ex:city "Leipzig" ; ex:hq "Leipzig" ; ex:countryCode "FR" ; ex:note "of" .
d:ann a ex:Person ; ex:birthDate "1975-03-01"^^xsd:date ; ex:height 1.75 ; ex:hometown "Lipsk"@pl ;
    ex:bio "Ann was born in a small town and has played the cello in four orchestras since" .
d:rock a ex:Genre .
d:s1 a ex:Series ; ex:season "2020"^^xsd:gYear ; ex:started "2020-04"^^xsd:gYearMonth .
"""


def _store(folder: Path, source: Path) -> OxigraphStore:
    store = OxigraphStore(folder / "store")
    store.load(source, progress=False)
    return store


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> OxigraphStore:
    folder = tmp_path_factory.mktemp("grounding-small")
    source = folder / "graph.ttl"
    source.write_text(GRAPH, encoding="utf-8")
    return _store(folder, source)


@pytest.fixture(scope="module")
def grounder(small: OxigraphStore) -> Grounder:
    return Grounder.from_store(small)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> OxigraphStore:
    return _store(tmp_path_factory.mktemp("grounding-records"), RECORDS)


@pytest.fixture(scope="module")
def records_grounder(records: OxigraphStore) -> Grounder:
    return Grounder.from_store(records)


def classes(grounder: Grounder, question: str) -> list[tuple[str, str, str]]:
    """(local name, mention, match) of each class, best first."""
    return [(c.iri.rsplit("#", 1)[-1], c.mention, c.match) for c in grounder.ground(question).classes]


def value(grounder: Grounder, question: str, lexical: str) -> tuple[str | None, tuple[str, ...], str, str]:
    found = [v for v in grounder.ground(question, k=20).values if v.value == lexical]
    assert len(found) == 1, grounder.ground(question, k=20).values
    v = found[0]
    return v.datatype, tuple(p.rsplit("#", 1)[-1] for p in v.predicates), v.mention, v.match


# -- the index ------------------------------------------------------------------------------


def test_the_index_holds_the_graphs_classes_with_labels_or_local_names(grounder: Grounder) -> None:
    names = {c.iri.removeprefix(EX): c.display for c in grounder.index.classes}
    # owl:Class, owl:Ontology, owl:DatatypeProperty are objects of rdf:type too, but vocabulary
    assert names == {
        "Band": "band",  # the English label; "Kapelle"@de is not read
        "Company": "Company",  # no label: its local name
        "Person": "person",
        "RecordLabel": "Record Label",
        "Label": "label",
        "Series": "series",
        "Genre": "Genre",  # never declared, only used as a type
    }
    assert grounder.report is not None and grounder.report.labelled_classes == 4


def test_the_index_holds_bounded_literal_values_with_their_predicates(grounder: Grounder) -> None:
    values = {
        (v.lexical, v.datatype, v.lang): [p.removeprefix(EX) for p, _ in v.predicates] for v in grounder.index.values
    }
    assert values[("Leipzig", None, None)] == ["city", "hq"]  # most triples first
    assert values[("1991", XSD + "integer", None)] == ["founded"]
    assert values[("1991-05-03", XSD + "date", None)] == ["foundedOn"]
    assert not any(lexical.startswith("Ann was born") for lexical, _, _ in values)  # over 60 characters
    assert not any(lexical == "Acme Records" for lexical, _, _ in values)  # a label: the linker's
    assert not any(lang == "pl" for _, _, lang in values)  # English or untagged only, by default


def test_the_bounds_are_options(small: OxigraphStore) -> None:
    few = build_grounding_index(small, IndexOptions(max_values=3, max_classes=2))
    assert len(few.values) <= 3 and len(few.classes) == 2
    assert set(few.truncated) == {"values", "classes"}
    assert ("Leipzig", None, None) in {(v.lexical, v.datatype, v.lang) for v in few.values}  # the most used
    wide = build_grounding_index(small, IndexOptions(max_literal_chars=200, languages=None))
    lexicals = {v.lexical for v in wide.values}
    assert "Lipsk" in lexicals and any(text.startswith("Ann was born") for text in lexicals)
    assert not wide.truncated


def test_the_index_is_cached_keyed_by_the_store_and_the_options(small: OxigraphStore, tmp_path: Path) -> None:
    cache = tmp_path / "grounding.json.gz"
    built, report = load_or_build_grounding(small, cache)
    assert not report.loaded_from_cache and cache.is_file()
    again, report = load_or_build_grounding(small, cache)
    assert report.loaded_from_cache and again.to_json() == built.to_json()
    _, report = load_or_build_grounding(small, cache, IndexOptions(max_values=5))
    assert not report.loaded_from_cache
    cache.write_bytes(gzip.compress(b"{not json"))
    _, report = load_or_build_grounding(small, cache)
    assert not report.loaded_from_cache  # an unreadable cache is rebuilt, not an error
    grounder = Grounder.from_store(small, tmp_path / "g" / "grounding.json.gz")
    assert (tmp_path / "g" / "label-index.json.gz").is_file()  # the linker's index beside it
    assert grounder.linker is not None


def test_a_malformed_index_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"format": "nl2sparql-grounding-index", "version": 1}).encode()))
    with pytest.raises(GroundingError, match="malformed"):
        GroundingIndex.load(path)


# -- classes --------------------------------------------------------------------------------


def test_a_plural_names_a_class_and_stop_words_name_none(grounder: Grounder) -> None:
    assert classes(grounder, "How many bands are there?") == [("Band", "bands", "inflected")]
    assert classes(grounder, "Which companies are based in Leipzig?") == [("Company", "companies", "inflected")]
    assert classes(grounder, "Which people were born in 1975?") == [("Person", "people", "inflected")]
    assert classes(grounder, "Which of them are there, and how many?") == []
    assert classes(grounder, "Is there a Kapelle?") == []  # a German label is not read


def test_an_invariant_plural_and_a_typo(grounder: Grounder) -> None:
    assert classes(grounder, "list all series") == [("Series", "series", "exact")]
    assert classes(grounder, "how many compnies") == [("Company", "compnies", "fuzzy")]


def test_class_scores_favour_whole_names_and_longer_phrases(grounder: Grounder) -> None:
    found = grounder.ground("Which record labels are in Leipzig?").classes
    assert [(c.iri.removeprefix(EX), c.mention, c.match) for c in found] == [
        ("RecordLabel", "record labels", "inflected"),
        ("Label", "labels", "inflected"),  # inside the longer mention: nested
    ]
    assert found[0].score > found[1].score
    label = {q: grounder.ground(q).classes[0].score for q in ("a label", "the labels", "a compny", "the company")}
    # as written > the other grammatical number > a typo; a local name just under a label
    assert label["a label"] > label["the labels"] > label["a compny"]
    assert label["a label"] > label["the company"] > label["the labels"]


def test_the_last_words_of_a_longer_class_name_are_a_partial_match() -> None:
    index = GroundingIndex([ClassEntry("http://x.org/RecordLabel", 2, (("Record Label", "local name"),))], [])
    found = Grounder(index).ground("Which labels sign bands?").classes
    assert [(c.mention, c.match) for c in found] == [("labels", "partial")]
    assert found[0].score < Grounder(index).ground("Which record labels sign bands?").classes[0].score


def test_a_name_that_ends_another_name_still_matches_whole() -> None:
    entry = ClassEntry("http://x.org/Label", 1, (("record label", "label"), ("label", "label")))
    found = Grounder(GroundingIndex([entry], [])).ground("Which label is that?").classes
    assert [(c.mention, c.match) for c in found] == [("label", "exact")]


# -- values ---------------------------------------------------------------------------------


def test_a_city_stored_as_a_string(grounder: Grounder) -> None:
    assert value(grounder, "Which companies are based in Leipzig?", "Leipzig") == (
        None,
        ("city", "hq"),
        "Leipzig",
        "exact",
    )


def test_numbers_and_dates_are_matched_by_value(grounder: Grounder) -> None:
    question = "Which record labels were founded in 1991?"
    assert value(grounder, question, "1991") == (XSD + "integer", ("founded",), "1991", "number")
    assert value(grounder, question, "1991-05-03") == (XSD + "date", ("foundedOn",), "1991", "year of date")
    found = {v.value: v.score for v in grounder.ground(question).values}
    assert found["1991"] > found["1991-05-03"]
    assert value(grounder, "Who was born on 1 March 1975?", "1975-03-01")[2:] == ("1 March 1975", "date")
    assert value(grounder, "Who was born on March 1st, 1975?", "1975-03-01")[3] == "date"
    assert value(grounder, "Who was born 1975-03-01?", "1975-03-01")[3] == "date"
    assert value(grounder, "revenue of 12.50 million", "12.5")[3] == "number"
    assert value(grounder, "a series of 2020", "2020")[1:] == (("season",), "2020", "year")
    assert value(grounder, "series started in April 2020", "2020-04")[3] == "month"
    assert [v.value for v in grounder.ground("Who was born on 2 March 1975?").values] == []


def test_short_values_need_the_same_letters_and_case(grounder: Grounder) -> None:
    assert value(grounder, "Which companies have the code DE?", "DE")[1:] == (("countryCode",), "DE", "exact")
    assert [v.value for v in grounder.ground("Is Globex a de facto monopoly?").values] == []
    assert [v.value for v in grounder.ground("Which of them are there?").values] == []  # "of" is stored


def test_article_inflected_partial_and_fuzzy_string_values(grounder: Grounder) -> None:
    whole = grounder.ground("Whose motto is The Best Sound?").values[0]
    article = grounder.ground("Whose motto is Best Sound?").values[0]
    inflected = grounder.ground("Whose motto is The Best Sounds?").values[0]  # the value in the plural
    partial = grounder.ground("Whose motto is about sound?").values[0]
    fuzzy = grounder.ground("Whose motto is The Bset Sound?").values[0]
    found = (whole, article, inflected, partial, fuzzy)
    assert [v.match for v in found] == ["exact", "article", "inflected", "partial", "fuzzy"]
    assert {v.value for v in found} == {"The Best Sound"}
    assert whole.score > article.score > partial.score


def test_a_value_match_knows_its_literal(grounder: Grounder) -> None:
    match = grounder.ground("founded in 1991").values[0]
    assert match.term().n3() == f'"1991"^^<{XSD}integer>'


# -- the records graph ------------------------------------------------------------------------


def test_records_how_many_bands(records_grounder: Grounder) -> None:
    assert classes(records_grounder, "How many bands are there?") == [("Band", "bands", "inflected")]
    assert records_grounder.ground("How many bands are there?").values == ()


def test_records_albums_released_in_a_year(records_grounder: Grounder) -> None:
    grounding = records_grounder.ground("Which albums were released in 1975?")
    assert [(c.iri, c.match) for c in grounding.classes] == [(REC + "Album", "inflected")]
    assert [(v.value, v.datatype, v.predicates, v.mention) for v in grounding.values] == [
        ("1975", XSD + "integer", (REC + "releaseYear",), "1975")
    ]
    assert all(isinstance(c, ClassMatch) and c.score > 1 for c in grounding.classes)


def test_records_a_nickname(records_grounder: Grounder) -> None:
    grounding = records_grounder.ground("Which band is nicknamed The Stones?")
    assert [(v.value, v.predicates, v.match) for v in grounding.values] == [
        ("The Stones", (REC + "nickname",), "exact")
    ]
    assert [c.iri for c in grounding.classes] == [REC + "Band"]
    assert grounding.entities and grounding.entities[0].entity_id.endswith("TheRollingStonesB")


def test_records_a_year_used_by_several_predicates(records_grounder: Grounder) -> None:
    found = records_grounder.ground("What happened in 1965?").values
    assert [v.value for v in found] == ["1965"]
    assert set(found[0].predicates) == {REC + "releaseYear", REC + "formedInYear", REC + "awardYear"}
    assert found[0].predicates[0] == REC + "releaseYear"  # two triples, the others one


def test_records_an_unlabelled_class_by_its_local_name(records_grounder: Grounder) -> None:
    assert classes(records_grounder, "Which persons won an award?") == [
        ("Award", "award", "exact"),  # as written, before the other grammatical number
        ("Person", "persons", "inflected"),
    ]


# -- bad input ------------------------------------------------------------------------------


def test_bad_questions_are_clear_errors(grounder: Grounder) -> None:
    with pytest.raises(InvalidQuestion, match="empty"):
        grounder.ground("   ")
    with pytest.raises(InvalidQuestion, match="characters"):
        grounder.ground("x" * (MAX_QUESTION_CHARS + 1))
    with pytest.raises(GroundingError, match="words"):
        grounder.ground("band " * 300)
    assert grounder.ground("bands", k=0).classes == ()


def test_kg_ground_command(records: OxigraphStore, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = str(records.path)
    assert main(["kg", "ground", "--store", folder, "Which albums were released in 1975?"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("8 classes (6 labelled)")
    album = lines.index("classes:") + 1
    assert f"{REC}Album" in lines[album] and "inflected match of 'albums'" in lines[album]
    assert f'"1975"^^<{XSD}integer>  of {REC}releaseYear' in lines[lines.index("values:") + 1]
    assert main(["kg", "ground", "--store", folder, "Which band is nicknamed The Stones?", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["index"]["classes"] == 8 and out["index"]["loaded_from_cache"]
    assert out["values"][0]["value"] == "The Stones" and out["values"][0]["score"] > 1
    assert main(["kg", "ground", "--store", str(tmp_path / "none"), "bands"]) == 1
    assert main(["kg", "ground", "--store", folder, " "]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("nl2sparql: error: ") for line in errors)
    assert "does not exist" in errors[0] and "empty" in errors[1]


def test_doctests_hold() -> None:
    outcome = doctest.testmod(grounding_module)
    assert outcome.attempted > 0 and outcome.failed == 0


def test_a_value_entry_counts_its_triples() -> None:
    entry = ValueEntry("Leipzig", None, None, (("http://x/city", 2), ("http://x/hq", 1)))
    assert entry.count == 3
