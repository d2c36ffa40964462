"""The agent on a small corporate list (issue 40): companies with a rank in a published list,
a home country, an industry and figures in billions of dollars. A number written with a
scale word is compared in the attribute's scale (*above 100 billion dollars*: 100 where the
graph keeps billions); *made a loss* is a profit below zero and *the biggest loss* the lowest
profit; a country adjective names its country (*Dutch*: the Netherlands); *total* in lower
case is a sum, not the company *Total*; the number of the list's name (*the Fortune 500*) is
no value; two figures of a named company are two columns."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.grounding import Grounder
from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/list/"
COMPANIES = (  # rank, name, country, industry, sales, profits, market value (billions of dollars)
    (1, "Acme Motors", "United_States", "Cars", 180.5, 9.2, 120.0),
    (2, "Total", "France", "Oil_and_gas", 150.2, 8.1, 95.0),
    (3, "Polder Bank", "Netherlands", "Banking", 60.0, 4.0, 70.5),
    (4, "Alpen Insurance", "Switzerland", "Insurance", 45.0, -1.5, 40.0),
    (5, "Tulip Oil", "Netherlands", "Oil_and_gas", 120.0, 6.0, 88.0),
    (6, "Lyon Autos", "France", "Cars", 70.0, -3.2, 20.0),
    (7, "Hudson Bank", "United_States", "Banking", 55.0, 5.5, 60.0),
    (8, "Geneva Trust", "Switzerland", "Banking", 30.0, 2.0, 35.0),
    (9, "Delta Airways", "United_States", "Transport", 25.0, -0.4, 5.0),
)


def companies() -> str:
    """Nine companies in four countries and five industries."""
    lines = [
        "@prefix s: <http://example.org/list/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Company rdfs:label "company" . s:Country rdfs:label "country" . s:Industry rdfs:label "industry" .',
        's:rank rdfs:label "rank in the Fortune 500" ; rdfs:domain s:Company ; rdfs:range xsd:integer .',
        's:country rdfs:label "home country" ; rdfs:domain s:Company ; rdfs:range s:Country .',
        's:industry rdfs:label "industry" ; rdfs:domain s:Company ; rdfs:range s:Industry .',
        's:sales rdfs:label "sales in billions of dollars" ; rdfs:domain s:Company ; rdfs:range xsd:decimal .',
        's:profits rdfs:label "profits in billions of dollars" ; rdfs:domain s:Company ; rdfs:range xsd:decimal .',
        's:value rdfs:label "market value in billions of dollars" ; rdfs:domain s:Company ; rdfs:range xsd:decimal .',
    ]
    for country in sorted({row[2] for row in COMPANIES}):
        lines.append(f'<{A}country/{country}> a s:Country ; rdfs:label "{country.replace("_", " ")}" .')
    for industry in sorted({row[3] for row in COMPANIES}):
        lines.append(f'<{A}industry/{industry}> a s:Industry ; rdfs:label "{industry.replace("_", " ")}" .')
    for rank, name, country, industry, sales, profits, value in COMPANIES:
        lines.append(
            f'<{A}company/{rank}> a s:Company ; rdfs:label "{name}" ; s:rank {rank} ; '
            f"s:country <{A}country/{country}> ; s:industry <{A}industry/{industry}> ; "
            f's:sales "{sales}"^^xsd:decimal ; s:profits "{profits}"^^xsd:decimal ; s:value "{value}"^^xsd:decimal .'
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
CORPORATE_FIRST = [
    ("Which companies have sales above 100 billion dollars?", {f"{A}company/{n}" for n in (1, 2, 5)}),
    ("How many companies made a loss?", {"3"}),
    ("Which company made the biggest loss?", {f"{A}company/6"}),
    ("Which Dutch company has the highest market value?", {f"{A}company/5"}),
    ("Which industry has the highest total profits?", {f"{A}industry/Oil_and_gas"}),
    ("Which company is ranked first in the Fortune 500?", {f"{A}company/1"}),
    ("What were the sales and profits of Hudson Bank?", {"55", "5.5"}),
]
IDS = ["scaled-number", "made-a-loss", "biggest-loss", "country-adjective", "total-is-a-sum", "list-name-number",
       "two-figures"]  # fmt: skip

corporate = graph_fixture("corporate", "corporate", companies)


@pytest.mark.parametrize(("question", "gold"), CORPORATE_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(corporate: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(corporate, question, gold)


@pytest.mark.parametrize(
    ("question", "country"),
    [("Which Swiss banks are listed?", "Switzerland"), ("How many French companies are there?", "France")],
)
def test_a_country_adjective_links_its_country(
    corporate: tuple[Store, MemoryBank], question: str, country: str
) -> None:
    entities = Grounder.from_store(corporate[0]).ground(question).entities
    assert entities and entities[0].entity_id == f"{A}country/{country}"
