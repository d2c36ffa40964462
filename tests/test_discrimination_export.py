"""The agent on a small database export (issue 40): classes and properties carry no labels
or domains, only snake_case local names, some cut short (``abb``); each state's reported
cases of a disease in a year are records with no name, keyed by their parts. A value the
question writes finds its holders though no class names them (*in 2001*); the graph's
count of cases is read, not counted (*how many measles cases*), and ranks things (*the most
pertussis cases*); a cut name is named by the whole word (*abbreviation*); *starting with N*
keeps the values that begin so; *a higher percentage for Clinton than for Trump* compares
two values of each state."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/export/state/"
STATES = (("Texas", "TX", 43.2, 52.2), ("Nevada", "NV", 47.9, 45.5), ("New_York", "NY", 59.0, 36.5))
CASES = (  # state, disease, year, count
    ("Texas", "Measles", 2001, 12), ("Texas", "Measles", 2011, 40), ("Texas", "Pertussis", 2011, 900),
    ("Nevada", "Measles", 2001, 3), ("Nevada", "Pertussis", 2011, 150),
    ("New_York", "Measles", 2001, 25), ("New_York", "Pertussis", 2011, 1200),
)  # fmt: skip


def export() -> str:
    """Three states, two diseases, seven case reports; no schema labels, no domains."""
    lines = [
        "@prefix s: <http://example.org/export/schema/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
    ]
    for name, abb, clinton, trump in STATES:
        lines.append(
            f'<{A}{name}> a s:State ; rdfs:label "{name.replace("_", " ")}" ; s:abb "{abb}" ; '
            f"s:clinton_pct {clinton} ; s:trump_pct {trump} ."
        )
    for disease in ("Measles", "Pertussis"):
        lines.append(f'<http://example.org/export/disease/{disease}> a s:Disease ; rdfs:label "{disease}" .')
    for state, disease, year, count in CASES:
        lines.append(
            f"<http://example.org/export/report/{state}-{year}-{disease}> a s:CaseReport ; s:state <{A}{state}> ; "
            f"s:disease <http://example.org/export/disease/{disease}> ; s:year {year} ; s:case_count {count} ."
        )
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
EXPORT_FIRST = [
    ("What is the abbreviation of Texas?", {"TX"}),  # *abb*, cut short
    ("Which states have an abbreviation starting with N?", {A + "Nevada", A + "New_York"}),
    ("How many measles cases did Texas report in 2001?", {"12"}),  # the case count, of the 2001 report
    ("Which state reported the most pertussis cases in 2011?", {A + "New_York"}),  # ranked by the case count
    ("In which year did Texas report the most measles cases?", {"2011"}),  # the year of the largest count
    # two values of each state compared with each other
    ("In which states did Clinton get a higher percentage than Trump?", {A + "Nevada", A + "New_York"}),
]
IDS = ["cut-name", "starting-with", "count-kept", "ranked-by-count", "year-of-most", "two-values-compared"]


states = graph_fixture("states", "export", export)


@pytest.mark.parametrize(("question", "gold"), EXPORT_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(states: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(states, question, gold)
