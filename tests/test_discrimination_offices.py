"""The agent on a small log of a guild's chairs (issue 40): terms of office as unlabelled
records (a chair, a deputy chair where there was one, a faction, a start year, an end year
but for the term still running) and elections as unlabelled records (a year, the presiding
chair, the change in the chair's faction's seats in percent). *How many years did the term
last* is its end year less its start year; *which deputy chairs also became chair* holds
both roles; *the most deputy chairs* counts what each chair's terms name; the largest
*losses* of a change are its lowest values; *did the faction gain seats* asks whether the
change is above zero; *which chair presided* asks for the presiding chair; *the most recent
term* is the one that started last; *in which election*, *which elections* are answered by
the years of the nameless election records."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/guild/"
PEOPLE = ("Ada Byrne", "Ben Cole", "Cora Diaz", "Dan Ekk", "Eve Fox", "Finn Gray", "Gil Hart")
TERMS = (  # chair, deputy chair, faction, start year, end year
    ("Ada Byrne", "Ben Cole", "Greens", 1990, 1996),
    ("Ada Byrne", "Cora Diaz", "Greens", 1996, 1998),
    ("Ben Cole", "Dan Ekk", "Reds", 1998, 2005),
    ("Cora Diaz", None, "Greens", 2005, 2009),
    ("Eve Fox", "Finn Gray", "Reds", 2009, 2015),
    ("Dan Ekk", "Gil Hart", "Blues", 2015, None),
)
ELECTIONS = (  # year, presiding chair, seat change in percent
    (1994, "Ada Byrne", 3.5),
    (2002, "Ben Cole", -12.0),
    (2006, "Cora Diaz", -4.0),
    (2012, "Eve Fox", 1.5),
    (2018, "Dan Ekk", -20.5),
)


def _person(name: str) -> str:
    return f"<{A}person/{name.replace(' ', '_')}>"


def guild_offices() -> str:
    """Six terms of seven people and five elections."""
    lines = [
        "@prefix s: <http://example.org/guild/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Person rdfs:label "person" . s:Term rdfs:label "term of office" . s:Faction rdfs:label "faction" .',
        's:Election rdfs:label "election" .',
        's:chair rdfs:label "chair" ; rdfs:domain s:Term ; rdfs:range s:Person .',
        's:deputy rdfs:label "deputy chair" ; rdfs:domain s:Term ; rdfs:range s:Person .',
        's:faction rdfs:label "faction" ; rdfs:domain s:Term ; rdfs:range s:Faction .',
        's:startYear rdfs:label "start year" ; rdfs:domain s:Term ; rdfs:range xsd:integer .',
        's:endYear rdfs:label "end year" ; rdfs:domain s:Term ; rdfs:range xsd:integer .',
        's:year rdfs:label "year" ; rdfs:domain s:Election ; rdfs:range xsd:integer .',
        's:presiding rdfs:label "presiding chair" ; rdfs:domain s:Election ; rdfs:range s:Person .',
        's:seatChange rdfs:label "seat change in percent" ; rdfs:domain s:Election ; rdfs:range xsd:decimal .',
    ]
    lines += [f'{_person(name)} a s:Person ; rdfs:label "{name}" .' for name in PEOPLE]
    for faction in {term[2] for term in TERMS}:
        lines.append(f'<{A}faction/{faction}> a s:Faction ; rdfs:label "{faction}" .')
    for number, (chair, deputy, faction, start, end) in enumerate(TERMS, 1):
        record = f"<{A}term/{number}> a s:Term ; s:chair {_person(chair)} ; s:faction <{A}faction/{faction}> ; "
        record += f"s:startYear {start}" + (f" ; s:deputy {_person(deputy)}" if deputy else "")
        lines.append(record + (f" ; s:endYear {end} ." if end else " ."))
    for year, chair, change in ELECTIONS:
        lines.append(f"<{A}election/{year}> a s:Election ; s:year {year} ; s:presiding {_person(chair)} ; "
                     f"s:seatChange {change} .")  # fmt: skip
    return "\n".join(lines) + "\n"


def _people(*names: str) -> set[str]:
    return {_person(name).strip("<>") for name in names}


#: questions whose first candidate must answer right
OFFICES_FIRST = [
    ("How many years did the term of Ben Cole last?", {"7"}),
    ("Which deputy chairs also became chair?", _people("Ben Cole", "Cora Diaz", "Dan Ekk")),
    ("Which chair had the most deputy chairs?", _people("Ada Byrne")),
    ("Which elections had the two largest seat losses?", {"2018", "2002"}),
    ("Did the chair's faction gain seats in the 2012 election?", {"true"}),
    ("Did the chair's faction gain seats in the 2006 election?", {"false"}),
    ("Which chair presided at the election with the largest seat loss?", _people("Dan Ekk")),
    ("Who was the chair of the most recent term?", _people("Dan Ekk")),
    ("In which election did the chair's faction gain the most seats?", {"1994"}),
]
IDS = ["how-long-a-term-lasted", "two-roles-held", "most-of-what-records-name", "largest-losses-lowest",
       "gain-above-zero", "no-gain", "participle-role-asked", "most-recent-by-start",
       "nameless-record-by-its-year"]  # fmt: skip

offices = graph_fixture("offices", "offices", guild_offices)


@pytest.mark.parametrize(("question", "gold"), OFFICES_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(offices: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(offices, question, gold)
