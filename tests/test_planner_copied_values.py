"""Numbers in a plan are copied from the question: a miscopied constant is put right, a
correct one, a date and a plan of a question without numbers are left alone.

The miscopies are ones the shipped planner wrote on CWQ dev questions; the gold plans are
those of CWQ part A, synthesised from its gold SPARQL.
"""

from __future__ import annotations

import doctest

from nl2sparql.config import data_file
from nl2sparql.grammar.plan_format import format_plan
from nl2sparql.grammar.plan_transformer import parse_plan
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.planner import copied_values
from nl2sparql.planner.copied_values import copy_numbers
from nl2sparql.planner.data import DataReport, is_webqsp_dev, synthesised_pairs
from nl2sparql.planner.input_format import question_from_input

PORTUGUESE = (
    "Type: conjunction\n"
    "Find the country that the human language Portuguese Language is countries spoken in, assign it to ?x.\n"
    "Find the amount of the dated integer of the statistical region ?x, assign it to ?v1.\n"
    'Make sure ?v1 is "{value}".\n'
    "Make sure ?x is not Portuguese Language.\n"
    "The answer is ?x.\n"
)


def test_doctests_hold() -> None:
    assert doctest.testmod(copied_values).failed == 0


def test_a_miscopied_number_becomes_the_questions() -> None:
    cases = [
        ("Where do the people speak Portuguese, where the child labor percentage was once 1.8?", "1", "1.8"),
        ("Which country that once had a CPI inflation rate of -1.61 speaks Portuguese?", "-61.1", "-1.61"),
        ("What country do they speak Portuguese where the GDP was once 100349905926?", "100349999", "100349905926"),
    ]
    for question, written, copied in cases:
        plan = copy_numbers(parse_plan(PORTUGUESE.format(value=written)), question)
        assert format_plan(plan) == PORTUGUESE.format(value=copied)


def test_a_year_copied_after_a_time_operator_is_written_as_a_year() -> None:
    """The shipped planner wrote "after 193" for "after January 2, 1939" (CWQ dev): the copied
    1939 is a year there, as the grammar reads it, so the plan can be written and read back."""
    plan = "Type: comparative\nFind the start date of the event World War II, assign it to ?v1.\n"
    question = "Who was the president during World War 2 that started his position after January 2, 1939?"
    copied = copy_numbers(parse_plan(plan + "Make sure ?v1 is after 193.\nThe answer is ?v1.\n"), question)
    assert format_plan(copied) == plan + "Make sure ?v1 is after 1939.\nThe answer is ?v1.\n"
    assert parse_plan(format_plan(copied)) == copied


def test_what_the_question_holds_is_left_alone() -> None:
    plan = parse_plan(PORTUGUESE.format(value="1.80"))
    assert copy_numbers(plan, "where the child labor percentage was once 1.8?") is plan
    assert copy_numbers(plan, "which countries speak portuguese?") is plan  # no number to copy
    assert copy_numbers(plan, "which has 5,000,000 people?") is plan  # nothing alike
    dated = parse_plan(PORTUGUESE.format(value="x").replace('"x"', "2011-05-01"))
    assert copy_numbers(dated, "founded on 2011-05-02?") is dated


def test_gold_plans_keep_their_numbers() -> None:
    """Every number of a gold plan of WebQSP train is one its question writes (or none is
    alike), so copying changes no gold plan."""
    examples = load_dataset(data_file("webqsp/WebQSP.train.json"), "webqsp")
    pairs, _ = synthesised_pairs(examples, is_webqsp_dev, "webqsp-train", DataReport())
    numbered = [p for p in pairs if "Make sure" in p.output and any(c.isdigit() for c in p.output)]
    assert len(numbered) > 50
    for pair in numbered:
        plan = parse_plan(pair.output)
        assert copy_numbers(plan, question_from_input(pair.input)) == plan, pair.id
