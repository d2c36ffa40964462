"""Relation hints: the graph's own relation phrases, recalled for the question, in the planner's input.

Why: a planner trained on Freebase's plans writes Freebase's words on any graph ("the
place of birth of the person" where the graph says "the born in of the musician"), and
recall then has to guess what was meant. Shown the phrases of the graph's memory bank that
are nearest to the question (as sparql-llm shows a model the endpoint's schema), it can
copy one instead: a plan sentence is a bank description with its entities filled in, so
the phrase it needs is exactly a hint (:func:`~nl2sparql.memory_bank.bank.embedding_text`,
``the sibling of the person``).

At run time the hints are the ``k`` distinct phrases of the bank's statements nearest to
the question with its entity names masked. In training data they are the same, from the
bank the pair's plan is written for, with the phrases of the gold plan put in where recall
missed them (most of the time, not always: the planner must also write a plan when the
hint it needs is absent), so that it learns to choose among candidates, distractors
included.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nl2sparql.memory_bank.bank import embedding_text
from nl2sparql.memory_bank.recall import Recall, RecallSettings, make_recall
from nl2sparql.planner.errors import PlannerDataError
from nl2sparql.planner.exemplars import mask_names
from nl2sparql.planner.input_format import RELATIONS_MARKER, names_from_input, question_from_input, with_relations
from nl2sparql.planner.pairs import DEV_FILE, TRAIN_FILE, PlanPair, is_pattern_pair, read_pairs, write_pairs

#: the most hints an input may carry (they cost input length)
MAX_RELATIONS = 32
#: how often a gold phrase that recall missed is put among a training pair's hints
GOLD_KEPT = 0.6
#: recall looks this many times deeper than ``k`` to find ``k`` distinct phrases
_DEPTH = 8
_FIND = re.compile(r"^(?:step\s*\d+\s*[:.)]\s*)?find\s+(.*?),\s*assign it to\s+\?\w+\s*\.?\s*$", re.IGNORECASE)
_VARIABLE = re.compile(r"\?[A-Za-z_]\w*")


def relation_count(meta: Mapping[str, Any]) -> int:
    """How many relation hints a planner was trained to read (0: none)."""
    return int(meta.get("relations") or 0)


class RelationHints:
    """The ``k`` phrases of ``bank`` nearest to each question, for the planner's input."""

    def __init__(self, bank: Any, k: int) -> None:
        if k <= 0:
            raise ValueError("relation hints need k > 0")
        self.bank, self.k = bank, k
        # recall's re-ranking, keeping every hit of the search as a candidate
        self._settings = RecallSettings(candidates=k * _DEPTH)

    def for_questions(self, questions: Sequence[str], names: Sequence[Iterable[str]]) -> list[tuple[str, ...]]:
        """The hints of each question (best first); ``names[i]``: question i's entity names, left
        out so that the phrase matches what is asked, not whom about. Similarity is ranked with
        recall's support prior, so that statements the query log used come before schema ones."""
        if not questions:
            return []
        entries = self.bank.entries("graph")
        if not entries:
            return [() for _ in questions]
        bare = [" ".join(mask_names(q, n, " ").split()) or q for q, n in zip(questions, names, strict=True)]
        scores, ids = self.bank.index("graph").search(self.bank.embedder.encode(bare), self.k * _DEPTH)
        return [
            self._distinct(make_recall("", entries, row_scores, row_ids, self._settings))
            for row_scores, row_ids in zip(scores, ids, strict=True)
        ]

    def _distinct(self, recall: Recall) -> tuple[str, ...]:
        picked: dict[str, None] = {}
        for candidate in recall.candidates:
            phrase = embedding_text(candidate.entry)
            if phrase:
                picked.setdefault(phrase)
                if len(picked) == self.k:
                    break
        return tuple(picked)


def gold_phrases(plan_text: str, names: Iterable[str]) -> tuple[str, ...]:
    """The phrases a plan's ``Find`` sentences say, without their entities and variables: the
    hint each sentence copies when the plan is in its bank's words.

    >>> gold_phrases("Type: simple\\nFind the sibling of the person Justin Bieber, assign it to ?x."
    ...              "\\nThe answer is ?x.\\n", ["Justin Bieber"])
    ('the sibling of the person',)
    """
    found: dict[str, None] = {}
    for line in plan_text.splitlines():
        match = _FIND.match(line.strip())
        if match:
            text = _VARIABLE.sub(" ", mask_names(match.group(1), names, " "))
            found.setdefault(" ".join(text.split()))
    return tuple(phrase for phrase in found if phrase)


def with_gold(hints: Sequence[str], gold: Sequence[str], k: int, rng: random.Random) -> tuple[str, ...]:
    """``hints`` with each missing ``gold`` phrase put in (with chance :data:`GOLD_KEPT`) at a
    random place, over a distractor, so that the list stays ``k`` long at most.

    >>> with_gold(["a", "b", "c"], ["a"], 3, random.Random(0))
    ('a', 'b', 'c')
    """
    out = list(hints)[:k]
    missing = [g for g in gold if g not in out and rng.random() < GOLD_KEPT]
    for phrase in missing:
        free = [i for i, h in enumerate(out) if h not in gold]
        if len(out) < k or not free:
            out.insert(rng.randrange(len(out) + 1), phrase)
        else:
            out[rng.choice(free)] = phrase
    return tuple(out[: max(k, len(gold))])


def add_relation_hints(pairs: Sequence[PlanPair], bank: Any, k: int, seed: int = 0) -> list[PlanPair]:
    """Training ``pairs`` whose inputs carry ``k`` hints from ``bank`` (the bank their plans are
    written for), the gold plan's phrases among them (see :func:`with_gold`)."""
    rng = random.Random(seed)
    names = [names_from_input(p.input) for p in pairs]
    found = RelationHints(bank, k).for_questions([question_from_input(p.input) for p in pairs], names)
    out = []
    for pair, hints, own in zip(pairs, found, names, strict=True):
        chosen = with_gold(hints, gold_phrases(pair.output, own), k, rng)
        out.append(PlanPair(pair.id, with_relations(pair.input, chosen), pair.output))
    return out


def ground_pair_files(folder: Path, k: int, bank: Any, store_bank: Any | None = None, seed: int = 0) -> dict[str, int]:
    """Put ``k`` relation hints in every input of ``folder``'s pair files (rewritten atomically):
    from ``store_bank`` for the KG-pattern pairs, from ``bank`` for the others; pairs per file."""
    counts: dict[str, int] = {}
    for name in (TRAIN_FILE, DEV_FILE):
        path = folder / name
        if not path.is_file():
            continue
        pairs = read_pairs(path, check_plans=False)
        if any(RELATIONS_MARKER in p.input for p in pairs):
            raise PlannerDataError(f"{path}: the inputs already hold relation hints")
        patterns = [p for p in pairs if is_pattern_pair(p)]
        if patterns and store_bank is None:
            raise PlannerDataError(f"{path}: KG-pattern pairs need the bank of their store for their hints")
        grounded = {p.id: p for p in add_relation_hints([p for p in pairs if not is_pattern_pair(p)], bank, k, seed)}
        if patterns:
            grounded.update({p.id: p for p in add_relation_hints(patterns, store_bank, k, seed)})
        counts[name] = write_pairs(path, [grounded[p.id] for p in pairs])
    return counts
