"""Plan -> canonical text, guaranteed to read back as the same plan.

Gold plans synthesised from SPARQL, the planner's training targets and the service's
trace are all written here, so the formatter is the one place that knows the canonical
sentence for each step. Entity names are written bare when that reads back unchanged
and in braces (``{Trinidad and Tobago}``) when it would not; a step that cannot be
written so that it reads back (a description with a line break, a malformed variable
name) is refused with a :class:`PlanError` rather than written wrongly.
"""

from __future__ import annotations

from nl2sparql.plan.reader import read_plan
from nl2sparql.plan.refs import find_text, ref_text
from nl2sparql.plan.steps import (
    Absent,
    Answer,
    Calculate,
    Combine,
    Compute,
    Count,
    Find,
    MakeSure,
    Plan,
    PlanError,
    Rank,
    Step,
    Var,
    check_plan,
)

__all__ = ["format_plan", "format_step"]


def _sentence(step: Step, braced: bool) -> str:
    if isinstance(step, Find):
        if_any = " if any" if step.optional else ""
        return f"Find {find_text(step, braced)}, assign it to {step.target}{if_any}."
    if isinstance(step, Absent):
        return f"Make sure nothing is {find_text(Find(step.description, step.refs, _NOBODY), braced)}."
    if isinstance(step, MakeSure):
        return _make_sure(step, ref_text(step.value, braced))
    if isinstance(step, Rank):
        return _rank(step)
    if isinstance(step, Count):
        return f"Count {step.var}{_per(step.per)}, assign it to {step.target}."
    if isinstance(step, Compute):
        return f"Compute the {step.function} of {step.var}{_per(step.per)}, assign it to {step.target}."
    if isinstance(step, Calculate):
        return f"Compute {step.a} {step.op} {step.b}, assign it to {step.target}."
    if isinstance(step, Combine):
        return f"Combine {step.a} and {step.b}, assign it to {step.target}."
    if isinstance(step, Answer):
        if step.exists:
            return f"The answer is whether {step.var} exists."
        return f"The answer is {' and '.join(str(var) for var in step.columns)}."
    raise PlanError(f"not a plan step: {step!r}")


_NOBODY = Var("_")


def _per(groups: tuple[Var, ...]) -> str:
    return f" for each {' and '.join(str(var) for var in groups)}" if groups else ""


def _make_sure(step: MakeSure, value: str) -> str:
    if step.op == "contains":
        verb = "does not contain" if step.negated else "contains"
        return f"Make sure {step.var} {verb} {value}."
    if step.op == "holds during":
        verb = "does not hold during" if step.negated else "holds during"
        return f"Make sure {step.var} {verb} {value}."
    words = ["is"] + (["not"] if step.negated else []) + ([step.op] if step.op != "is" else [])
    return f"Make sure {step.var} {' '.join(words)} {value}."


def _rank(step: Rank) -> str:
    order = "descending" if step.descending else "ascending"
    if step.skip:
        keep = f"keep results {step.skip + 1} to {step.skip + step.keep}"
    elif step.var is None:
        keep = "keep the first " + ("result" if step.keep == 1 else f"{step.keep} results")
    else:
        keep = "keep the first" + ("" if step.keep == 1 else f" {step.keep}")
    if step.var is None:
        return f"Sort the result based on {step.key} in {order} order and {keep}."
    return f"Rank {step.var} by {step.key} in {order} order and {keep}."


def _read_back(text: str) -> Plan | PlanError:
    try:
        return read_plan(text)[0]
    except PlanError as error:
        return error


def format_step(step: Step) -> str:
    """The canonical sentence for ``step``; :class:`PlanError` if no sentence reads back as it."""
    expected = Plan(None, (step,))
    for braced in (False, True):
        text = _sentence(step, braced)
        got = _read_back(text)
        if got == expected:
            return text
    if isinstance(got, Plan):
        reading = got.steps[0] if len(got.steps) == 1 else got.steps
        raise PlanError(f"cannot write {step!r}: {text!r} reads back as {reading!r}")
    raise PlanError(f"cannot write {step!r}: {text!r} does not parse ({got})")


def format_plan(plan: Plan, check: bool = False) -> str:
    """The canonical text of ``plan``: ``Type: <type>`` (when set), then one sentence per line.

    ``parse_plan(format_plan(plan)) == plan`` for every plan that passes the semantic
    checks; pass ``check=True`` to run them here too.
    """
    if check:
        check_plan(plan)
    lines: list[str] = []
    if plan.type is not None:
        header = f"Type: {plan.type}"
        if _read_back(header) != Plan(plan.type, ()):
            raise PlanError(f"cannot write the plan type {plan.type!r}; it must be a single word")
        lines.append(header)
    lines.extend(format_step(step) for step in plan.steps)
    return "\n".join(lines) + "\n"
