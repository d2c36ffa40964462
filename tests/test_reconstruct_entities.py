"""Assembly: mentions matched to the question's entities, recall sentences, statement binding, repair order."""

from __future__ import annotations

import pytest

from nl2sparql.compiler.assemble import (
    BindError,
    Entities,
    EntityMatchError,
    Label,
    Recalled,
    bind_statement,
    normalise_name,
    resolve_plan,
)
from nl2sparql.compiler.ast import IRI, Var
from nl2sparql.compiler.orderings import Ranked
from nl2sparql.compiler.reconstruct import ReconstructionError, combinations, reconstruct
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import PlanSyntaxError

NS = "http://rdf.freebase.com/ns/"
ENTITIES = {
    "m.06w2sn5": "Justin Bieber",
    "m.05zppz": "Male",
    "m.012wgb": "Republic of Ireland",
    "m.04ztj": "Marriage",
    "m.0d0vqn": "Beyoncé Knowles",
}


def _find(sentence: str, entities: dict[str, str] = ENTITIES):  # noqa: ANN202 - a ResolvedFind
    plan = parse_plan(f"{sentence}\nThe answer is ?x.\n")
    return resolve_plan(plan, entities).finds[0]


@pytest.mark.parametrize(
    ("sentence", "inputs", "recall"),
    [
        (
            "Find the sibling of Justin Bieber, assign it to ?x.",
            (IRI(NS + "m.06w2sn5"),),
            "?e2 is the sibling of ?e1",
        ),
        (
            "Find the sibling of the person justin bieber, assign it to ?x.",
            (IRI(NS + "m.06w2sn5"),),
            "?e2 is the sibling of the person ?e1",
        ),
        (
            "Find the capital of the country Republic of Ireland, assign it to ?x.",
            (IRI(NS + "m.012wgb"),),
            "?e2 is the capital of the country ?e1",
        ),
        (
            "Find the championships won by the sports team Justin Bieber, assign it to ?x.",
            (IRI(NS + "m.06w2sn5"),),
            "?e2 is the championships won by the sports team ?e1",
        ),
        ("Find the sibling of {m.0jm8}, assign it to ?x.", (IRI(NS + "m.0jm8"),), "?e2 is the sibling of ?e1"),
        (
            "Find the spouse of beyonce knowles!, assign it to ?x.",
            (IRI(NS + "m.0d0vqn"),),
            "?e2 is the spouse of ?e1",
        ),
    ],
)
def test_mentions_match_entities_by_name(sentence: str, inputs: tuple[IRI, ...], recall: str) -> None:
    find = _find(sentence)
    assert find.inputs == inputs
    assert find.recall_sentence == recall


def test_entity_names_inside_a_description_and_variables_in_order() -> None:
    plan = parse_plan(
        "Find the sibling of Justin Bieber, assign it to ?y.\n"
        "Find the type of union of the marriage with spouse ?y and spouse Justin Bieber, assign it to ?x.\n"
        "The answer is ?x.\n"
    )
    find = resolve_plan(plan, ENTITIES).finds[1]
    assert find.inputs == (Var("y"), IRI(NS + "m.06w2sn5"))
    # "marriage" is a word of the description here, not the entity Marriage
    assert find.recall_sentence == "?e3 is the type of union of the marriage with spouse ?e1 and spouse ?e2"


def test_a_mention_that_matches_no_entity_lists_the_known_ones() -> None:
    plan = parse_plan("Type: simple\nFind the sibling of Selena Gomez, assign it to ?x.\nThe answer is ?x.\n")
    with pytest.raises(EntityMatchError) as caught:
        resolve_plan(plan, ENTITIES, lines=[2, 3])
    message = str(caught.value)
    assert message.startswith("line 2: 'Selena Gomez' matches none of the question's entities")
    assert "Justin Bieber (m.06w2sn5)" in message and "Male (m.05zppz)" in message
    assert caught.value.known == tuple(Entities(ENTITIES).known())


@pytest.mark.parametrize(
    ("sentence", "entities", "recall"),
    [
        ("Find the sibling of Justin Beiber, assign it to ?x.", ENTITIES, "?e2 is the sibling of ?e1"),
        (
            "Find the profession of the person george clemenceau, assign it to ?x.",
            {"m.0hff8": "Georges Clémenceau"},
            "?e2 is the profession of the person ?e1",
        ),
        (
            "Find the location that the location galapagos is contained by, assign it to ?x.",
            {"m.016zjj": "Galápagos Islands"},
            "?e2 is the location that the location ?e1 is contained by",
        ),
        (
            "Find the actor of the performance of the film sex and city, assign it to ?x.",
            {"m.0l76z": "Sex and the City", "m.0c7lfjk": "Jack Berger"},
            "?e2 is the actor of the performance of the film ?e1",
        ),
    ],
)
def test_a_misspelt_or_shortened_name_is_read_as_the_entity_it_is_closest_to(
    sentence: str, entities: dict[str, str], recall: str
) -> None:
    find = _find(sentence, entities)
    assert len(find.inputs) == 1 and find.inputs[0].value.removeprefix(NS) in entities
    assert find.inputs[0] == IRI(NS + next(iter(entities)))
    assert find.recall_sentence == recall


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("the country of the person", {"m.01mp": "Country"}),  # a word of the step, not the entity
        ("the person myanmar cat", {"m.01mvkt": "Burmese cat"}),  # another name altogether
    ],
)
def test_closest_leaves_words_that_are_not_a_spelling_of_a_name(text: str, entities: dict[str, str]) -> None:
    assert Entities(entities).closest(text) is None


LONE = {"m.04dqrhl": "Pivzavod AO Vena Nevskoye Light"}
GARBLED = "Find the beer country region whose beers from here is the beer pivzavokoye light, assign it to ?x."


def test_a_garbled_name_is_read_as_the_only_entity_of_the_question() -> None:
    find = _find(GARBLED, LONE)
    assert find.inputs == (IRI(NS + "m.04dqrhl"),)
    assert find.recall_sentence == "?e2 is the beer country region whose beers from here is the beer ?e1"


def test_a_garbled_name_is_no_name_when_the_question_has_others() -> None:
    with pytest.raises(EntityMatchError, match="pivzavokoye light"):
        _find(GARBLED, {**LONE, "m.0d0vqn": "Beyoncé Knowles"})


def test_the_first_words_of_a_long_name_stand_for_it() -> None:
    entities = {"m.0jyh7": "King: A Filmed Record... Montgomery to Memphis", "m.0d0vqn": "Beyoncé Knowles"}
    find = _find("Find the film subject whose films is the film king a filmed record, assign it to ?x.", entities)
    assert find.inputs == (IRI(NS + "m.0jyh7"),)
    assert Entities(entities).closest("the film king a") is None  # two words are not enough of it


def test_closest_takes_the_name_without_the_joining_words_around_it() -> None:
    text = "the location that the location galapagos is contained by"
    begin, end, iri = Entities({"m.016zjj": "Galápagos Islands"}).closest(text)
    assert text[begin:end] == "galapagos" and iri == IRI(NS + "m.016zjj")


def test_a_find_with_nothing_to_start_from_is_an_entity_error() -> None:
    with pytest.raises(EntityMatchError, match="the championships won by the team"):
        _find("Find the championships won by the team, assign it to ?x.")


def test_make_sure_values_are_entities_literals_or_labels_for_the_memory() -> None:
    plan = parse_plan(
        "Find the sibling of Justin Bieber, assign it to ?x.\n"
        "Find the gender of ?x, assign it to ?g.\n"
        "Make sure ?g is Male.\n"
        "Find the notable types of ?x, assign it to ?t.\n"
        "Make sure ?t is Country.\n"
        "Make sure ?x is not Justin Bieber.\n"
        "The answer is ?x.\n"
    )
    resolved = resolve_plan(plan, ENTITIES)
    assert resolved.values[2] == IRI(NS + "m.05zppz")
    assert resolved.values[4] == Label("Country")
    requests = {i: (section, text) for i, section, text in resolved.recall_requests()}
    assert requests[2] == ("constraint", "Make sure ?e1 is Male")
    assert requests[5] == ("constraint", "Make sure ?e1 is not Justin Bieber")
    assert requests[1] == ("graph", "?e2 is the gender of ?e1")


def test_normalised_names_ignore_case_accents_and_punctuation() -> None:
    assert normalise_name("Beyoncé  Knowles!") == normalise_name("beyonce knowles") == "beyonce knowles"
    assert normalise_name("Star Wars: Episode I") == "star wars episode i"


def _statement(ident: str, sparql: str, description: str, inputs: int, score: float = 1.0) -> Recalled:
    slots = tuple(f"?e{n}" for n in range(1, inputs + 1))
    return Recalled(ident, "graph", sparql, slots, f"?e{inputs + 1}", description, score)


def test_binding_follows_the_roles_the_description_names() -> None:
    plan = parse_plan(
        "Find the sibling of Justin Bieber, assign it to ?y.\n"
        "Find the film of the performance with actor ?y and character Justin Bieber, assign it to ?x.\n"
        "The answer is ?x.\n"
    )
    find = resolve_plan(plan, ENTITIES).finds[1]
    swapped = _statement(
        "s",
        "?cvt ns:film.performance.character ?e1 . ?e2 ns:film.actor.film ?cvt . ?cvt ns:film.performance.film ?e3 .",
        "?e3 is the film of the performance with character ?e1 and actor ?e2",
        2,
    )
    triples = bind_statement(find, swapped, "c")
    assert triples[0].object == IRI(NS + "m.06w2sn5")  # the character
    assert triples[1].subject == Var("y")  # the actor
    assert triples[2].object == Var("x")


def test_binding_refuses_a_statement_of_another_arity() -> None:
    find = _find("Find the sibling of Justin Bieber, assign it to ?x.")
    two = _statement("s2", "?e1 ns:a.b.c ?e3 . ?e2 ns:a.b.d ?e3 .", "?e3 is the c of ?e1 and ?e2", 2)
    with pytest.raises(BindError, match="takes 2 input"):
        bind_statement(find, two, "c")


def test_combinations_come_best_total_score_first() -> None:
    a = [_statement("a1", "?e1 ns:p.q.r ?e2 .", "", 1, 0.9), _statement("a2", "?e1 ns:p.q.s ?e2 .", "", 1, 0.8)]
    b = [_statement("b1", "?e1 ns:p.q.r ?e2 .", "", 1, 0.9), _statement("b2", "?e1 ns:p.q.s ?e2 .", "", 1, 0.5)]
    lists = [[Ranked(s) for s in a], [Ranked(s) for s in b]]
    assert combinations(lists, 10) == [(0, 0), (1, 0), (0, 1), (1, 1)]
    assert combinations(lists, 2) == [(0, 0), (1, 0)]


def test_combinations_come_fewest_demotions_first_in_the_orderings_order() -> None:
    """One demotion by the first ordering (value fit) outweighs any number by the second
    (sentence form), whatever the scores; within the same demotions, the total score decides."""
    fit, against, misfit = (False, False), (False, True), (True, False)
    a = [Ranked(_statement("a1", "", "", 1, 0.9), fit), Ranked(_statement("a2", "", "", 1, 0.99), against)]
    b = [Ranked(_statement("b1", "", "", 1, 0.9), against), Ranked(_statement("b2", "", "", 1, 0.99), misfit)]
    assert combinations([a, b], 10) == [(0, 0), (1, 0), (0, 1), (1, 1)]


def test_repair_tries_the_next_statement_when_a_query_returns_nothing() -> None:
    plan = parse_plan("Find the sibling of Justin Bieber, assign it to ?x.\nThe answer is ?x.\n")
    resolved = resolve_plan(plan, ENTITIES)
    first = _statement("empty", "?e1 ns:people.person.sibling ?e2 .", "?e2 is the sibling of ?e1", 1, 0.95)
    second = _statement("right", "?e1 ns:people.person.sibling_s ?e2 .", "?e2 is the sibling of ?e1", 1, 0.9)
    seen: list[str] = []

    def execute(query: object) -> list[str]:
        text = str(query)
        seen.append(text)
        return ["row"] if "sibling_s" in text else []

    result = reconstruct(resolved, {0: [first, second]}, execute=execute)
    assert result.ok and result.choices[0].id == "right"
    assert [a.answers for a in result.attempts] == [0, 1]
    assert [dict(a.choices)[0] for a in result.attempts] == ["empty", "right"]


def test_no_usable_statement_is_a_reconstruction_error() -> None:
    plan = parse_plan("Find the sibling of Justin Bieber, assign it to ?x.\nThe answer is ?x.\n")
    two = _statement("s2", "?e1 ns:a.b.c ?e3 . ?e2 ns:a.b.d ?e3 .", "?e3 is the c of ?e1 and ?e2", 2)
    with pytest.raises(ReconstructionError, match="takes 1 input"):
        reconstruct(resolve_plan(plan, ENTITIES), {0: [two]})


def test_malformed_plans_give_a_syntax_error_with_a_position() -> None:
    with pytest.raises(PlanSyntaxError) as caught:
        parse_plan("Type: simple\nFind the sibling of Justin Bieber assign it to ?x.\nThe answer is ?x.\n")
    assert caught.value.line == 2 and caught.value.column >= 1
    assert str(caught.value).startswith("line 2, column")
