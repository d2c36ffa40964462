"""The ``plans:FILE`` planner: plans written elsewhere, read back by their question.

A planner that is too slow for this machine (a pretrained base fine-tuned and decoded on a
GPU, see ``nl2sparql planner decode``), another system or a person can write plans once;
``nl2sparql eval --planner plans:FILE`` then judges them by the same recall, compiling and
execution as a live planner's. The file is JSON Lines, one ``{"question": ..., "plan": ...}``
per line (other keys are kept out of the way); questions match after case and spacing are
folded. A question the file lacks, or whose plan does not parse, is that question's error,
not the run's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import PlanError
from nl2sparql.planner.backends.base import ChunkResult, Planner, PlanRequest
from nl2sparql.planner.errors import PlannerError

#: a larger file is refused before it is read
MAX_FILE_BYTES = 64 * 1024 * 1024


def question_key(question: str) -> str:
    """How recorded questions are matched: case and runs of spaces folded.

    >>> question_key("  What county is  San Diego in? ")
    'what county is san diego in?'
    """
    return " ".join(question.split()).casefold()


def read_recorded(path: Path) -> dict[str, str]:
    """``{question_key: plan text}`` from a plans file; a bad line is named by its number."""
    if not path.is_file():
        raise PlannerError(f"plans:{path}: no such file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise PlannerError(f"plans:{path}: larger than {MAX_FILE_BYTES // 2**20} MiB")
    plans: dict[str, str] = {}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise PlannerError(f"plans:{path}, line {number}: not JSON ({exc.msg})") from None
            question = record.get("question") if isinstance(record, dict) else None
            plan = record.get("plan") if isinstance(record, dict) else None
            if not isinstance(question, str) or not question.strip() or not isinstance(plan, str):
                raise PlannerError(f'plans:{path}, line {number}: needs {{"question": TEXT, "plan": TEXT}}')
            key = question_key(question)
            if plans.get(key, plan) != plan:
                raise PlannerError(f"plans:{path}, line {number}: a second, different plan for {question!r}")
            plans[key] = plan
    return plans


class RecordedPlanner(Planner):
    """Plans looked up by question in a file read once."""

    name = "plans"

    def __init__(self, path: Path, plans: dict[str, str]) -> None:
        self.path = path
        self.plans = plans

    def _plan_one(self, request: PlanRequest) -> ChunkResult:
        text = self.plans.get(question_key(request.question))
        if text is None:
            return PlannerError(f"{self.path} has no plan for this question", request.question)
        try:
            return text, parse_plan(text), 1
        except PlanError as exc:
            return PlannerError(f"the plan {self.path} holds for it does not parse: {exc}", request.question, 1)

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        return [self._plan_one(request) for request in requests]

    def info(self) -> dict[str, Any]:
        return {"planner": self.name, "file": str(self.path), "plans": len(self.plans)}


def open_recorded(argument: str, **options: Any) -> RecordedPlanner:
    """``plans:FILE``."""
    if options:
        raise PlannerError(f"unknown options for the plans: planner: {', '.join(sorted(options))}")
    if not argument:
        raise PlannerError("plans: needs a file: plans:FILE (JSON Lines of question and plan)")
    path = Path(argument).expanduser()
    return RecordedPlanner(path, read_recorded(path))
