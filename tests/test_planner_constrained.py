"""Grammar-constrained greedy decoding: every prefix of a real plan stays allowed, text outside
the plan language is refused, and a tiny *random* model (the 2-layer BERT of
test_planner_training, never trained) writes plans that parse."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_planner_training import one_thread, tiny_bert  # noqa: F401  (fixtures)

from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner.backends.local import LocalPlanner
from nl2sparql.planner.constrained import allowed_prefix, closing, plan_prefix
from nl2sparql.planner.decoding import DecodingOptions
from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.model import PlannerModel, build_base, parse_base

PLANS = (
    "Type: composition\nFind the siblings of Justin Bieber, assign it to ?x.\nFind the gender of ?x, assign it to ?g.\n"
    "Make sure ?g is Male.\nThe answer is ?x.\n",
    "Type: superlative\nFind the championships won by the sports team Dallas Cowboys, assign it to ?x.\n"
    "Find the end date of ?x, assign it to ?d.\nRank ?x by ?d in descending order and keep the first.\n"
    "The answer is ?x.\n",
    "Type: comparative\nFind the films of Cy Quill, assign it to ?x.\nFind the release date of ?x, assign it to ?d.\n"
    "Make sure ?d is after 2011-05-01.\nCount ?x, assign it to ?n.\nThe answer is ?n.\n",
)
QUESTIONS = ("who is justin bieber's brother?", "what county is san diego in?", "where was ada quill born?")


@pytest.mark.parametrize("plan", PLANS)
def test_every_prefix_of_a_real_plan_is_allowed(plan: str) -> None:
    parse_plan(plan)
    refused = [plan[:end] for end in range(len(plan) + 1) if not allowed_prefix(plan[:end])]
    assert refused == []
    assert closing(plan) == ""


@pytest.mark.parametrize(
    "text",
    [
        "Type: composition\nFrobnicate",
        "Type: composition\nFind the siblings of Justin Bieber.\n",
        "Type: composition\nThe answer is x",
        "Type: composition\nFind the siblings of ?y, assign it to ?x.\n",  # ?y used before it is assigned
        # a CWQ dev plan ran on here to the length limit and never parsed
        "Type: simple\nFind the film of the actor X, assign it to ?x. carrier war",
        "Type: superlative\nFind the films of X, assign it to ?x.\nFind the date of ?x, assign it to ?d.\n"
        "Rank ?x by ?d in ascending order and keep the first. d",
        # refused at its ".", where another variable can still be written, not after it
        "Type: composition\nFind the film of X, assign it to ?v1.\nFind the director of ?v1, assign it to ?v1.",
        # "greater than" takes a number, a date, a text or a variable: no name may start after it
        "Type: yes\nFind the member of X, assign it to ?v1.\nCount ?v1, assign it to ?v2.\n"
        "Make sure ?v2 is greater than t",
        # a variable compared with itself (a WebQSP part-A plan ran on from here to the limit)
        "Type: comparative\nFind the works of X, assign it to ?x.\nFind the date written of ?x, assign it to ?v1.\n"
        "Make sure ?v1 is greater than ?v1",
    ],
)
def test_text_outside_the_plan_language_is_refused(text: str) -> None:
    assert not allowed_prefix(text)


def test_a_partial_plan_is_closed_by_the_shortest_ending() -> None:
    assert closing("Type: composition\nFind the siblings of Justin Bieber") == ", assign it to ?x.\nThe answer is ?x."
    assert closing("Type: composition\nFind the siblings of Justin Bieber, assign it to ?x.\nThe answer is ?") == "x."
    # a step that reads ?x is closed with another variable (a CWQ dev plan looped to the limit here)
    reads_x = "Type: conjunction\nFind the film of X, assign it to ?x.\nFind the award of ?x, assign it to"
    assert closing(reads_x) == " ?v9.\nThe answer is ?x."
    assert closing(reads_x.removesuffix(", assign it to")) == ", assign it to ?v9.\nThe answer is ?x."
    flat = "type : composition ; find the siblings of justin bieber, assign it to? x. ; the answer is? "
    # the variable begun at the end reads as one ("is ?", not "is?"), so "x." closes it as above
    assert plan_prefix(flat, "flat", ["Justin Bieber"]).endswith("Justin Bieber, assign it to ?x.\nthe answer is ?")


def test_a_tiny_random_model_writes_plans_that_parse_when_constrained(tiny_bert: Path) -> None:  # noqa: F811
    model, tokenizer, architecture = build_base(parse_base(f"ed:{tiny_bert}"))
    planner_model = PlannerModel(model, tokenizer, architecture)
    greedy = DecodingOptions(num_beams=1, sample_tries=0, max_new_tokens=96)
    requests = [{"question": q, "entities": {"m.1": "Justin Bieber"}} for q in QUESTIONS]
    outputs = LocalPlanner(planner_model, greedy).plan_batch(requests, errors="return")
    for output in outputs:
        assert not isinstance(output, PlannerError), str(output)
        assert output.attempts == 1 and parse_plan(output.text) == output.plan
    free = DecodingOptions(num_beams=1, sample_tries=0, max_new_tokens=96, constrained=False)
    unconstrained = LocalPlanner(planner_model, free).plan_batch(requests, errors="return")
    assert all(isinstance(output, PlannerError) for output in unconstrained)  # the same model, unconstrained


def test_the_constraint_doctests() -> None:
    import doctest

    from nl2sparql.planner import constrained

    assert doctest.testmod(constrained).failed == 0
