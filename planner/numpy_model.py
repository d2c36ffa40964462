"""The default planner's encoder-decoder run in numpy: what ``ask`` plans with on a CPU.

A LoRA planner on ``minilm-ed`` is, once merged, a BERT encoder and a BERT decoder with
cross-attention. :class:`NumpyPlanner` reads the merged weights that
:mod:`~nl2sparql.planner.merged_cache` keeps and decodes them with
:mod:`~nl2sparql.memory_bank.bert_numpy`, so planning imports neither torch nor transformers
(about 3.5 s of a fresh ``nl2sparql ask``). It decodes as transformers' ``generate`` does
(greedy with the grammar's logits processor, beam search with its length-normalised
finished hypotheses and early-stop test, seeded top-p sampling) and exposes what the
decoding loop and the local backend read of a :class:`~nl2sparql.planner.model.PlannerModel`.
One difference on purpose: where the planner records the tokens of its training plans, the
LM head is computed for those, number tokens and the input's only
(:mod:`~nl2sparql.planner.output_tokens`).
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nl2sparql.memory_bank.bert_numpy import Decoder, DecoderState, Encoder, Shortlist, log_softmax, softmax
from nl2sparql.planner import merged_cache
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.output_tokens import static_shortlist
from nl2sparql.planner.target_text import Codec, decode_output

#: greedy decodes whose encoder output is kept for the beam search that may follow: a question
#: whose plan answers nothing is decoded again for alternatives from the same input, and its
#: encoding (about 80 ms of a 250-token input, more than a batched greedy decode of it) need
#: not be paid twice
ENCODINGS_KEPT = 64

#: ``NL2SPARQL_PLANNER_RUNTIME``: ``auto`` (numpy when it can), ``numpy`` (always, once the
#: merged weights are built) or ``torch`` (never numpy)
RUNTIMES = ("auto", "numpy", "torch")


def runtime_choice() -> str:
    """The planner runtime the environment asks for."""
    choice = os.environ.get("NL2SPARQL_PLANNER_RUNTIME", "auto").strip().lower() or "auto"
    if choice not in RUNTIMES:
        raise PlannerModelError(f"NL2SPARQL_PLANNER_RUNTIME is {choice!r}; use one of {', '.join(RUNTIMES)}")
    return choice


def open_numpy(folder: Path, meta: dict[str, Any]) -> NumpyPlanner | None:
    """The planner in ``folder`` on the numpy runtime, or ``None`` where it cannot run there:
    not a BERT encoder-decoder, or a LoRA planner whose merged weights are not built yet (the
    torch loader builds them, once)."""
    if meta.get("architecture") != "seq2seq":
        return None
    weights = folder
    if meta.get("method") == "lora":
        cached = merged_cache.cache_folder(folder) if merged_cache.enabled() else None
        if cached is None or not (cached / merged_cache.DONE_FILE).is_file():
            return None
        weights = cached
    try:
        config = json.loads((weights / "config.json").read_text(encoding="utf-8"))
        if {config["encoder"]["model_type"], config["decoder"]["model_type"]} != {"bert"}:
            return None
        return NumpyPlanner(weights, meta)
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or another layout: torch loads it
        return None


class WordPieceTokenizer:
    """The merged planner's ``tokenizer.json`` through ``tokenizers``, with the few methods of a
    transformers tokenizer that decoding uses."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_truncation()  # the file keeps MiniLM's 128; the planner's bound is its own
        self._tokenizer.no_padding()
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        ids = {name: self._tokenizer.token_to_id(str(config[name])) for name in config if name.endswith("_token")}
        self.pad_token_id, self.sep_token_id = ids.get("pad_token"), ids.get("sep_token")
        self.eos_token_id = None  # a BERT vocabulary ends a sequence with [SEP]
        self.all_special_ids = sorted({i for i in ids.values() if i is not None})
        self.added_tokens_decoder: dict[int, Any] = {}

    def encode(
        self, text: str, add_special_tokens: bool = True, truncation: bool = False, max_length: int | None = None
    ) -> list[int]:
        ids = self._tokenizer.encode(text, add_special_tokens=add_special_tokens).ids
        if truncation and max_length is not None and len(ids) > max_length:
            ids = ids[: max_length - 1] + ids[-1:] if add_special_tokens else ids[:max_length]
        return list(ids)

    def vocabulary(self) -> dict[str, int]:
        return dict(self._tokenizer.get_vocab())

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        return str(self._tokenizer.decode(list(ids), skip_special_tokens=skip_special_tokens))

    def batch_decode(self, rows: Sequence[Sequence[int]], skip_special_tokens: bool = False) -> list[str]:
        return [self.decode(row, skip_special_tokens) for row in rows]


@dataclass
class _Beams:
    """One question's beam search, as transformers runs it (``_beam_search``, early_stopping False)."""

    width: int
    running: list[list[int]]
    scores: np.ndarray
    finished: list[tuple[float, list[int]]] = field(default_factory=list)
    improvable: bool = True
    #: the columns it must not write: tokens that only another question of the batch holds
    blocked: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))


class NumpyPlanner:
    """A merged seq2seq planner (a :mod:`merged_cache` folder) decoded in numpy."""

    architecture = "seq2seq"
    device = "cpu (numpy)"

    def __init__(self, folder: Path, meta: dict[str, Any]) -> None:
        from safetensors.numpy import load_file
        from threadpoolctl import threadpool_limits

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        weights = load_file(str(folder / "model.safetensors"))
        self.encoder = Encoder.read(weights, "encoder.", config["encoder"])
        self.decoder = Decoder.read(weights, "decoder.", config["decoder"])
        self.parameters = sum(int(w.size) for w in weights.values())
        self.tokenizer = WordPieceTokenizer(folder)
        self.start_id = int(config["decoder_start_token_id"])
        self.eos_id = int(config["eos_token_id"])
        self.pad_id = int(config.get("pad_token_id") or 0)
        self.meta = dict(meta)
        self.codec: Codec = self.meta["codec"]
        self.max_source_tokens = int(self.meta.get("max_source_tokens", 256))
        specials = {self.eos_id, self.pad_id, self.start_id}
        ids = static_shortlist(self.meta, self.tokenizer.vocabulary(), specials)
        self.shortlist = None if ids is None else self.decoder.shortlist(ids)
        self._kept: OrderedDict[tuple[int, ...], np.ndarray] = OrderedDict()
        self._kept_lock = threading.Lock()
        # One BLAS thread in this process: a decode's products are a few rows wide, so a second
        # thread gains a fifth on an idle machine, and when decodes run side by side (the
        # service's two slots, two processes) OpenBLAS threads spin against each other: in two
        # evals run at once on the 2-core machine a question took 7 to 8 s instead of about 1.
        threadpool_limits(limits=1, user_api="blas")

    @property
    def eos_ids(self) -> list[int]:
        return [self.eos_id]

    def parameter_count(self) -> int:
        return self.parameters

    def generate(
        self,
        inputs: Sequence[str],
        names: Sequence[Sequence[str]] | None = None,
        *,
        num_beams: int = 1,
        num_return_sequences: int = 1,
        do_sample: bool = False,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_new_tokens: int = 192,
        min_new_tokens: int = 0,
        seed: int | None = None,
        constrained: bool = False,
    ) -> list[list[str]]:
        """For each input, ``num_return_sequences`` plan texts, as
        :meth:`~nl2sparql.planner.model.PlannerModel.generate` gives them."""
        if not inputs:
            return []
        names = names or [() for _ in inputs]
        sources = [
            self.tokenizer.encode(text, add_special_tokens=True, truncation=True, max_length=self.max_source_tokens)
            for text in inputs
        ]
        beams = num_beams > 1 and not do_sample
        hidden, mask = self._encoded(sources, reuse=beams)
        state = self.decoder.start(hidden, mask)
        head, others = self._head(sources)
        if beams:
            rows = self._beam_search(state, head, len(inputs), num_beams, num_return_sequences, max_new_tokens, others)
        else:
            processor = None
            if constrained and not do_sample:
                from nl2sparql.planner.constrained import GrammarLogitsProcessor

                processor = GrammarLogitsProcessor(
                    self.tokenizer, self.codec, names, 0, max_new_tokens, eos=self.eos_ids
                )
            sampler = _Sampler(temperature, top_p, seed) if do_sample else None
            written = self._greedy(state, head, max_new_tokens, min_new_tokens, processor, sampler, others)
            rows = [[row] for row in written]
        return [
            [decode_output(self.tokenizer.decode(row, skip_special_tokens=True), self.codec, names[i]) for row in found]
            for i, found in enumerate(rows)
        ]

    def _head(self, sources: Sequence[Sequence[int]]) -> tuple[Shortlist | None, list[np.ndarray] | None]:
        """The LM head for a batch: the planner's shortlist and the tokens of its inputs,
        which a plan may copy; ``None`` (every token) for a planner without a shortlist.
        And for each input, the tokens that head holds only because other inputs hold them
        (``None`` when there are none): an input may copy its own words, not its
        neighbours', so that a question's plan does not depend on the questions decoded with it."""
        if self.shortlist is None:
            return None, None
        (known,) = self.shortlist.ids
        copied = np.setdiff1d(np.fromiter((t for s in sources for t in s), dtype=np.int64), known)
        others = None if len(sources) < 2 else [np.setdiff1d(copied, np.asarray(s, dtype=np.int64)) for s in sources]
        return self.shortlist.plus(self.decoder.shortlist(copied)), others

    def _encoded(self, sources: Sequence[Sequence[int]], reuse: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The encoder's output for each input, padded to the longest, and the 1/0 mask.

        Each input is encoded alone at its own length: a batch padded to its longest spends the
        padding's share of every product and a square share of attention on nothing (16 dev
        questions, 160 to 320 tokens: 2.7 s as one batch, 1.2 s one by one). The padding stays
        zeros; the mask keeps the decoder from reading it.

        A greedy decode keeps what it encodes (the last :data:`ENCODINGS_KEPT`); a beam search
        (``reuse``) takes it back, once: the alternatives of the same question. A question
        asked again is encoded again, so repeated questions do not flatter a benchmark."""
        width = max(map(len, sources))
        mask = np.array([[1] * len(s) + [0] * (width - len(s)) for s in sources], dtype=np.int64)
        hidden = np.zeros((len(sources), width, self.decoder.embeddings.words.shape[1]), dtype=np.float32)
        for row, source in enumerate(sources):
            key = tuple(source)
            with self._kept_lock:
                kept = self._kept.pop(key, None) if reuse else None
            if kept is None:
                ids = np.array([source], dtype=np.int64)
                kept = self.encoder(ids, np.ones_like(ids))[0]
            hidden[row, : len(source)] = kept
            if not reuse:
                with self._kept_lock:
                    self._kept[key] = kept
                    while len(self._kept) > ENCODINGS_KEPT:
                        self._kept.popitem(last=False)
        return hidden, mask

    def _greedy(
        self,
        state: DecoderState,
        head: Shortlist | None,
        max_new: int,
        min_new: int,
        processor: Any,
        sampler: _Sampler | None,
        others: Sequence[np.ndarray] | None = None,
    ) -> list[list[int]]:
        """Greedy (or sampled) decoding of a batch; a row that has ended is padded, as
        transformers pads it, but no longer computed. ``others[i]``: tokens row ``i`` must not
        write (:meth:`_head`)."""
        batch = state.source_bias.shape[0]
        blocked = _cells(others)
        written = np.full((batch, 1), self.start_id, dtype=np.int64)
        active = np.arange(batch)
        for step in range(max_new):
            logits = self.decoder.step(state, written[active, -1], head)
            scores = np.full((batch, logits.shape[-1]), -np.inf, dtype=logits.dtype)
            scores[active] = logits
            scores[blocked] = -np.inf
            if step < min_new:
                scores[:, self.eos_id] = -np.inf
            if processor is not None:
                scores = processor(written, scores)
            chosen = np.full(batch, self.pad_id, dtype=np.int64)
            chosen[active] = sampler.pick(scores[active]) if sampler else scores[active].argmax(axis=-1)
            written = np.concatenate((written, chosen[:, None]), axis=1)
            going = chosen[active] != self.eos_id
            if not going.any():
                break
            if not going.all():
                active, state = active[going], state.select(np.flatnonzero(going))
        return [list(row) for row in written.tolist()]

    def _beam_search(
        self,
        state: DecoderState,
        head: Shortlist | None,
        batch: int,
        width: int,
        returned: int,
        max_new: int,
        others: Sequence[np.ndarray] | None = None,
    ) -> list[list[list[int]]]:
        state = state.beams(width)
        scores = np.full(width, -1e9, dtype=np.float32)
        scores[0] = 0.0
        searches = [_Beams(width, [[self.start_id] for _ in range(width)], scores.copy()) for _ in range(batch)]
        tokens, order = head.columns() if head is not None else (None, None)
        if others is not None and tokens is not None:
            for search, tokens_of_others in zip(searches, others, strict=True):
                search.blocked = np.searchsorted(tokens, tokens_of_others)
        live = searches  # those still improvable, in the state's order: a finished one's rows leave
        for step in range(max_new):
            last = np.array([beam[-1] for search in live for beam in search.running], dtype=np.int64)
            logits = self.decoder.step(state, last, head, compact=True)
            logits = logits if order is None else logits[:, order]
            for i, search in enumerate(live):
                logits[i * width : (i + 1) * width, search.blocked] = -np.inf
            log_probs = log_softmax(logits).reshape(len(live), width, -1)
            at_limit = step + 1 >= max_new
            origins = [self._advance(search, log_probs[i], step + 1, at_limit, tokens) for i, search in enumerate(live)]
            going = [i for i, search in enumerate(live) if search.improvable]
            if not going:
                break
            rows = np.concatenate([origins[i] + i * width for i in going])
            kept = None if len(going) == len(live) else np.array(going)
            state = state.select(rows, same_sources=True, sources=kept)
            live = [live[i] for i in going]
        return [[tokens for _, tokens in sorted(s.finished, key=lambda f: -f[0])[:returned]] for s in searches]

    def _advance(
        self, search: _Beams, log_probs: np.ndarray, length: int, at_limit: bool, columns: np.ndarray | None
    ) -> np.ndarray:
        """One step of one question's beams: the best ``2 * width`` continuations, those that end
        (end of sequence, or the length limit) among the first ``width`` join the finished ones,
        the best ``width`` that go on run next. Returns the beams each running one came from.
        ``columns``: the token of each column of ``log_probs`` (a shortlist's), else all in order."""
        vocabulary = log_probs.shape[-1]
        total = (log_probs + search.scores[:, None]).reshape(-1)
        top = np.argpartition(-total, 2 * search.width)[: 2 * search.width]
        top = top[np.argsort(-total[top], kind="stable")]
        origins, tokens = top // vocabulary, top % vocabulary
        tokens = tokens if columns is None else columns[tokens]
        ends = (tokens == self.eos_id) | at_limit
        if search.improvable:
            for rank in np.flatnonzero(ends[: search.width]):
                sequence = search.running[origins[rank]] + [int(tokens[rank])]
                search.finished.append((float(total[top[rank]]) / length, sequence))
            search.finished = sorted(search.finished, key=lambda f: -f[0])[: search.width]
        # the best that go on; if fewer than ``width`` do, ended ones fill the places, scored out
        keep = np.concatenate((np.flatnonzero(~ends), np.flatnonzero(ends)))[: search.width]
        search.running = [search.running[origins[k]] + [int(tokens[k])] for k in keep]
        search.scores = np.where(ends[keep], np.float32(-1e9), total[top[keep]]).astype(np.float32)
        if len(search.finished) == search.width and search.improvable:
            worst = min(score for score, _ in search.finished)
            search.improvable = bool(search.scores[0] / length > worst)
        return np.asarray(origins[keep], dtype=np.int64)


def _cells(others: Sequence[np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """The (row, token) cells that ``others`` blocks, as an index into a batch's scores.

    >>> [a.tolist() for a in _cells([np.array([4]), np.array([2, 3])])]
    [[0, 1, 1], [4, 2, 3]]
    """
    if not others:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    rows = np.repeat(np.arange(len(others)), [len(o) for o in others])
    return rows, np.concatenate(others).astype(np.int64)


class _Sampler:
    """Temperature, then top-p, then a draw, as transformers samples; seeded, so a question gets
    the same sample on every run."""

    def __init__(self, temperature: float, top_p: float, seed: int | None) -> None:
        self.temperature, self.top_p = temperature, top_p
        self.random = np.random.default_rng(seed)

    def pick(self, scores: np.ndarray) -> np.ndarray:
        probabilities = softmax(scores / np.float32(self.temperature))
        chosen = np.empty(len(scores), dtype=np.int64)
        for row, p in enumerate(probabilities):
            order = np.argsort(-p, kind="stable")
            cumulative = np.cumsum(p[order])
            kept = order[: int(np.searchsorted(cumulative, self.top_p)) + 1]
            chosen[row] = self.random.choice(kept, p=p[kept] / p[kept].sum())
        return chosen
