"""A comparison's number in the unit the graph keeps (candidates/units.py): *longer than 80
minutes* over a track length in milliseconds filters by 4,800,000; the same number stays as
written when the attribute names no unit, or one of another dimension."""

from __future__ import annotations

import pytest

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.cues import read_cues
from nl2sparql.candidates.hops import Hop
from nl2sparql.candidates.shapes import compared

TRACKS = Candidate("lookup", ("Find the entity whose type is track, assign it to ?x.", "The answer is ?x."),
                   ("?x a <http://x/Track> .",))  # fmt: skip


def hop(attribute: str) -> Hop:
    return Hop(f"Find the {attribute} of the track ?x, assign it to ?v.", ("?x <http://x/a> ?v .",), "?v", "s1")


@pytest.mark.parametrize(
    ("question", "attribute", "bound"),
    [
        ("Which tracks are longer than 80 minutes?", "milliseconds", "4800000"),
        ("Which time zones are more than 12 hours ahead of UTC?", "utc offset in seconds", "43200"),
        ("Which cars weigh more than 2 tonnes?", "weight in pounds", "4409.245244"),
        ("Which tracks are longer than 80 minutes?", "length", "80"),
        ("Which tracks are longer than 80 minutes?", "size in bytes", "80"),
        ("Which tracks have more than 80 plays?", "milliseconds", "80"),
    ],
)
def test_a_compared_number_is_read_in_the_attributes_unit(question: str, attribute: str, bound: str) -> None:
    cues = read_cues(question)
    assert cues.compare is not None
    candidate = compared(TRACKS, hop(attribute), *cues.compare, cues.compare_unit)
    assert f"FILTER(?v > {bound})" in candidate.patterns
    assert f"Make sure ?v is greater than {bound}." in candidate.steps
