"""The agent on a graph of a television show's series, episodes and contestants (issue 40):
names with numbers in them (*Series 2*, *Series 2 Episode 1*), dates asked for by their
year, a role asked yes or no, and labels that are a noun with its preposition."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_discrimination import assert_first_candidate, assert_gold_candidate, graph_and_bank

from nl2sparql.candidates.agent import Agent
from nl2sparql.candidates.anchors import anchors_of
from nl2sparql.candidates.cues import read_cues
from nl2sparql.kg.grounding import Grounder
from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

SHOW = """
@prefix s: <http://example.org/show/schema#> .
@prefix d: <http://example.org/show/data/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

s:Series rdfs:label "series" . s:Episode rdfs:label "episode" . s:Baker rdfs:label "baker" .
s:contestantIn rdfs:label "contestant in" ; rdfs:domain s:Baker ; rdfs:range s:Series .
s:episodeOf rdfs:label "episode of" ; rdfs:domain s:Episode ; rdfs:range s:Series .
s:runnerUp rdfs:label "runner-up" ; rdfs:domain s:Series ; rdfs:range s:Baker .
s:premiere rdfs:label "premiere date" ; rdfs:domain s:Series ; rdfs:range xsd:date .
s:episodeNumber rdfs:label "episode number" ; rdfs:domain s:Episode ; rdfs:range xsd:integer .
s:winner rdfs:label "winner" ; rdfs:domain s:Series ; rdfs:range s:Baker .
s:averageViewers rdfs:label "average UK viewers in millions" ; rdfs:domain s:Series ; rdfs:range xsd:decimal .
s:age rdfs:label "age" ; rdfs:domain s:Baker ; rdfs:range xsd:integer .
s:dayOfWeek rdfs:label "day of the week" ; rdfs:domain s:Series ; rdfs:range xsd:string .
s:eliminated rdfs:label "eliminated baker" ; rdfs:domain s:Episode ; rdfs:range s:Baker .

d:S1 a s:Series ; rdfs:label "Series 1" ; s:premiere "2010-08-17"^^xsd:date ; s:runnerUp d:Ruth ; s:winner d:Edd .
d:S2 a s:Series ; rdfs:label "Series 2" ; s:premiere "2011-08-14"^^xsd:date ; s:runnerUp d:Holly ; s:winner d:Jo .
d:S3 a s:Series ; rdfs:label "Series 3" ; s:premiere "2012-08-14"^^xsd:date ; s:winner d:John .
d:S1 s:averageViewers 2.77 . d:S2 s:averageViewers 4.0 . d:S3 s:averageViewers 5.0 .
d:S1 s:dayOfWeek "Tuesday" . d:S2 s:dayOfWeek "Tuesday" . d:S3 s:dayOfWeek "Wednesday" .
d:S1E1 a s:Episode ; rdfs:label "Series 1 Episode 1" ; s:episodeOf d:S1 ; s:episodeNumber 1 .
d:S1E2 a s:Episode ; rdfs:label "Series 1 Episode 2" ; s:episodeOf d:S1 ; s:episodeNumber 2 .
d:S2E1 a s:Episode ; rdfs:label "Series 2 Episode 1" ; s:episodeOf d:S2 ; s:episodeNumber 1 .
d:S2E2 a s:Episode ; rdfs:label "Series 2 Episode 2" ; s:episodeOf d:S2 ; s:episodeNumber 2 .
d:S2E1 s:eliminated d:Ben . d:S2E2 s:eliminated d:Holly .
d:Edd a s:Baker ; rdfs:label "Edd Kimber" ; s:contestantIn d:S1 ; s:age 24 .
d:Ruth a s:Baker ; rdfs:label "Ruth Clemens" ; s:contestantIn d:S1 ; s:age 31 .
d:Holly a s:Baker ; rdfs:label "Holly Bell" ; s:contestantIn d:S2 ; s:age 31 .
d:Jo a s:Baker ; rdfs:label "Jo Wheatley" ; s:contestantIn d:S2 ; s:age 41 .
d:Ben a s:Baker ; rdfs:label "Ben Frazer" ; s:contestantIn d:S2 ; s:age 31 .
d:John a s:Baker ; rdfs:label "John Whaite" ; s:contestantIn d:S3 ; s:age 22 .
"""

D = "http://example.org/show/data/"
SHOW_GOLD = [
    ("How many bakers took part in series 2?", "count", {"3"}),
    ("Which series premiered in 2011?", "lookup", {D + "S2"}),  # a year of a date
    ("Was Holly Bell a runner-up?", "yes-no", {"true"}),  # one item: whether a reading of it finds anything
    ("Was Edd Kimber a runner-up?", "yes-no", {"false"}),
]
#: questions whose first candidate must answer right: the others are built but rank below
SHOW_FIRST = [
    ("Who is the oldest baker?", {D + "Jo"}),  # the greatest age, not the least
    ("Who won the series with the highest average viewers?", {D + "John"}),  # *average* names the attribute
    ("Who was eliminated in the first episode of series 2?", {D + "Ben"}),  # the eliminated baker of the first
    ("How many more average viewers did series 3 have than series 1?", {"2.23"}),  # a difference, no count
]


@pytest.fixture(scope="module")
def show(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, MemoryBank]]:
    store, bank = graph_and_bank(tmp_path_factory.mktemp("show"), "show", SHOW)
    yield store, bank
    store.close()


@pytest.mark.parametrize(("question", "shape", "gold"), SHOW_GOLD, ids=["count", "year", "yes", "no"])
def test_the_agent_builds_the_gold_candidate_over_a_shows_series(
    show: tuple[Store, MemoryBank], question: str, shape: str, gold: set[str]
) -> None:
    assert_gold_candidate(show, question, shape, gold)


@pytest.mark.parametrize(("question", "gold"), SHOW_FIRST, ids=["oldest", "who-won", "who-was", "how-many-more"])
def test_the_first_candidate_answers_right(show: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(show, question, gold)


def anchors(show: tuple[Store, MemoryBank], question: str) -> list[tuple[str, str]]:
    agent = Agent(show[1], show[0])
    grounding = Grounder.from_store(show[0]).ground(question)
    return [(a.kind, a.name) for a in anchors_of(grounding, agent.limits, read_cues(question))]


def test_a_number_inside_a_name_is_that_name_and_no_longer_name_is_read_into_it(
    show: tuple[Store, MemoryBank],
) -> None:
    """*series 2* names the series *Series 2*: not the number 2, nor *Series 2 Episode 1*."""
    found = anchors(show, "How many bakers took part in series 2?")
    assert ("entity", "Series 2") in found
    assert not [name for kind, name in found if kind == "value" or name.startswith("Series 2 Episode")], found


def test_a_year_that_dates_fall_in_is_one_anchor(show: tuple[Store, MemoryBank]) -> None:
    assert ("year", "in 2011") in anchors(show, "Which series premiered in 2011?")
    assert not [kind for kind, _ in anchors(show, "Which series premiered after 2011?") if kind == "year"]


def test_a_noun_label_with_its_preposition_says_what_the_holder_is(show: tuple[Store, MemoryBank]) -> None:
    described = {s.description for s in show[1].entries("graph")}
    assert "?e2 is the baker that is contestant in the series ?e1" in described
    assert "?e2 is the episode of the series ?e1" in described  # the noun is the holder's class
    assert "?e2 is the series that the baker ?e1 is contestant in" in described
