"""Entity linking on a small graph the tests build: exact, fuzzy, accents, prior, spans, cache.

The graph is invented and Freebase-shaped: two entities called "Paris" (one with many
triples, one with a single one), a mention that is a sub-word of a longer name ("York" in
"New York City"), an accented name, aliases under ``common.topic.alias`` and
``skos:altLabel``, a non-English label and a non-Freebase entity with ``rdfs:label``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import FIXTURE_GRAPH, VirtuosoEndpoint, fixture_graph_nt

from nl2sparql.kg.label_index import (
    FREEBASE_NAME,
    LabelIndex,
    LabelIndexError,
    build_label_index,
    load_or_build,
    normalize,
)
from nl2sparql.kg.linker import (
    EntityLinker,
    LinkingError,
    RankWeights,
    UnknownEntityError,
    validate_entity_ids,
)
from nl2sparql.kg.mention_prior import MentionPrior, MentionPriorError, learn_from_datasets
from nl2sparql.kg.store import Store, open_store

NS = "http://rdf.freebase.com/ns/"
SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def _graph_lines() -> list[str]:
    lines: list[str] = []

    def name(mid: str, text: str, lang: str = "en", predicate: str = FREEBASE_NAME) -> None:
        lines.append(f'<{NS}{mid}> <{predicate}> "{text}"@{lang} .')

    def edge(s: str, p: str, o: str) -> None:
        lines.append(f"<{NS}{s}> <{NS}{p}> <{NS}{o}> .")

    name("m.paris_fr", "Paris")
    name("m.paris_tx", "Paris")
    name("m.france", "France")
    name("m.texas", "Texas")
    name("m.paris_hilton", "Paris Hilton")
    name("m.nyc", "New York City")
    name("m.york", "York")
    name("m.england", "England")
    name("m.bieber", "Justin Bieber")
    name("m.beyonce", "Beyoncé Knowles")
    name("m.beyonce", "Queen B", predicate=NS + "common.topic.alias")
    name("m.gm", "General Motors")
    name("m.gm", "GM", predicate=SKOS_ALT)
    name("m.martí", "José Martí")
    name("m.nyc", "Nueva York", lang="es")
    name("m.jamaica", "Jamaica")
    name("m.egypt", "Egypt")
    name("m.seahawks", "Seattle Seahawks")
    name("m.polk", "James K. Polk")
    name("cvt.1", "", lang="en")  # an empty label must not become a key
    lines.append(f'<http://example.org/thing/Widget> <{RDFS_LABEL}> "Widget" .')
    # Degrees: the French Paris is a hub, the Texan one has one edge; York has many edges.
    for k in range(12):
        edge("m.paris_fr", "location.location.contains", f"m.place{k}")
    edge("m.paris_fr", "location.location.containedby", "m.france")
    edge("m.paris_tx", "location.location.containedby", "m.texas")
    for k in range(8):
        edge("m.york", "location.location.contains", f"m.yplace{k}")
    edge("m.york", "location.location.containedby", "m.england")
    edge("m.nyc", "location.location.containedby", "m.usa")
    edge("m.bieber", "people.person.place_of_birth", "m.ontario")
    edge("m.paris_hilton", "people.person.place_of_birth", "m.nyc")
    return lines


def _write_graph(folder: Path, extra: tuple[str, ...] = ()) -> Path:
    path = folder / "graph.nt"
    path.write_text("\n".join([*_graph_lines(), *extra]) + "\n", encoding="utf-8")
    return path


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    return open_store("rdflib", paths=_write_graph(tmp_path))


@pytest.fixture()
def linker(store: Store) -> EntityLinker:
    index = build_label_index(store, alias_predicates=(SKOS_ALT, NS + "common.topic.alias"))
    return EntityLinker(index)


def _top(linker: EntityLinker, question: str) -> str:
    candidates = linker.link(question, k=3)
    assert candidates, f"no candidate for {question!r}"
    return candidates[0].entity_id


# -- normalisation ---------------------------------------------------------------------------


def test_normalize_folds_case_accents_punctuation_and_spaces() -> None:
    assert normalize("  José   MARTÍ! ") == "jose marti"
    assert normalize("Beyoncé Knowles-Carter") == "beyonce knowles carter"
    assert normalize("James K. Polk") == "james k polk"
    assert normalize("?!") == ""


# -- the index -------------------------------------------------------------------------------


def test_index_reads_names_aliases_degrees_and_skips_other_languages(linker: EntityLinker) -> None:
    index = linker.index
    by_id = {index.entity_id(p): p for p in range(len(index))}
    assert index.names[by_id["m.beyonce"]] == "Beyoncé Knowles"  # the name, not the alias
    assert index.names[by_id["http://example.org/thing/Widget"]] == "Widget"
    assert "nueva york" not in index.keys  # Spanish label left out
    assert "" not in index.keys
    assert index.degrees[by_id["m.paris_fr"]] == 14  # 13 edges out + its name
    assert index.degrees[by_id["m.paris_tx"]] == 2
    assert index.degrees[by_id["m.france"]] == 2  # one edge in + its name
    assert "queen b" in index.keys and "gm" in index.keys


def test_paged_build_reads_the_same_index(store: Store) -> None:
    whole = build_label_index(store)
    paged = build_label_index(store, page_size=3)
    assert paged.to_json() == whole.to_json()


def test_label_predicates_are_configurable(store: Store) -> None:
    only_rdfs = build_label_index(store, name_predicates=(RDFS_LABEL,), alias_predicates=())
    assert [only_rdfs.entity_id(p) for p in range(len(only_rdfs))] == ["http://example.org/thing/Widget"]
    with pytest.raises(LabelIndexError, match="no label predicates"):
        build_label_index(store, name_predicates=(), alias_predicates=())


# -- linking ---------------------------------------------------------------------------------


def test_exact_match_gives_entity_mention_and_span(linker: EntityLinker) -> None:
    question = "Where was Justin Bieber born?"
    (best, *_) = linker.link(question)
    assert best.entity_id == "m.bieber"
    assert best.name == "Justin Bieber"
    assert best.match == "exact"
    assert best.mention == "Justin Bieber"
    assert question[best.span[0] : best.span[1]] == "Justin Bieber"


def test_fuzzy_match_finds_a_misspelt_name(linker: EntityLinker) -> None:
    (best, *_) = linker.link("where was justin beiber born")
    assert (best.entity_id, best.match, best.mention) == ("m.bieber", "fuzzy", "justin beiber")


def test_accents_and_case_do_not_matter(linker: EntityLinker) -> None:
    assert _top(linker, "what did BEYONCE KNOWLES sing") == "m.beyonce"
    assert _top(linker, "where did jose marti live") == "m.martí"
    assert _top(linker, "where did JOSÉ MARTÍ live") == "m.martí"


def test_punctuation_in_names_and_questions(linker: EntityLinker) -> None:
    assert _top(linker, "what did james k polk do before he was president") == "m.polk"
    assert _top(linker, "what did james k. polk do?") == "m.polk"


def test_aliases_link_to_their_entity_and_show_its_name(linker: EntityLinker) -> None:
    (best, *_) = linker.link("what cars does gm make")
    assert (best.entity_id, best.name, best.mention) == ("m.gm", "General Motors", "gm")
    assert _top(linker, "who is queen b married to") == "m.beyonce"


def test_degree_prior_decides_between_same_name_entities(linker: EntityLinker) -> None:
    paris = [c for c in linker.link("what is the population of paris", k=5) if c.name == "Paris"]
    assert [c.entity_id for c in paris] == ["m.paris_fr", "m.paris_tx"]
    assert paris[0].score > paris[1].score  # the score says so, not just the tie-break


def test_multi_word_mention_beats_its_sub_word(linker: EntityLinker) -> None:
    candidates = linker.link("where is new york city", k=5)
    ids = [c.entity_id for c in candidates]
    assert ids[0] == "m.nyc"
    assert "m.york" in ids  # still a candidate, ranked below despite its higher degree
    assert candidates[0].score > candidates[ids.index("m.york")].score
    assert linker.link_entities("where is new york city", k=2) == {"m.nyc": "New York City"}


def test_longer_name_beats_a_popular_sub_word(linker: EntityLinker) -> None:
    assert _top(linker, "who are paris hilton's parents") == "m.paris_hilton"


def test_demonym_links_to_the_country(linker: EntityLinker) -> None:
    (best, *_) = linker.link("what does jamaican people speak")
    assert (best.entity_id, best.mention) == ("m.jamaica", "jamaican")


def test_adjective_or_plural_derives_the_name(linker: EntityLinker) -> None:
    (best, *_) = linker.link("what did egyptians speak")  # too far from "egypt" for fuzzy matching
    assert (best.entity_id, best.match, best.mention) == ("m.egypt", "derived", "egyptians")


def test_part_of_a_longer_name_links_to_it(linker: EntityLinker) -> None:
    (best, *_) = linker.link("when did the seahawks win the super bowl")
    assert (best.entity_id, best.match, best.mention) == ("m.seahawks", "partial", "seahawks")


def test_link_entities_takes_non_overlapping_mentions(linker: EntityLinker) -> None:
    found = linker.link_entities("is paris hilton from new york city", k=2)
    assert found == {"m.paris_hilton": "Paris Hilton", "m.nyc": "New York City"}


def test_link_entities_stops_at_candidates_much_weaker_than_the_best(linker: EntityLinker) -> None:
    question = "where was justin bieber born in texas"
    assert linker.link_entities(question, k=3) == {"m.bieber": "Justin Bieber", "m.texas": "Texas"}
    assert linker.link_entities(question, k=3, min_ratio=0.95) == {"m.bieber": "Justin Bieber"}


def test_no_candidate_for_a_question_without_entities(linker: EntityLinker) -> None:
    assert linker.link("what is the weather like today") == []
    assert linker.link("who did what to whom and why") == []
    assert linker.link_entities("what is the weather like today", k=3) == {}


def test_an_overlong_question_is_refused_with_a_clear_error(linker: EntityLinker) -> None:
    with pytest.raises(LinkingError, match="201 words"):
        linker.link("paris " * 201)
    assert linker.link("paris " * 200)


@pytest.mark.parametrize("question", ["", "   ", "?!", "..."])
def test_empty_question_is_handled(linker: EntityLinker, question: str) -> None:
    assert linker.link(question) == []
    assert linker.link_entities(question) == {}


def test_k_limits_and_orders_candidates(linker: EntityLinker) -> None:
    candidates = linker.link("paris", k=2)
    assert len(candidates) == 2
    assert candidates[0].score >= candidates[1].score
    assert linker.link("paris", k=0) == []


def test_non_freebase_entities_keep_their_iri(linker: EntityLinker) -> None:
    assert _top(linker, "who makes the widget") == "http://example.org/thing/Widget"


# -- the mention prior -----------------------------------------------------------------------


def test_mention_prior_demotes_ngrams_that_are_never_mentions(linker: EntityLinker) -> None:
    question = "which paris is in texas"
    assert _top(linker, question) == "m.paris_fr"
    examples = [("which paris is in texas", {"m.texas"}), ("is texas big", {"m.texas"})] * 3
    prior = MentionPrior.learn(examples, linker.ngram_candidates)
    assert prior.counts["paris"] == (0, 3)
    assert prior.counts["texas"] == (6, 6)
    assert prior.value("paris") < 0 < prior.value("texas")
    tuned = EntityLinker(linker.index, linker.weights, prior)
    assert _top(tuned, question) == "m.texas"


def test_mention_prior_round_trips_and_rejects_bad_files(tmp_path: Path) -> None:
    prior = MentionPrior({"paris": (1, 4)}, strength=2.0)
    prior.save(tmp_path / "prior.json")
    assert MentionPrior.load(tmp_path / "prior.json") == prior
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(MentionPriorError, match="bad.json"):
        MentionPrior.load(tmp_path / "bad.json")
    with pytest.raises(MentionPriorError, match="no mention prior"):
        MentionPrior.load(tmp_path / "missing.json")


def test_mention_prior_learns_from_a_dataset_file_and_caches(linker: EntityLinker, tmp_path: Path) -> None:
    questions = [
        {"QuestionId": "T-1", "RawQuestion": "which paris is in texas", "Parses": [_parse("m.texas")]},
        {"QuestionId": "T-2", "RawQuestion": "what is the capital of texas", "Parses": [_parse("m.texas")]},
    ]
    dataset = tmp_path / "tiny.json"
    dataset.write_text(json.dumps({"Questions": questions}), encoding="utf-8")
    cache = tmp_path / "prior.json"
    prior = learn_from_datasets(linker.ngram_candidates, [dataset], cache_path=cache, index_key=1)
    assert prior.counts["texas"] == (2, 2) and prior.counts["paris"] == (0, 1)
    assert cache.is_file()

    def fail(question: str) -> dict[str, set[str]]:
        raise AssertionError("the cached prior should have been used")

    assert learn_from_datasets(fail, [dataset], cache_path=cache, index_key=1) == prior
    relearned = learn_from_datasets(linker.ngram_candidates, [dataset], cache_path=cache, index_key=2)
    assert relearned == prior


def _parse(mid: str) -> dict[str, object]:
    return {"ParseId": "P0", "Sparql": "SELECT ?x WHERE { }", "TopicEntityMid": mid, "Answers": []}


# -- caching the index -----------------------------------------------------------------------


def test_index_is_cached_atomically_and_rebuilt_when_the_store_changes(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "labels.json.gz"
    first, report = load_or_build(open_store("rdflib", paths=_write_graph(tmp_path)), cache)
    assert not report.loaded_from_cache and report.cache_bytes == cache.stat().st_size > 0
    assert [p.name for p in cache.parent.iterdir()] == ["labels.json.gz"]  # no temp file left
    again, report = load_or_build(open_store("rdflib", paths=_write_graph(tmp_path)), cache)
    assert report.loaded_from_cache
    assert again.to_json() == first.to_json()

    bigger = open_store("rdflib", paths=_write_graph(tmp_path, (f'<{NS}m.new> <{FREEBASE_NAME}> "Newton"@en .',)))
    rebuilt, report = load_or_build(bigger, cache)
    assert not report.loaded_from_cache
    assert "newton" in rebuilt.keys
    _, report = load_or_build(bigger, cache, alias_predicates=())
    assert not report.loaded_from_cache  # other label predicates, other index


def test_unreadable_cache_is_rebuilt(store: Store, tmp_path: Path) -> None:
    cache = tmp_path / "labels.json.gz"
    cache.write_bytes(b"not gzip")
    index, report = load_or_build(store, cache)
    assert not report.loaded_from_cache and len(index) > 0
    assert LabelIndex.load(cache).to_json() == index.to_json()
    with pytest.raises(LabelIndexError, match="no label index"):
        LabelIndex.load(tmp_path / "missing.json.gz")
    cache.write_bytes(gzip.compress(b'{"format": "something else"}'))
    with pytest.raises(LabelIndexError, match="not a label index"):
        LabelIndex.load(cache)


def test_oxigraph_store_keeps_the_index_in_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    oxigraph = open_store("oxigraph", path=folder)
    oxigraph.load(_write_graph(tmp_path), progress=False)
    linker = EntityLinker.from_store(oxigraph)
    assert (folder / "label-index.json.gz").is_file()
    assert _top(linker, "where was justin bieber born") == "m.bieber"
    _, report = load_or_build(oxigraph)
    assert report.loaded_from_cache
    oxigraph.close()


# -- ids given by the caller -----------------------------------------------------------------


def test_validate_entity_ids_accepts_known_ids_in_any_form(store: Store) -> None:
    assert validate_entity_ids(store, ["m.bieber", "ns:m.gm", f"<{NS}m.york>"]) == {
        "m.bieber": "Justin Bieber",
        "m.gm": "General Motors",
        "m.york": "York",
    }
    assert validate_entity_ids(store, {"m.paris_tx": "Paris, Texas"}) == {"m.paris_tx": "Paris, Texas"}
    assert validate_entity_ids(store, ["m.usa"]) == {"m.usa": "m.usa"}  # in the graph, unnamed
    assert validate_entity_ids(store, []) == {}


def test_validate_entity_ids_names_the_unknown_ones(store: Store) -> None:
    with pytest.raises(UnknownEntityError, match=r"m\.nope, m\.gone") as caught:
        validate_entity_ids(store, ["m.bieber", "m.nope", "m.gone"])
    assert caught.value.unknown == ("m.nope", "m.gone")
    with pytest.raises(UnknownEntityError, match="unknown entity"):
        validate_entity_ids(store, ["m.x> } ; DROP ALL"])


def test_weights_can_be_changed(linker: EntityLinker) -> None:
    no_prior = EntityLinker(linker.index, RankWeights(prior=0.0))
    ranked = [c.entity_id for c in no_prior.link("paris", k=5) if c.name == "Paris"]
    assert sorted(ranked) == ["m.paris_fr", "m.paris_tx"]
    assert no_prior.link("paris", k=5)[0].score == no_prior.link("paris", k=5)[1].score


# -- the same index from a SPARQL endpoint, read in pages --------------------------------------


@pytest.mark.virtuoso
def test_endpoint_index_read_in_pages_matches_the_local_one(virtuoso: VirtuosoEndpoint, tmp_path: Path) -> None:
    local = open_store("rdflib", paths=_write_text(tmp_path / "fixture.nt", fixture_graph_nt()))
    endpoint = open_store("endpoint", url=virtuoso.url, default_graph=FIXTURE_GRAPH)
    paged = build_label_index(endpoint, page_size=4)
    assert paged.to_json() == build_label_index(local).to_json()
    assert len(paged) > 10
    linker = EntityLinker.from_store(endpoint, tmp_path / "endpoint-labels.json.gz")
    assert _top(linker, "where was ada quill born") == "m.0p_ada"


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
