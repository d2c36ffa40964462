"""Scorers: one number for each (question, candidate) pair, higher is likelier.

:class:`EmbeddingScorer` needs no training: the cosine of the question and the
candidate's reading (:mod:`.reading`) under the bank's sentence embedder, plus the pair's
features (:mod:`.features`) with fixed weights. It is the scorer before a trained
cross-encoder is shipped, and the baseline that one is measured against. It keeps the
agent's :class:`~nl2sparql.candidates.agent.Scorer` contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.cues import Cues
from nl2sparql.ranker.features import FEATURES, pair_features
from nl2sparql.ranker.reading import reading

#: the features' weights: a cued shape is worth about as much as a close reading; one the
#: question never asks for, or an operator the question asks for and the candidate lacks,
#: costs as much; using every named item, typing the answer with the class the question
#: names, answering a value when it asks *when* or *what year*, and fewer hops break near-ties;
#: answering with the very node the question names (*the album Let There Be Rock*) is as unlikely
#: as an operator it never asks for; ranking by a value the question names breaks ties too, and
#: answer nodes of none of the classes the question names cost as much as a named item unused;
#: using every content word of the question counts as much as using every named item, and
#: answering the class of a node when the question asks for no type costs as much; answering
#: the value a question asks for by its noun (*in which year*) breaks ties; saying what the
#: question negates under the absence, not as holding, counts as much as using every named item;
#: grouping by what the question names after *each* breaks ties; a number, a date or a class
#: answering *who* costs more than an operator missing; answering by the edge the question asks
#: for (*who won*: the winner) breaks ties, and so do nameless records answering
#: and a time of a kind the question never names compared or ranked by; ranking by the value
#: named right after the superlative breaks ties; going back to the things that share a node
#: with a named one where the question asks for nothing shared costs as much as who_not_someone's half
WEIGHTS: Mapping[str, float] = {
    "shape_asked": 0.25,
    "shape_unasked": -0.3,
    "operator_missing": -0.15,
    "coverage": 0.15,
    "extra_hops": -0.04,
    "answer_typed": 0.1,
    "value_answer": 0.1,
    "answers_named": -0.3,
    "function_match": 0.15,
    "counted_typed": 0.15,
    "attribute_named": 0.1,
    "answer_class": 0.15,
    "words_covered": 0.15,
    "answers_type": -0.15,
    "value_named": 0.1,
    "negated_scope": 0.15,
    "group_named": 0.1,
    "who_not_someone": -0.2,
    "answer_asked": 0.1,
    "nameless_answer": -0.1,
    "time_of_other": -0.1,
    "ranked_as_said": 0.1,
    "shared_unasked": -0.1,
}


@dataclass
class EmbeddingScorer:
    """Cosine of question and reading under ``embedder``, plus weighted features."""

    embedder: Any
    weights: Mapping[str, float] = field(default_factory=lambda: dict(WEIGHTS))
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        if len(self._cache) > 20_000:  # a long-running service: keep the cache bounded
            self._cache.clear()
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            for text, vector in zip(missing, self.embedder.encode(missing), strict=True):
                self._cache[text] = vector / (np.linalg.norm(vector) or 1.0)
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1))

    def cosines(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """The cosine of the question with each text under the embedder (vectors cached)."""
        vectors = self._vectors([question, *texts])
        return vectors[1:] @ vectors[0]

    def scores(self, question: str, candidates: Sequence[Candidate], cues: Cues, named: Sequence[str]) -> list[float]:
        if not candidates:
            return []
        similarity = self.cosines(question, [reading(c) or c.text for c in candidates])
        found = []
        for candidate, cosine in zip(candidates, similarity, strict=True):
            features = pair_features(candidate, cues, named)
            found.append(float(cosine) + sum(self.weights[k] * features[k] for k in FEATURES))
        return found
