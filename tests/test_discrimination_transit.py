"""The agent on a graph of a transit network's stations (issue 40): an edge that only a few
of a line's stations have, numbers written with *million*, an ordinal before a superlative,
a count compared with a number, one value of two stations compared yes or no, a word in a
name or another text, a family of lines the question names by the part of their names they
share, *was there* with a comparison, *when* as a date, and the things of a class that a
reading finds none of."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

T = "http://example.org/transit/data/"
STATIONS = (
    # name, lines, RER lines, passengers
    ("Abbey", "1", "", 1_200_000), ("Beacon", "1", "", 900_000), ("Cedar", "1", "", 1_500_000),
    ("Dock", "1", "", 700_000), ("Elm", "1", "", 1_100_000), ("Ford", "1", "", 800_000),
    ("Grove", "1", "", 600_000), ("Heath", "1", "", 1_300_000), ("Park Gate", "1 2", "", 2_100_000),
    ("Central", "1 2 3", "A B", 9_400_000), ("Harbour", "2 3", "B", 3_200_000), ("Park Lane", "3", "A", 400_000),
)  # fmt: skip


def transit() -> str:
    """Twelve stations on three lines; only three connect to an RER line (RER A, RER B)."""
    lines = [
        "@prefix t: <http://example.org/transit/schema#> .",
        "@prefix d: <http://example.org/transit/data/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        't:Station rdfs:label "metro station" . t:Line rdfs:label "metro line" . t:RerLine rdfs:label "RER line" .',
        't:onLine rdfs:label "served by line" ; rdfs:domain t:Station ; rdfs:range t:Line .',
        't:rerConnection rdfs:label "RER connection" ; rdfs:domain t:Station ; rdfs:range t:RerLine .',
        't:passengers rdfs:label "passengers" ; rdfs:domain t:Station ; rdfs:range xsd:integer .',
        't:opened rdfs:label "opening date" ; rdfs:domain t:Station ; rdfs:range xsd:date .',
        't:street rdfs:label "street" ; rdfs:domain t:Station ; rdfs:range xsd:string .',
        'd:RA a t:RerLine ; rdfs:label "RER A" . d:RB a t:RerLine ; rdfs:label "RER B" .',
    ]
    lines += [f'd:L{n} a t:Line ; rdfs:label "Line {n}" .' for n in "123"]
    for day, (name, on, rer, passengers) in enumerate(STATIONS, 1):
        node = "d:" + name.replace(" ", "")
        lines.append(f'{node} a t:Station ; rdfs:label "{name}" ; t:passengers {passengers} .')
        street = f"{name.split()[0]} {'Road' if day % 3 == 0 else 'Street'}"
        lines.append(f'{node} t:opened "1900-01-{day:02d}"^^xsd:date ; t:street "{street}" .')
        lines += [f"{node} t:onLine d:L{n} ." for n in on.split()]
        lines += [f"{node} t:rerConnection d:R{r} ." for r in rer.split()]
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
TRANSIT_FIRST = [
    # an edge only three of twelve stations have: not among the few sampled from line 1
    ("Which stations on line 1 have no RER connection?",
     {T + s for s in ("Abbey", "Beacon", "Cedar", "Dock", "Elm", "Ford", "Grove", "Heath", "ParkGate")}),
    ("Which RER lines connect with stations of line 1?", {T + "RA", T + "RB"}),
    ("Which stations had more than 2 million passengers?", {T + "ParkGate", T + "Central", T + "Harbour"}),
    ("What is the second busiest station?", {T + "Harbour"}),
    ("Which stations are served by at least two lines?", {T + "ParkGate", T + "Central", T + "Harbour"}),
    ("Did Central have more passengers than Harbour?", {"true"}),
    ("Did Harbour have more passengers than Central?", {"false"}),
    ("How many stations have Park in their name?", {"2"}),
    ("What percentage of stations connect to the RER?", {"25"}),
    ("How many stations have Road in their street?", {"4"}),  # a word in another text than the name
    ("Was there a station with more than 5 million passengers?", {"true"}),
    ("When did the station with the most passengers open?", {"1900-01-10"}),  # *when*: a date, not the number
    ("Which lines do not serve Harbour?", {T + "L1"}),  # the class's things a reading finds none of
    ("Which stations opened after 1900-01-10?", {T + "Harbour", T + "ParkLane"}),  # a day, compared with dates
]  # fmt: skip
IDS = ["negation", "two-hop", "million", "second", "having", "more-yes", "more-no", "in-name", "family",
       "in-street", "was-there", "when", "not-found", "after-day"]  # fmt: skip


network = graph_fixture("network", "transit", transit)


@pytest.mark.parametrize(("question", "gold"), TRANSIT_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(network: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(network, question, gold)
