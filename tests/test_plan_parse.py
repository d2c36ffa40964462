"""Every phrasing of the plan language reads into the right typed steps; bad plans say where and why."""

from __future__ import annotations

import pickle

import pytest

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.plan.reader import parse_plan, read_plan
from nl2sparql.plan.steps import (
    Answer,
    Combine,
    Count,
    Find,
    Literal,
    MakeSure,
    Mention,
    Plan,
    PlanError,
    PlanSyntaxError,
    Rank,
    Var,
)

X, Y, G, N, D = Var("x"), Var("y"), Var("g"), Var("n"), Var("d")
FIND_X = "Find the siblings of Justin Bieber, assign it to ?x.\n"
FIND_Y = "Find the spouse of ?x, assign it to ?y.\n"


def steps(body: str) -> tuple[object, ...]:
    """The steps of ``body`` read after two Finds (?x, ?y) and before an answer line."""
    plan = parse_plan(FIND_X + FIND_Y + body + "\nThe answer is ?x.")
    return plan.steps[2:-1]


def test_architecture_examples() -> None:
    plan = parse_plan(
        "Type: composition\n"
        "Find the siblings of Justin Bieber, assign it to ?x.\n"
        "Find the gender of ?x, assign it to ?g.\n"
        "Make sure ?g is Male.\n"
        "The answer is ?x.\n"
    )
    assert plan == Plan(
        "composition",
        (
            Find("the siblings", (Mention("Justin Bieber"),), X),
            Find("the gender", (X,), G),
            MakeSure(G, "is", Mention("Male")),
            Answer(X),
        ),
    )
    plan = parse_plan(
        "Type: superlative\n"
        "Find the championships won by the sports team Dallas Cowboys, assign it to ?x.\n"
        "Find the end date of ?x, assign it to ?d.\n"
        "Rank ?x by ?d in descending order and keep the first.\n"
        "The answer is ?x.\n"
    )
    assert plan.steps[0] == Find("the championships won by the sports team Dallas Cowboys", (), X)
    assert plan.steps[2] == Rank(X, D, descending=True, keep=1)


def test_memq_phrasings() -> None:
    plan = parse_plan(
        "Step 1: Find the championships won by the sports team Dallas Cowboys, assign it to ?x.\n"
        "Step 2: Find the end date of ?x, assign it to ?sk0.\n"
        "Step 3: Sort the result based on ?sk0 in descending order and keep the first result.\n"
        "Step 4: Finally the answer is ?x.\n"
    )
    assert plan.type is None
    assert plan.steps[2] == Rank(None, Var("sk0"), descending=True, keep=1)
    assert plan.steps[3] == Answer(X)
    assert parse_plan("Find a, assign it to ?x.\nFinally, the answer is ?x.").steps[1] == Answer(X)
    assert parse_plan("Find a, assign it to ?x.\nThe answer is ?x.").steps[1] == Answer(X)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Make sure ?y is Male.", MakeSure(Y, "is", Mention("Male"))),
        ("Make sure ?y is not Male.", MakeSure(Y, "is", Mention("Male"), negated=True)),
        ("Make sure ?y is ?x.", MakeSure(Y, "is", X)),
        ("Make sure ?y is not ?x.", MakeSure(Y, "is", X, negated=True)),
        ("Make sure ?y is greater than 1000.", MakeSure(Y, "greater than", Literal("1000", "number"))),
        ("Make sure ?y is less than -2.5.", MakeSure(Y, "less than", Literal("-2.5", "number"))),
        ("Make sure ?y is at least 3.", MakeSure(Y, "at least", Literal("3", "number"))),
        ("Make sure ?y is at most ?x.", MakeSure(Y, "at most", X)),
        ("Make sure ?y is before 1990.", MakeSure(Y, "before", Literal("1990", "year"))),
        ("Make sure ?y is after 2011-05-01.", MakeSure(Y, "after", Literal("2011-05-01", "date"))),
        (
            "Make sure ?y is not after 2011-05.",
            MakeSure(Y, "after", Literal("2011-05", "date"), negated=True),
        ),
        ("Make sure ?y holds during 2011.", MakeSure(Y, "holds during", Literal("2011", "year"))),
        (
            "Make sure ?y does not hold during 2011.",
            MakeSure(Y, "holds during", Literal("2011", "year"), negated=True),
        ),
        ('Make sure ?y is "Up \\"2\\"".', MakeSure(Y, "is", Literal('Up "2"', "string"))),
        ("Make sure ?y is {Not Fade Away}.", MakeSure(Y, "is", Mention("Not Fade Away"))),
        ("Make sure ?y is 2011 Olympics.", MakeSure(Y, "is", Mention("2011 Olympics"))),
        ("Make sure ?y is St. Louis.", MakeSure(Y, "is", Mention("St. Louis"))),
        ("Make sure ?y is Nottingham Forest.", MakeSure(Y, "is", Mention("Nottingham Forest"))),
        ("Make sure ?y is 2011.", MakeSure(Y, "is", Literal("2011", "number"))),
        ("Make  sure ?y   is GREATER  than 5 .", MakeSure(Y, "greater than", Literal("5", "number"))),
        ("Rank ?x by ?y in ascending order and keep the first 3.", Rank(X, Y, descending=False, keep=3)),
        ("Rank ?x by ?y in descending order and keep the first.", Rank(X, Y, descending=True, keep=1)),
        (
            "Sort the result based on ?y in ascending order and keep the first 2 results.",
            Rank(None, Y, False, 2),
        ),
        ("Count ?x, assign it to ?n.", Count(X, N)),
        ("Combine ?x and ?y, assign it to ?n.", Combine(X, Y, N)),
        ("find the films directed by ?y, assign it to ?n.", Find("the films directed by ?y", (), N)),
    ],
)
def test_step_phrasings(sentence: str, expected: object) -> None:
    assert steps(sentence) == (expected,)


def test_lines_blank_lines_and_crlf() -> None:
    plan, lines, last = read_plan("\n\nType: conjunction\r\n\r\nFind a, assign it to ?x.\r\n   \nThe answer is ?x.\n\n")
    assert plan.type == "conjunction"
    assert lines == [5, 7]
    assert last == 8


def test_intersection_of_two_finds_on_one_variable() -> None:
    plan = parse_plan(FIND_X + "Find the children of Katie Holmes, assign it to ?x.\nThe answer is ?x.")
    assert [step.target for step in plan.steps[:2]] == [X, X]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "line", "column", "expected"),
    [
        ("Fnd the siblings of ?x, assign it to ?y.", 1, 1, "Find ..."),
        (FIND_X + "Make sur ?x is Male.", 2, 1, "Make sure ..."),
        (FIND_X + "The answer is ?x", 2, 17, "'.'"),
        (
            FIND_X + "Find the gender of ?x assign it to ?g.",
            2,
            6,
            "a description followed by ', assign it to ?v'",
        ),
        (
            FIND_X + "Make sure ?x is .",
            2,
            17,
            "a comparison (greater than, less than, at least, at most, before, after)",
        ),
        (FIND_X + "Make sure ?x is {Foo.", 2, 17, "a variable (?x)"),
        (FIND_X + "Rank ?x by ?x in random order and keep the first.", 2, 18, "'descending' or 'ascending'"),
        (FIND_X + "Rank ?x by ?x in descending order and keep the first 0.", 2, 54, "a number >= 1"),
        (FIND_X + "Count x, assign it to ?n.", 2, 7, "a variable (?x)"),
        (FIND_X + "Combine ?x with ?y, assign it to ?n.", 2, 12, "'and'"),
        ("Type: \n" + FIND_X, 1, 7, "a type name (composition, conjunction, comparative, superlative, ...)"),
        (FIND_X + "Type: composition", 2, 1, "Find ..."),
        ("Find the {x} of ?y, assign it to ?z.", 1, 10, "Find <description> of {name}, assign it to ?v."),
        ("Make sure ?x is {}.", 1, 17, "a name"),
    ],
)
def test_syntax_errors_name_position_and_expected_forms(text: str, line: int, column: int, expected: str) -> None:
    with pytest.raises(PlanSyntaxError) as caught:
        parse_plan(text)
    error = caught.value
    assert (error.line, error.column) == (line, column), str(error)
    assert str(error).startswith(f"line {line}, column {column}: ")
    if expected == "a name":
        assert "empty {}" in str(error)
    else:
        assert expected in error.expected, error.expected
        assert expected in str(error)
    assert isinstance(error, Nl2SparqlError)


def test_step_start_error_lists_every_step_form() -> None:
    with pytest.raises(PlanSyntaxError) as caught:
        parse_plan(FIND_X + "Lookup ?x.")
    assert caught.value.expected == (
        "Find ...",
        "Make sure ...",
        "Rank ...",
        "Sort the result ...",
        "Count ...",
        "Compute ...",
        "Combine ...",
        "The answer is ...",
    )
    assert "found 'Lookup ?x.'" in str(caught.value)


def test_overlong_line_is_refused_before_parsing() -> None:
    with pytest.raises(PlanSyntaxError) as caught:
        parse_plan("Find " + "a " * 1500 + ", assign it to ?x.")
    assert (caught.value.line, caught.value.column) == (1, 2001)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("Find the spouse of ?y, assign it to ?x.\nThe answer is ?x.", 1, "?y is used before it is assigned"),
        (
            FIND_X + "Find the films directed by ?d, assign it to ?f.\nThe answer is ?f.",
            2,
            "?d is used before",
        ),
        (FIND_X + "Make sure ?g is Male.\nThe answer is ?x.", 2, "?g is used before it is assigned"),
        (
            FIND_X + "Rank ?x by ?d in descending order and keep the first.\nThe answer is ?x.",
            2,
            "?d is used",
        ),
        (FIND_X + "Sort the result based on ?d in descending order and keep the first result.", 2, "?d"),
        (FIND_X, 2, "no answer line"),
        ("Type: composition\n", 2, "no answer line"),
        ("", 1, "no answer line"),
        (FIND_X + "The answer is ?x.\nThe answer is ?x.", 3, "follows the answer line (line 2)"),
        (FIND_X + "The answer is ?y.", 2, "?y is used before it is assigned"),
        (FIND_X + "Count ?x, assign it to ?x.\nThe answer is ?x.", 2, "already assigned; Count needs a new"),
        (
            FIND_X + "Count ?x, assign it to ?n.\nFind a of ?x, assign it to ?n.\nThe answer is ?n.",
            3,
            "Count",
        ),
        (FIND_X + "Combine ?x and ?x, assign it to ?n.\nThe answer is ?n.", 2, "with itself"),
        (
            FIND_X + "Find the parent of ?x, assign it to ?x.\nThe answer is ?x.",
            2,
            "both an input and the output",
        ),
        (FIND_X + "Rank ?x by ?x in descending order and keep the first.\nThe answer is ?x.", 2, "by itself"),
        (FIND_X + "Make sure ?x is ?x.\nThe answer is ?x.", 2, "compared with itself"),
    ],
)
def test_semantic_errors_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(text)
    assert not isinstance(caught.value, PlanSyntaxError)
    assert caught.value.line == line
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"line {line}: ")


def test_read_plan_skips_semantic_checks() -> None:
    plan, lines, _last = read_plan("Find the spouse of ?y, assign it to ?x.")
    assert plan.steps == (Find("the spouse", (Y,), X),) and lines == [1]


def test_non_text_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_plan(b"Find a, assign it to ?x.")  # type: ignore[arg-type]


def test_errors_survive_pickling_for_worker_processes() -> None:
    for text in ("Fnd x.", "Find a, assign it to ?x."):
        with pytest.raises(PlanError) as caught:
            parse_plan(text)
        copy = pickle.loads(pickle.dumps(caught.value))
        assert type(copy) is type(caught.value) and str(copy) == str(caught.value)
        assert copy.line == caught.value.line
        assert getattr(copy, "expected", None) == getattr(caught.value, "expected", None)


def test_yes_no_aggregate_and_text_steps() -> None:
    from nl2sparql.plan.steps import Compute

    plan = parse_plan(
        "Type: yes-no\n"
        "Find the members of Queen B, assign it to ?x.\n"
        'Make sure ?x contains "may".\n'
        "Make sure ?x does not contain freddie.\n"
        "Count ?x, assign it to ?n.\n"
        "Compute the maximum of ?n, assign it to ?m.\n"
        "The answer is whether ?m exists.\n"
    )
    assert plan.type == "yes-no"
    assert plan.steps[1] == MakeSure(X, "contains", Literal("may", "string"))
    assert plan.steps[2] == MakeSure(X, "contains", Literal("freddie", "string"), negated=True)
    assert plan.steps[4] == Compute("maximum", Var("n"), Var("m"))
    assert plan.steps[5] == Answer(Var("m"), exists=True)
    assert plan.answer == Var("m")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (FIND_X + "Make sure ?x contains ?x.\nThe answer is ?x.\n", "expected a quoted text after"),
        (FIND_X + "Compute the mean of ?x, assign it to ?y.\nThe answer is ?y.\n", "'the average'"),
        (FIND_X + "The answer is whether ?x.\n", "'exists'"),
        # a comparison compares with a value, never a bare name (a planner once wrote this)
        (FIND_X + "Make sure ?x is greater than than than.\nThe answer is ?x.\n", "found 'than than.'"),
    ],
)
def test_new_steps_refuse_bad_input_clearly(text: str, message: str) -> None:
    with pytest.raises(PlanSyntaxError) as caught:
        parse_plan(text)
    assert message in str(caught.value)
