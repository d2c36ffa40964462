"""The agent on a small course catalogue (issue 40): courses labelled by title, one
cross-listed in two subjects (two nodes, one title), each with a subject, a course number
as written and, for some, a required textbook: an unlabelled node with its prices new and
used at the shop and online. *The course number of X* asks a value, not a count; *how
many courses have no textbook* counts the courses without one; two prices of one book are
told apart by the words that differ (*new than used at the shop*, *online than at the
shop*), subtracted or compared; a title two courses share names both."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/catalogue/"
COURSES = (  # number, title, subject, course number, textbook (new at the shop, used there, new online, used online)
    (1, "Organic Chemistry", "Chemistry", "14C", (200.75, 150.75, 188.5, 120.0)),
    (2, "General Chemistry", "Chemistry", "14A", (188.1, 149.0, 190.0, 99.5)),
    (3, "Intro to Film", "Film", "M10", (47.97, 44.97, 47.45, 51.2)),
    (4, "Intro to Film", "Media Studies", "M23", (47.97, 44.97, 47.45, 51.2)),
    (5, "Yoga", "Dance", "11", None),
    (6, "Hip-Hop Dance", "Dance", "9", None),
    (7, "Film Noir", "Film", "102", None),
)
PRICES = ("shopNew", "shopUsed", "onlineNew", "onlineUsed")


def course_catalogue() -> str:
    """Seven courses in four subjects; four textbooks."""
    lines = [
        "@prefix s: <http://example.org/catalogue/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Course rdfs:label "course" . s:Subject rdfs:label "subject" . s:Textbook rdfs:label "textbook" .',
        's:subject rdfs:label "subject" ; rdfs:domain s:Course ; rdfs:range s:Subject .',
        's:number rdfs:label "course number" ; rdfs:domain s:Course ; rdfs:range xsd:string .',
        's:textbook rdfs:label "required textbook" ; rdfs:domain s:Course ; rdfs:range s:Textbook .',
        's:shopNew rdfs:label "new price at the shop in dollars" ; rdfs:domain s:Textbook ; rdfs:range xsd:decimal .',
        's:shopUsed rdfs:label "used price at the shop in dollars" ; rdfs:domain s:Textbook ; rdfs:range xsd:decimal .',
        's:onlineNew rdfs:label "new price online in dollars" ; rdfs:domain s:Textbook ; rdfs:range xsd:decimal .',
        's:onlineUsed rdfs:label "used price online in dollars" ; rdfs:domain s:Textbook ; rdfs:range xsd:decimal .',
    ]
    for subject in sorted({c[2] for c in COURSES}):
        lines.append(f'<{A}subject/{subject.replace(" ", "_")}> a s:Subject ; rdfs:label "{subject}" .')
    for number, title, subject, code, prices in COURSES:
        course = f'<{A}course/{number}> a s:Course ; rdfs:label "{title}" ; s:number "{code}" ; '
        lines.append(course + f"s:subject <{A}subject/{subject.replace(' ', '_')}> .")
        if prices:
            book = f"<{A}textbook/{number}>"
            values = " ; ".join(f"s:{name} {price}" for name, price in zip(PRICES, prices, strict=True))
            lines.append(f"<{A}course/{number}> s:textbook {book} . {book} a s:Textbook ; {values} .")
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
COURSES_FIRST = [
    ("What is the course number of Organic Chemistry?", {"14C"}),
    ("How many courses have no required textbook?", {"3"}),
    ("How much more does the textbook for Organic Chemistry cost new than used at the shop?", {"50"}),
    ("Is the new textbook for Organic Chemistry cheaper online than at the shop?", {"true"}),
    ("Is the new textbook for General Chemistry cheaper online than at the shop?", {"false"}),
    ("Which subjects is Intro to Film taught in?", {f"{A}subject/Film", f"{A}subject/Media_Studies"}),
]
IDS = ["number-of-is-a-value", "counted-without", "two-prices-subtracted", "two-prices-compared",
       "two-prices-compared-no", "one-title-two-courses"]  # fmt: skip

courses = graph_fixture("courses", "courses", course_catalogue)


@pytest.mark.parametrize(("question", "gold"), COURSES_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(courses: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(courses, question, gold)
