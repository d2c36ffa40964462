"""Values in a plan are copied from the question: a miscopied number, date or code is put
right; a correct one, a name and a plan of a question without values are left alone.

The miscopies are ones the shipped planner wrote on CWQ dev questions; the gold plans are
those of CWQ part A, synthesised from its gold SPARQL.
"""

from __future__ import annotations

import doctest
import importlib
import random

from conftest import gold_plan_pairs

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Plan
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.input_format import question_from_input
from nl2sparql.planner.repairs import Asked, question_dates
from nl2sparql.planner.repairs.copy_values import copy_values as copy_rule
from nl2sparql.training.constraint_data import spoken_date

copied_values = importlib.import_module("nl2sparql.planner.repairs.copy_values")


def copy_values(plan: Plan, question: str) -> Plan:
    """The rule on a question alone (it reads no entity names)."""
    return copy_rule(plan, Asked(question))


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
    assert doctest.testmod(question_dates).failed == 0


def test_a_miscopied_number_becomes_the_questions() -> None:
    cases = [
        ("Where do the people speak Portuguese, where the child labor percentage was once 1.8?", "1", "1.8"),
        ("Which country that once had a CPI inflation rate of -1.61 speaks Portuguese?", "-61.1", "-1.61"),
        ("What country do they speak Portuguese where the GDP was once 100349905926?", "100349999", "100349905926"),
    ]
    for question, written, copied in cases:
        plan = copy_values(parse_plan(PORTUGUESE.format(value=written)), question)
        assert format_plan(plan) == PORTUGUESE.format(value=copied)


def test_a_year_copied_after_a_time_operator_becomes_the_date_the_question_writes() -> None:
    """The shipped planner wrote "after 193" for "after January 2, 1939" (CWQ dev), whose gold
    query compares with 1939-01-02: the copied value is that date, and the plan reads back."""
    plan = "Type: comparative\nFind the start date of the event World War II, assign it to ?v1.\n"
    question = "Who was the president during World War 2 that started his position after January 2, 1939?"
    copied = copy_values(parse_plan(plan + "Make sure ?v1 is after 193.\nThe answer is ?v1.\n"), question)
    assert format_plan(copied) == plan + "Make sure ?v1 is after 1939-01-02.\nThe answer is ?v1.\n"
    assert parse_plan(format_plan(copied)) == copied


def test_a_miscopied_date_a_number_in_words_and_a_code_become_the_questions() -> None:
    """Miscopies the shipped planner wrote on CWQ dev questions, each put right as its gold plan has it."""
    steps = (
        "Find the influence node that the influence node Claude Monet is influenced by, assign it to ?x.\n"
        "Find the date of death of the deceased person ?x, assign it to ?v1.\nMake sure ?v1 {value}.\n"
    )
    cases = [
        ("Who was the Monet inspired artist that died on December 31, 1877?", "is 1877-11-31", "is 1877-12-31"),
        ("What ended prior to 28 October 1981?", "is before 1981", "is before 1981-10-28"),
        ("What college, founded on 24 February 1893, did Paul Ryan attend?", "is 1893-12-24", "is 1893-02-24"),
        ("Who took office after January 2, 1939, in World War 2?", "is after 19392", "is after 1939-01-02"),
        ("Which country's calling code is greater than fifty-five?", "is greater than 50", "is greater than 55"),
        ("What country speaks Portuguese and has an ISO Alpha 3 of CHN?", 'is "ch"', 'is "CHN"'),
    ]
    for question, written, copied in cases:
        plan = "Type: conjunction\n" + steps + "The answer is ?x.\n"
        assert format_plan(copy_values(parse_plan(plan.format(value=written)), question)) == plan.format(value=copied)


def test_every_date_the_constraint_data_writes_is_read_back() -> None:
    """The constraint pairs' questions write dates as ``spoken_date`` does; question_dates reads each back."""
    for iso in ("1933-03-04", "1877-12-31", "2009-10-20", "1907-12-21"):
        for seed in range(12):
            spoken = spoken_date(iso, random.Random(seed))
            assert [d.iso for d in question_dates.question_dates(f"who died on {spoken}?")] == [iso], spoken


def test_what_the_question_holds_is_left_alone() -> None:
    plan = parse_plan(PORTUGUESE.format(value="1.80"))
    assert copy_values(plan, "where the child labor percentage was once 1.8?") is plan
    assert copy_values(plan, "which countries speak portuguese?") is plan  # no number to copy
    assert copy_values(plan, "which has 5,000,000 people?") is plan  # nothing alike
    dated = parse_plan(PORTUGUESE.format(value="x").replace('"x"', "2011-05-01"))
    assert copy_values(dated, "founded on 2011-05-01?") is dated
    assert copy_values(dated, "founded on 1933-03-04?") is dated  # not alike: another date meant
    named = parse_plan(PORTUGUESE.format(value="country"))
    assert copy_values(named, "which country in the EU speaks portuguese?") is named  # no code alike
    during = parse_plan(PORTUGUESE.format(value="x").replace('is "x"', "holds during 2010"))
    assert copy_values(during, "who does hank baskett play for now nov 2010?") is during  # the year is the period


#: CWQ part A questions whose wording and gold query disagree (the question's value is copied)
CWQ_DISAGREEING = {
    "What has a population under 1894000 and contains Whistler Mountain?",  # gold 18964000
    "What movies with netflix_id higher than 70097541 did Adam Sandler play in?",  # gold 70087541
    "Which movie was released April 04 2008 and stars Taylor Swift?",  # gold 2009-04-08
    "What state does the Colorado River run through that has a governmental jurisdiction location symbol "
    "that was adapted on November 16, 1861?",  # gold 1861-11-06
}


def test_gold_plans_keep_their_values() -> None:
    """Every value of a gold plan of WebQSP train is one its question writes (or none is
    alike), so copying changes no gold plan; of CWQ part A's, only those of questions that
    write another value than their gold query (four, listed)."""
    for source, disagreeing in (("webqsp", set()), ("cwq", CWQ_DISAGREEING)):
        pairs, _ = gold_plan_pairs(source)
        valued = [p for p in pairs if "Make sure" in p.output and any(c.isdigit() for c in p.output)]
        assert len(valued) > 50
        changed = set()
        for pair in valued:
            plan, question = parse_plan(pair.output), question_from_input(pair.input)
            if copy_values(plan, question) != plan:
                changed.add(question)
        assert changed == disagreeing, source
