"""The agent on a small log of swimming wins (issue 40): unlabelled win records (a year, a
stroke node, a time in seconds and the same time written as text) of swimmers from clubs.
Swimmers are ranked and compared by one time of theirs, not by their times added up (*the
fastest time*, *a time under 50 seconds*); wins are counted per club two edges away (*how
many wins does each club have*) and clubs counted through the wins (*how many different
clubs*); a share is of every win where the question names the wins otherwise (*the races*);
*since 2021* holds 2021; a class word after a name says what the name is (*the Backstroke
stroke*); a time written as text answers no *who*."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/swim/"
CLUBS = {"bondi": ("Bondi", ("ann", "bea")), "leeds": ("Leeds", ("cal", "dot")), "nice": ("Nice", ("eve",))}
SWIMMERS = {"ann": "Ann Reed", "bea": "Bea Shaw", "cal": "Cal Ortiz", "dot": "Dot Lamb", "eve": "Eve Marchand"}
WINS = (  # number, year, stroke, winner, seconds
    (1, 2019, "Freestyle", "ann", 50.4),
    (2, 2019, "Backstroke", "cal", 55.1),
    (3, 2020, "Freestyle", "cal", 49.9),
    (4, 2020, "Backstroke", "bea", 54.2),
    (5, 2021, "Freestyle", "eve", 49.1),
    (6, 2021, "Backstroke", "bea", 53.8),
    (7, 2022, "Freestyle", "ann", 48.7),
    (8, 2022, "Backstroke", "dot", 54.9),
)


def swim_log() -> str:
    """Eight wins of five swimmers from three clubs."""
    lines = [
        "@prefix s: <http://example.org/swim/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Swimmer rdfs:label "swimmer" . s:Club rdfs:label "club" . s:Stroke rdfs:label "stroke" .',
        's:Win rdfs:label "event win" .',
        's:winner rdfs:label "winner" ; rdfs:domain s:Win ; rdfs:range s:Swimmer .',
        's:stroke rdfs:label "stroke" ; rdfs:domain s:Win ; rdfs:range s:Stroke .',
        's:year rdfs:label "year" ; rdfs:domain s:Win ; rdfs:range xsd:integer .',
        's:seconds rdfs:label "time in seconds" ; rdfs:domain s:Win ; rdfs:range xsd:decimal .',
        's:time rdfs:label "winning time" ; rdfs:domain s:Win ; rdfs:range xsd:string .',
        's:club rdfs:label "club" ; rdfs:domain s:Swimmer ; rdfs:range s:Club .',
    ]
    for stroke in ("Freestyle", "Backstroke"):
        lines.append(f'<{A}stroke/{stroke}> a s:Stroke ; rdfs:label "{stroke}" .')
    for code, (name, members) in CLUBS.items():
        lines.append(f'<{A}club/{code}> a s:Club ; rdfs:label "{name}" .')
        lines += [f'<{A}swimmer/{m}> a s:Swimmer ; rdfs:label "{SWIMMERS[m]}" ; s:club <{A}club/{code}> .'
                  for m in members]  # fmt: skip
    for number, year, stroke, winner, seconds in WINS:
        lines.append(
            f"<{A}win/{number}> a s:Win ; s:year {year} ; s:stroke <{A}stroke/{stroke}> ; "
            f's:winner <{A}swimmer/{winner}> ; s:seconds "{seconds}"^^xsd:decimal ; '
            f's:time "00:{seconds:05.2f}" .'
        )
    return "\n".join(lines) + "\n"


def _swimmer(code: str) -> str:
    return f"{A}swimmer/{code}"


#: questions whose first candidate must answer right
SWIMS_FIRST = [
    ("Which swimmer won with the fastest time?", {_swimmer("ann")}),
    ("Which swimmers won with a time under 49.5 seconds?", {_swimmer("ann"), _swimmer("eve")}),
    ("How many wins does each club have?", {f"{A}club/bondi", "4", f"{A}club/leeds", "3", f"{A}club/nice", "1"}),
    ("How many different clubs have won the Backstroke?", {"2"}),
    ("What percentage of the races were won by swimmers from Bondi?", {"50"}),
    ("How many events were won in under 50 seconds?", {"3"}),
    ("List the years and the winners of the Freestyle since 2021.", {"2021", _swimmer("eve"), "2022", _swimmer("ann")}),
    ("Who swam the fastest winning time in the Backstroke stroke?", {_swimmer("bea")}),
]
IDS = ["one-time-ranks", "one-time-compares", "counted-two-edges-away", "counted-through-records",
       "share-of-every-record", "counted-by-unit", "since-holds-the-year", "class-after-its-name"]  # fmt: skip

swims = graph_fixture("swims", "swims", swim_log)


@pytest.mark.parametrize(("question", "gold"), SWIMS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(swims: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(swims, question, gold)
