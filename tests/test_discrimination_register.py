"""The agent on a small incident register (issue 40): incidents as unlabelled records of an
organisation, with a report date, the customers affected, a type of incident and where the
lost records were kept; organisations labelled by name, each of a kind (*Clinic*,
*Insurer*), one named *The Northern Affiliated Organisations*. *How many customers were
affected* reads the number kept as *customers affected*, not a count; *which insurer*
asks for the organisations of that kind; *the largest incidents* rank by no date and
*organisations* names the class, not that organisation; *what kind of organisation* asks
its organisation type; *where* asks a location; *in total* ranks each type by its sum."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/register/"
ORGANISATIONS = {  # number: (name, kind)
    1: ("Acme Health", "Clinic"),
    2: ("Birch Insurance", "Insurer"),
    3: ("Cedar Clinic", "Clinic"),
    4: ("Delta Insurance Group", "Insurer"),
    5: ("The Northern Affiliated Organisations", "Insurer"),
}
INCIDENTS = (  # organisation, report date, customers affected, type, where the records were kept
    (1, "2012-03-01", 1200, "Theft", "Laptop"),
    (2, "2013-05-02", 90000, "Hacking", "Network Server"),
    (3, "2014-07-03", 500, "Loss", "Paper Files"),
    (4, "2011-01-04", 45000, "Theft", "Paper Files"),
    (5, "2015-02-05", 700, "Hacking", "Network Server"),
    (3, "2010-06-06", 3000, "Theft", "Laptop"),
)


def incident_register() -> str:
    """Five organisations of two kinds and six incidents."""
    lines = [
        "@prefix s: <http://example.org/register/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Incident rdfs:label "incident" . s:Organisation rdfs:label "organisation" .',
        's:Kind rdfs:label "organisation type" . s:IncidentType rdfs:label "type of incident" .',
        's:Place rdfs:label "location of lost records" .',
        's:organisation rdfs:label "organisation" ; rdfs:domain s:Incident ; rdfs:range s:Organisation .',
        's:date rdfs:label "incident report date" ; rdfs:domain s:Incident ; rdfs:range xsd:date .',
        's:affected rdfs:label "customers affected" ; rdfs:domain s:Incident ; rdfs:range xsd:integer .',
        's:incidentType rdfs:label "type of incident" ; rdfs:domain s:Incident ; rdfs:range s:IncidentType .',
        's:location rdfs:label "location of lost records" ; rdfs:domain s:Incident ; rdfs:range s:Place .',
        's:kind rdfs:label "organisation type" ; rdfs:domain s:Organisation ; rdfs:range s:Kind .',
    ]
    nodes = {("Kind", kind) for _, kind in ORGANISATIONS.values()}
    nodes |= {("IncidentType", i[3]) for i in INCIDENTS} | {("Place", i[4]) for i in INCIDENTS}
    for cls, name in sorted(nodes):
        lines.append(f'<{A}{cls}/{name.replace(" ", "_")}> a s:{cls} ; rdfs:label "{name}" .')
    for number, (name, kind) in ORGANISATIONS.items():
        lines.append(f'<{A}organisation/{number}> a s:Organisation ; rdfs:label "{name}" ; s:kind <{A}Kind/{kind}> .')
    for i, (org, date, affected, kind, place) in enumerate(INCIDENTS, 1):
        lines.append(
            f'<{A}incident/{i}> a s:Incident ; s:organisation <{A}organisation/{org}> ; s:date "{date}"^^xsd:date ; '
            f"s:affected {affected} ; s:incidentType <{A}IncidentType/{kind}> ; "
            f"s:location <{A}Place/{place.replace(' ', '_')}> ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
REGISTER_FIRST = [
    ("How many customers were affected by the incident that Acme Health reported?", {"1200"}),
    ("Which insurer reported the incident affecting the most customers?", {f"{A}organisation/2"}),
    ("Which two organisations reported the largest incidents?", {f"{A}organisation/2", f"{A}organisation/4"}),
    ("What kind of organisation is Cedar Clinic?", {f"{A}Kind/Clinic"}),
    ("Where were the records kept in the incident that Birch Insurance reported?", {f"{A}Place/Network_Server"}),
    ("Which type of incident affected the most customers in total?", {f"{A}IncidentType/Hacking"}),
]
IDS = ["counted-then-verb-is-a-value", "category-asked-holders", "largest-by-no-date", "kind-of-class-asked",
       "where-asks-a-location", "most-in-total-by-sum"]  # fmt: skip

register = graph_fixture("register", "register", incident_register)


@pytest.mark.parametrize(("question", "gold"), REGISTER_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(register: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(register, question, gold)
