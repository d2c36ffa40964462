"""The agent on a small contest (issue 40): each contestant's outcome in an episode is a
record with no name (a placement) whose outcome is a code in capitals (*WIN*, *SAFE*,
*BTM*), which a question names by a common word (*won*, *win*); a yes/no attribute named
in the plural (*finales*); *the youngest age* as the least age; and things ranked by how
often others reach them (*lip-synced most often*)."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/contest/data/"
CONTESTANTS = (("Alice", 30), ("Bea", 25), ("Cleo", 41), ("Dana", 22))
EPISODES = (  # name, finale, lip sync artist, outcome of each contestant (in CONTESTANTS' order)
    ("Pilot", False, "Madonna", ("WIN", "SAFE", "SAFE", "BTM")),
    ("Ball Night", False, "Cher", ("WIN", "BTM", "SAFE", "SAFE")),
    ("Grand Finale", True, "Madonna", ("SAFE", "SAFE", "WIN", "BTM")),
    ("Reunion", True, None, ()),
)


def contest() -> str:
    """Four contestants, four episodes, twelve placements; singers as labelled nodes."""
    lines = [
        "@prefix c: <http://example.org/contest/schema#> .",
        "@prefix d: <http://example.org/contest/data/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'c:Contestant rdfs:label "contestant" . c:Episode rdfs:label "episode" .',
        'c:Placement rdfs:label "placement" . c:Singer rdfs:label "singer" .',
        'c:age rdfs:label "age" ; rdfs:domain c:Contestant ; rdfs:range xsd:integer .',
        'c:finale rdfs:label "finale" ; rdfs:domain c:Episode ; rdfs:range xsd:boolean .',
        'c:lipSyncArtist rdfs:label "lip sync artist" ; rdfs:domain c:Episode ; rdfs:range c:Singer .',
        'c:contestant rdfs:label "contestant" ; rdfs:domain c:Placement ; rdfs:range c:Contestant .',
        'c:episode rdfs:label "episode" ; rdfs:domain c:Placement ; rdfs:range c:Episode .',
        'c:outcome rdfs:label "outcome" ; rdfs:domain c:Placement ; rdfs:range xsd:string .',
    ]
    for name, age in CONTESTANTS:
        lines.append(f'd:{name} a c:Contestant ; rdfs:label "{name}" ; c:age {age} .')
    for singer in ("Madonna", "Cher"):
        lines.append(f'd:{singer} a c:Singer ; rdfs:label "{singer}" .')
    for number, (name, finale, singer, outcomes) in enumerate(EPISODES, 1):
        lines.append(f'd:e{number} a c:Episode ; rdfs:label "{name}" ; c:finale {str(finale).lower()} .')
        if singer:
            lines.append(f"d:e{number} c:lipSyncArtist d:{singer} .")
        for (contestant, _), outcome in zip(CONTESTANTS, outcomes, strict=False):
            lines.append(f'd:p{number}{contestant} a c:Placement ; c:contestant d:{contestant} ; '
                         f'c:episode d:e{number} ; c:outcome "{outcome}" .')  # fmt: skip
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
CONTEST_FIRST = [
    ("Which contestant won the episode Pilot?", {A + "Alice"}),  # *won*: the placement's WIN
    ("How many episodes did Cleo win?", {"1"}),  # her placements with the outcome WIN
    ("Which contestant won the most episodes?", {A + "Alice"}),  # grouped by the placement's contestant
    ("How many episodes were finales?", {"2"}),  # *finales*: the yes/no attribute *finale*
    ("What is the youngest age of a contestant?", {"22"}),  # the least age, not the greatest
    ("Which singer was lip-synced most often?", {A + "Madonna"}),  # by the episodes that reach each
]
IDS = ["won-the-episode", "episodes-won", "won-the-most", "plural-flag", "youngest-age", "most-often"]


show = graph_fixture("show", "contest", contest)


@pytest.mark.parametrize(("question", "gold"), CONTEST_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(show: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(show, question, gold)
