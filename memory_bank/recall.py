"""Adaptive recall (MemQ eq. 4): one statement when the best match is sure, several when it is not.

For a plan sentence with scores ``s1 >= s2 >= ...`` against the bank: when ``s1 >= gamma1``
only the best statement is taken; otherwise every statement with ``s >= gamma2``, at most
``max_n`` of them. A score is the cosine similarity plus a small prior for statements many
source queries used, ``support_weight * ln(1 + min(support, support_cap))``: statements
that say the same fact through a predicate and its reverse have the same description,
and the prior ranks the one queries actually use first (measured on the WebQSP dev split:
recall@1 0.84 -> 0.93). The scored candidates beyond the selection are returned too, for
the compiler's repair loop. Defaults come from :mod:`nl2sparql.memory_bank.tune`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nl2sparql.memory_bank.statement import Entry

# Measured on the WebQSP dev split, see nl2sparql.memory_bank.tune.
DEFAULT_GAMMA1 = 0.75
DEFAULT_GAMMA2 = 0.55
DEFAULT_MAX_N = 5
DEFAULT_CANDIDATES = 10
DEFAULT_SUPPORT_WEIGHT = 0.02
DEFAULT_SUPPORT_CAP = 100


@dataclass(frozen=True, slots=True)
class RecallSettings:
    gamma1: float = DEFAULT_GAMMA1
    gamma2: float = DEFAULT_GAMMA2
    max_n: int = DEFAULT_MAX_N
    candidates: int = DEFAULT_CANDIDATES
    # Keep the best statement even when it is below gamma2 (the compiler then has something to try).
    at_least_one: bool = True
    support_weight: float = DEFAULT_SUPPORT_WEIGHT
    support_cap: int = DEFAULT_SUPPORT_CAP

    def prior(self, support: int) -> float:
        return self.support_weight * math.log1p(min(max(support, 0), self.support_cap))

    @property
    def search_k(self) -> int:
        """How many nearest neighbours to fetch before the prior re-ranks them."""
        return max(4 * max(self.candidates, self.max_n), 32)

    def __post_init__(self) -> None:
        if not (self.gamma2 <= self.gamma1):
            raise ValueError(f"gamma2 ({self.gamma2}) must not exceed gamma1 ({self.gamma1})")
        if self.max_n < 1 or self.candidates < 1:
            raise ValueError("max_n and candidates must be at least 1")


@dataclass(frozen=True, slots=True)
class Candidate:
    entry: Entry
    score: float  # similarity + support prior: what the thresholds compare
    rank: int
    similarity: float

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "score": round(self.score, 6),
            "similarity": round(self.similarity, 6),
            **self.entry.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Recall:
    """The statements picked for one sentence and the scored candidates behind them."""

    sentence: str
    selected: tuple[Candidate, ...]
    candidates: tuple[Candidate, ...]
    rule: str  # "top1" (s1 >= gamma1), "threshold" (s >= gamma2), "fallback" (best below gamma2), "empty"

    def to_json(self) -> dict[str, object]:
        return {
            "sentence": self.sentence,
            "rule": self.rule,
            "selected": [c.to_json() for c in self.selected],
            "candidates": [c.to_json() for c in self.candidates],
        }


def select(scores: Sequence[float], settings: RecallSettings) -> tuple[int, str]:
    """How many of the best-first ``scores`` to take, and by which rule."""
    if not len(scores):
        return 0, "empty"
    if scores[0] >= settings.gamma1:
        return 1, "top1"
    n = 0
    while n < min(settings.max_n, len(scores)) and scores[n] >= settings.gamma2:
        n += 1
    if n:
        return n, "threshold"
    return (1, "fallback") if settings.at_least_one else (0, "empty")


#: scores closer than this are the same score: a bank embeds in padded batches, so two
#: statements with the same description get vectors that differ in float32's last bits, and
#: a query's own last bits (torch or numpy) would otherwise decide which of them comes first
TIE = 1e-5


def by_score_then_row(scored: Iterable[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    """``(score, similarity, row)`` best first, with scores within :data:`TIE` of the best of
    their run ordered by row: the bank's row order (support first, curated domains before
    ``base.*``) breaks a tie, as it is meant to.

    >>> by_score_then_row([(0.70000002, 0.7, 9), (0.7, 0.7, 3), (0.9, 0.9, 5), (0.6, 0.6, 1)])
    [(0.9, 0.9, 5), (0.7, 0.7, 3), (0.70000002, 0.7, 9), (0.6, 0.6, 1)]
    """
    ordered = sorted(scored, key=lambda t: (-t[0], t[2]))
    out: list[tuple[float, float, int]] = []
    start = 0
    for end in range(1, len(ordered) + 1):
        if end == len(ordered) or ordered[start][0] - ordered[end][0] > TIE:
            out += sorted(ordered[start:end], key=lambda t: t[2])
            start = end
    return out


def make_recall(
    sentence: str,
    entries: Sequence[Entry],
    scores: Sequence[float],
    ids: Sequence[int],
    settings: RecallSettings,
) -> Recall:
    """Re-rank FAISS hits (``scores`` are similarities) with the support prior and select."""
    scored = by_score_then_row(
        (float(sim) + settings.prior(entries[int(i)].support), float(sim), int(i))
        for sim, i in zip(scores, ids, strict=True)
        if int(i) >= 0
    )
    candidates = tuple(Candidate(entries[i], score, rank, sim) for rank, (score, sim, i) in enumerate(scored, 1))
    n, rule = select([c.score for c in candidates], settings)
    return Recall(sentence, candidates[:n], candidates[: max(settings.candidates, n)], rule)
