"""What a question produces, stage by stage: the values the CLI prints and the service sends.

They are plain frozen records so the gRPC servicer, the CLI's ``--json`` and the batch
translator all serialise the same thing (``to_json``), and a streamed run is a sequence of
:class:`StageEvent` whose last one carries the :class:`AskResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Stage = Literal["linked", "planned", "recalled", "compiled", "executed", "result"]
STAGES: tuple[Stage, ...] = ("linked", "planned", "recalled", "compiled", "executed", "result")


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer: the KG term (an entity id such as ``m.0d05w3`` or a literal's value) and its name."""

    id: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory statement recalled for a plan step, with its similarity score."""

    statement_id: str
    description: str
    sparql: str
    score: float


@dataclass(frozen=True, slots=True)
class Recalled:
    """The candidates recalled for one plan step (best first)."""

    step: str
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One compiled query tried on the way to the answer (execution-guided repair keeps them all)."""

    sparql: str
    error: str | None = None
    answers: int | None = None
    plan_type: str | None = None


@dataclass(frozen=True, slots=True)
class Ranked:
    """A candidate plan the ranker scored: its sentences, shape, score and where it came from."""

    plan: tuple[str, ...]
    shape: str
    score: float
    source: str = "graph"


@dataclass(frozen=True, slots=True)
class AskResult:
    """Everything about one question: the trace from linking to answers."""

    question: str
    entities: Mapping[str, str] = field(default_factory=dict)
    type: str | None = None
    plan: tuple[str, ...] = ()
    recalled: tuple[Recalled, ...] = ()
    sparql: str | None = None
    answers: tuple[Answer, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    error: str | None = None
    #: the best candidates the ranker scored, best first (the adopted one among them)
    candidates: tuple[Ranked, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["entities"] = dict(self.entities)
        data["timings_ms"] = {k: round(v, 3) for k, v in self.timings_ms.items()}
        return data


@dataclass(frozen=True, slots=True)
class StageEvent:
    """A stage finished: its name, the time it took, and the result as far as it is known."""

    stage: Stage
    elapsed_ms: float
    result: AskResult
