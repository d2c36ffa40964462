"""Planner metrics: question-type accuracy, step F1 against the gold plan, parse failures.

The planner is judged before the compiler sees its output: did it pick the right
question type (KELGoP's categories), write the gold plan's steps, and write text the
plan grammar reads at all? Steps are compared as canonical sentences (the formatter's
output), lower-cased, with variables renamed in order of first appearance, so
``?x``/``?y`` naming and MemQ's alternative phrasings do not count as differences.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nl2sparql.plan.reader import parse_plan, read_plan
from nl2sparql.plan.steps import PlanError, PlanSyntaxError, Step
from nl2sparql.plan.writer import format_step

_VARIABLE = re.compile(r"\?[A-Za-z_][A-Za-z0-9_]*")
_SPACE = re.compile(r"\s+")


def plan_type_accuracy(pairs: Iterable[tuple[str | None, str | None]]) -> float:
    """The share of ``(predicted type, gold type)`` pairs that agree (case and blanks ignored).

    A missing prediction (``None``) is wrong unless the gold type is missing too.
    Raises ``ValueError`` when there are no pairs.
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("plan_type_accuracy needs at least one (predicted, gold) pair")

    def norm(name: str | None) -> str | None:
        return None if name is None else name.strip().lower()

    return sum(norm(predicted) == norm(gold) for predicted, gold in pairs) / len(pairs)


def _sentence(step: Step | str) -> str:
    if isinstance(step, str):
        try:
            plan = read_plan(step)[0]
        except PlanError:
            plan = None
        if plan is not None and len(plan.steps) == 1 and plan.type is None:
            step = plan.steps[0]
        else:
            return _SPACE.sub(" ", step.strip()).rstrip(".").rstrip()
    try:
        return format_step(step).rstrip(".")
    except PlanError:
        return repr(step)


def normalise_steps(steps: Sequence[Step | str], rename_variables: bool = True) -> list[str]:
    """Steps as comparable strings: canonical sentence, lower case, no final full stop.

    Strings that parse as one step are read and re-written canonically; others are only
    blank-normalised. With ``rename_variables``, variables become ``?v1``, ``?v2``, ...
    in order of first appearance across the whole sequence.
    """
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"?v{len(names) + 1}")

    out = []
    for step in steps:
        sentence = _sentence(step)
        if rename_variables:
            sentence = _VARIABLE.sub(rename, sentence)
        out.append(sentence.lower())
    return out


def step_scores(
    predicted_steps: Sequence[Step | str], gold_steps: Sequence[Step | str], rename_variables: bool = True
) -> tuple[float, float, float]:
    """Multiset precision, recall and F1 between predicted and gold steps (see :func:`step_f1`).

    >>> step_scores(["Find the spouse of Jay-Z, assign it to ?x.", "The answer is ?x."],
    ...             ["Find the spouse of Jay-Z, assign it to ?y.", "Make sure ?y is Female.", "The answer is ?y."])
    (1.0, 0.6666666666666666, 0.8)
    """
    pred = Counter(normalise_steps(predicted_steps, rename_variables))
    gold = Counter(normalise_steps(gold_steps, rename_variables))
    n_pred, n_gold = sum(pred.values()), sum(gold.values())
    if n_pred == 0 or n_gold == 0:
        both_empty = float(n_pred == n_gold)
        return both_empty, both_empty, both_empty
    matched = sum((pred & gold).values())
    if matched == 0:
        return 0.0, 0.0, 0.0
    precision, recall = matched / n_pred, matched / n_gold
    return precision, recall, 2 * precision * recall / (precision + recall)


def step_f1(
    predicted_steps: Sequence[Step | str], gold_steps: Sequence[Step | str], rename_variables: bool = True
) -> float:
    """Multiset F1 between the predicted and the gold steps, compared by :func:`normalise_steps`.

    matched = |Counter(pred) ∩ Counter(gold)|, P = matched / |pred|, R = matched / |gold|,
    F1 = 2PR / (P + R). Both empty: 1.0; exactly one empty: 0.0 (as for answer F1).
    Renaming is per sequence, so a plan that orders its steps differently may rename
    differently; that is counted as a difference, which order changes usually are.
    """
    return step_scores(predicted_steps, gold_steps, rename_variables)[2]


@dataclass(frozen=True, slots=True)
class ParseFailures:
    """How many plan texts failed to parse, split by kind; ``errors`` holds (index, message)."""

    total: int
    syntax: int
    semantic: int
    errors: tuple[tuple[int, str], ...]

    @property
    def failed(self) -> int:
        return self.syntax + self.semantic

    @property
    def rate(self) -> float:
        """The share of texts that failed (0.0 for no texts)."""
        return self.failed / self.total if self.total else 0.0


def count_parse_failures(texts: Iterable[str]) -> ParseFailures:
    """Parse every plan text with :func:`parse_plan` and count syntax and semantic failures."""
    total = syntax = semantic = 0
    errors: list[tuple[int, str]] = []
    for index, text in enumerate(texts):
        total += 1
        try:
            parse_plan(text)
        except PlanSyntaxError as error:
            syntax += 1
            errors.append((index, str(error)))
        except PlanError as error:
            semantic += 1
            errors.append((index, str(error)))
    return ParseFailures(total, syntax, semantic, tuple(errors))
