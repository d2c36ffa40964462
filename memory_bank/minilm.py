"""all-MiniLM-L6-v2 sentence vectors in plain torch: a BERT encoder, mean pooling, unit length.

Why not sentence-transformers: importing it (and the transformers modelling code it
pulls in) costs more than a second of every fresh ``nl2sparql ask`` before a question is
read, for a model that is six standard BERT layers. This module reads the same
``model.safetensors`` and ``tokenizer.json`` with ``safetensors`` and ``tokenizers`` and
computes what sentence-transformers computes for this model (its ``modules.json``:
Transformer, mean Pooling, Normalize; ``max_seq_length`` 256): the vectors agree to
float32 rounding (tests/test_embedder.py compares them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn import functional

#: sentence-transformers' ``max_seq_length`` for all-MiniLM-L6-v2 (the tokenizer's file says 128)
MAX_TOKENS = 256


class _Layer(nn.Module):
    """One BERT encoder layer (post-LayerNorm), with the parameter names of ``BertLayer``."""

    def __init__(self, size: int, heads: int, inner: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(size, size), nn.Linear(size, size), nn.Linear(size, size)
        self.attention_out, self.attention_norm = nn.Linear(size, size), nn.LayerNorm(size, eps=eps)
        self.intermediate, self.out = nn.Linear(size, inner), nn.Linear(inner, size)
        self.out_norm = nn.LayerNorm(size, eps=eps)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length, size = hidden.shape

        def split(x: torch.Tensor) -> torch.Tensor:
            return x.view(batch, length, self.heads, size // self.heads).transpose(1, 2)

        q, k, v = split(self.query(hidden)), split(self.key(hidden)), split(self.value(hidden))
        context = functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        context = context.transpose(1, 2).reshape(batch, length, size)
        hidden = self.attention_norm(self.attention_out(context) + hidden)
        return self.out_norm(self.out(functional.gelu(self.intermediate(hidden))) + hidden)


class MiniLM(nn.Module):
    """The BERT encoder of a sentence-transformers folder and its mean-pooled unit vectors."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        size, eps = int(config["hidden_size"]), float(config.get("layer_norm_eps", 1e-12))
        self.words = nn.Embedding(int(config["vocab_size"]), size)
        self.positions = nn.Embedding(int(config["max_position_embeddings"]), size)
        self.token_types = nn.Embedding(int(config.get("type_vocab_size", 2)), size)
        self.norm = nn.LayerNorm(size, eps=eps)
        heads, inner = int(config["num_attention_heads"]), int(config["intermediate_size"])
        self.layers = nn.ModuleList(_Layer(size, heads, inner, eps) for _ in range(int(config["num_hidden_layers"])))

    def forward(self, ids: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device)
        hidden = self.norm(self.words(ids) + self.positions(positions) + self.token_types(torch.zeros_like(ids)))
        mask = torch.zeros(attention.shape, dtype=hidden.dtype, device=ids.device)
        mask = mask.masked_fill(attention == 0, -math.inf)[:, None, None, :]
        for layer in self.layers:
            hidden = layer(hidden, mask)
        weights = attention.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return functional.normalize(pooled, p=2, dim=1)


def _renamed(name: str) -> str | None:
    """The :class:`MiniLM` parameter a ``BertModel`` weight goes to (``None``: not used)."""
    parts = name.removeprefix("bert.").split(".")
    if parts[0] == "embeddings":
        table = {
            "word_embeddings": "words",
            "position_embeddings": "positions",
            "token_type_embeddings": "token_types",
            "LayerNorm": "norm",
        }
        return f"{table[parts[1]]}.{parts[2]}" if parts[1] in table else None
    if parts[0] != "encoder":
        return None
    layer, rest = parts[2], ".".join(parts[3:])
    table = {
        "attention.self.query": "query",
        "attention.self.key": "key",
        "attention.self.value": "value",
        "attention.output.dense": "attention_out",
        "attention.output.LayerNorm": "attention_norm",
        "intermediate.dense": "intermediate",
        "output.dense": "out",
        "output.LayerNorm": "out_norm",
    }
    module, _, kind = rest.rpartition(".")
    return f"layers.{layer}.{table[module]}.{kind}" if module in table else None


class SentenceEncoder:
    """Tokenizer and :class:`MiniLM` read from a sentence-transformers folder."""

    def __init__(self, folder: Path, device: str = "cpu") -> None:
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        missing = [n for n in ("config.json", "tokenizer.json", "model.safetensors") if not (folder / n).is_file()]
        if missing:
            raise FileNotFoundError(f"{', '.join(missing)} missing in {folder}")
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)), pad_token="[PAD]")
        weights = {_renamed(k): v for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.model = MiniLM(config)
        self.model.load_state_dict({k: v for k, v in weights.items() if k is not None}, strict=True)
        self.model.eval().to(device)
        self.device = device

    @torch.inference_mode()
    def encode(self, sentences: Sequence[str], batch_size: int, progress: bool = False) -> torch.Tensor:
        """Unit vectors, in order; batches are cut from sentences sorted by length (less padding)."""
        order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
        out = torch.empty((len(sentences), self.model.words.embedding_dim))
        starts: Iterable[int] = range(0, len(order), batch_size)
        if progress:
            from tqdm import tqdm

            starts = tqdm(starts, desc="embedding", unit="batch")
        for start in starts:
            chosen = order[start : start + batch_size]
            encoded = self.tokenizer.encode_batch([sentences[i] for i in chosen])
            ids = torch.tensor([e.ids for e in encoded], device=self.device)
            attention = torch.tensor([e.attention_mask for e in encoded], device=self.device)
            out[chosen] = self.model(ids, attention).float().cpu()
        return out
