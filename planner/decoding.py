"""From model outputs to plans that parse: beams first, then bounded, seeded sampling.

A small model sometimes writes a sentence outside the plan language. Rather than hand
the pipeline text that cannot compile, each question is decoded with beam search (every
returned beam is tried, best first), and a question none of whose beams parses is decoded
again by sampling, a fixed number of times with fixed seeds, so the same question gives
the same plan on every run. A question that still has no readable plan gets a
:class:`~nl2sparql.planner.errors.PlannerError` naming it and the last parse error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nl2sparql.grammar.plan_transformer import parse_plan
from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.model import PlannerModel
from nl2sparql.planner.plan import Plan, PlanError


@dataclass(frozen=True, slots=True)
class DecodingOptions:
    """How plans are decoded: ``num_beams`` 1 is greedy; ``sample_tries`` 0 turns sampling off."""

    num_beams: int = 4
    max_new_tokens: int = 192
    sample_tries: int = 3
    temperature: float = 0.8
    top_p: float = 0.95
    seed: int = 0

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
    model: PlannerModel,
    inputs: Sequence[str],
    names: Sequence[Sequence[str]],
    questions: Sequence[str],
    options: DecodingOptions = DecodingOptions(),
) -> list[Decoded | PlannerError]:
    """One :class:`Decoded` (or the :class:`PlannerError` for that question) per input, in order."""
    results: list[Decoded | PlannerError | None] = [None] * len(inputs)
    attempts = [0] * len(inputs)
    errors: list[PlanError | None] = [None] * len(inputs)
    beams = model.generate(
        inputs,
        names,
        num_beams=options.num_beams,
        num_return_sequences=options.num_beams,
        max_new_tokens=options.max_new_tokens,
    )
    for index, candidates in enumerate(beams):
        found = _first_plan(candidates)
        if isinstance(found, PlanError):
            attempts[index], errors[index] = len(candidates), found
        else:
            text, plan, tried = found
            results[index] = Decoded(text, plan, tried, _alternatives(candidates[tried:], plan))
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
