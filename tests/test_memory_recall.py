"""Embedder, FAISS index, adaptive recall and merging, on small banks built from WebQSP train."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from nl2sparql.memory_bank.bank import MemoryBank, embedding_text, merge
from nl2sparql.memory_bank.build_queries import build_bank_from_queries, load_examples
from nl2sparql.memory_bank.embedder import Embedder, default_embedder
from nl2sparql.memory_bank.index import IndexSettings, VectorIndex
from nl2sparql.memory_bank.recall import RecallSettings, select
from nl2sparql.memory_bank.statement import Statement

SIBLING = "?e1 ns:people.person.sibling_s ?cvt . ?cvt ns:people.sibling_relationship.sibling ?e2 ."


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture(scope="session")
def examples() -> list[Any]:
    return load_examples("webqsp-train")


@pytest.fixture(scope="session")
def bank(embedder: Embedder, examples: list[Any]) -> MemoryBank:
    built, _ = build_bank_from_queries(examples[:60], embedder=embedder, source="webqsp-train[:60]")
    return built


def test_embedder_vectors(embedder: Embedder) -> None:
    sentences = ["the sibling of the person", "the currency used in the country", "Make sure is Male"]
    vectors = embedder.encode(sentences)
    assert vectors.shape == (3, embedder.dimension) and embedder.dimension == 384
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    one = embedder.encode(sentences[1:2])[0]
    assert np.allclose(one, vectors[1], atol=1e-5)  # batching does not change a vector
    assert embedder.encode([]).shape == (0, 384)
    similar = float(embedder.encode_one("the siblings of Justin Bieber") @ vectors[0])
    unrelated = float(embedder.encode_one("the siblings of Justin Bieber") @ vectors[1])
    assert similar > unrelated


def test_flat_and_hnsw_agree(bank: MemoryBank) -> None:
    vectors = bank.index("graph").vectors()
    flat = VectorIndex.build(vectors, IndexSettings(kind="flat"))
    hnsw = VectorIndex.build(vectors, IndexSettings(kind="hnsw"))
    assert (flat.kind, hnsw.kind) == ("flat", "hnsw")
    _, flat_ids = flat.search(vectors[:20], 1)
    _, hnsw_ids = hnsw.search(vectors[:20], 1)
    assert (flat_ids[:, 0] == np.arange(20)).all()
    assert (hnsw_ids == flat_ids).mean() >= 0.9
    again = VectorIndex.deserialize(hnsw.serialize())
    assert again.kind == "hnsw" and len(again) == len(vectors)
    assert IndexSettings(hnsw_threshold=10).resolved_kind(10) == "hnsw"
    assert IndexSettings().resolved_kind(10) == "flat"


def test_select_rules() -> None:
    settings = RecallSettings(gamma1=0.8, gamma2=0.5, max_n=3)
    assert select([0.9, 0.85, 0.7], settings) == (1, "top1")
    assert select([0.7, 0.6, 0.55, 0.52, 0.4], settings) == (3, "threshold")
    assert select([0.7, 0.45], settings) == (1, "threshold")
    assert select([0.3, 0.2], settings) == (1, "fallback")
    assert select([0.3], RecallSettings(gamma1=0.8, gamma2=0.5, at_least_one=False)) == (0, "empty")
    assert select([], settings) == (0, "empty")
    with pytest.raises(ValueError):
        RecallSettings(gamma1=0.5, gamma2=0.6)


def test_recall_finds_the_sibling_statement(bank: MemoryBank) -> None:
    result = bank.recall("the sibling of the person Justin Bieber")
    assert result.candidates[0].entry.key == SIBLING
    assert result.selected and result.selected[0].entry.key == SIBLING
    scores = [c.score for c in result.candidates]
    assert scores == sorted(scores, reverse=True) and len(result.candidates) == RecallSettings().candidates
    top = result.candidates[0]
    assert top.score == pytest.approx(top.similarity + RecallSettings().prior(top.entry.support))
    male = bank.recall("Make sure ?g is Male", section="constraint")
    assert male.candidates[0].entry.description == "Make sure ?e1 is Male"


def test_batch_recall_equals_single(bank: MemoryBank) -> None:
    sentences = [
        "the sibling of the person Justin Bieber",
        "the gender of ?x",
        "the country whose capital is Paris",
    ]
    batch = bank.recall_batch(sentences)
    for sentence, got in zip(sentences, batch, strict=True):
        single = bank.recall(sentence)
        assert [c.entry.id for c in got.candidates] == [c.entry.id for c in single.candidates]
        assert np.allclose([c.score for c in got.candidates], [c.score for c in single.candidates], atol=1e-5)


def test_recall_from_threads(bank: MemoryBank) -> None:
    sentences = ["the sibling of the person Justin Bieber", "the gender of ?x"] * 4
    expected = [bank.recall(s).candidates[0].entry.id for s in sentences]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda s: bank.recall(s).candidates[0].entry.id, sentences))
    assert got == expected


def test_every_entry_is_embedded_from_its_description(bank: MemoryBank, embedder: Embedder) -> None:
    stmt = bank.statements[3]
    assert "?e" not in embedding_text(stmt) and embedding_text(stmt) in stmt.description.replace("?e1 ", "")
    row = bank.index("graph").vectors()[3]
    assert np.allclose(row, embedder.encode_one(embedding_text(stmt)), atol=1e-5)


def test_merge_sums_support_and_reuses_vectors(bank: MemoryBank, embedder: Embedder, examples: list[Any]) -> None:
    other, _ = build_bank_from_queries(examples[60:120], embedder=embedder, source="webqsp-train[60:120]")
    merged = merge(bank, other)
    assert merged.keys() == bank.keys() | other.keys()
    shared = next(iter(bank.keys() & other.keys()))
    assert merged.get(shared).support == bank.get(shared).support + other.get(shared).support
    assert merged.meta.sources == ("webqsp-train[:60]", "webqsp-train[60:120]")
    row = [s.key for s in merged.statements].index(SIBLING)
    assert np.allclose(
        merged.index("graph").vectors()[row],
        bank.index("graph").vectors()[[s.key for s in bank.statements].index(SIBLING)],
    )
    assert merged.recall("the sibling of the person Justin Bieber").candidates[0].entry.key == SIBLING
    assert sum(isinstance(e, Statement) for e in merged.statements) == len(merged.statements)


def test_recall_doctests() -> None:
    import doctest

    from nl2sparql.memory_bank import recall

    assert doctest.testmod(recall).failed == 0


def test_a_tie_in_float_noise_is_broken_by_row(embedder: Embedder) -> None:
    """Two statements with the same description, embedded in batches padded differently, get
    vectors that differ in their last bits; recall must rank them by row (support order), not
    by which way that noise falls for a query."""
    from nl2sparql.memory_bank.recall import TIE, make_recall

    text = "the gender of the person"
    alone = embedder.encode([text])[0]
    padded = embedder.encode([text, "the place of birth of the person who wrote the longest novel of 1850"])[0]
    assert 0 < float(np.abs(alone - padded).max()) < TIE
    query = embedder.encode(["the gender of ?x"])[0]
    # row 1 (a base.* domain, no support) holds the vector that the noise favours: a query's
    # similarities to the two may come out equal or a last bit apart, the latter made sure here
    low = float(query @ alone)
    sims = [low, float(np.nextafter(np.float32(low), np.float32(1)))]
    assert sims[0] < sims[1] and sims[1] - sims[0] < TIE
    entries = [
        Statement("s-a", 1, SIBLING, ("?e1",), "?e2", text, ("a",), 30),
        Statement("s-b", 1, SIBLING, ("?e1",), "?e2", text, ("b",), 0),
    ]
    for order in ([0, 1], [1, 0]):
        found = make_recall("q", entries, [sims[i] for i in order], order, RecallSettings(support_weight=0.0))
        assert [c.entry.id for c in found.candidates] == ["s-a", "s-b"]
