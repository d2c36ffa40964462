"""The agent on a small passenger list (issue 40): passengers with a class (a node), a sex (a
string), an age and a yes/no attribute *survived*. Those who survived are *survivors* (the
verb's doer), counted per class and ranked (*the class with the most survivors*), averaged
(*the average age of the passengers who survived*) and ranked by a value (*the age of the
oldest survivor*); a share is of the things the flag is said of (*the third class passengers*);
*in each class* groups by the class, not the sex; a comparison lists the value compared where
the question asks for it (*with their age*); *women* are those whose sex is *female*."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/ship/"
PASSENGERS = (  # number, name, class, sex, age, survived
    (1, "Astor, Colonel John", "1st", "male", 47, False),
    (2, "Allen, Miss Elisabeth", "1st", "female", 29, True),
    (3, "Straus, Mrs Ida", "1st", "female", 63, False),
    (4, "Harper, Miss Nina", "2nd", "female", 6, True),
    (5, "Lahtinen, Rev William", "2nd", "male", 30, False),
    (6, "Jonsson, Mr Carl", "3rd", "male", 32, True),
    (7, "Dean, Miss Elizabeth", "3rd", "female", 1, True),
    (8, "Colbert, Mr Patrick", "3rd", "male", 38, True),
    (9, "Zabour, Miss Hileni", "3rd", "female", 16, False),
    (10, "Goldschmidt, Mr George", "1st", "male", 71, False),
    (11, "Brown, Mrs Margaret", "1st", "female", 44, True),
)
CLASSES = {"1st": "First class", "2nd": "Second class", "3rd": "Third class"}


def passenger_list() -> str:
    """Eleven passengers in three classes."""
    lines = [
        "@prefix s: <http://example.org/ship/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Passenger rdfs:label "passenger" . s:TravelClass rdfs:label "passenger class" .',
        's:travelClass rdfs:label "passenger class" ; rdfs:domain s:Passenger ; rdfs:range s:TravelClass .',
        's:sex rdfs:label "sex" ; rdfs:domain s:Passenger ; rdfs:range xsd:string .',
        's:age rdfs:label "age" ; rdfs:domain s:Passenger ; rdfs:range xsd:integer .',
        's:survived rdfs:label "survived" ; rdfs:domain s:Passenger ; rdfs:range xsd:boolean .',
    ]
    for code, name in CLASSES.items():
        lines.append(f'<{A}class/{code}> a s:TravelClass ; rdfs:label "{name}" .')
    for number, name, code, sex, age, survived in PASSENGERS:
        lines.append(
            f'<{A}passenger/{number}> a s:Passenger ; rdfs:label "{name}" ; s:travelClass <{A}class/{code}> ; '
            f's:sex "{sex}" ; s:age {age} ; s:survived {str(survived).lower()} .'
        )
    return "\n".join(lines) + "\n"


AVERAGE_AGES = {f"{A}class/{c}" for c in CLASSES} | {"50.8", "18", "21.75"}
OVER_60 = {f"{A}passenger/3", "63", f"{A}passenger/10", "71"}
#: questions whose first candidate must answer right
PASSENGERS_FIRST = [
    ("Which passenger class had the most survivors?", {f"{A}class/3rd"}),
    ("What percentage of the first class passengers survived?", {"40"}),
    ("What was the average age of the passengers in each class?", AVERAGE_AGES),
    ("What was the average age of the passengers who survived?", {"25"}),
    ("List the first class passengers older than 60 with their age.", OVER_60),
    ("What was the age of the oldest survivor?", {"44"}),
    ("How many women in third class survived?", {"1"}),
]
IDS = ["most-survivors", "share-of-the-flagged-base", "each-names-the-key", "flagged-averaged", "compared-listed",
       "flagged-ranked-value", "women-are-female"]  # fmt: skip

ship = graph_fixture("ship", "ship", passenger_list)


@pytest.mark.parametrize(("question", "gold"), PASSENGERS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(ship: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(ship, question, gold)
