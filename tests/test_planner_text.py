"""Planner input text and target text: what the model reads and how its output becomes a plan again.

The flat codec is checked with the real MiniLM tokenizer on real entity names (WebQSP):
a plan naming an entity survives lower-casing, accent stripping and WordPiece spacing.
"""

from __future__ import annotations

import doctest
import json

import pytest

from nl2sparql.config import data_file
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Answer, Find, Literal, MakeSure, Mention, Plan, Rank, Var
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner import input_format, target_text
from nl2sparql.planner.input_format import entity_names, format_input, names_from_input
from nl2sparql.planner.target_text import choose_codec, decode_output, encode_target, restore_names


@pytest.fixture(scope="module")
def minilm_tokenizer():  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    from nl2sparql.planner.model import minilm_path

    return AutoTokenizer.from_pretrained(str(minilm_path()))


@pytest.fixture(scope="module")
def webqsp_names() -> list[str]:
    records = json.loads(data_file("webqsp/WebQSP.test.part-A.json").read_text())["Questions"]
    return sorted({r["Parses"][0]["TopicEntityName"] for r in records if r["Parses"][0].get("TopicEntityName")})


def test_doctests_hold() -> None:
    for module in (input_format, target_text):
        assert doctest.testmod(module).failed == 0


def test_input_names_the_question_then_the_entities() -> None:
    text = format_input("  what  is\tthe capital of\nfrance? ", {"m.0f8l9c": "France", "m.02j71": "Earth"})
    assert text == "question: what is the capital of france? entities: France | Earth"
    assert names_from_input(text) == ("France", "Earth")
    assert format_input("who?", {}) == "question: who? entities:"
    assert names_from_input(format_input("who?", None)) == ()


def test_a_separator_inside_a_name_cannot_split_it() -> None:
    text = format_input("q", {"a": "AC | DC"})
    assert names_from_input(text) == ("AC / DC",)
    assert entity_names({"a": " Justin   Bieber ", "b": ""}) == ("Justin Bieber",)


def test_an_empty_question_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty question"):
        format_input("   ", {})


def test_minilm_needs_the_flat_codec(minilm_tokenizer) -> None:  # type: ignore[no-untyped-def]
    assert choose_codec(minilm_tokenizer) == "flat"


def _plan(name: str) -> Plan:
    return Plan(
        "superlative",
        (
            Find("the films directed by", (Mention(name),), Var("x_1")),
            Find("the release date", (Var("x_1"),), Var("d")),
            MakeSure(Var("d"), "before", Literal("2011-05-01", "date")),
            MakeSure(Var("d"), "greater than", Literal("-3.5", "number")),
            Rank(Var("x_1"), Var("d"), True, 2),
            Answer(Var("x_1")),
        ),
    )


def _roundtrip(tokenizer, plan: Plan, names: list[str]) -> Plan:  # type: ignore[no-untyped-def]
    target = encode_target(format_plan(plan), "flat")
    decoded = tokenizer.decode(tokenizer.encode(target), skip_special_tokens=True)
    return parse_plan(decode_output(decoded, "flat", names))


def test_flat_plans_come_back_through_wordpiece_with_real_names(minilm_tokenizer, webqsp_names) -> None:  # type: ignore[no-untyped-def]
    assert len(webqsp_names) > 300
    lost = []
    for name in webqsp_names:
        if minilm_tokenizer.unk_token in minilm_tokenizer.tokenize(name):
            continue  # characters the vocabulary cannot write at all
        plan = _plan(name)
        if _roundtrip(minilm_tokenizer, plan, [name]) != plan:
            lost.append(name)
    assert lost == []


def test_case_and_accents_come_back_only_for_whole_known_names() -> None:
    assert restore_names("find the spouse of beyonce knowles.", ["Beyoncé Knowles"]) == (
        "find the spouse of Beyoncé Knowles."
    )
    # "ibm" inside "ibmx" is not the name; the longer name wins where names overlap
    assert restore_names("the ibmx of ibm", ["IBM"]) == "the ibmx of IBM"
    assert restore_names("of new york city", ["New York", "New York City"]) == "of New York City"
    assert restore_names("of spider - man", ["Spider-Man"]) == "of Spider-Man"


def test_type_words_and_raw_ids_come_back_as_the_plan_wrote_them(minilm_tokenizer) -> None:  # type: ignore[no-untyped-def]
    # The entity Marriage is named once as a value and once, lower case, as the type of a
    # relationship; a raw id comes back from WordPiece as "m. 01mp".
    plan = parse_plan(
        "Type: composition\n"
        "Find the spouse of the person Michael J. Fox, assign it to ?x.\n"
        "Find the type of union of the marriage with spouse ?x and spouse Michael J. Fox, assign it to ?v1.\n"
        "Make sure ?v1 is Marriage.\n"
        "Find the notable types of ?x, assign it to ?v2.\n"
        "Make sure ?v2 is m.01mp.\n"
        "The answer is ?x.\n"
    )
    assert _roundtrip(minilm_tokenizer, plan, ["Michael J. Fox", "Marriage"]) == plan


def test_plain_codec_keeps_lines_and_flat_refuses_the_separator() -> None:
    text = "Type: composition\nFind the children of X, assign it to ?x.\nThe answer is ?x.\n"
    assert encode_target(text, "plain") == text.strip()
    assert decode_output(encode_target(text, "plain"), "plain") == text
    with pytest.raises(ValueError, match="line 2"):
        encode_target("Type: composition\nFind the a; b of X, assign it to ?x.\n", "flat")
    with pytest.raises(ValueError, match="unknown target codec"):
        encode_target(text, "zip")  # type: ignore[arg-type]


def test_yes_no_plans_and_comparisons_of_counts_come_back_through_wordpiece(minilm_tokenizer) -> None:  # type: ignore[no-untyped-def]
    """WordPiece writes "yes - no" and "than?": as plan text they were "yes" and no variable,
    so grammar-constrained decoding cut every yes/no type line and refused "greater than ?v4"."""
    plan = parse_plan(
        "Type: yes-no\n"
        "Find the member of the band Pink Floyd, assign it to ?v1.\nCount ?v1, assign it to ?v2.\n"
        "Find the member of the band Oasis, assign it to ?v3.\nCount ?v3, assign it to ?v4.\n"
        "Make sure ?v2 is greater than ?v4.\nThe answer is whether ?v2 exists.\n"
    )
    assert _roundtrip(minilm_tokenizer, plan, ["Pink Floyd", "Oasis"]) == plan
    # a partial output, as the constrained decoder reads it after each token
    assert decode_output("type : yes -", "flat") == "type: yes-\n"
    assert decode_output("make sure? v2 is greater than?", "flat") == "make sure ?v2 is greater than ?\n"
