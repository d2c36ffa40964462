"""Mutated and random plan text: only PlanSyntaxError / PlanError with a position, never anything else.

The planner's output is untrusted text; whatever it writes, the parser must answer with a
plan or an error that names a line (and a column for syntax errors). Plans that do parse
must survive format -> parse unchanged.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Plan, PlanError, PlanSyntaxError
from nl2sparql.plan.writer import format_plan

SEEDS = (
    "Type: composition\n"
    "Find the siblings of Justin Bieber, assign it to ?x.\n"
    "Find the gender of ?x, assign it to ?g.\n"
    "Make sure ?g is Male.\n"
    "The answer is ?x.\n",
    "Type: superlative\n"
    "Step 1: Find the championships won by the sports team Dallas Cowboys, assign it to ?x.\n"
    "Step 2: Find the end date of ?x, assign it to ?sk0.\n"
    "Step 3: Sort the result based on ?sk0 in descending order and keep the first result.\n"
    "Step 4: Finally the answer is ?x.\n",
    "Type: comparative\n"
    "Find the capital of Republic of Ireland, assign it to ?x.\n"
    "Find the country of origin of {Ford} and ?x, assign it to ?y.\n"
    "Make sure ?x holds during 2011.\n"
    "Make sure ?y is not greater than 3.5.\n"
    "Make sure ?y does not hold during 1999-05.\n"
    'Make sure ?x is "Up".\n'
    "Rank ?x by ?y in ascending order and keep the first 3.\n"
    "Count ?x, assign it to ?n.\n"
    "Combine ?x and ?y, assign it to ?z.\n"
    "Finally, the answer is ?z.\n",
    "Type: aggregation\n"
    "Find the album recorded by the band Queen, assign it to ?x.\n"
    "Find the release year of ?x, assign it to ?y.\n"
    "Find the nickname of ?x, assign it to ?k if any.\n"
    "Make sure nothing is the award of ?x.\n"
    "Count ?x for each ?y, assign it to ?n.\n"
    "Make sure ?n is greater than 1.\n"
    "Compute the maximum of ?y, assign it to ?a.\n"
    "Compute ?a minus ?n, assign it to ?d.\n"
    "Rank ?y by ?n in descending order and keep results 2 to 4.\n"
    "The answer is ?y and ?n and ?d.\n",
)

PIECES = (
    "Find ",
    "Make sure ",
    "Rank ",
    "Sort the result based on ",
    "Count ",
    "Combine ",
    "The answer is ",
    "Type: ",
    "Step 2: ",
    " of ",
    " and ",
    ", assign it to ",
    "?x",
    "?",
    ".",
    "\n",
    "\r\n",
    "{",
    "}",
    '"',
    "\\",
    " is ",
    "not ",
    "greater than ",
    "holds during ",
    "2011",
    "-3.5",
    "2011-05-01",
    " in descending order and keep the first",
    " and keep results 2 to 3",
    " for each ?y",
    " if any",
    "nothing is ",
    " minus ",
    " as a percentage of ",
    " 0",
    "\t",
    "  ",
)

_payload = st.one_of(st.sampled_from(PIECES), st.text(max_size=6))
_position = st.integers(min_value=0, max_value=10_000)
_mutation = st.one_of(
    st.tuples(st.just("insert"), _position, _payload),
    st.tuples(st.just("delete"), _position, st.integers(1, 12)),
    st.tuples(st.just("replace"), _position, _payload),
    st.tuples(st.just("swap_lines"), _position, _position),
    st.tuples(st.just("drop_line"), _position, st.just(0)),
    st.tuples(st.just("repeat_line"), _position, st.just(0)),
)


def mutate(text: str, mutations: list[tuple[str, int, object]]) -> str:
    for kind, where, arg in mutations:
        if kind in ("swap_lines", "drop_line", "repeat_line"):
            lines = text.split("\n")
            i = where % len(lines)
            if kind == "swap_lines":
                j = int(arg) % len(lines)  # type: ignore[call-overload]
                lines[i], lines[j] = lines[j], lines[i]
            elif kind == "drop_line":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            text = "\n".join(lines)
            continue
        pos = where % (len(text) + 1)
        if kind == "insert":
            text = text[:pos] + str(arg) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + int(arg) :]  # type: ignore[call-overload]
        else:
            text = text[:pos] + str(arg) + text[pos + 1 :]
    return text


def assert_answers_cleanly(text: str) -> Plan | None:
    """Parse ``text``: a plan that survives format -> parse, or an error with its position."""
    lines = text.replace("\r\n", "\n").count("\n") + 1
    try:
        plan = parse_plan(text)
    except PlanSyntaxError as error:
        assert 1 <= error.line <= lines + 1, (error.line, lines)
        assert error.column >= 1
        assert error.expected, str(error)
        assert str(error).startswith(f"line {error.line}, column {error.column}: ")
        return None
    except PlanError as error:
        assert error.line is not None and 1 <= error.line <= lines + 1, (error.line, lines)
        assert str(error).startswith(f"line {error.line}: ")
        return None
    assert parse_plan(format_plan(plan)) == plan
    return plan


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.lists(_mutation, min_size=1, max_size=4))
def test_mutated_plans_parse_or_fail_with_a_position(seed: str, mutations: list[tuple[str, int, object]]) -> None:
    assert_answers_cleanly(mutate(seed, mutations))


_ALPHABET = st.sampled_from(list('Findake sur?x.,{}"\\0123456789-\n\tofndTyp:') + list(PIECES))


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_random_text_parses_or_fails_with_a_position(text: str) -> None:
    assert_answers_cleanly(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_unicode_parses_or_fails_with_a_position(text: str) -> None:
    assert_answers_cleanly(text)


def test_seeds_are_valid_and_mutations_reach_both_outcomes() -> None:
    for seed in SEEDS:
        assert assert_answers_cleanly(seed) is not None
    # A harmless mutation (extra blank line) keeps a plan; a harmful one (drop the answer) breaks it.
    assert assert_answers_cleanly(mutate(SEEDS[0], [("insert", 0, "\n")])) is not None
    assert assert_answers_cleanly(mutate(SEEDS[0], [("drop_line", 4, 0)])) is None
