"""The agent on a small catalogue of animals (issue 40): a category that is a node of its own
named in the plural (*the dogs*: the species *Dog*), a count of that category's things, a
request for two values of one thing, *how much taller* / *how many fewer* as differences
that keep their direction, *how many centimetres* as an amount, not a count, and things
counted per a class two hops away (*how many animals does each family have*)."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/zoo/data/"
ANIMALS = (  # name, species, height in cm, mass in kg, legs
    ("Rex", "Dog", 60, 30.5, 4), ("Bella", "Dog", 45, 20.0, 4), ("Max", "Dog", 70, 35.0, 3),
    ("Tom", "Cat", 25, 4.5, 4), ("Luna", "Cat", 23, 3.9, 4), ("Polly", "Parrot", 35, 1.1, 2),
)  # fmt: skip


FAMILIES = {"Dog": "Canidae", "Cat": "Felidae", "Parrot": "Psittacidae"}


def zoo() -> str:
    """Six animals of three species; every species a labelled node, of a family (two hops
    from the animals)."""
    lines = [
        "@prefix z: <http://example.org/zoo/schema#> .",
        "@prefix d: <http://example.org/zoo/data/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'z:Animal rdfs:label "animal" . z:Species rdfs:label "species" .',
        'z:species rdfs:label "species" ; rdfs:domain z:Animal ; rdfs:range z:Species .',
        'z:height rdfs:label "height in centimetres" ; rdfs:domain z:Animal ; rdfs:range xsd:integer .',
        'z:mass rdfs:label "mass in kilograms" ; rdfs:domain z:Animal ; rdfs:range xsd:decimal .',
        'z:legs rdfs:label "number of legs" ; rdfs:domain z:Animal ; rdfs:range xsd:integer .',
        'z:Family rdfs:label "family" . z:family rdfs:label "family" ; rdfs:domain z:Species ; rdfs:range z:Family .',
    ]
    for family in sorted(set(FAMILIES.values())):
        lines.append(f'd:{family} a z:Family ; rdfs:label "{family}" .')
    for species in sorted({row[1] for row in ANIMALS}):
        lines.append(f'd:{species} a z:Species ; rdfs:label "{species}" ; z:family d:{FAMILIES[species]} .')
    for name, species, height, mass, legs in ANIMALS:
        lines.append(f'd:{name} a z:Animal ; rdfs:label "{name}" ; z:species d:{species} ; z:height {height} ; '
                     f"z:mass {mass} ; z:legs {legs} .")  # fmt: skip
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
ZOO_FIRST = [
    ("Which animals are dogs?", {A + "Rex", A + "Bella", A + "Max"}),  # *dogs*: the species Dog
    ("How many cats are there?", {"2"}),  # the cats counted, not the class of Cat
    ("What is the average height of the dogs?", {"58.333333333333333333"}),
    ("height and mass of Polly", {"35", "1.1"}),  # a request for two values
    ("How much taller is Rex than Tom?", {"35"}),  # the first named minus the second
    ("How much lighter is Tom than Rex?", {"26"}),  # the second named minus the first
    ("How many centimetres tall is Rex?", {"60"}),  # an amount in a unit, not a count
    ("How many animals does each family have?",  # the animals two hops from each family, counted
     {A + "Canidae", "3", A + "Felidae", "2", A + "Psittacidae", "1"}),
]
IDS = ["plural-category", "count-category", "average-category", "two-values", "taller", "lighter", "amount",
       "counted-per-family"]  # fmt: skip


animals = graph_fixture("animals", "zoo", zoo)


@pytest.mark.parametrize(("question", "gold"), ZOO_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(animals: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(animals, question, gold)
