"""BERT inference in numpy: the encoder under the embedder and the planner, the planner's decoder.

Why numpy and not torch: a fresh ``nl2sparql ask`` spent about 3.5 s importing torch and
transformers and building their model objects before it read the question, for inference
that is a dozen matrix products a layer on 384-wide vectors. numpy (loaded anyway, for
FAISS) runs them through the same BLAS, and ``safetensors`` hands the weights over as
numpy arrays. The layers follow transformers' ``BertModel`` and ``BertLMHeadModel`` (post
LayerNorm, exact GELU, absolute positions, the LM head tied to the word embeddings); the
tests compare their outputs with transformers'.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

Weights = Mapping[str, np.ndarray]

# Abramowitz and Stegun 7.1.26: erf within 1.5e-7, below float32's rounding of GELU's output.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise (numpy has none); in place on temporaries, since GELU
    applies it to every feed-forward activation.

    >>> [round(float(v), 6) for v in erf(np.array([-1.0, 0.0, 0.5, 2.0], dtype=np.float32))]
    [-0.842701, 0.0, 0.5205, 0.995322]
    """
    a = np.abs(x)
    t = a * _ERF_P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _ERF_A[4]
    for coefficient in reversed(_ERF_A[:4]):
        poly += coefficient
        poly *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


#: values GELU works on at once: a dozen passes over them stay in the cache (3x faster on a
#: feed-forward block of a 128-sentence batch than passes over the whole array)
_CHUNK = 1 << 15


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU as BERT's ``hidden_act`` "gelu": x * Phi(x), exactly (through erf), not the tanh form."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    for start in range(0, flat.size, _CHUNK):
        piece = flat[start : start + _CHUNK]
        result = erf(piece * np.float32(1 / math.sqrt(2)))
        result += 1.0
        result *= piece
        result *= 0.5
        out[start : start + _CHUNK] = result
    return out.reshape(x.shape)


def softmax(x: np.ndarray) -> np.ndarray:
    shifted = np.exp(x - x.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@dataclass(frozen=True, slots=True)
class Linear:
    """``x @ weight.T + bias`` with torch's (out, in) ``weight``, computed as ``(weight @ x.T).T``:
    OpenBLAS multiplies the few rows of a decoding step 2.5 to 7 times slower by a transposed
    view of the weight than by a contiguous (in, out) matrix, and about as fast as the latter
    the other way round, which needs no transposed copy made at start-up (0.2 s of it)."""

    weight: np.ndarray
    bias: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1])  # one matrix product, not one per row of a stack
        return ((self.weight @ flat.T).T + self.bias).reshape(*x.shape[:-1], -1)


@dataclass(frozen=True, slots=True)
class Norm:
    weight: np.ndarray
    bias: np.ndarray
    eps: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        variance = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / np.sqrt(variance + self.eps) * self.weight + self.bias


def _linear(weights: Weights, name: str) -> Linear:
    return Linear(weights[f"{name}.weight"], weights[f"{name}.bias"])


def _norm(weights: Weights, name: str, eps: float) -> Norm:
    return Norm(weights[f"{name}.weight"], weights[f"{name}.bias"], eps)


@dataclass(frozen=True, slots=True)
class Attention:
    """Multi-head attention with its output projection and residual LayerNorm (``BertAttention``)."""

    query: Linear
    key: Linear
    value: Linear
    out: Linear
    norm: Norm
    heads: int

    @classmethod
    def read(cls, weights: Weights, name: str, heads: int, eps: float) -> Attention:
        return cls(
            _linear(weights, f"{name}.self.query"),
            _linear(weights, f"{name}.self.key"),
            _linear(weights, f"{name}.self.value"),
            _linear(weights, f"{name}.output.dense"),
            _norm(weights, f"{name}.output.LayerNorm", eps),
            heads,
        )

    def split(self, x: np.ndarray) -> np.ndarray:
        """(batch, length, size) -> (batch, heads, length, size / heads)."""
        batch, length, size = x.shape
        return x.reshape(batch, length, self.heads, size // self.heads).transpose(0, 2, 1, 3)

    def keys_values(self, source: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.split(self.key(source)), self.split(self.value(source))

    def attend(
        self, hidden: np.ndarray, keys: np.ndarray, values: np.ndarray, bias: np.ndarray | None, group: int = 1
    ) -> np.ndarray:
        """``hidden`` attends to ``keys``/``values`` (split by head); ``bias`` is added to the scores
        (0 where a position may be seen, -inf where not). With ``group`` > 1, each ``group``
        consecutive rows of ``hidden`` (one position each: a question's beams) share one row
        of ``keys``/``values``, which are then read once for the group instead of once a row."""
        query = self.split(self.query(hidden))
        if group > 1:
            rows, heads, _, size = query.shape
            query = query[:, :, 0].reshape(rows // group, group, heads, size).transpose(0, 2, 1, 3)
        scores = query @ keys.transpose(0, 1, 3, 2) / np.float32(math.sqrt(query.shape[-1]))
        if bias is not None:
            scores = scores + bias
        # (batch, heads, length, size) or, grouped, (sources, heads, group, size): back to hidden's rows
        context = (softmax(scores) @ values).transpose(0, 2, 1, 3).reshape(hidden.shape)
        return self.norm(self.out(context) + hidden)


@dataclass(frozen=True, slots=True)
class Layer:
    """One BERT layer: self-attention, cross-attention in a decoder, the feed-forward block."""

    attention: Attention
    cross: Attention | None
    inner: Linear
    outer: Linear
    norm: Norm

    @classmethod
    def read(cls, weights: Weights, name: str, heads: int, eps: float) -> Layer:
        cross = f"{name}.crossattention.self.query.weight" in weights
        return cls(
            Attention.read(weights, f"{name}.attention", heads, eps),
            Attention.read(weights, f"{name}.crossattention", heads, eps) if cross else None,
            _linear(weights, f"{name}.intermediate.dense"),
            _linear(weights, f"{name}.output.dense"),
            _norm(weights, f"{name}.output.LayerNorm", eps),
        )

    def feed_forward(self, hidden: np.ndarray) -> np.ndarray:
        return self.norm(self.outer(gelu(self.inner(hidden))) + hidden)


@dataclass(frozen=True, slots=True)
class Embeddings:
    words: np.ndarray
    positions: np.ndarray
    token_types: np.ndarray
    norm: Norm

    @classmethod
    def read(cls, weights: Weights, name: str, eps: float) -> Embeddings:
        return cls(
            weights[f"{name}.word_embeddings.weight"],
            weights[f"{name}.position_embeddings.weight"],
            weights[f"{name}.token_type_embeddings.weight"],
            _norm(weights, f"{name}.LayerNorm", eps),
        )

    def __call__(self, ids: np.ndarray, start: int = 0, types: np.ndarray | None = None) -> np.ndarray:
        """``types``: each token's segment (a pair's second text is 1); all 0 when not given."""
        positions = self.positions[start : start + ids.shape[1]]
        segments = self.token_types[0] if types is None else self.token_types[types]
        return self.norm(self.words[ids] + positions[None] + segments)


def attention_bias(mask: np.ndarray) -> np.ndarray:
    """(batch, length) 1/0 mask -> (batch, 1, 1, length) scores to add: 0 or -inf."""
    return np.where(mask[:, None, None, :] > 0, np.float32(0), np.float32(-np.inf))


def _eps(config: Mapping[str, Any]) -> float:
    return float(config.get("layer_norm_eps", 1e-12))


@dataclass(frozen=True, slots=True)
class Encoder:
    """A BERT encoder (``BertModel`` without its pooler) read from weights under ``prefix``."""

    embeddings: Embeddings
    layers: tuple[Layer, ...]

    @classmethod
    def read(cls, weights: Weights, prefix: str, config: Mapping[str, Any]) -> Encoder:
        heads, eps, count = int(config["num_attention_heads"]), _eps(config), int(config["num_hidden_layers"])
        layers = tuple(Layer.read(weights, f"{prefix}encoder.layer.{i}", heads, eps) for i in range(count))
        return cls(Embeddings.read(weights, f"{prefix}embeddings", eps), layers)

    def __call__(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None = None) -> np.ndarray:
        """Hidden states (batch, length, size) of token ``ids`` with 1/0 attention ``mask``
        (``types``: the segments of a text pair)."""
        hidden = self.embeddings(ids, types=types)
        bias = attention_bias(mask)
        for layer in self.layers:
            hidden = layer.feed_forward(layer.attention.attend(hidden, *layer.attention.keys_values(hidden), bias))
        return hidden


@dataclass
class DecoderState:
    """What a decoder keeps between steps: each layer's keys and values of the tokens written so
    far (in arrays with room for more, so a step writes one position instead of copying them
    all) and of the encoder's output, and the encoder's mask as a score bias. ``group``
    consecutive rows share one row of the encoder's output (a question's beams)."""

    own: list[tuple[np.ndarray, np.ndarray]]
    source: list[tuple[np.ndarray, np.ndarray]]
    source_bias: np.ndarray
    length: int = 0
    group: int = 1

    def beams(self, width: int) -> DecoderState:
        """Each row's state ``width`` times over, as consecutive rows that share its encoder
        output: a beam search's start."""
        rows = np.repeat(np.arange(self.source_bias.shape[0]), width)
        own = [(k[rows], v[rows]) for k, v in self.own]
        return DecoderState(own, self.source, self.source_bias, self.length, width)

    def select(self, rows: np.ndarray, same_sources: bool = False, sources: np.ndarray | None = None) -> DecoderState:
        """The state of rows ``rows``. Beam search reorders the beams of each question among
        themselves (``same_sources``): every row keeps its encoder output, which is not copied,
        and the caches are reordered in place (this state is not to be used again); or, when
        some questions' searches are done, keeps the encoder outputs of ``sources`` only and
        ``rows``, which are those questions' beams."""
        if not same_sources and self.group > 1:
            raise ValueError("rows that share encoder output are selected among themselves only")
        if same_sources and sources is None:
            own = [(self._reordered(k, rows), self._reordered(v, rows)) for k, v in self.own]
            return DecoderState(own, self.source, self.source_bias, self.length, self.group)
        kept = rows if sources is None else sources
        source = [(k[kept], v[kept]) for k, v in self.source]
        own = [(k[rows], v[rows]) for k, v in self.own]  # with their room: the next step writes into it
        return DecoderState(own, source, self.source_bias[kept], self.length, self.group)

    def _reordered(self, cache: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """A key or value cache whose row ``i`` becomes row ``rows[i]``, in place: only the rows
        that change and only the positions written so far are copied (a copy of the whole cache,
        room included, was an eighth of a beam search's time).

        >>> cache = np.arange(6, dtype=np.float32).reshape(3, 1, 2, 1)
        >>> state = DecoderState([], [], np.zeros((3, 1, 1, 1)), length=1)
        >>> state._reordered(cache, np.array([0, 0, 1]))[:, 0, :, 0].tolist()
        [[0.0, 1.0], [0.0, 3.0], [2.0, 5.0]]
        """
        changed = np.flatnonzero(rows != np.arange(len(rows)))
        cache[changed, :, : self.length] = cache[rows[changed], :, : self.length]
        return cache

    def keep(self, index: int, keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Layer ``index``'s keys and values with those of the new position (batch, heads, 1,
        size) written after the others; room doubles when it runs out."""
        own_keys, own_values = self.own[index]
        if own_keys.shape[2] <= self.length:
            room = max(16, 2 * self.length)
            grown = [np.zeros((*keys.shape[:2], room, keys.shape[3]), dtype=keys.dtype) for _ in range(2)]
            grown[0][:, :, : self.length], grown[1][:, :, : self.length] = own_keys, own_values
            own_keys, own_values = grown
            self.own[index] = (own_keys, own_values)
        own_keys[:, :, self.length], own_values[:, :, self.length] = keys[:, :, 0], values[:, :, 0]
        return own_keys[:, :, : self.length + 1], own_values[:, :, : self.length + 1]


@dataclass(frozen=True, slots=True)
class Decoder:
    """A BERT decoder with cross-attention and its LM head (``BertLMHeadModel``), one token a step."""

    embeddings: Embeddings
    layers: tuple[Layer, ...]
    transform: Linear
    transform_norm: Norm
    output_bias: np.ndarray

    @classmethod
    def read(cls, weights: Weights, prefix: str, config: Mapping[str, Any]) -> Decoder:
        encoder = Encoder.read(weights, f"{prefix}bert.", config)
        if any(layer.cross is None for layer in encoder.layers):
            raise ValueError(f"the decoder under {prefix!r} has no cross-attention")
        return cls(
            encoder.embeddings,
            encoder.layers,
            _linear(weights, f"{prefix}cls.predictions.transform.dense"),
            _norm(weights, f"{prefix}cls.predictions.transform.LayerNorm", _eps(config)),
            weights[f"{prefix}cls.predictions.bias"],
        )

    def start(self, source: np.ndarray, mask: np.ndarray) -> DecoderState:
        """The state before the first token, for encoder output ``source`` with ``mask``."""
        cross = [layer.cross.keys_values(source) for layer in self.layers if layer.cross is not None]
        empty = np.zeros((source.shape[0], self.layers[0].attention.heads, 0, 1), dtype=source.dtype)
        return DecoderState([(empty, empty) for _ in self.layers], cross, attention_bias(mask))

    def step(
        self, state: DecoderState, tokens: np.ndarray, shortlist: Shortlist | None = None, compact: bool = False
    ) -> np.ndarray:
        """Logits (batch, vocabulary) of the token after ``tokens`` (batch,); ``state`` moves on.
        With a ``shortlist``, only its tokens are computed; the others are ``-inf``, or left
        out with ``compact`` (columns in :meth:`Shortlist.compact`'s order)."""
        hidden = self.embeddings(tokens[:, None], start=state.length)
        for index, layer in enumerate(self.layers):
            keys, values = state.keep(index, *layer.attention.keys_values(hidden))
            hidden = layer.attention.attend(hidden, keys, values, None)
            assert layer.cross is not None
            hidden = layer.cross.attend(hidden, *state.source[index], state.source_bias, state.group)
            hidden = layer.feed_forward(hidden)
        state.length += 1
        head = self.transform_norm(gelu(self.transform(hidden[:, 0])))
        if shortlist is not None:
            return shortlist.compact(head) if compact else shortlist(head)
        return head @ self.embeddings.words.T + self.output_bias

    def shortlist(self, ids: np.ndarray) -> Shortlist:
        """The LM head for tokens ``ids`` (sorted, distinct) only."""
        kernel = np.ascontiguousarray(self.embeddings.words[ids].T)  # (size, tokens): see Linear
        return Shortlist((ids,), (kernel,), (self.output_bias[ids],), self.embeddings.words.shape[0])


@dataclass(frozen=True, slots=True)
class Shortlist:
    """An LM head over some tokens only: each part's columns of the word embeddings, laid out
    contiguously, and its biases; every other token's logit is ``-inf``.

    >>> head = Shortlist((np.array([1]), np.array([3])), (np.ones((2, 1), np.float32),
    ...     np.full((2, 1), 2, np.float32)), (np.zeros(1, np.float32), np.ones(1, np.float32)), 4)
    >>> head(np.array([[1.0, 1.0]], dtype=np.float32)).tolist()
    [[-inf, 2.0, -inf, 5.0]]
    """

    ids: tuple[np.ndarray, ...]
    kernels: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    vocabulary: int

    def plus(self, other: Shortlist) -> Shortlist:
        """Both heads' tokens (which must not overlap)."""
        ids, kernels, biases = self.ids + other.ids, self.kernels + other.kernels, self.biases + other.biases
        return Shortlist(ids, kernels, biases, self.vocabulary)

    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        """Its tokens in id order, and the order that puts :meth:`compact`'s columns in it.

        >>> Shortlist((np.array([5, 7]), np.array([2])), (), (), 9).columns()[0].tolist()
        [2, 5, 7]
        """
        ids = np.concatenate(self.ids)
        order = np.argsort(ids, kind="stable")
        return ids[order], order

    def compact(self, head: np.ndarray) -> np.ndarray:
        """Its tokens' logits only, part after part: a beam search ranks these rather than a
        whole vocabulary of ``-inf`` (four times the columns for the default planner)."""
        return np.concatenate([head @ k + b for k, b in zip(self.kernels, self.biases, strict=True)], axis=1)

    def __call__(self, head: np.ndarray) -> np.ndarray:
        logits = np.full((head.shape[0], self.vocabulary), -np.inf, dtype=np.float32)
        for ids, kernel, bias in zip(self.ids, self.kernels, self.biases, strict=True):
            if len(ids):
                logits[:, ids] = head @ kernel + bias
        return logits
