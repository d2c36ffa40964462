"""The agent on small acting awards (issue 40): each award is a record with no name joining
its ceremony, category, winner and film, as Freebase's CVTs do. Category names hold words
that are operators elsewhere (*Best* actor: no superlative); *who won* asks for the winner
of the award, not the award, its ceremony or an age; two readings by the same edges meet
(*won both Best actor and Best actress*); a surname is searched in names; a ranking lists
the value it ranks by when asked (*and their ages*); *the 1990s* is a decade, of the
ceremonies (*won*), not of birth dates; *more than one Oscar* counts the awards that reach
each performer, whatever the graph calls them; *what was the age of* asks for the age."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/awards/data/"
AWARDS = (  # ceremony number, year, category, winner, film, age
    (1, 1989, "Best_actor", "Henry_Fonda", "Golden_Pond", 76),
    (1, 1989, "Best_actress", "Jane_Fonda", "Golden_Pond", 44),
    (2, 1995, "Best_actor", "Tom_Hanks", "Forrest_Gump", 38),
    (2, 1995, "Best_actress", "Jodie_Foster", "Nell", 32),
    (3, 2023, "Best_actor", "Adrien_Brody", "The_Pianist", 29),
    (3, 2023, "Best_actress", "Nicole_Kidman", "The_Hours", 31),
    (4, 2024, "Best_actress", "Jane_Fonda", "Coming_Home", 79),
)
BORN = {  # one winner born in the 1990s: a decade of the ceremonies is not one of birth dates
    "Henry_Fonda": "1905-05-16", "Jane_Fonda": "1945-12-21", "Tom_Hanks": "1956-07-09",
    "Jodie_Foster": "1962-11-19", "Adrien_Brody": "1993-04-14", "Nicole_Kidman": "1992-06-20",
}  # fmt: skip


def awards() -> str:
    """Four ceremonies, two categories, seven awards as nameless records; birth dates."""
    lines = [
        "@prefix o: <http://example.org/awards/schema#> .",
        "@prefix d: <http://example.org/awards/data/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'o:Performer rdfs:label "performer" . o:Film rdfs:label "film" . o:Ceremony rdfs:label "ceremony" .',
        'o:Category rdfs:label "award category" . o:Award rdfs:label "award" .',
        'o:winner rdfs:label "winner" ; rdfs:domain o:Award ; rdfs:range o:Performer .',
        'o:film rdfs:label "film" ; rdfs:domain o:Award ; rdfs:range o:Film .',
        'o:category rdfs:label "category" ; rdfs:domain o:Award ; rdfs:range o:Category .',
        'o:ceremony rdfs:label "ceremony" ; rdfs:domain o:Award ; rdfs:range o:Ceremony .',
        'o:age rdfs:label "age of the winner" ; rdfs:domain o:Award ; rdfs:range xsd:integer .',
        'o:year rdfs:label "year" ; rdfs:domain o:Ceremony ; rdfs:range xsd:integer .',
        'o:birthDate rdfs:label "birth date" ; rdfs:domain o:Performer ; rdfs:range xsd:date .',
    ]
    for category in ("Best_actor", "Best_actress"):
        lines.append(f'd:{category} a o:Category ; rdfs:label "{category.replace("_", " ")}" .')
    for number, year, category, winner, film, age in AWARDS:
        lines += [
            f'd:c{number} a o:Ceremony ; rdfs:label "Ceremony {number}" ; o:year {year} .',
            f'd:{winner} a o:Performer ; rdfs:label "{winner.replace("_", " ")}" ; '
            f'o:birthDate "{BORN[winner]}"^^xsd:date .',
            f'd:{film} a o:Film ; rdfs:label "{film.replace("_", " ")}" .',
            f"d:a{number}{category} a o:Award ; o:ceremony d:c{number} ; o:category d:{category} ; "
            f"o:winner d:{winner} ; o:film d:{film} ; o:age {age} .",
        ]
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
AWARDS_FIRST = [
    ("Who won Best actor in 1995?", {A + "Tom_Hanks"}),  # the winner of the award at that ceremony
    ("Who won the Best actress award for Nell?", {A + "Jodie_Foster"}),  # *Best*: a name, no superlative
    ("Which films won both Best actor and Best actress?", {A + "Golden_Pond"}),  # two awards of one film
    ("Which winners have the surname Fonda?", {A + "Henry_Fonda", A + "Jane_Fonda"}),
    ("List the two oldest winners and their ages.", {A + "Jane_Fonda", "79", A + "Henry_Fonda", "76"}),
    ("Who won Best actress in the 1990s?", {A + "Jodie_Foster"}),  # the ceremony's years, not a birth date
    ("Which performers won more than one Oscar?", {A + "Jane_Fonda"}),  # *Oscar*: the awards that reach each
    ("What was the age of the youngest Best actor winner?", {"29"}),  # the age asked, not the winner
]
IDS = [
    "won-in-a-year", "best-is-a-name", "won-both", "surname", "ranked-with-values", "decade", "more-than-one",
    "value-asked",
]  # fmt: skip


ceremonies = graph_fixture("ceremonies", "awards", awards)


@pytest.mark.parametrize(("question", "gold"), AWARDS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(ceremonies: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(ceremonies, question, gold)
