"""The agent on a small census (issue 40): a class whose name is also a string value of its
instances (the class *municipality*, the subdivision type *municipality*), yearly records
whose population may equal a year the question writes, an attribute named with its unit
(*population density per square kilometre*), and groups named after *each*."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/census/data/"
TOWNS = (  # name, subdivision type, land area, population 2016, population 2021, density 2021
    ("Alderton", "city", 950.5, 80000, 90000, 94.7),
    ("Brookfield", "municipality", 420.0, 2016, 2100, 5.0),
    ("Cedar Falls", "town", 35.2, 12000, 12500, 355.1),
    ("Dunmore", "municipality", 610.8, 30000, 29000, 47.5),
    ("Elm Creek", "township", 300.0, 50000, 52000, 173.3),
)


def census() -> str:
    """Five municipalities, each with a census count for 2016 and for 2021."""
    lines = [
        "@prefix c: <http://example.org/census/schema#> .",
        "@prefix d: <http://example.org/census/data/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'c:Municipality rdfs:label "municipality" . c:CensusCount rdfs:label "census count" .',
        'c:type rdfs:label "subdivision type" ; rdfs:domain c:Municipality ; rdfs:range xsd:string .',
        'c:area rdfs:label "land area" ; rdfs:domain c:Municipality ; rdfs:range xsd:decimal .',
        'c:of rdfs:label "municipality" ; rdfs:domain c:CensusCount ; rdfs:range c:Municipality .',
        'c:year rdfs:label "census year" ; rdfs:domain c:CensusCount ; rdfs:range xsd:integer .',
        'c:population rdfs:label "population" ; rdfs:domain c:CensusCount ; rdfs:range xsd:integer .',
        'c:density rdfs:label "population density per square kilometre" ; rdfs:domain c:CensusCount ; '
        "rdfs:range xsd:decimal .",
    ]
    for name, kind, area, before, after, density in TOWNS:
        node = name.replace(" ", "_")
        lines.append(f'd:{node} a c:Municipality ; rdfs:label "{name}" ; c:type "{kind}" ; c:area {area} .')
        lines.append(f"d:{node}-2016 a c:CensusCount ; c:of d:{node} ; c:year 2016 ; c:population {before} .")
        lines.append(f"d:{node}-2021 a c:CensusCount ; c:of d:{node} ; c:year 2021 ; c:population {after} ; "
                     f"c:density {density} .")  # fmt: skip
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
CENSUS_FIRST = [
    ("Which municipality has the largest land area?", {A + "Alderton"}),  # every one, not those typed so
    ("What were the two most populous municipalities in 2016?", {A + "Alderton", A + "Elm_Creek"}),  # not 2016 people
    ("What was the highest population density in 2021?", {"355.1"}),  # the density, named without its unit
    ("What is the average land area of the municipalities for each subdivision type?",  # grouped by the type
     {"city", "950.5", "municipality", "515.4", "town", "35.2", "township", "300"}),
]
IDS = ["class-not-value", "year-not-population", "unit-named", "group-named"]


towns = graph_fixture("towns", "census", census)


@pytest.mark.parametrize(("question", "gold"), CENSUS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(towns: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(towns, question, gold)
