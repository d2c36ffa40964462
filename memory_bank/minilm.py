"""all-MiniLM-L6-v2 sentence vectors in numpy: a BERT encoder, mean pooling, unit length.

Why not sentence-transformers, nor torch: importing them (and the transformers modelling
code they pull in) costs seconds of every fresh ``nl2sparql ask`` before a question is
read, for a model that is six standard BERT layers. This module reads the same
``model.safetensors`` and ``tokenizer.json`` with ``safetensors`` and ``tokenizers`` and
computes what sentence-transformers computes for this model (its ``modules.json``:
Transformer, mean Pooling, Normalize; ``max_seq_length`` 256) with the layers of
:mod:`~nl2sparql.memory_bank.bert_numpy`: the vectors agree to float32 rounding
(tests/test_embedder.py compares them with transformers').
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nl2sparql.memory_bank.bert_numpy import Encoder

#: sentence-transformers' ``max_seq_length`` for all-MiniLM-L6-v2 (the tokenizer's file says 128)
MAX_TOKENS = 256


def mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Unit-length means of ``hidden`` (batch, length, size) over the positions ``mask`` keeps."""
    weights = mask[..., None].astype(hidden.dtype)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def read_bert(folder: Path, max_tokens: int) -> tuple[dict[str, Any], dict[str, np.ndarray], Any]:
    """A BERT folder's config, weights (without the ``bert.`` prefix) and tokenizer (cutting
    at ``max_tokens``, padding with the config's pad id): what the sentence encoder and the
    trained ranker both read from the embedder's package."""
    from safetensors.numpy import load_file

    missing = [n for n in ("config.json", "tokenizer.json", "model.safetensors") if not (folder / n).is_file()]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)} missing in {folder}")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    stored = load_file(str(folder / "model.safetensors"))
    weights = {name.removeprefix("bert."): array for name, array in stored.items()}
    return config, weights, bert_tokenizer(folder, config, max_tokens)


def bert_tokenizer(folder: Path, config: dict[str, Any], max_tokens: int) -> Any:
    """The folder's tokenizer, cutting at ``max_tokens`` and padding with the config's pad id."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)), pad_token="[PAD]")
    return tokenizer


class SentenceEncoder:
    """Tokenizer and BERT encoder read from a sentence-transformers folder."""

    def __init__(self, folder: Path) -> None:
        config, weights, self.tokenizer = read_bert(folder, MAX_TOKENS)
        self.encoder = Encoder.read(weights, "", config)
        self.dimension = int(config["hidden_size"])

    def encode(self, sentences: Sequence[str], batch_size: int, progress: bool = False) -> np.ndarray:
        """Unit vectors, in order; batches are cut from sentences sorted by length (less padding)."""
        order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
        out = np.empty((len(sentences), self.dimension), dtype=np.float32)
        starts: Iterable[int] = range(0, len(order), batch_size)
        if progress:
            from tqdm import tqdm

            starts = tqdm(starts, desc="embedding", unit="batch")
        for start in starts:
            chosen = order[start : start + batch_size]
            encoded = self.tokenizer.encode_batch([sentences[i] for i in chosen])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            out[chosen] = mean_pooled(self.encoder(ids, mask), mask)
        return out
