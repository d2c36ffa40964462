"""A user's own example questions become the planner's exemplars, in their graph's words.

On the records graph (``fixtures/own_kg/records.ttl``: no labels, namespaces of its own)
with a bank from the store alone, the QALD questions of ``records-qald.json`` make an
exemplar memory whose plans speak that bank's words, never Freebase's; the local planner
reads a memory given to it instead of the one it was trained with; and the CLI and the
settings refuse what cannot work with a clear error. Real store, real embedder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.kg.datasets import Example, load_dataset
from nl2sparql.kg.store import open_store
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.bank_file import save_bank
from nl2sparql.memory_bank.build_store import build_bank_from_store
from nl2sparql.memory_bank.embedder import default_embedder
from nl2sparql.planner.backends.local import exemplars_for
from nl2sparql.planner.errors import PlannerError, PlannerModelError
from nl2sparql.planner.exemplars import ExemplarMemory
from nl2sparql.training.user_exemplars import build_user_exemplars

OWN_KG = Path(__file__).parent / "fixtures" / "own_kg"
QUESTIONS = OWN_KG / "records-qald.json"


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> MemoryBank:
    store = open_store("oxigraph", path=tmp_path_factory.mktemp("records-store"))
    store.load(OWN_KG / "records.ttl", progress=False)
    return build_bank_from_store(store, embedder=default_embedder(), source="records")[0]


@pytest.fixture(scope="module")
def examples() -> list[Example]:
    return load_dataset(QUESTIONS)


@pytest.fixture(scope="module")
def made(examples: list[Example], bank: MemoryBank) -> ExemplarMemory:
    result = build_user_exemplars(examples, bank, default_embedder())
    assert result.skipped == ()
    return result.memory


def test_every_example_becomes_an_exemplar_in_the_graphs_words(made: ExemplarMemory, examples: list[Example]) -> None:
    assert made.ids == tuple(e.id for e in examples)
    by_id = dict(zip(made.ids, made.texts, strict=True))
    assert by_id["q05"] == (
        "Type: composition ; Find the member of the band X, assign it to ?v1. ; "
        "Find the city that the person ?v1 is born in, assign it to ?x."
    )
    assert by_id["q11"].startswith("Type: count ;") and "Count ?x" in by_id["q11"]
    assert by_id["q13"].startswith("Type: yes-no ;") and 'contains "fab"' in by_id["q13"]
    assert "Compute the average of ?x" in by_id["q17"]
    text = " ".join(made.texts)
    assert "ns:" not in text and "Radiohead" not in text  # the graph's words; entity names masked


def test_nearest_exemplar_of_a_new_question_is_its_kind(made: ExemplarMemory) -> None:
    found = made.nearest(["how many albums did Blur record?"], [["Blur"]], 1, embedder=default_embedder())[0]
    assert len(found) == 1 and "album" in found[0].lower()


def test_the_planner_reads_a_given_memory(made: ExemplarMemory, tmp_path: Path) -> None:
    made.save(tmp_path / "mine")
    memory = exemplars_for(tmp_path / "planner", {"exemplars": 3}, home=tmp_path / "home", given=tmp_path / "mine")
    assert memory is not None and memory.ids == made.ids
    with pytest.raises(PlannerModelError, match="not trained to read exemplars"):
        exemplars_for(tmp_path / "planner", {}, given=tmp_path / "mine")
    with pytest.raises(PlannerModelError, match="make one with 'nl2sparql planner exemplars"):
        exemplars_for(tmp_path / "planner", {"exemplars": 3}, given=tmp_path / "missing")


def test_no_example_with_a_plan_is_a_clear_error(bank: MemoryBank) -> None:
    lone = Example("q1", "who?", {}, None, (), None, "qald")
    with pytest.raises(PlannerError, match="none of the 1 example questions gave a plan"):
        build_user_exemplars([lone], bank, default_embedder())


def test_cli_writes_the_memory_and_ask_refuses_it_for_the_oracle(
    bank: MemoryBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank_file = tmp_path / "records.nl2sq"
    save_bank(bank, bank_file)
    out = tmp_path / "mine"
    args = ["planner", "exemplars", "--from-queries", str(QUESTIONS), "--format", "qald"]
    assert main([*args, "--bank", str(bank_file), "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exemplars"] == 20 and report["skipped"] == {}
    assert len(ExemplarMemory.load(out).ids) == 20
    code = main(["ask", "who?", "--planner", "oracle", "--bank", str(bank_file), "--exemplars", str(out)])
    assert code == 1
    assert "exemplars are read by a local planner" in capsys.readouterr().err
