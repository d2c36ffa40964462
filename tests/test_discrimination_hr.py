"""The agent on a small HR table (issue 40): employees known only by an employee number, in a
department and a job role, with incomes, years at the company, a marital status and two
yes/no flags (*works overtime*, *left the company*). A flag named with a verb in the third
person is met in the plural (*employees work overtime*) and negated (*do not work
overtime*); the things that hold a flag are grouped (*left the company in each
department*) and taken as a share (*what percentage ... have left*); *the average number of
years at the company* averages a number kept, for each value of an attribute with nothing
grounded; *an average ... above N* keeps groups by the average."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/hr/"
STAFF = (  # number, department, job role, monthly income, years at the company, marital status, overtime, left
    (101, "Sales", "Sales_Executive", 5200, 4, "Married", True, False),
    (102, "Sales", "Sales_Executive", 4800, 2, "Single", False, True),
    (103, "Sales", "Manager", 9100, 12, "Married", False, False),
    (104, "Sales", "Sales_Executive", 5100, 6, "Divorced", True, True),
    (105, "Research", "Scientist", 3900, 1, "Single", True, False),
    (106, "Research", "Scientist", 4100, 3, "Single", False, True),
    (107, "Research", "Manager", 8800, 15, "Married", False, False),
    (108, "Research", "Scientist", 4300, 5, "Married", True, False),
    (109, "Human_Resources", "Recruiter", 3500, 2, "Divorced", False, True),
    (110, "Research", "Scientist", 3700, 7, "Married", False, False),
)


def staff() -> str:
    """Ten employees in three departments and four job roles."""
    lines = [
        "@prefix s: <http://example.org/hr/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Employee rdfs:label "employee" . s:Department rdfs:label "department" . s:JobRole rdfs:label "job role" .',
        's:number rdfs:label "employee number" ; rdfs:domain s:Employee ; rdfs:range xsd:integer .',
        's:department rdfs:label "department" ; rdfs:domain s:Employee ; rdfs:range s:Department .',
        's:jobRole rdfs:label "job role" ; rdfs:domain s:Employee ; rdfs:range s:JobRole .',
        's:income rdfs:label "monthly income in dollars" ; rdfs:domain s:Employee ; rdfs:range xsd:integer .',
        's:years rdfs:label "years at the company" ; rdfs:domain s:Employee ; rdfs:range xsd:integer .',
        's:marital rdfs:label "marital status" ; rdfs:domain s:Employee ; rdfs:range xsd:string .',
        's:overTime rdfs:label "works overtime" ; rdfs:domain s:Employee ; rdfs:range xsd:boolean .',
        's:attrition rdfs:label "left the company" ; rdfs:domain s:Employee ; rdfs:range xsd:boolean .',
    ]
    for department in sorted({row[1] for row in STAFF}):
        lines.append(f'<{A}department/{department}> a s:Department ; rdfs:label "{department.replace("_", " ")}" .')
    for role in sorted({row[2] for row in STAFF}):
        lines.append(f'<{A}role/{role}> a s:JobRole ; rdfs:label "{role.replace("_", " ")}" .')
    for number, department, role, income, years, marital, overtime, left in STAFF:
        lines.append(
            f"<{A}employee/{number}> a s:Employee ; s:number {number} ; s:department <{A}department/{department}> ; "
            f's:jobRole <{A}role/{role}> ; s:income {income} ; s:years {years} ; s:marital "{marital}" ; '
            f"s:overTime {str(overtime).lower()} ; s:attrition {str(left).lower()} ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
HR_FIRST = [
    ("How many employees work overtime?", {"4"}),
    ("How many employees in the Sales department do not work overtime?", {"2"}),
    (
        "How many employees left the company in each department?",
        {f"{A}department/Sales", "2", f"{A}department/Research", "1", f"{A}department/Human_Resources"},
    ),
    ("What percentage of employees have left the company?", {"40"}),
    (
        "What is the average number of years at the company for each marital status?",
        {"Married", "8.6", "Single", "2", "Divorced", "4"},
    ),  # fmt: skip
    ("Which job roles have an average monthly income above 6000 dollars?", {f"{A}role/Manager"}),
    ("Which job role has the most employees?", {f"{A}role/Scientist"}),
]
IDS = ["flag-plural-verb", "flag-negated", "flagged-grouped", "flagged-share", "kept-number-averaged",
       "average-kept-groups", "most-employees"]  # fmt: skip

hr = graph_fixture("hr", "hr", staff)


@pytest.mark.parametrize(("question", "gold"), HR_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(hr: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(hr, question, gold)
