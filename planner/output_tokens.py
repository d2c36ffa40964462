"""The tokens a planner was trained to write, recorded in its ``planner.json``.

A plan is written in a small language: the shipped planner's training plans use 6,399 of
its tokenizer's 30,522 tokens, and what else a plan holds it copies from its input (names,
numbers, relation hints). The numpy runtime computes the LM head, a decoding step's largest
product, for those tokens only (:class:`~nl2sparql.memory_bank.bert_numpy.Shortlist`): the
recorded ones, the input's, and every number token. A planner without the record decodes
over the whole vocabulary, as before.

    >>> tokens = {"plan": 1, "find": 2, "the": 3, "of": 4}
    >>> class Words:
    ...     def encode(self, text, add_special_tokens=True):
    ...         return [tokens[w] for w in text.split()]
    >>> sorted(target_tokens(Words(), ["find the plan", "the plan of"]))
    [1, 2, 3, 4]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nl2sparql.planner.target_text import Codec, encode_target

#: ``planner.json``'s key: the sorted ids of every token of the training plans, space-separated
#: (one line, where a JSON list would take one line an id)
KEY = "output_tokens"
_NUMBER = re.compile(r"(##)?\d+")


def target_tokens(tokenizer: Any, plans: Iterable[str], codec: Codec = "plain") -> set[int]:
    """The ids of the tokens ``plans`` are written with as training targets in ``codec`` (no
    special tokens)."""
    found: set[int] = set()
    for plan in plans:
        found.update(tokenizer.encode(encode_target(plan, codec), add_special_tokens=False))
    return found


def recorded(meta: Mapping[str, Any]) -> set[int]:
    """The tokens ``meta`` records (none for a planner trained before the record existed)."""
    return {int(i) for i in str(meta.get(KEY) or "").split()}


def record(meta: dict[str, Any], tokens: Iterable[int]) -> None:
    """Record ``tokens`` in ``meta``, with those it records already (a run that continues
    another writes what both were trained on)."""
    meta[KEY] = " ".join(map(str, sorted(recorded(meta) | set(tokens))))


def record_pairs(folder: Path, pairs_files: Sequence[Path]) -> int:
    """``planner output-tokens``: record in ``folder``'s ``planner.json`` the tokens of the plans
    of ``pairs_files`` (for a planner trained before ``planner train`` recorded them); return
    how many tokens it records. The file is replaced whole."""
    from nl2sparql.kg.atomic import atomic_output
    from nl2sparql.planner.model import META_FILE, PlannerModel, read_meta
    from nl2sparql.planner.pairs import read_pairs

    meta = read_meta(folder)
    pairs = [pair for path in pairs_files for pair in read_pairs(path)]
    tokenizer = PlannerModel.load(folder).tokenizer
    record(meta, target_tokens(tokenizer, (pair.output for pair in pairs), meta["codec"]))
    with atomic_output(folder / META_FILE) as sink:
        sink.write((json.dumps(meta, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return len(recorded(meta))


def static_shortlist(
    meta: Mapping[str, Any], vocabulary: Mapping[str, int], special: Iterable[int]
) -> np.ndarray | None:
    """The tokens a plan may hold whatever its input: the recorded ones, number tokens (a plan
    may write a year its question implies) and ``special``; ``None`` without a record."""
    tokens = recorded(meta)
    if not tokens:
        return None
    tokens |= {i for word, i in vocabulary.items() if _NUMBER.fullmatch(word)}
    tokens |= set(special)
    size = max(vocabulary.values()) + 1
    return np.array(sorted(i for i in tokens if 0 <= i < size), dtype=np.int64)
