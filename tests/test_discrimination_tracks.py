"""The agent on a small typhoon track log (issue 40): typhoons labelled by name with a
season, and unlabelled readings of each (a time, a status node, the wind in knots, the
pressure in hectopascals, a radius in kilometres). Typhoons are ranked and compared by one
reading of theirs where the measure does not add up (*the strongest winds*, *a central
pressure below 900 hectopascals*), counted so (*how many typhoons reached ...*), listed with
their greatest value (*with their highest wind speed*) or a value of their own (*and their
season*), or answered by a value of the first (*in which season was ...*); a number word
that ranks is no typhoon named *Three*; a status named inside an attribute's name (*a
typhoon force radius*) is no item; *statuses* is the plural of *status*; a month of a year
keeps the readings in it; a share is of what a grounded item finds (*the typhoons of 2020*);
the things a value finds answer as the things asked for (*the typhoons whose season is 2019*)."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/track/"
TYPHOONS = {  # code: (name, season)
    "haiyan": ("Haiyan", 2013), "goni": ("Goni", 2020), "hagibis": ("Hagibis", 2019), "three": ("Three", 2019),
    "faxai": ("Faxai", 2019), "vongfong": ("Vongfong", 2020), "mawar": ("Mawar", 2020), "molave": ("Molave", 2020),
}  # fmt: skip
READINGS = (  # typhoon, time, status, wind in knots, pressure in hectopascals, radius in kilometres
    ("haiyan", "2013-11-06T00:00:00", "typhoon", 130, 910, 200),
    ("haiyan", "2013-11-07T00:00:00", "super typhoon", 170, 895, 250),
    ("haiyan", "2013-11-08T00:00:00", "typhoon", 155, 930, 180),
    ("goni", "2020-10-30T00:00:00", "typhoon", 140, 920, 150),
    ("goni", "2020-11-01T00:00:00", "super typhoon", 175, 884, 160),
    ("hagibis", "2019-10-07T00:00:00", "super typhoon", 160, 915, 300),
    ("hagibis", "2019-10-11T00:00:00", "typhoon", 110, 940, 320),
    ("three", "2019-07-01T00:00:00", "tropical depression", 25, 1004, 0),
    ("three", "2019-07-02T00:00:00", "tropical depression", 30, 1002, 0),
    ("faxai", "2019-09-07T00:00:00", "typhoon", 115, 955, 90),
    ("faxai", "2019-09-08T00:00:00", "typhoon", 100, 960, 80),
    ("vongfong", "2020-05-13T00:00:00", "typhoon", 100, 960, 60),
    ("vongfong", "2020-05-14T00:00:00", "tropical storm", 60, 985, 40),
    ("mawar", "2020-06-02T00:00:00", "typhoon", 120, 950, 100),
    ("molave", "2020-10-26T00:00:00", "typhoon", 110, 950, 90),
)


def track_log() -> str:
    """Eight typhoons of three seasons and fifteen readings."""
    lines = [
        "@prefix s: <http://example.org/track/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Typhoon rdfs:label "typhoon" . s:Reading rdfs:label "reading" . s:Status rdfs:label "typhoon status" .',
        's:season rdfs:label "season" ; rdfs:domain s:Typhoon ; rdfs:range xsd:integer .',
        's:typhoon rdfs:label "typhoon" ; rdfs:domain s:Reading ; rdfs:range s:Typhoon .',
        's:observedAt rdfs:label "observation time" ; rdfs:domain s:Reading ; rdfs:range xsd:dateTime .',
        's:status rdfs:label "status" ; rdfs:domain s:Reading ; rdfs:range s:Status .',
        's:wind rdfs:label "maximum wind speed in knots" ; rdfs:domain s:Reading ; rdfs:range xsd:integer .',
        's:pressure rdfs:label "central pressure in hectopascals" ; rdfs:domain s:Reading ; rdfs:range xsd:integer .',
        's:radius rdfs:label "typhoon force radius in kilometres" ; rdfs:domain s:Reading ; rdfs:range xsd:integer .',
    ]
    for code, (name, season) in TYPHOONS.items():
        lines.append(f'<{A}typhoon/{code}> a s:Typhoon ; rdfs:label "{name}" ; s:season {season} .')
    for status in {r[2] for r in READINGS}:
        lines.append(f'<{A}status/{status.replace(" ", "_")}> a s:Status ; rdfs:label "{status}" .')
    for number, (code, time, status, wind, pressure, radius) in enumerate(READINGS, 1):
        kind = status.replace(" ", "_")
        lines.append(
            f"<{A}reading/{number}> a s:Reading ; s:typhoon <{A}typhoon/{code}> ; "
            f's:observedAt "{time}"^^xsd:dateTime ; s:status <{A}status/{kind}> ; s:wind {wind} ; '
            f"s:pressure {pressure} ; s:radius {radius} ."
        )
    return "\n".join(lines) + "\n"


def _typhoons(*codes: str) -> set[str]:
    return {f"{A}typhoon/{code}" for code in codes}


#: questions whose first candidate must answer right
TRACKS_FIRST = [
    ("Which typhoon had the strongest winds?", _typhoons("goni")),
    ("Which typhoons had a central pressure below 900 hectopascals?", _typhoons("haiyan", "goni")),
    ("How many typhoons reached a wind speed of more than 150 knots?", {"3"}),
    ("Which three typhoons had the lowest central pressure?", _typhoons("goni", "haiyan", "hagibis")),
    ("How many readings had a typhoon force radius of more than 200 kilometres?", {"3"}),
    (
        "List the typhoons of the 2019 season with their highest wind speed.",
        _typhoons("hagibis", "three", "faxai") | {"160", "30", "115"},
    ),
    ("Which statuses did Hagibis have?", {f"{A}status/super_typhoon", f"{A}status/typhoon"}),
    ("Which typhoons were observed in October 2019?", _typhoons("hagibis")),
    ("Which typhoons of the 2019 season never became super typhoons?", _typhoons("three", "faxai")),
    ("What percentage of the typhoons of 2020 became super typhoons?", {"25"}),
    (
        "List the typhoons with a wind speed of at least 170 knots and their season.",
        _typhoons("haiyan", "goni") | {"2013", "2020"},
    ),  # fmt: skip
    ("In which season was the typhoon with the strongest winds?", {"2020"}),
]
IDS = ["ranked-by-one-reading", "compared-by-one-reading", "counted-by-one-reading", "number-word-ranks",
       "item-inside-attribute-name", "each-with-its-greatest", "plural-in-uses", "month-of-a-year",
       "negated-things-found-by-a-value", "share-of-a-grounded-whole", "kept-with-a-value-of-their-own",
       "value-of-the-first"]  # fmt: skip

tracks = graph_fixture("tracks", "tracks", track_log)


@pytest.mark.parametrize(("question", "gold"), TRACKS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(tracks: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(tracks, question, gold)
