"""Gold-plan synthesis on real WebQSP / CWQ gold queries: the plans, their types, and what is refused."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from nl2sparql.compiler.assemble import resolve_plan
from nl2sparql.config import data_file
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Combine, Find, MakeSure, Rank
from nl2sparql.training.synthesise import PlanSynthesiser, SynthesisError, plan_type


@cache
def examples(name: str) -> dict[str, Any]:
    return {e.id: e for e in load_dataset(data_file(name))}


@pytest.fixture(scope="module")
def synthesiser() -> PlanSynthesiser:
    return PlanSynthesiser()


def plan_of(synthesiser: PlanSynthesiser, dataset: str, ident: str) -> str:
    return synthesiser.synthesise_example(examples(dataset)[ident]).text


WEBQSP = "webqsp/WebQSP.train.json"
WEBQSP_TEST = "webqsp/WebQSP.test.part-A.json"
CWQ = "cwq/cwq.test.part-A.json"


@pytest.mark.parametrize(
    ("dataset", "ident", "expected"),
    [
        (
            WEBQSP,
            "WebQTrn-0",  # a CVT hop, a constant pinned by "Make sure", the topic filter
            """Type: composition
Find the sibling of the person Justin Bieber, assign it to ?x.
Find the gender of the person ?x, assign it to ?v1.
Make sure ?v1 is Male.
Make sure ?x is not Justin Bieber.
The answer is ?x.
""",
        ),
        (
            WEBQSP,
            "WebQTrn-1",  # a structure-3 statement sharing the CVT of the first
            """Type: composition
Find the character of the performance of the actor Natalie Portman, assign it to ?x.
Find the film of the performance with character ?x and actor Natalie Portman, assign it to ?v1.
Make sure ?v1 is Star Wars Episode I: The Phantom Menace.
Make sure ?x is not Natalie Portman.
The answer is ?x.
""",
        ),
        (
            WEBQSP,
            "WebQTrn-3",  # FILTER(str(?sk0) = "Country")
            """Type: composition
Find the location that the location Grand Bahama is contained by, assign it to ?x.
Find the loc type of the bibs location ?x, assign it to ?v1.
Make sure ?v1 is "Country".
Make sure ?x is not Grand Bahama.
The answer is ?x.
""",
        ),
        (
            WEBQSP,
            "WebQTrn-6",  # the NOT EXISTS || EXISTS time window at one date
            """Type: simple
Find the team of the pro athlete Joakim Noah, assign it to ?x.
Make sure ?x holds during 2015-08-10.
Make sure ?x is not Joakim Noah.
The answer is ?x.
""",
        ),
        (
            WEBQSP,
            "WebQTrn-177",  # a window over a year: start <= 2012-12-31, end >= 2012-01-01
            """Type: simple
Find the office holder of the government office or title Governor of Kentucky, assign it to ?x.
Make sure ?x holds during 2012.
Make sure ?x is not Governor of Kentucky.
The answer is ?x.
""",
        ),
        (
            WEBQSP,
            "WebQTrn-45",  # ORDER BY xsd:datetime(?sk0) LIMIT 1
            """Type: superlative
Find the works in this series of the literary series Harry Potter literary series, assign it to ?x.
Find the date of first publication of the written work ?x, assign it to ?v1.
Make sure ?x is not Harry Potter literary series.
Rank ?x by ?v1 in ascending order and keep the first.
The answer is ?x.
""",
        ),
        (
            CWQ,
            "WebQTest-361_e24533e28da40db99eb4b25773f9d38f",  # FILTER (?num < "1971"^^xsd:dateTime)
            """Type: comparative
Find the tourist attractions of the travel destination Vienna, assign it to ?x.
Find the established of the museum ?x, assign it to ?v1.
Make sure ?v1 is before 1971.
Make sure ?x is not Vienna.
The answer is ?x.
""",
        ),
        (
            CWQ,
            "WebQTest-832_c334509bb5e02cacae1ba2e80c176499",  # FILTER (?x != ?c), then a ranking
            """Type: superlative
Find the sports team whose team mascot is Lou Seal, assign it to ?v1.
Find the championships of the sports team ?v1, assign it to ?x.
Find the start date of the event ?x, assign it to ?v2.
Make sure ?x is not ?v1.
Rank ?x by ?v2 in descending order and keep the first.
The answer is ?x.
""",
        ),
    ],
)
def test_gold_plans(synthesiser: PlanSynthesiser, dataset: str, ident: str, expected: str) -> None:
    assert plan_of(synthesiser, dataset, ident) == expected


def test_conjunction_names_constants_it_has_no_name_for_by_id(synthesiser: PlanSynthesiser) -> None:
    text = plan_of(synthesiser, CWQ, "WebQTest-576_01e2da60a2779c4ae4b5d1547499a4f8")
    plan = parse_plan(text)
    assert plan.type == "conjunction"
    assert [s.target.name for s in plan.steps if isinstance(s, Find)].count("x") == 2
    assert "Make sure ?v1 is m.01mp." in text  # CWQ's "Country" type has no name in the question


def test_union_becomes_two_branches_and_a_combine(synthesiser: PlanSynthesiser) -> None:
    text = plan_of(synthesiser, WEBQSP_TEST, "WebQTest-1271")
    plan = parse_plan(text)
    assert plan.type == "union"
    combine = next(s for s in plan.steps if isinstance(s, Combine))
    assert (combine.a.name, combine.b.name, combine.target.name) == ("v1", "v2", "x")
    assert "Find the sports championship event whose runner up is the sports team Carolina Panthers" in text


def test_every_find_reads_back_with_the_inputs_it_was_written_with(synthesiser: PlanSynthesiser) -> None:
    synthesis = synthesiser.synthesise_example(examples(WEBQSP)["WebQTrn-1"])
    resolved = resolve_plan(synthesis.plan, examples(WEBQSP)["WebQTrn-1"].entities)
    sentences = {i: f.recall_sentence for i, f in resolved.finds.items()}
    for index, entry in synthesis.entries.items():
        if index in sentences:
            assert sentences[index] == entry.description  # recall searches with the memory's own words


@pytest.mark.parametrize(
    ("dataset", "ident", "reason"),
    [
        (WEBQSP, "WebQTrn-301", "GROUP BY / HAVING"),  # HAVING COUNT(?city) = 2
        (WEBQSP_TEST, "WebQTest-1", "SubSelect"),
    ],
)
def test_constructs_without_a_plan_step_are_refused(
    synthesiser: PlanSynthesiser, dataset: str, ident: str, reason: str
) -> None:
    with pytest.raises(SynthesisError, match=reason):
        synthesiser.synthesise_example(examples(dataset)[ident])


def test_synthesis_of_text_with_the_topic_guessed_from_the_filter(synthesiser: PlanSynthesiser) -> None:
    gold = examples(WEBQSP)["WebQTrn-0"]
    synthesis = synthesiser.synthesise(gold.gold_sparql, gold.entities)
    assert synthesis.text == plan_of(synthesiser, WEBQSP, "WebQTrn-0")


def test_unparsable_gold_is_a_synthesis_error(synthesiser: PlanSynthesiser) -> None:
    with pytest.raises(SynthesisError, match="does not parse"):
        synthesiser.synthesise("SELECT ?x WHERE { ?x ", {})


def test_plan_types() -> None:
    def steps(text: str) -> tuple[Any, ...]:
        return parse_plan(text).steps

    chain = "Find the a of B, assign it to ?x.\nFind the c of ?x, assign it to ?y.\nThe answer is ?y.\n"
    assert plan_type(steps(chain)) == "composition"
    assert plan_type(steps("Find the a of B, assign it to ?x.\nThe answer is ?x.\n")) == "simple"
    both = "Find the a of B, assign it to ?x.\nFind the c of D, assign it to ?x.\nThe answer is ?x.\n"
    assert plan_type(steps(both)) == "conjunction"
    ranked = chain.replace("The answer", "Rank ?x by ?y in descending order and keep the first.\nThe answer")
    assert plan_type(steps(ranked)) == "superlative"
    compared = chain.replace("The answer", "Make sure ?y is greater than 3.\nThe answer")
    assert plan_type(steps(compared)) == "comparative"
    assert isinstance(steps(ranked)[2], Rank) and isinstance(steps(compared)[2], MakeSure)
