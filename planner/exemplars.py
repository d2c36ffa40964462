"""Exemplars: the plans of the training questions most like the one asked, put in the planner's input.

A planner of 22M parameters knows little of Freebase: whether "what do they speak in
Scotland" is asked of ``languages_spoken`` or ``official_language`` is a habit of the
training data it can only guess. Given the plans of the most similar training questions
(their entity names replaced by :data:`PLACEHOLDER`), it copies the relation phrases that
fit (retrieval-augmented generation, as in case-based KBQA). Similarity is cosine over
the bundled MiniLM sentence embeddings of the questions with their entity names masked, so
"what do they speak in X" finds its kind whatever X is.

The memory is built from training pairs (:meth:`ExemplarMemory.build`) and saved as a
folder (``exemplars.jsonl``, ``vectors.npy``); ``nl2sparql setup`` builds the default one
into the home folder, because it is made of dataset text that the package does not ship.
Training inputs get their exemplars from the same memory, never their own plan nor one
from the same source question (CWQ questions are built on WebQSP ones).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nl2sparql.kg.atomic import write_atomic
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.input_format import (
    entity_names,
    format_input,
    names_from_input,
    question_from_input,
    with_examples,
    with_relations,
)
from nl2sparql.planner.pairs import PlanPair

PLACEHOLDER = "X"
RECORDS_FILE = "exemplars.jsonl"
VECTORS_FILE = "vectors.npy"


def mask_names(text: str, names: Iterable[str], placeholder: str = PLACEHOLDER) -> str:
    """``text`` with every whole-word spelling of ``names`` (any case) replaced by ``placeholder``.

    >>> mask_names("what do they speak in scotland?", ["Scotland"])
    'what do they speak in X?'
    """
    for name in sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", placeholder, text, flags=re.IGNORECASE)
    return text


def exemplar_text(plan_text: str, names: Iterable[str]) -> str:
    """A plan as an exemplar: one line, steps joined by ``;``, names masked, no answer line.

    >>> exemplar_text("Type: simple\\nFind the official language of the country Scotland, "
    ...               "assign it to ?x.\\nThe answer is ?x.\\n", ["Scotland"])
    'Type: simple ; Find the official language of the country X, assign it to ?x.'
    """
    lines = [line.strip() for line in plan_text.strip().split("\n") if line.strip()]
    kept = [line for line in lines if not line.startswith("The answer is")]
    return mask_names(" ; ".join(kept), names)


@dataclass(frozen=True, slots=True)
class ExemplarMemory:
    """Training questions (masked), their plans as exemplars, and the questions' unit vectors."""

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    vectors: np.ndarray

    @classmethod
    def build(cls, pairs: Sequence[PlanPair], embedder: Any | None = None) -> ExemplarMemory:
        """A memory of ``pairs`` (``planner data`` pairs: the input names the question and entities)."""
        names = [names_from_input(p.input) for p in pairs]
        questions = [mask_names(question_from_input(p.input), n) for p, n in zip(pairs, names, strict=True)]
        texts = tuple(exemplar_text(p.output, n) for p, n in zip(pairs, names, strict=True))
        return cls(tuple(p.id for p in pairs), texts, _unit(_embedder(embedder).encode(questions)))

    def nearest(
        self,
        questions: Sequence[str],
        names: Sequence[Sequence[str]],
        k: int,
        exclude: Sequence[str | None] | None = None,
        embedder: Any | None = None,
    ) -> list[tuple[str, ...]]:
        """The ``k`` exemplars most like each question (distinct texts, most similar first);
        ``exclude[i]``: an id whose exemplars question ``i`` must not get (its own source)."""
        if not questions:
            return []
        if not self.ids or k <= 0:
            return [() for _ in questions]
        masked = [mask_names(q, n) for q, n in zip(questions, names, strict=True)]
        scores = _unit(_embedder(embedder).encode(masked)) @ self.vectors.T
        out = []
        for row, skip in zip(scores, exclude or [None] * len(questions), strict=True):
            picked: list[str] = []
            for j in np.argsort(-row, kind="stable"):
                text = self.texts[j]
                if (skip is not None and self.ids[j] == skip) or text in picked:
                    continue
                picked.append(text)
                if len(picked) == k:
                    break
            out.append(tuple(picked))
        return out

    def save(self, folder: str | Path) -> Path:
        """Write the memory into ``folder`` (each file atomically)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        records = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(self.ids, self.texts, strict=True))
        write_atomic(folder / RECORDS_FILE, records.encode("utf-8"))
        write_atomic(folder / VECTORS_FILE, _npy_bytes(self.vectors))
        return folder

    @classmethod
    def load(cls, folder: str | Path, remedy: str = "run 'nl2sparql setup'") -> ExemplarMemory:
        """The memory saved in ``folder``; :class:`PlannerModelError` naming what is missing or bad
        (and, when it is missing, the ``remedy``)."""
        folder = Path(folder)
        try:
            records = [json.loads(line) for line in (folder / RECORDS_FILE).read_text("utf-8").splitlines() if line]
            vectors = np.load(folder / VECTORS_FILE, allow_pickle=False)
        except FileNotFoundError as exc:
            raise PlannerModelError(
                f"no exemplar memory in {folder} ({Path(exc.filename).name} is missing): {remedy}"
            ) from None
        except (OSError, ValueError, KeyError) as exc:
            raise PlannerModelError(f"cannot read the exemplar memory in {folder}: {exc}") from None
        if vectors.ndim != 2 or vectors.shape[0] != len(records):
            raise PlannerModelError(f"{folder}: {len(records)} exemplars but vectors of shape {vectors.shape}")
        return cls(tuple(r["id"] for r in records), tuple(r["text"] for r in records), vectors.astype(np.float32))


def with_exemplars(
    pairs: Sequence[PlanPair],
    memory: ExemplarMemory,
    k: int,
    own: bool,
    embedder: Any | None = None,
    sources: Sequence[str] | None = None,
) -> list[PlanPair]:
    """``pairs`` whose inputs end with their ``k`` nearest exemplars; ``own``: the pairs are in
    the memory, so each skips the exemplars of its own source question, which is the pair's
    id unless ``sources`` names it (pairs made from a memory question)."""
    names = [names_from_input(p.input) for p in pairs]
    questions = [question_from_input(p.input) for p in pairs]
    exclude = (list(sources) if sources is not None else [p.id for p in pairs]) if own else None
    found = memory.nearest(questions, names, k, exclude, embedder)
    return [PlanPair(p.id, with_examples(p.input, ex), p.output) for p, ex in zip(pairs, found, strict=True)]


def planner_inputs(
    questions: Sequence[str],
    entities: Sequence[Mapping[str, str] | None],
    memory: ExemplarMemory | None,
    k: int,
    hints: Any | None = None,
) -> list[str]:
    """The planner's input for each question: :func:`format_input`, its relation hints when
    ``hints`` (a :class:`~nl2sparql.planner.relation_hints.RelationHints`) is given, then its
    ``k`` exemplars from ``memory`` when the planner reads exemplars (``k`` > 0)."""
    inputs = [format_input(q, e) for q, e in zip(questions, entities, strict=True)]
    names = [entity_names(e) for e in entities]
    if hints is not None:
        found_hints = hints.for_questions(questions, names)
        inputs = [with_relations(text, h) for text, h in zip(inputs, found_hints, strict=True)]
    if memory is None or not k:
        return inputs
    found = memory.nearest(questions, names, k)
    return [with_examples(text, examples) for text, examples in zip(inputs, found, strict=True)]


def memory_pairs(pairs: Iterable[PlanPair]) -> list[PlanPair]:
    """The pairs a memory may hold: none built on a WebQSP *test* question (CWQ holds some),
    so that evaluating on WebQSP test never retrieves a plan of the question asked."""
    return [p for p in pairs if not p.id.startswith("WebQTest")]


def exemplar_count(meta: Mapping[str, Any]) -> int:
    """How many exemplars a planner was trained to read (0: none)."""
    return int(meta.get("exemplars") or 0)


def _embedder(embedder: Any | None) -> Any:
    if embedder is not None:
        return embedder
    from nl2sparql.memory_bank.embedder import default_embedder

    return default_embedder()


def _unit(vectors: Any) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array.astype(np.float32), allow_pickle=False)
    return buffer.getvalue()
