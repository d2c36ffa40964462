"""What a plan repair may read besides the plan: the question as asked and its entities' names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nl2sparql.planner.input_format import entity_names


@dataclass(frozen=True, slots=True)
class Asked:
    """The question a plan was written for, and the names of the entities it was planned with."""

    question: str
    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, question: str, entities: Mapping[str, str] | None = None) -> Asked:
        """The question and the names of ``entities`` (``{id: name}``), as the planner read them."""
        return cls(question, entity_names(entities))
