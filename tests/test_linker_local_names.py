"""Linking on a graph whose entities have no labels: names made from IRI local names.

The graph (``fixtures/own_kg/music.ttl``) is a small OWL ontology with instances whose
names live only in camelCase IRIs, some ending in a type letter (``TheBeatlesB``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.kg.label_index import FOAF_NAME, RDFS_LABEL, SCHEMA_NAME, LabelIndex, build_label_index, load_or_build
from nl2sparql.kg.linker import EntityLinker
from nl2sparql.kg.local_names import LOCAL_NAME, local_name_words
from nl2sparql.kg.store import Store, open_store

MUSIC = Path(__file__).parent / "fixtures" / "own_kg" / "music.ttl"
MD = "http://example.org/music/data/"
MO = "http://example.org/music/ontology#"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    folder = tmp_path_factory.mktemp("music-store")
    store = open_store("oxigraph", path=folder)
    store.load(MUSIC, progress=False)
    return store


@pytest.fixture(scope="module")
def linker(store: Store) -> EntityLinker:
    return EntityLinker.from_store(store)


@pytest.mark.parametrize(
    ("iri", "expected"),
    [
        (MD + "TheBeatlesB", ("The Beatles B", "The Beatles")),
        (MD + "Brian_May", ("Brian May", None)),
        (MD + "PaulMcCartneyM", ("Paul McCartney M", "Paul McCartney")),
        (MD + "ANightAtTheOperaA", ("A Night At The Opera A", "A Night At The Opera")),
        ("http://example.org/x/Caf%C3%A9_Central", ("Café Central", None)),
        (MO + "hasMember", ("has Member", None)),
        ("http://example.org/q/Q42", None),
    ],
)
def test_local_name_words(iri: str, expected: tuple[str, str | None] | None) -> None:
    assert local_name_words(iri) == expected


def test_unlabelled_instances_are_named_from_their_iris(linker: EntityLinker) -> None:
    index = linker.index
    names = {index.ids[p]: index.names[p] for p in range(len(index))}
    assert names[MD + "TheBeatlesB"] == "The Beatles B"
    assert names[MD + "Brian_May"] == "Brian May"
    # Classes, properties and the ontology are vocabulary, not entities.
    assert not any(iri.startswith(MO) for iri in names)
    assert "http://example.org/music/ontology" not in names
    assert len(names) == 13
    assert index.sources == {LOCAL_NAME: 13}


def test_linker_reports_what_it_indexed(linker: EntityLinker) -> None:
    assert linker.report is not None
    assert linker.report.sources == {LOCAL_NAME: 13}
    assert linker.report.describe() == "13 entities named: 13 by IRI local names"


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("Who are the members of the Beatles?", "TheBeatlesB"),
        ("Where was Paul McCartney born?", "PaulMcCartneyM"),
        ("Which band recorded A Night at the Opera?", "ANightAtTheOperaA"),
        ("When was Queen formed?", "QueenB"),
        ("Where was brian may born?", "Brian_May"),
    ],
)
def test_entities_link_from_local_names(linker: EntityLinker, question: str, entity: str) -> None:
    assert list(linker.link_entities(question)) == [MD + entity]


def test_linked_names_drop_the_type_letter_the_question_does_not_say(linker: EntityLinker) -> None:
    """The planner copies these names into its plan: "The Beatles B" there was continued by a
    model as an initial ("The Beatles B. b.")."""
    assert linker.link_entities("Who are the members of the Beatles?") == {MD + "TheBeatlesB": "The Beatles"}
    assert linker.link_entities("When was Queen formed?") == {MD + "QueenB": "Queen"}
    assert linker.link_entities("Where was brian may born?") == {MD + "Brian_May": "Brian May"}


def test_labels_win_over_local_names_and_sources_are_counted(tmp_path: Path) -> None:
    extra = tmp_path / "names.nt"
    extra.write_text(
        f'<{MD}QueenB> <{SCHEMA_NAME}> "Queen" .\n'
        f'<{MD}Brian_May> <{FOAF_NAME}> "Brian Harold May" .\n'
        f'<{MD}LiverpoolC> <{RDFS_LABEL}> "Liverpool" .\n',
        encoding="utf-8",
    )
    store = open_store("rdflib", paths=[MUSIC, extra])
    index = build_label_index(store)
    names = {index.ids[p]: index.names[p] for p in range(len(index))}
    assert names[MD + "QueenB"] == "Queen"
    assert names[MD + "Brian_May"] == "Brian Harold May"
    assert index.sources == {LOCAL_NAME: 10, FOAF_NAME: 1, RDFS_LABEL: 1, SCHEMA_NAME: 1}
    assert "brian may" not in index.keys  # a labelled entity gets no local-name key


def test_a_company_links_without_its_legal_form(tmp_path: Path) -> None:
    """*American Airlines* names *American Airlines Inc.* as a whole name, not a fuzzy one."""
    names = tmp_path / "companies.nt"
    names.write_text(
        f'<{MD}AA> <{RDFS_LABEL}> "American Airlines Inc." .\n<{MD}SAG> <{RDFS_LABEL}> "Siemens AG" .\n',
        encoding="utf-8",
    )
    linker = EntityLinker.from_store(open_store("rdflib", paths=[names]))
    questions = (
        ("Which American Airlines flights left JFK?", "AA"),
        ("Which flights did American Airlines fly?", "AA"),
        ("Who founded Siemens?", "SAG"),
    )
    for question, entity in questions:
        best = linker.link(question)[0]  # not the fuzzy *American Airlines fly* around the whole name
        assert (best.entity_id, best.match) == (MD + entity, "exact")


def test_records_keyed_by_numbers_get_no_names(tmp_path: Path) -> None:
    """An award with no label, whose IRI is its key (``a1Best_actress``), is a record: no
    name from its IRI, so *Best actress* links the category alone; where no instance has a
    label, numbered IRIs are still the names."""
    rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    graph = tmp_path / "awards.nt"
    graph.write_text(
        f'<{MD}Best_actress> <{RDFS_LABEL}> "Best actress" .\n<{MD}Best_actress> <{rdf_type}> <{MO}Category> .\n'
        + "".join(
            f"<{MD}a{n}Best_actress> <{rdf_type}> <{MO}Award> .\n"
            f"<{MD}a{n}Best_actress> <{MO}category> <{MD}Best_actress> .\n"
            for n in (1, 2)
        ),
        encoding="utf-8",
    )
    assert build_label_index(open_store("rdflib", paths=[graph])).ids == [MD + "Best_actress"]
    bare = tmp_path / "bare.nt"
    bare.write_text("".join(line for line in graph.read_text().splitlines(keepends=True) if RDFS_LABEL not in line))
    assert MD + "a1Best_actress" in build_label_index(open_store("rdflib", paths=[bare])).ids


def test_local_names_can_be_turned_off(store: Store) -> None:
    assert len(build_label_index(store, local_names=False)) == 0


def test_freebase_nodes_without_a_name_stay_unnamed(tmp_path: Path) -> None:
    ns = "http://rdf.freebase.com/ns/"
    graph = tmp_path / "fb.nt"
    graph.write_text(
        f"<{ns}m.0abc> <{ns}people.person.spouse_s> <{ns}m.0cvt> .\n"
        f'<{ns}m.0abc> <{ns}type.object.name> "Ada Quill"@en .\n',
        encoding="utf-8",
    )
    index = build_label_index(open_store("rdflib", paths=[graph]))
    assert index.ids == [ns + "m.0abc"] and index.sources == {ns + "type.object.name": 1}


def test_cache_keeps_sources_and_the_setting(store: Store, tmp_path: Path) -> None:
    cache = tmp_path / "labels.json.gz"
    index, report = load_or_build(store, cache)
    again = LabelIndex.load(cache)
    assert again.sources == index.sources == report.sources and again.local_names
    _, rebuilt = load_or_build(store, cache, local_names=False)
    assert not rebuilt.loaded_from_cache and rebuilt.entities == 0


def test_kg_link_command_shows_the_index_and_candidates(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(store.path)  # type: ignore[attr-defined]
    assert main(["kg", "link", "--store", folder, "who are the members of the beatles", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["index"] == {"entities": 13, "sources": {"IRI local names": 13}}
    assert out["candidates"][0]["entity_id"] == MD + "TheBeatlesB"
    assert main(["kg", "link", "--store", folder, "where was john lennon born"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "13 entities named: 13 by IRI local names"
    assert MD + "JohnLennonM" in lines[1]


def test_doctests_hold() -> None:
    import doctest

    import nl2sparql.kg.linker as linker_module
    import nl2sparql.kg.local_names as local_names

    for module in (linker_module, local_names):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0 and outcome.failed == 0, module.__name__
