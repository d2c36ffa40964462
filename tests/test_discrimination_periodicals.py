"""The agent on a small periodicals catalogue (issue 40): periodicals labelled by title, each
with a publisher and a subject (nodes), a founding year kept as an integer and a number of
pages. *Who publishes X* is X's publisher, not the publishers of the periodicals that share
X's subject; *the oldest* is the earliest founding year though the year is a number; *how
many years older is A than B* is B's founding year less A's, nothing counted; *how many
more pages does A have than B* subtracts their numbers of pages; *how many pages does A have* reads
its number of pages; two averages of one periodical are compared or listed by their names;
*the total circulation of the periodicals* adds up each one's *total circulation*."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/periodicals/"
PERIODICALS = (  # title, publisher, subject, founding year, pages, total circulation, reader and critic ratings
    ("Annals of Widgets", "Gearbox Press", "Engineering", 1921, 880, 12000, 4.1, 3.2),
    ("Widget Letters", "Northwind Books", "Engineering", 1978, 310, 3500, 3.4, 3.9),
    ("Review of Gadgets", "Northwind Books", "Engineering", 1902, 1240, 8000, 3.8, 4.4),
    ("Quarterly of Sprockets", "Gearbox Press", "History", 1888, 540, 2500, 2.9, 3.1),
    ("Cog History Today", "Harbour House", "History", 1965, 420, 900, 4.6, 4.0),
)


def periodicals_catalogue() -> str:
    """Five periodicals from three publishers in two subjects."""
    lines = [
        "@prefix s: <http://example.org/periodicals/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Periodical rdfs:label "periodical" . s:Publisher rdfs:label "publisher" . s:Subject rdfs:label "subject" .',
        's:publisher rdfs:label "publisher" ; rdfs:domain s:Periodical ; rdfs:range s:Publisher .',
        's:subject rdfs:label "subject" ; rdfs:domain s:Periodical ; rdfs:range s:Subject .',
        's:founded rdfs:label "founding year" ; rdfs:domain s:Periodical ; rdfs:range xsd:integer .',
        's:pages rdfs:label "number of pages" ; rdfs:domain s:Periodical ; rdfs:range xsd:integer .',
        's:circulation rdfs:label "total circulation" ; rdfs:domain s:Periodical ; rdfs:range xsd:integer .',
        's:readers rdfs:label "average reader rating" ; rdfs:domain s:Periodical ; rdfs:range xsd:decimal .',
        's:critics rdfs:label "average critic rating" ; rdfs:domain s:Periodical ; rdfs:range xsd:decimal .',
    ]
    for cls, name in sorted({("Publisher", p[1]) for p in PERIODICALS} | {("Subject", p[2]) for p in PERIODICALS}):
        lines.append(f'<{A}{cls}/{name.replace(" ", "_")}> a s:{cls} ; rdfs:label "{name}" .')
    for i, (title, publisher, subject, year, pages, circulation, readers, critics) in enumerate(PERIODICALS, 1):
        lines.append(
            f'<{A}periodical/{i}> a s:Periodical ; rdfs:label "{title}" ; s:founded {year} ; s:pages {pages} ; '
            f"s:circulation {circulation} ; s:readers {readers} ; s:critics {critics} ; "
            f"s:publisher <{A}Publisher/{publisher.replace(' ', '_')}> ; s:subject <{A}Subject/{subject}> ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
PERIODICALS_FIRST = [
    ("Who publishes Widget Letters?", {f"{A}Publisher/Northwind_Books"}),
    ("Which is the oldest periodical?", {f"{A}periodical/4"}),
    ("How many years older is the Review of Gadgets than Widget Letters?", {"76"}),
    ("How many more pages does the Review of Gadgets have than Widget Letters?", {"930"}),
    ("How many pages does Widget Letters have?", {"310"}),
    ("Is the average reader rating of Annals of Widgets higher than its average critic rating?", {"true"}),
    ("What is the total circulation of the periodicals published by Gearbox Press?", {"14500"}),
]
IDS = ["own-publisher-not-shared", "oldest-by-year-number", "years-older-apart", "more-pages-subtracted",
       "number-of-kept-is-read", "own-two-averages-compared", "totals-of-several-added"]  # fmt: skip

periodicals = graph_fixture("periodicals", "periodicals", periodicals_catalogue)


@pytest.mark.parametrize(("question", "gold"), PERIODICALS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(
    periodicals: tuple[Store, MemoryBank], question: str, gold: set[str]
) -> None:
    assert_first_candidate(periodicals, question, gold)
