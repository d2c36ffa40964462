"""What a candidate's shape and anchors say, beside its words: cheap features of a pair.

A question that asks *how many* wants a count, one that asks nothing of the kind wants
none; a candidate that uses every item the question names is more likely than one that
leaves one out (Pangu's agent prefers plans that use every grounded item). These are
facts about the pair, not about any one dataset.

>>> from nl2sparql.candidates.candidate import Candidate
>>> from nl2sparql.candidates.cues import read_cues
>>> c = Candidate("count", ("Count ?x, assign it to ?n.",), (), anchors=("Queen",))
>>> features = pair_features(c, read_cues("How many albums did Queen record?"), ("Queen",))
>>> {name: value for name, value in features.items() if value}
{'shape_asked': 1.0, 'coverage': 1.0}
"""

from __future__ import annotations

from collections.abc import Sequence

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.cues import Cues

FEATURES: tuple[str, ...] = (
    "shape_asked", "shape_unasked", "operator_missing", "coverage", "extra_hops", "answer_typed", "value_answer",
)  # fmt: skip


def asked_shapes(cues: Cues) -> set[str]:
    """The shapes the cues open."""
    opened = {
        "count": cues.count,
        "yes-no": cues.yes_no,
        "rank": cues.ranking,
        "compare": cues.compare is not None,
        "aggregate": bool(cues.aggregates),
        "group": cues.per_group,
        "negation": cues.negation,
        "columns": cues.columns,
        "contains": cues.contains is not None,
    }
    return {shape for shape, on in opened.items() if on}


def pair_features(candidate: Candidate, cues: Cues, named: Sequence[str]) -> dict[str, float]:
    """The features of (question, ``candidate``); ``named``: the items the question was grounded in."""
    asked = asked_shapes(cues)
    operator = candidate.shape not in ("lookup", "generated")
    used = set(candidate.anchors)
    strong = [name for name in named if name]
    return {
        "shape_asked": float(candidate.shape in asked),
        "shape_unasked": float(operator and candidate.shape not in asked),
        "operator_missing": float(not operator and bool(asked - {"columns", "negation"})),
        "coverage": sum(name in used for name in strong) / len(strong) if strong else 0.0,
        "extra_hops": float(max(candidate.hops - 1, 0)),
        "answer_typed": float(not cues.value and any(_types_answer(step) for step in candidate.steps)),
        "value_answer": float(cues.value and candidate.answer_kind == "literal"),
    }


def _types_answer(step: str) -> bool:
    """Whether a step says what class the answer is (a class the question named, *which country*)."""
    return " whose type is " in step and step.endswith("assign it to ?x.")
