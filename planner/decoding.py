"""From model outputs to plans that parse: greedy first, then beams, then bounded, seeded sampling.

A small model sometimes writes a sentence outside the plan language. Rather than hand
the pipeline text that cannot compile, each question is decoded greedily (one sequence:
beam 4 costs about twice as much, and its first beam is usually the greedy one), a
question whose greedy plan does not parse is decoded again with beam search (every
returned beam is tried, best first), and a question none of whose beams parses is decoded
again by sampling, a fixed number of times with fixed seeds, so the same question gives
the same plan on every run. A question that still has no readable plan gets a
:class:`~nl2sparql.planner.errors.PlannerError` naming it and the last parse error.

The other beams are what the pipeline retries a failed plan with; with ``lazy_beams`` (the
default) they are computed only then (:func:`alternative_plans`), not for every question.
``lazy_beams=False`` is the old decoding: beam search for every question, alternatives kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Plan, PlanError
from nl2sparql.planner.errors import PlannerError

if TYPE_CHECKING:  # the numpy runtime decodes without torch, which the model module imports
    from nl2sparql.planner.model import PlannerModel
    from nl2sparql.planner.numpy_model import NumpyPlanner


@dataclass(frozen=True, slots=True)
class DecodingOptions:
    """How plans are decoded: ``num_beams`` 1 is greedy; ``sample_tries`` 0 turns sampling off;
    ``lazy_beams`` decodes greedily first and runs the beams only for questions that need them."""

    num_beams: int = 4
    max_new_tokens: int = 192
    sample_tries: int = 3
    temperature: float = 0.8
    top_p: float = 0.95
    seed: int = 0
    lazy_beams: bool = True
    #: greedy output kept inside the plan grammar (planner/constrained.py)
    constrained: bool = True

    def __post_init__(self) -> None:
        if self.num_beams < 1 or self.sample_tries < 0 or self.max_new_tokens < 1:
            raise ValueError("num_beams and max_new_tokens must be at least 1, sample_tries at least 0")


@dataclass(frozen=True, slots=True)
class Decoded:
    """The first candidate that parsed (``text``, ``plan``), how many candidates were read, and
    the other beams that parsed to other plans, best first (what a failed plan is retried with)."""

    text: str
    plan: Plan
    attempts: int
    alternatives: tuple[tuple[str, Plan], ...] = ()


def _alternatives(candidates: Sequence[str], chosen: Plan) -> tuple[tuple[str, Plan], ...]:
    """The candidates after the chosen one that parse to plans different from it and each other."""
    seen = [chosen]
    found: list[tuple[str, Plan]] = []
    for text in candidates:
        try:
            plan = parse_plan(text)
        except PlanError:
            continue
        if plan not in seen:
            seen.append(plan)
            found.append((text, plan))
    return tuple(found)


def _first_plan(candidates: Sequence[str]) -> tuple[str, Plan, int] | PlanError:
    error: PlanError = PlanError("the model wrote nothing")
    for index, text in enumerate(candidates, start=1):
        if not text.strip():
            continue
        try:
            return text, parse_plan(text), index
        except PlanError as exc:
            error = exc
    return error


def decode_plans(
    model: PlannerModel | NumpyPlanner,
    inputs: Sequence[str],
    names: Sequence[Sequence[str]],
    questions: Sequence[str],
    options: DecodingOptions = DecodingOptions(),
) -> list[Decoded | PlannerError]:
    """One :class:`Decoded` (or the :class:`PlannerError` for that question) per input, in order."""
    results: list[Decoded | PlannerError | None] = [None] * len(inputs)
    attempts = [0] * len(inputs)
    errors: list[PlanError | None] = [None] * len(inputs)
    passes = [1, options.num_beams] if options.lazy_beams and options.num_beams > 1 else [options.num_beams]
    for beams in passes:
        pending = [i for i, result in enumerate(results) if result is None]
        if not pending:
            break
        outputs = model.generate(
            [inputs[i] for i in pending],
            [names[i] for i in pending],
            num_beams=beams,
            num_return_sequences=beams,
            max_new_tokens=options.max_new_tokens,
            constrained=options.constrained,
        )
        for index, candidates in zip(pending, outputs, strict=True):
            found = _first_plan(candidates)
            if isinstance(found, PlanError):
                attempts[index] += len(candidates)
                errors[index] = found
            else:
                text, plan, tried = found
                others = _alternatives(candidates[tried:], plan) if beams > 1 else ()
                results[index] = Decoded(text, plan, attempts[index] + tried, others)
    for attempt in range(options.sample_tries):
        pending = [i for i, result in enumerate(results) if result is None]
        if not pending:
            break
        samples = model.generate(
            [inputs[i] for i in pending],
            [names[i] for i in pending],
            do_sample=True,
            temperature=options.temperature,
            top_p=options.top_p,
            max_new_tokens=options.max_new_tokens,
            seed=options.seed + attempt,
        )
        for index, (text,) in zip(pending, samples, strict=True):
            attempts[index] += 1
            found = _first_plan([text])
            if isinstance(found, PlanError):
                errors[index] = found
            else:
                results[index] = Decoded(text, found[1], attempts[index])
    return [
        result
        if result is not None
        else PlannerError(
            f"no readable plan after {attempts[i]} tries; last error: {errors[i]}", questions[i], attempts[i]
        )
        for i, result in enumerate(results)
    ]


def alternative_plans(
    model: PlannerModel | NumpyPlanner,
    sources: Sequence[str],
    names: Sequence[Sequence[str]],
    chosen: Sequence[Plan],
    options: DecodingOptions = DecodingOptions(),
) -> list[tuple[Plan, ...]]:
    """For each question, the beams that parse to plans other than its ``chosen`` one, best
    first: what the pipeline retries a plan with when it compiles to nothing or answers nothing."""
    beams = max(options.num_beams, 2)
    outputs = model.generate(
        sources, names, num_beams=beams, num_return_sequences=beams, max_new_tokens=options.max_new_tokens
    )
    return [
        tuple(plan for _, plan in _alternatives(candidates, plan))
        for candidates, plan in zip(outputs, chosen, strict=True)
    ]
