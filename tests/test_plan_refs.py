"""How ``Find <text>`` splits into a description and its refs: hand cases and real entity names."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from nl2sparql.config import data_file
from nl2sparql.plan.reader import parse_plan, read_plan
from nl2sparql.plan.refs import find_readings, parse_ref_list, split_find
from nl2sparql.plan.steps import Find, Literal, MakeSure, Mention, Var
from nl2sparql.plan.writer import format_step

X = Var("x")


@pytest.mark.parametrize(
    ("text", "description", "refs"),
    [
        ("the siblings of Justin Bieber", "the siblings", (Mention("Justin Bieber"),)),
        # The first " of " splits a bare name, so a name may contain " of ".
        ("the capital of Republic of Ireland", "the capital", (Mention("Republic of Ireland"),)),
        # A split that leaves only variables / quoted strings / braced names wins.
        ("the country of origin of ?x", "the country of origin", (X,)),
        ("the country of origin of {Ford}", "the country of origin", (Mention("Ford"),)),
        ('the films of "Up"', "the films", (Literal("Up", "string"),)),
        # Bare names joined by " and " stay one name; with a variable they split.
        ("the country of Trinidad and Tobago", "the country", (Mention("Trinidad and Tobago"),)),
        ("the films of Tom Hanks and Meg Ryan", "the films", (Mention("Tom Hanks and Meg Ryan"),)),
        ("the marriage of ?x and Katie Holmes", "the marriage", (X, Mention("Katie Holmes"))),
        ("the marriage of Katie Holmes and ?x", "the marriage", (Mention("Katie Holmes"), X)),
        ("the role of ?x and {Toy Story}", "the role", (X, Mention("Toy Story"))),
        ("the role of ?x and ?y", "the role", (X, Var("y"))),
        ("the winner of 2011", "the winner", (Literal("2011", "number"),)),
        ("the events of 2011-05-01 and ?x", "the events", (Literal("2011-05-01", "date"), X)),
        ("the population of Paris of 2011", "the population", (Mention("Paris of 2011"),)),
        # No " of ", or no ref list after any " of ": no refs, variables stay in the description.
        (
            "the championships won by the sports team Dallas Cowboys",
            "the championships won by the sports team Dallas Cowboys",
            (),
        ),
        ("the films directed by ?d", "the films directed by ?d", ()),
        ("the mother of ?x's husband", "the mother of ?x's husband", ()),
        ("the proof of Fermat's theorem", "the proof", (Mention("Fermat's theorem"),)),
        ("the Office", "the Office", ()),
    ],
)
def test_split_rule(text: str, description: str, refs: tuple[object, ...]) -> None:
    assert split_find(text) == (description, refs)
    plan, _lines, _last = read_plan(f"Find {text}, assign it to ?z.")
    assert plan.steps == (Find(description, refs, Var("z")),)


def test_ref_list_rejects_unquoted_specials() -> None:
    assert parse_ref_list("Who? Me") is None
    assert parse_ref_list("") is None
    assert parse_ref_list("{Foo") is None
    assert parse_ref_list("?x ?y") is None
    assert parse_ref_list("{} and ?x") is None
    assert parse_ref_list("?x and {A and B}") == ((X, Mention("A and B")), True)


def test_readings_offer_every_split_for_the_entity_matcher() -> None:
    find = parse_plan("Find the country of origin of Ford, assign it to ?x.\nThe answer is ?x.").steps[0]
    assert isinstance(find, Find)
    assert find.refs == (Mention("origin of Ford"),)
    readings = find_readings(find)
    assert readings[0] == ("the country", (Mention("origin of Ford"),))
    assert ("the country of origin", (Mention("Ford"),)) in readings
    assert readings[-1] == ("the country of origin of Ford", ())

    both = Find("the films", (Mention("Tom Hanks and Meg Ryan"),), X)
    assert ("the films", (Mention("Tom Hanks"), Mention("Meg Ryan"))) in find_readings(both)


def test_find_inputs_include_variables_in_the_description() -> None:
    find = Find("the films directed by ?d and ?e", (X, Mention("Up")), Var("f"))
    assert find.inputs == (X, Var("d"), Var("e"))


_WORDS = re.compile(r"[a-z]+")


@cache
def _webqsp_names() -> tuple[list[tuple[str, str]], list[str]]:
    """(relation words, topic entity name) pairs and constraint entity names from WebQSP train."""
    questions = json.loads(data_file("webqsp/WebQSP.train.json").read_text(encoding="utf-8"))["Questions"]
    topics: list[tuple[str, str]] = []
    constraints: list[str] = []
    for question in questions:
        for parse in question["Parses"]:
            name, chain = parse.get("TopicEntityName"), parse.get("InferentialChain") or []
            if name and chain:
                words = " ".join(_WORDS.findall(chain[-1].rsplit(".", 1)[-1].replace("_", " ")))
                topics.append((f"the {words or 'value'}", name))
            constraints += [c["EntityName"] for c in parse.get("Constraints") or [] if c.get("EntityName")]
    return topics, constraints


def test_webqsp_topic_entities_read_back_as_one_mention() -> None:
    topics, _constraints = _webqsp_names()
    assert len(topics) > 2500
    with_of_or_and = 0
    for description, name in topics:
        step = Find(description, (Mention(name),), X)
        text = format_step(step)
        assert parse_plan(text + "\nThe answer is ?x.").steps[0] == step, text
        plain_name = re.search(r"[?{}\"]", name) is None and not re.fullmatch(r"[-+]?\d+(\.\d+)?", name)
        if plain_name and not re.search(r"\bof\b", description):
            # A real name with " of " or " and " (United States of America, Harry Potter and the
            # Philosopher's Stone) is written bare and still reads back as one mention.
            assert "{" not in text, text
            with_of_or_and += " of " in name or " and " in name
        elif plain_name:
            # "the place of birth of Saki": bare, the first " of " would split; braces keep the
            # name, and the bare reading is still offered to the entity matcher.
            assert text.endswith(f" of {{{name}}}, assign it to ?x."), text
            bare = split_find(f"{description} of {name}")
            assert (description, (Mention(name),)) in find_readings(Find(bare[0], bare[1], X))
    assert with_of_or_and > 50


def test_webqsp_constraint_entities_read_back_as_make_sure_values() -> None:
    _topics, constraints = _webqsp_names()
    assert len(constraints) > 200
    for name in constraints:
        step = MakeSure(X, "is", Mention(name))
        text = format_step(step)
        assert parse_plan("Find a, assign it to ?x.\n" + text + "\nThe answer is ?x.").steps[1] == step, text
