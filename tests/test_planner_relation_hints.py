"""Relation hints: the graph's own phrases, recalled for the question, in the planner's input.

On the records graph (``fixtures/own_kg/records.ttl``: no labels, its own namespaces) with a
bank from the store alone, the phrases a gold plan copies are among the hints recalled for
its question; training pairs get hints with their gold phrases in, from the bank their plans
are written for (the store's for KG-pattern pairs); a planner trained on hints refuses to run
without a bank; KG-pattern pairs get exemplars from the gold pairs' memory. Real store,
real embedder.
"""

from __future__ import annotations

import doctest
import random
from pathlib import Path

import pytest
from test_planner_user_exemplars import QUESTIONS, bank  # noqa: F401  (the records graph's store-only bank)

from nl2sparql.kg.datasets import load_dataset
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.embedder import default_embedder
from nl2sparql.planner.backends.local import hints_for
from nl2sparql.planner.errors import PlannerDataError, PlannerModelError
from nl2sparql.planner.exemplars import ExemplarMemory
from nl2sparql.planner.input_format import (
    examples_in_input,
    format_input,
    names_from_input,
    question_from_input,
    relations_in_input,
    with_examples,
    with_relations,
)
from nl2sparql.planner.pairs import DEV_FILE, TRAIN_FILE, PlanPair, read_pairs, write_pairs
from nl2sparql.planner.relation_hints import (
    RelationHints,
    add_relation_hints,
    gold_phrases,
    ground_pair_files,
    with_gold,
)
from nl2sparql.training.pattern_data import exemplars_for_patterns
from nl2sparql.training.user_exemplars import example_pairs


@pytest.fixture(scope="module")
def gold_pairs(bank: MemoryBank) -> list[PlanPair]:  # noqa: F811
    """The records questions with their gold plans in the store bank's words."""
    pairs, skipped = example_pairs(load_dataset(QUESTIONS), bank)
    assert skipped == [] and len(pairs) == 20
    return pairs


def test_hints_sit_between_entities_and_exemplars() -> None:
    text = with_examples(format_input("who is X's brother?", {"m.1": "Justin Bieber"}), ["Type: simple"])
    hinted = with_relations(text, ["the sibling of the person", "a | b"])
    assert hinted == (
        "question: who is X's brother? entities: Justin Bieber relations: the sibling of the person | a / b "
        "examples: Type: simple"
    )
    assert relations_in_input(hinted) == ("the sibling of the person", "a / b")
    assert names_from_input(hinted) == ("Justin Bieber",)
    assert question_from_input(hinted) == "who is X's brother?"
    assert relations_in_input(text) == () and with_relations(text, []) == text


def test_gold_phrases_leave_out_entities_and_variables() -> None:
    plan = (
        "Type: composition\nFind the member of the band Pink Floyd, assign it to ?v1.\n"
        "Find the city that the person ?v1 is born in, assign it to ?x.\nCount ?x, assign it to ?n.\n"
        "The answer is ?n.\n"
    )
    assert gold_phrases(plan, ["Pink Floyd"]) == ("the member of the band", "the city that the person is born in")


def test_with_gold_puts_a_missing_phrase_in_over_a_distractor() -> None:
    picked = [with_gold(["a", "b", "c"], ["g"], 3, random.Random(seed)) for seed in range(50)]
    assert all(len(p) == 3 for p in picked)
    kept = [p for p in picked if "g" in p]
    assert 20 < len(kept) < 50  # most of the time, not always
    assert {p.index("g") for p in kept} == {0, 1, 2}


def test_the_phrases_a_gold_plan_copies_are_among_its_questions_hints(
    bank: MemoryBank,  # noqa: F811
    gold_pairs: list[PlanPair],
) -> None:
    hints = RelationHints(bank, 8)
    found = hints.for_questions(
        [question_from_input(p.input) for p in gold_pairs], [names_from_input(p.input) for p in gold_pairs]
    )
    phrases = [gold_phrases(p.output, names_from_input(p.input)) for p in gold_pairs]
    assert all(len(f) == 8 and len(set(f)) == 8 for f in found)
    covered = sum(all(g in f for g in gold) for f, gold in zip(found, phrases, strict=True))
    assert covered >= 15, covered  # measured 17 of 20
    assert all("ns:" not in h and "http" not in h for f in found for h in f)


def test_training_pairs_get_hints_from_their_own_bank(
    bank: MemoryBank,  # noqa: F811
    gold_pairs: list[PlanPair],
    tmp_path: Path,
) -> None:
    pattern = PlanPair("lpkg-1p-000000", gold_pairs[0].input, gold_pairs[0].output)
    write_pairs(tmp_path / TRAIN_FILE, [*gold_pairs[1:], pattern])
    write_pairs(tmp_path / DEV_FILE, gold_pairs[:1])
    with pytest.raises(PlannerDataError, match="need the bank of their store"):
        ground_pair_files(tmp_path, 4, bank)
    counts = ground_pair_files(tmp_path, 4, bank, store_bank=bank)
    assert counts == {TRAIN_FILE: len(gold_pairs), DEV_FILE: 1}
    train = read_pairs(tmp_path / TRAIN_FILE)
    assert [p.id for p in train] == [*(p.id for p in gold_pairs[1:]), pattern.id]
    assert all(1 <= len(relations_in_input(p.input)) <= 4 for p in train)
    with pytest.raises(PlannerDataError, match="already hold relation hints"):
        ground_pair_files(tmp_path, 4, bank, store_bank=bank)
    hinted = add_relation_hints(gold_pairs, bank, 2, seed=3)
    with_gold_in = sum(
        all(g in relations_in_input(p.input) for g in gold_phrases(p.output, names_from_input(p.input))) for p in hinted
    )
    assert with_gold_in >= 12  # two hints only: most gold phrases are put in by with_gold


def test_a_planner_trained_on_hints_reads_the_bank_it_is_given(bank: MemoryBank, tmp_path: Path) -> None:  # noqa: F811
    assert hints_for({}, bank) is None
    given = hints_for({"relations": 8}, bank)
    assert given is not None and given.bank is bank and given.k == 8
    with pytest.raises(PlannerModelError, match="bank.nl2sq is missing"):
        hints_for({"relations": 8}, None, home=tmp_path)


def test_planner_data_refuses_a_bad_number_of_relations_or_no_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from nl2sparql.cli import main

    assert main(["planner", "data", "--out", str(tmp_path / "d"), "--relations", "99"]) != 0
    assert "--relations takes a number of phrases from 0 to 32" in capsys.readouterr().err
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path / "home"))
    assert main(["planner", "data", "--out", str(tmp_path / "d"), "--relations", "8"]) != 0
    assert f"--complex and --relations: no bank at {tmp_path / 'home' / 'bank.nl2sq'}" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()  # refused before any pair is written


def test_pattern_pairs_get_exemplars_from_the_gold_memory(gold_pairs: list[PlanPair], tmp_path: Path) -> None:
    memory = ExemplarMemory.build(gold_pairs[:10], default_embedder())
    pattern = PlanPair("lpkg-count-000000", format_input("how many members does Blur have?", {}), gold_pairs[9].output)
    write_pairs(tmp_path / TRAIN_FILE, [*gold_pairs[10:], pattern])
    assert exemplars_for_patterns(tmp_path, memory, 2) == 1
    train = read_pairs(tmp_path / TRAIN_FILE)
    assert train[:-1] == gold_pairs[10:]
    assert examples_in_input(train[-1].input) == 2 and "Count ?x" in train[-1].input


def test_doctests_hold() -> None:
    from nl2sparql.planner import input_format, relation_hints

    assert doctest.testmod(relation_hints).failed == 0 and doctest.testmod(input_format).failed == 0
