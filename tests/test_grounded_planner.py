"""The default planner (also named ``--planner grounded``) on a graph it has never seen.

``planner/default`` is an int8 LoRA adapter made by ``planner train`` and ``planner
export`` from pairs with relation hints, KG-pattern pairs and the QALD shapes (README,
"Planner"). On the records graph (no labels, its own namespaces) with a bank built from
the store alone and the entities the linker finds (and no graph candidates: the planner's
own plans are what is tested here), it must write the shapes the previous
default (``--planner plain``) never writes (a yes/no plan compiled to ``ASK``, a name that
contains a word) in the graph's words, and the pipeline must answer them. Real store,
embedder and planner.
"""

from __future__ import annotations

import pytest
from test_planner_user_exemplars import OWN_KG

from nl2sparql.evaluation.runner import score_one
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.kg.store import Store, open_store
from nl2sparql.memory_bank.build_store import build_bank_from_store
from nl2sparql.memory_bank.embedder import default_embedder
from nl2sparql.pipeline import Pipeline
from nl2sparql.planner.backends import open_planner
from nl2sparql.planner.backends.local import SHIPPED_PLANNER
from nl2sparql.planner.model import META_FILE, read_meta
from nl2sparql.planner.pairs import EXEMPLARS_DIR
from nl2sparql.planner.relation_hints import relation_count
from nl2sparql.settings import Settings
from nl2sparql.training.data import build_exemplar_memory

pytestmark = pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")
ID = "http://example.org/records/id/"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store("oxigraph", path=tmp_path_factory.mktemp("records-grounded"))
    store.load(OWN_KG / "records.ttl", progress=False)
    return store


@pytest.fixture(scope="module")
def pipeline(store: Store, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The records graph's store-only bank, and the default planner (home has none trained:
    the shipped one) reading its hints and the exemplar memory ``nl2sparql setup`` builds in
    the home folder."""
    home = tmp_path_factory.mktemp("home")
    build_exemplar_memory(home / EXEMPLARS_DIR)
    bank, _ = build_bank_from_store(store, embedder=default_embedder(), source="records")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NL2SPARQL_HOME", str(home))
        planner = open_planner("default", bank=bank)
    with planner:
        yield Pipeline(bank=bank, planner=planner, store=store, settings=Settings(candidates="off"))


def test_it_reads_the_graphs_relation_hints(pipeline: Pipeline) -> None:
    meta = read_meta(SHIPPED_PLANNER)
    assert pipeline.planner.hints is not None and pipeline.planner.hints.k == relation_count(meta) == 8
    assert pipeline.planner.hints.bank is pipeline.bank  # the graph's own bank, not the home one
    adapter = SHIPPED_PLANNER / "adapter_model.int8.safetensors"
    assert meta["exported"]["dtype"] == "int8" and adapter.stat().st_size < 10e6


@pytest.mark.model(floor="a yes/no plan compiled to ASK, answered true", measured="the same")
def test_a_yes_no_question_is_asked_and_answered(pipeline: Pipeline) -> None:
    result = pipeline.ask("Was John Lennon born in Liverpool?")
    assert result.error is None, result.error
    assert {ID + "JohnLennonM", ID + "LiverpoolC"} <= set(result.entities)
    assert "whether ?x exists" in " ".join(result.plan) and "ASK" in (result.sparql or "")
    assert [a.id for a in result.answers] == ["true"]


@pytest.mark.model(floor="a contains-word plan with the one right album", measured="the same")
def test_a_name_that_contains_a_word(pipeline: Pipeline) -> None:
    result = pipeline.ask("Which albums of Queen have 'night' in their name?")
    assert result.error is None, result.error
    assert 'contains "night"' in " ".join(result.plan)
    assert [a.id for a in result.answers] == [ID + "ANightAtTheOperaA"]


@pytest.mark.model(floor="two counts compared, answered true", measured="the same")
def test_two_counts_are_compared(pipeline: Pipeline) -> None:
    result = pipeline.ask("Does Pink Floyd have more members than Oasis?")
    assert result.error is None, result.error
    assert "Make sure ?v2 is greater than ?v4." in result.plan
    assert [a.id for a in result.answers] == ["true"]


@pytest.mark.model(floor="the two-hop answer Tanzania", measured="the same")
def test_a_two_hop_question_is_answered_in_the_graphs_words(pipeline: Pipeline) -> None:
    result = pipeline.ask("In which country was Freddie Mercury born?")
    assert result.error is None, result.error
    assert result.entities == {ID + "FreddieMercuryM": "Freddie Mercury"}
    assert [a.id for a in result.answers] == [ID + "TanzaniaK"]


@pytest.mark.model(floor="12 of 20 exactly right", measured="14 of 20")
def test_it_answers_most_of_the_20_records_questions(pipeline: Pipeline) -> None:
    """Entities linked from local names, the bank from the store alone, the answer set exactly
    right (F1 = 1). Measured 14 with this release's planner (issue 18's bar); the floor leaves
    two questions of margin, so a retrained planner that words a plan otherwise still passes."""
    examples = load_dataset(OWN_KG / "records-qald.json")
    right = [
        example.id
        for example in examples
        if score_one(pipeline, example, synthesiser=None, execute=True, gold_answers=True, ged_timeout=1, link=True).f1
        == 1.0
    ]
    assert len(examples) == 20 and len(right) >= 12, right
