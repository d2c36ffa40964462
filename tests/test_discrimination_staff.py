"""The agent on a small staff table (issue 40): members with no names, their roles as
nodes, sex as the table's word, years and salaries as numbers; nearly every question is an
analytic one. A word for a category many members hold is that value (*female*: *Female*);
with nothing named, a value is found by its head noun (*the highest salary*: the annual
salary); a negation is counted when asked *how many*; a superlative a member holds ranks
the members (*the role of the member with the highest salary*: no maximum), by the value
named right after it (*with the most years of service*); with nothing named, *for each sex*
groups every member (the class that holds the attributes named) by that text value."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/staff/"
MEMBERS = (  # role, sex, years of service, salary
    ("Manager", "Female", 20, 120000), ("Engineer", "Male", 5, 80000),
    ("Engineer", "Female", 12, 95000), ("Manager", "Male", 3, 130000), ("Engineer", "Female", 8, 90000),
)  # fmt: skip


def staff() -> str:
    """Five unnamed staff members, two roles."""
    lines = [
        "@prefix o: <http://example.org/staff/ontology#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'o:StaffMember rdfs:label "staff member" . o:Role rdfs:label "role" .',
        'o:role rdfs:label "role" ; rdfs:domain o:StaffMember ; rdfs:range o:Role .',
        'o:sex rdfs:label "sex" ; rdfs:domain o:StaffMember ; rdfs:range xsd:string .',
        'o:service rdfs:label "years of service" ; rdfs:domain o:StaffMember ; rdfs:range xsd:integer .',
        'o:salary rdfs:label "annual salary in euros" ; rdfs:domain o:StaffMember ; rdfs:range xsd:integer .',
    ]
    for role in ("Manager", "Engineer"):
        lines.append(f'<{A}role/{role}> a o:Role ; rdfs:label "{role}" .')
    for number, (role, sex, years, salary) in enumerate(MEMBERS, 1):
        lines.append(
            f'<{A}member/{number}> a o:StaffMember ; o:role <{A}role/{role}> ; o:sex "{sex}" ; '
            f"o:service {years} ; o:salary {salary} ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
STAFF_FIRST = [
    ("How many female staff members are there?", {"3"}),  # *female*: the sex Female three members hold
    ("What is the highest salary?", {"130000"}),  # nothing named: the annual salary, by its head noun
    ("How many staff members are not managers?", {"3"}),  # the negation, counted
    ("What is the role of the staff member with the highest salary?", {A + "role/Manager"}),  # ranked
    ("What is the salary of the staff member with the most years of service?", {"120000"}),  # by the years
    # nothing named: every staff member, grouped by the text value named after *each*
    ("For each sex, what is the highest salary?", {"Female", "120000", "Male", "130000"}),
]
IDS = ["category-word", "head-noun", "negation-counted", "held-superlative", "ranked-as-said", "group-by-text"]


table = graph_fixture("table", "staff", staff)


@pytest.mark.parametrize(("question", "gold"), STAFF_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(table: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(table, question, gold)
