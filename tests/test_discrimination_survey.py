"""The agent on a small field survey (issue 40): sightings known only by a record number, a
date and measurements, each at a site of a site type and of a species of a bird group.
*What type of site is Site 2* reads the site type, not the class *site*; a record number
held by one sighting names it, so a path from it goes three edges (*the group of the
species seen in record 502*) and its values are no answer named by the question; two
constraints two edges away each meet (*sightings of owls at wetland sites*); *how many
more sightings of A than of B* counts each; *on which date were the most*, *which two
days had the most* group the dates; *the longest ... recorded* is a value; *names
containing* searches the names."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/survey/"
SITES = {"1": "Wetland", "2": "Woodland", "3": "Wetland", "4": "Farmland"}
SPECIES = {  # code: (name, group)
    "TA": ("Tyto alba", "Owl"), "SA": ("Strix aluco", "Owl"), "AA": ("Ardea alba", "Heron"),
    "AC": ("Ardea cinerea", "Heron"), "PM": ("Parus major", "Tit"),
}  # fmt: skip
SIGHTINGS = (  # record, date, site, species, wing length in mm, mass in g
    (501, "2021-05-01", "1", "TA", 290, 310), (502, "2021-05-01", "2", "SA", 265, 420),
    (503, "2021-05-01", "3", "TA", 295, 330), (504, "2021-05-02", "1", "AC", 455, 1500),
    (505, "2021-05-02", "3", "AA", 430, 900), (506, "2021-05-03", "2", "PM", 75, 18),
    (507, "2021-05-03", "1", "TA", 288, 300), (508, "2021-05-03", "4", "SA", 270, 450),
    (509, "2021-05-03", "3", "PM", 74, 17), (510, "2021-05-04", "4", "TA", 292, 320),
)  # fmt: skip


def survey() -> str:
    """Ten sightings of five species of three groups at four sites of three site types."""
    lines = [
        "@prefix s: <http://example.org/survey/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Sighting rdfs:label "sighting" . s:Site rdfs:label "site" . s:SiteType rdfs:label "site type" .',
        's:Species rdfs:label "species" . s:Group rdfs:label "bird group" .',
        's:record rdfs:label "record number" ; rdfs:domain s:Sighting ; rdfs:range xsd:integer .',
        's:date rdfs:label "sighting date" ; rdfs:domain s:Sighting ; rdfs:range xsd:date .',
        's:site rdfs:label "site" ; rdfs:domain s:Sighting ; rdfs:range s:Site .',
        's:species rdfs:label "species" ; rdfs:domain s:Sighting ; rdfs:range s:Species .',
        's:wing rdfs:label "wing length in millimetres" ; rdfs:domain s:Sighting ; rdfs:range xsd:integer .',
        's:mass rdfs:label "mass in grams" ; rdfs:domain s:Sighting ; rdfs:range xsd:integer .',
        's:siteType rdfs:label "site type" ; rdfs:domain s:Site ; rdfs:range s:SiteType .',
        's:group rdfs:label "bird group" ; rdfs:domain s:Species ; rdfs:range s:Group .',
    ]
    for kind in sorted(set(SITES.values())):
        lines.append(f'<{A}type/{kind}> a s:SiteType ; rdfs:label "{kind}" .')
    for number, kind in SITES.items():
        lines.append(f'<{A}site/{number}> a s:Site ; rdfs:label "Site {number}" ; s:siteType <{A}type/{kind}> .')
    for group in sorted({g for _, g in SPECIES.values()}):
        lines.append(f'<{A}group/{group}> a s:Group ; rdfs:label "{group}" .')
    for code, (name, group) in SPECIES.items():
        lines.append(f'<{A}species/{code}> a s:Species ; rdfs:label "{name}" ; s:group <{A}group/{group}> .')
    for record, date, site, species, wing, mass in SIGHTINGS:
        lines.append(
            f'<{A}sighting/{record}> a s:Sighting ; s:record {record} ; s:date "{date}"^^xsd:date ; '
            f"s:site <{A}site/{site}> ; s:species <{A}species/{species}> ; s:wing {wing} ; s:mass {mass} ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
SURVEY_FIRST = [
    ("What type of site is Site 2?", {f"{A}type/Woodland"}),
    ("Which bird group does the species seen in record 502 belong to?", {f"{A}group/Owl"}),
    ("What were the wing length and mass of record 505?", {"430", "900"}),
    # owls: 501, 502, 503, 507, 508, 510; at wetland sites (1, 3): 501, 503, 507
    ("How many sightings of owls were made at wetland sites?", {"3"}),
    # Tyto alba four times, Strix aluco twice
    ("How many more sightings of Tyto alba than of Strix aluco are there?", {"2"}),
    ("On which date were the most sightings made?", {"2021-05-03"}),
    ("Which two days had the most sightings?", {"2021-05-03", "2021-05-01"}),
    ("What is the longest wing length recorded?", {"455"}),
    ("Which species have names containing alba?", {f"{A}species/TA", f"{A}species/AA"}),
]
IDS = [
    "kind-of-class", "three-edges-from-a-record", "columns-of-a-record", "two-by-two", "counted-difference",
    "dates-grouped", "days-grouped", "value-recorded", "names-containing",
]  # fmt: skip

field = graph_fixture("field", "survey", survey)


@pytest.mark.parametrize(("question", "gold"), SURVEY_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(field: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(field, question, gold)
