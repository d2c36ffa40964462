"""Banks derived from a KG alone: the fixture graph of tests/conftest.py and FB15k-237."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from nl2sparql.kg.freebase_schema import load_schema
from nl2sparql.kg.store import Store, open_store
from nl2sparql.memory_bank.build_store import (
    build_bank_from_store,
    cvt_relations_found,
    fb15k_cvt_relations,
    scan_store,
    statements_from_scan,
)
from nl2sparql.memory_bank.describe import TemplateDescriber
from nl2sparql.memory_bank.embedder import Embedder, default_embedder
from nl2sparql.memory_bank.statement import Statement

SPOUSE = "?e1 ns:people.person.spouse_s ?cvt . ?cvt ns:people.marriage.spouse ?e2 ."
ACTOR_FILM = "?e1 ns:film.actor.film ?cvt . ?cvt ns:film.performance.film ?e2 ."


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture(scope="module")
def small_store(fixture_nt: Path) -> Store:
    return open_store("rdflib", paths=[fixture_nt])


def test_fixture_graph_scan(small_store: Store) -> None:
    scan = scan_store(small_store)
    # 4 marriages, 2 sibling relationships, 5 performances, 4 government positions
    assert scan.cvt_nodes == 15 and scan.dangling_cvts == 0 and scan.cvt_to_cvt == 0
    assert sum(scan.signatures.values()) == 15
    assert ("ns:people.marriage.from", True) in scan.literal_links
    holder = frozenset(
        {
            ("ns:government.politician.government_positions_held", False),
            ("ns:government.government_position_held.office_holder", True),
        }
    )
    assert holder in scan.inverse_links
    entries = statements_from_scan(scan)
    by_key = {e.key: e for e in entries}
    assert by_key[SPOUSE].support == 4 and by_key[ACTOR_FILM].support == 5
    assert by_key["?e1 ns:people.person.gender ?e2 ."].support == 8
    # a literal is never an input, a link and its inverse are never read together
    for e in entries:
        assert isinstance(e, Statement)
        assert not any(t.predicate == "ns:people.marriage.from" and t.object in e.inputs for t in e.triples)
        preds = {t.predicate for t in e.triples}
        assert (
            not {
                "ns:government.politician.government_positions_held",
                "ns:government.government_position_held.office_holder",
            }
            <= preds
        )
    structures = Counter(e.structure for e in entries)
    assert structures[3] > 0  # positions and marriages have three or more named neighbours
    describer = TemplateDescriber(load_schema())
    assert describer.describe(by_key[SPOUSE]) == "?e2 is the spouse of the person ?e1"


def test_fixture_graph_bank_recall(small_store: Store, embedder: Embedder) -> None:
    bank, scan = build_bank_from_store(small_store, embedder=embedder, source="fixture")
    assert len(bank.statements) == len(statements_from_scan(scan))
    top = bank.recall("the spouse of the person Ada Quill").candidates[0].entry
    assert top.description == "?e2 is the spouse of the person ?e1"
    assert bank.meta.sources == ("fixture",)


@pytest.mark.slow  # reads the 518k edges of the FB15k-237 store (about 30 s here)
def test_fb15k_cvt_relations_rediscovered(fb15k_store: Store) -> None:
    scan = scan_store(fb15k_store)
    entries = statements_from_scan(scan)
    relations = fb15k_cvt_relations()
    assert len(relations) == 144  # FB15k-237 relations with a CVT in the middle
    found = cvt_relations_found(entries, relations)
    assert sum(found.values()) == len(relations)
    structures = Counter(e.structure for e in entries if isinstance(e, Statement))
    # each of the 144 pairs both ways; the 93 plain relations (all between entities) both ways
    assert structures[2] == 2 * len(relations) and structures[3] == 0
    assert structures[1] == 2 * 93
    film = next(e for e in entries if e.key == ACTOR_FILM)
    assert TemplateDescriber(load_schema()).describe(film) == "?e2 is the film of the actor ?e1"
