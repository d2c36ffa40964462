"""Exemplars from a user's own example questions: the planner sees plans in their graph's words.

The default planner reads the plans of the training questions most like the one asked
(:mod:`nl2sparql.planner.exemplars`); on a graph other than Freebase those plans speak
Freebase ("the official language of the country X"), and the planner copies their words.
A user who has a few questions with SPARQL for their own graph (QALD's JSON, or any format
``load_dataset`` reads) turns them into an exemplar memory of their own: each gold query
becomes a gold plan in the words of their bank (:meth:`PlanSynthesiser.for_bank`), and the
planner reads those instead (``--exemplars DIR``, the ``exemplars`` setting).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.exemplars import ExemplarMemory
from nl2sparql.planner.pairs import PlanPair, make_pair

#: the most example questions one memory is built from (each is embedded)
MAX_EXAMPLES = 50_000


@dataclass(frozen=True, slots=True)
class UserExemplars:
    """The memory made, and the examples that gave no plan with the reason."""

    memory: ExemplarMemory
    skipped: tuple[tuple[str, str], ...]


def example_pairs(examples: Sequence[Any], bank: Any | None) -> tuple[list[PlanPair], list[tuple[str, str]]]:
    """A plan pair for each example whose gold SPARQL the synthesiser plans (in ``bank``'s
    words when given), and ``(id, reason)`` for each one it cannot."""
    from nl2sparql.training.synthesise import PlanSynthesiser, gold_entities

    synthesiser = PlanSynthesiser.for_bank(bank) if bank is not None else PlanSynthesiser()
    pairs: list[PlanPair] = []
    skipped: list[tuple[str, str]] = []
    for example in examples:
        if not example.gold_sparql:
            skipped.append((example.id, "no gold SPARQL"))
            continue
        entities = gold_entities(example)
        try:
            plan = synthesiser.synthesise(example.gold_sparql, entities).plan
            pairs.append(make_pair(example.id, example.question, entities, plan))
        except Nl2SparqlError as exc:
            skipped.append((example.id, str(exc)))
    return pairs, skipped


def build_user_exemplars(
    examples: Sequence[Any], bank: Any | None = None, embedder: Any | None = None
) -> UserExemplars:
    """An exemplar memory of ``examples`` (dataset examples with gold SPARQL)."""
    if len(examples) > MAX_EXAMPLES:
        raise PlannerError(f"{len(examples):,} example questions: at most {MAX_EXAMPLES:,} make one exemplar memory")
    pairs, skipped = example_pairs(examples, bank)
    if not pairs:
        reasons = "; ".join(f"{i}: {r}" for i, r in skipped[:3])
        raise PlannerError(f"none of the {len(examples)} example questions gave a plan ({reasons})")
    return UserExemplars(ExemplarMemory.build(pairs, embedder), tuple(skipped))
