"""Typed plan steps: what the planner's sentences mean once they are parsed.

A plan is MemQ's list of reasoning sentences made strict (see ARCHITECTURE.md, "Plan
language"). The parser (:mod:`nl2sparql.plan.reader`) turns text into these
frozen values and the formatter (:mod:`nl2sparql.plan.writer`) turns them back,
so the rest of the pipeline (recall, compilation, metrics) never handles raw sentences.

Nothing here knows about text syntax except :func:`check_plan`, the semantic checks
(variables used before they are assigned, a missing answer line, ...) that both the
parser and hand-built plans go through.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Sequence
from dataclasses import dataclass

from nl2sparql.errors import Nl2SparqlError

#: The question types of KELGoP / CWQ; a plan's ``type`` may be any identifier.
KNOWN_TYPES: tuple[str, ...] = ("composition", "conjunction", "comparative", "superlative")

#: ``MakeSure.op`` values. ``negated`` turns each into its opposite ("is not", "does not hold during").
OPERATORS: tuple[str, ...] = (
    "is",
    "greater than",
    "less than",
    "at least",
    "at most",
    "before",
    "after",
    "holds during",
    "contains",
)
#: Operators that compare points or spans of time: a bare four-digit number after them is a year.
TIME_OPERATORS: frozenset[str] = frozenset({"before", "after", "holds during"})

#: ``Compute.function`` values: what a computed answer is of its variable's values.
FUNCTIONS: tuple[str, ...] = ("average", "sum", "minimum", "maximum")
#: The question type of a plan whose answer is yes or no.
YES_NO = "yes-no"

LiteralKind = typing.Literal["number", "year", "date", "string"]
LITERAL_KINDS: tuple[str, ...] = ("number", "year", "date", "string")

VARIABLE_IN_TEXT = re.compile(r"\?([A-Za-z_][A-Za-z0-9_]*)")


class PlanError(Nl2SparqlError):
    """A plan that reads but does not make sense (or cannot be written); ``line`` is 1-based."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.reason = message
        super().__init__(f"line {line}: {message}" if line is not None else message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.line))


class PlanSyntaxError(PlanError):
    """Plan text that does not follow the plan grammar, with where and what was expected."""

    def __init__(self, message: str, line: int, column: int, expected: Sequence[str] = ()) -> None:
        self.column = column
        self.expected = tuple(expected)
        super().__init__(message, line)
        self.args = (f"line {line}, column {column}: {message}",)

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.line, self.column, self.expected))


@dataclass(frozen=True, slots=True)
class Var:
    """A plan variable; ``name`` is written without the leading ``?``."""

    name: str

    def __str__(self) -> str:
        return f"?{self.name}"


@dataclass(frozen=True, slots=True)
class Mention:
    """Text naming an entity ("Justin Bieber"), matched against the question's entities later."""

    text: str


@dataclass(frozen=True, slots=True)
class Literal:
    """A constant: ``value`` is the text as written (for strings, without quotes or escapes).

    ``kind`` is lexical: ``-3``/``2.5`` are numbers, ``2011-05``/``2011-05-01`` dates,
    ``"..."`` strings; a bare four-digit number compared in time (``before``, ``after``,
    ``holds during``) is a ``year``, elsewhere it is a number.
    """

    value: str
    kind: LiteralKind


Ref = Var | Mention | Literal


def _vars_of(refs: Sequence[Ref]) -> tuple[Var, ...]:
    return tuple(ref for ref in refs if isinstance(ref, Var))


@dataclass(frozen=True, slots=True)
class Find:
    """``Find <description> of <ref> [and <ref>], assign it to ?target.``

    ``description`` is free text ("the end date"); variables written inside it
    ("the films directed by ?d") are inputs too, see :attr:`inputs`.
    """

    description: str
    refs: tuple[Ref, ...]
    target: Var

    @property
    def inputs(self) -> tuple[Var, ...]:
        seen = dict.fromkeys(_vars_of(self.refs))
        seen.update(dict.fromkeys(Var(name) for name in VARIABLE_IN_TEXT.findall(self.description)))
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class MakeSure:
    """``Make sure ?var is [not] [<comparison>] <value>.`` / ``Make sure ?var holds during <value>.``

    ``Make sure ?var contains "word".`` (``op`` ``contains``; negated: ``does not contain``)
    matches text: graphs whose names live in IRIs or literals are asked for "a name with
    the word ..." (QALD), which no graph statement can say.
    """

    var: Var
    op: str
    value: Ref
    negated: bool = False

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var, *_vars_of((self.value,)))

    @property
    def target(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Rank:
    """``Rank ?var by ?key in descending order and keep the first [N].``

    ``var`` is ``None`` for MemQ's ``Sort the result based on ?key ...``, which orders the
    result rows as a whole rather than naming the variable being ranked.
    """

    var: Var | None
    key: Var
    descending: bool
    keep: int = 1

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.key,) if self.var is None else (self.var, self.key)

    @property
    def target(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Count:
    """``Count ?var, assign it to ?target.``"""

    var: Var
    target: Var

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var,)


@dataclass(frozen=True, slots=True)
class Compute:
    """``Compute the average|sum|minimum|maximum of ?var, assign it to ?target.``

    An answer computed from many values (QALD's aggregation questions): one of
    :data:`FUNCTIONS` over the values ``?var`` takes. ``Count`` stays its own step (MemQ's).
    """

    function: str
    var: Var
    target: Var

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var,)


@dataclass(frozen=True, slots=True)
class Combine:
    """``Combine ?a and ?b, assign it to ?target.``: the union of two result sets."""

    a: Var
    b: Var
    target: Var

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.a, self.b)


@dataclass(frozen=True, slots=True)
class Answer:
    """``The answer is ?var.`` (MemQ writes ``Finally the answer is ?var.``).

    ``exists``: ``The answer is whether ?var exists.``, a yes/no question (SPARQL's ``ASK``):
    the answer is whether the steps before find any value for ``?var``.
    """

    var: Var
    exists: bool = False

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var,)

    @property
    def target(self) -> None:
        return None


Step = Find | MakeSure | Rank | Count | Compute | Combine | Answer


@dataclass(frozen=True, slots=True)
class Plan:
    """A question type (``Type: composition``; ``None`` when the line is absent) and the steps."""

    type: str | None
    steps: tuple[Step, ...]

    @property
    def answer(self) -> Var | None:
        for step in self.steps:
            if isinstance(step, Answer):
                return step.var
        return None


def step_lines(plan: Plan) -> list[int]:
    """The line of each step in the canonical text of ``plan`` (the ``Type:`` line comes first)."""
    first = 2 if plan.type is not None else 1
    return list(range(first, first + len(plan.steps)))


def check_plan(plan: Plan, lines: Sequence[int] | None = None, end_line: int | None = None) -> None:
    """Raise :class:`PlanError` (with the step's line) when ``plan`` cannot be compiled.

    Rules: every variable a step reads was assigned by an earlier step; two ``Find`` steps
    may assign the same variable (the results intersect) but ``Count``/``Compute``/``Combine``
    need a new one; a ``Find`` may not read its own target; ``Rank`` needs a key other than the
    ranked variable; there is exactly one answer line and it comes last.
    ``lines`` gives each step's line (default: as in :func:`format_plan`'s output) and
    ``end_line`` the line reported for a missing answer (default: the line after the last).
    """
    if lines is None:
        lines = step_lines(plan)
    if len(lines) != len(plan.steps):
        raise ValueError("check_plan: one line number per step is needed")
    if end_line is None:
        end_line = (lines[-1] + 1) if lines else (2 if plan.type is not None else 1)
    assigned_by: dict[Var, str] = {}
    answer_line: int | None = None
    for step, line in zip(plan.steps, lines, strict=True):
        if answer_line is not None:
            raise PlanError(
                f"a step follows the answer line (line {answer_line}); the answer comes last", line
            )
        for var in step.inputs:
            if var not in assigned_by:
                raise PlanError(f"{var} is used before it is assigned", line)
        kind = type(step).__name__
        if isinstance(step, Find):
            if step.target in step.inputs:
                raise PlanError(f"{step.target} is both an input and the output of this Find", line)
            if assigned_by.get(step.target, "Find") != "Find":
                raise PlanError(
                    f"{step.target} was assigned by {assigned_by[step.target]}; "
                    "only Find steps may share a variable",
                    line,
                )
        elif isinstance(step, Count | Compute | Combine):
            if isinstance(step, Compute) and step.function not in FUNCTIONS:
                raise PlanError(f"unknown function {step.function!r}; one of: {', '.join(FUNCTIONS)}", line)
            if step.target in assigned_by:
                raise PlanError(f"{step.target} is already assigned; {kind} needs a new variable", line)
            if isinstance(step, Combine) and step.a == step.b:
                raise PlanError(f"Combine joins {step.a} with itself", line)
        elif isinstance(step, Rank):
            if step.keep < 1:
                raise PlanError(f"Rank keeps {step.keep} results; it must keep at least 1", line)
            if step.var == step.key:
                raise PlanError(f"{step.key} is ranked by itself", line)
        elif isinstance(step, MakeSure):
            if step.op not in OPERATORS:
                raise PlanError(f"unknown comparison {step.op!r}; one of: {', '.join(OPERATORS)}", line)
            if step.value == step.var:
                raise PlanError(f"{step.var} is compared with itself", line)
            if step.op == "contains" and not (isinstance(step.value, Literal) and step.value.kind == "string"):
                raise PlanError(f'{step.var} contains a quoted text ("word"), not {step.value!r}', line)
        elif isinstance(step, Answer):
            answer_line = line
        target = step.target
        if target is not None:
            assigned_by[target] = kind
    if answer_line is None:
        raise PlanError("the plan has no answer line ('The answer is ?v.')", end_line)
