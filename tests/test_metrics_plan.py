"""Planner metrics: type accuracy, step F1 over normalised sentences, parse-failure counts."""

from __future__ import annotations

import pytest

from nl2sparql.evaluation.metrics import count_parse_failures, plan_type_accuracy, step_f1
from nl2sparql.evaluation.plan_metrics import normalise_steps
from nl2sparql.plan.steps import Answer, Find, Mention, Rank, Var

GOLD = [
    "Find the championships won by the sports team Dallas Cowboys, assign it to ?x.",
    "Find the end date of ?x, assign it to ?d.",
    "Rank ?x by ?d in descending order and keep the first.",
    "The answer is ?x.",
]


def test_plan_type_accuracy() -> None:
    pairs = [
        ("composition", "composition"),
        ("Superlative ", "superlative"),
        (None, "conjunction"),
        ("a", "b"),
    ]
    assert plan_type_accuracy(pairs) == 0.5
    assert plan_type_accuracy([(None, None)]) == 1.0
    with pytest.raises(ValueError):
        plan_type_accuracy([])


def test_normalisation_reads_phrasings_and_renames_variables() -> None:
    memq = [
        "Step 1: Find the championships won by the sports team Dallas Cowboys, assign it to ?a.",
        "find  the end date of ?a,   assign it to ?b",  # no full stop: not a step, only blank-normalised
        "Finally the answer is ?a.",
    ]
    assert normalise_steps(memq) == [
        "find the championships won by the sports team dallas cowboys, assign it to ?v1",
        "find the end date of ?v1, assign it to ?v2",
        "the answer is ?v1",
    ]
    typed = [Find("the siblings", (Mention("Justin Bieber"),), Var("q")), Answer(Var("q"))]
    assert normalise_steps(typed) == [
        "find the siblings of justin bieber, assign it to ?v1",
        "the answer is ?v1",
    ]
    assert normalise_steps(typed, rename_variables=False)[1] == "the answer is ?q"


def test_step_f1_known_values() -> None:
    assert step_f1(GOLD, GOLD) == 1.0
    renamed = [step.replace("?x", "?answer").replace("?d", "?date") for step in GOLD]
    assert step_f1(renamed, GOLD) == 1.0
    assert step_f1(renamed, GOLD, rename_variables=False) == 0.0  # every step names a variable
    # MemQ's phrasing of the same answer line and a typed step compare equal to the text.
    memq = [*GOLD[:3], "Finally the answer is ?x."]
    assert step_f1(memq, GOLD) == 1.0
    typed = [*GOLD[:2], Rank(Var("x"), Var("d"), descending=True), Answer(Var("x"))]
    assert step_f1(typed, GOLD) == 1.0
    # Three of four steps right, one missing: P = 1, R = 3/4, F1 = 6/7.
    assert step_f1(GOLD[:3], GOLD) == pytest.approx(6 / 7)
    # One wrong step out of four: P = R = 3/4.
    wrong = [*GOLD[:2], "Rank ?x by ?d in ascending order and keep the first.", GOLD[3]]
    assert step_f1(wrong, GOLD) == pytest.approx(0.75)
    # A repeated step is matched once (multiset): P = 4/5, R = 1.
    assert step_f1([*GOLD, GOLD[1]], GOLD) == pytest.approx(2 * 0.8 / 1.8)
    assert step_f1([], []) == 1.0
    assert step_f1([], GOLD) == 0.0
    assert step_f1(GOLD, []) == 0.0
    assert step_f1(["nonsense"], GOLD) == 0.0


def test_count_parse_failures() -> None:
    texts = [
        "\n".join(GOLD),
        "Fnd the x, assign it to ?x.\nThe answer is ?x.",
        "Find the x, assign it to ?x.",
        "Find the x of ?y, assign it to ?x.\nThe answer is ?x.",
    ]
    counts = count_parse_failures(texts)
    assert (counts.total, counts.syntax, counts.semantic, counts.failed) == (4, 1, 2, 3)
    assert counts.rate == 0.75
    assert [index for index, _message in counts.errors] == [1, 2, 3]
    assert counts.errors[0][1].startswith("line 1, column 1: expected one of: Type: <name>, Find ...")
    assert count_parse_failures([]).rate == 0.0
