"""The agent on a small laboratory log (issue 40): unlabelled test records with a day number,
a result kept as a string (*positive*, *negative*) and a yes/no attribute named with a
participle and a preposition (*collected at the drive-through*), of patients at clinics.
*Positive* is the result the graph keeps, not a sign; a day number the question asks for
(*on which day*) or groups by (*on each day*) is grouped like a date; the yes/no attribute is
one (the bank does not read it as a verb and a thing, *the drive-through the test is
collected at*)."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/lab/"
TESTS = (  # number, day, result, drive-through, clinic
    (1, 3, "negative", True, "clinical_lab"),
    (2, 3, "positive", False, "emergency_dept"),
    (3, 4, "negative", True, "clinical_lab"),
    (4, 4, "negative", True, "clinical_lab"),
    (5, 4, "positive", False, "emergency_dept"),
    (6, 4, "positive", True, "clinical_lab"),
    (7, 5, "negative", False, "emergency_dept"),
    (8, 5, "invalid", True, "clinical_lab"),
    (9, 6, "positive", False, "oncology_day_hosp"),
    (10, 6, "negative", False, "oncology_day_hosp"),
)


def lab_log() -> str:
    """Ten tests over four days at three clinics."""
    lines = [
        "@prefix s: <http://example.org/lab/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Test rdfs:label "test" . s:Clinic rdfs:label "clinic" .',
        's:number rdfs:label "test number" ; rdfs:domain s:Test ; rdfs:range xsd:integer .',
        's:day rdfs:label "day of the outbreak" ; rdfs:domain s:Test ; rdfs:range xsd:integer .',
        's:result rdfs:label "result" ; rdfs:domain s:Test ; rdfs:range xsd:string .',
        's:drive rdfs:label "collected at the drive-through" ; rdfs:domain s:Test ; rdfs:range xsd:boolean .',
        's:clinic rdfs:label "clinic" ; rdfs:domain s:Test ; rdfs:range s:Clinic .',
    ]
    for clinic in sorted({row[4] for row in TESTS}):
        lines.append(f'<{A}clinic/{clinic}> a s:Clinic ; rdfs:label "{clinic.replace("_", " ")}" .')
    for number, day, result, drive, clinic in TESTS:
        lines.append(
            f'<{A}test/{number}> a s:Test ; s:number {number} ; s:day {day} ; s:result "{result}" ; '
            f"s:drive {str(drive).lower()} ; s:clinic <{A}clinic/{clinic}> ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
LAB_FIRST = [
    ("How many tests were positive?", {"4"}),
    ("What percentage of the tests were positive?", {"40"}),
    ("On which day of the outbreak were the most tests collected?", {"4"}),
    ("How many positive tests were there on each day of the outbreak?", {"3", "1", "4", "2", "6"}),
    ("How many tests were collected at the drive-through?", {"5"}),
    ("Was test 7 collected at the drive-through?", {"false"}),
]
IDS = ["value-not-sign", "value-share", "number-asked-grouped", "number-each-grouped", "participle-flag",
       "participle-flag-asked"]  # fmt: skip

lab = graph_fixture("lab", "lab", lab_log)


@pytest.mark.parametrize(("question", "gold"), LAB_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(lab: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(lab, question, gold)
