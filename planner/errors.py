"""Errors of the planner's models and backends (plan-language errors live in :mod:`.plan`).

They subclass :class:`~nl2sparql.errors.Nl2SparqlError`, so the CLI and the service report
them as one line; :class:`PlannerError` names the question, because a batch run needs to
say *which* question failed and why.
"""

from __future__ import annotations

from nl2sparql.errors import Nl2SparqlError


class PlannerError(Nl2SparqlError):
    """A planner could not produce a readable plan for a question (or could not run at all)."""

    def __init__(self, message: str, question: str | None = None, attempts: int = 0) -> None:
        self.question = question
        self.attempts = attempts
        self.reason = message
        text = f"planner failed for question {question!r}: {message}" if question is not None else message
        super().__init__(text)


class PlannerDataError(Nl2SparqlError):
    """A training-pair file that cannot be used; the message names the file and line."""


class PlannerModelError(Nl2SparqlError):
    """A model folder or base that cannot be loaded or trained (missing files, wrong kind)."""
