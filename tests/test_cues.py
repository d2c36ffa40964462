"""The question cues that open the agent's operators (candidates/cues.py), on questions of
kinds the unseen suites ask, and the cases that must open nothing."""

from __future__ import annotations

import pytest

from nl2sparql.candidates.cues import read_cues

CASES = [
    ("How many cars are there?", {"count": True}),
    ("How much does the car weigh?", {"count": False, "value": True}),
    ("Which customer has spent the most money?", {"by_total": True, "group_rank": True}),
    ("Which European car gets the most miles per gallon?", {"by_total": False}),
    ("By how much did the population grow between 1952 and 2007?", {"difference": "later"}),
    ("How much more horsepower does the amc have than the datsun?", {"difference": "first"}),
    ("How much does the car weigh?", {"difference": None}),
    ("Give the name and ISO code of every canton of Switzerland.", {"columns": True}),
    ("What are the average reading score and the average math score of Larkspur?", {"columns": True}),
    ("How many years older is the Quarterly Journal than the Review?", {"difference": "first", "count": False}),
    ("How many players taller than 80 inches are there?", {"difference": None, "count": True}),
    ("Which tracks are longer than 80 minutes?", {"compare": ("greater than", "80")}),
    ("Which cars are lighter than 2000 pounds?", {"compare": ("less than", "2000")}),
    ("Does the jetta have more than 100 horsepower?", {"compare": ("greater than", "100"), "most": False}),
]


@pytest.mark.parametrize(("question", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_cues_of_a_question(question: str, expected: dict[str, object]) -> None:
    cues = read_cues(question)
    assert {name: getattr(cues, name) for name in expected} == expected
