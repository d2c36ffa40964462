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
from collections.abc import Mapping, Sequence
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
#: ``Calculate.op`` values: arithmetic on two values of one row (``?a minus ?b``).
ARITHMETIC: tuple[str, ...] = ("plus", "minus", "times", "divided by", "as a percentage of")
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

    ``optional``: ``Find ..., assign it to ?target if any.`` keeps the rows that have no
    such value (SPARQL's ``OPTIONAL``), for an answer column that may be empty ("each band
    and its nickname, if it has one"); ``?target`` is then unbound in those rows.
    """

    description: str
    refs: tuple[Ref, ...]
    target: Var
    optional: bool = False

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
class Absent:
    """``Make sure nothing is <description> of <ref>.``: no value fits (``FILTER NOT EXISTS``).

    The description is a ``Find``'s ("the nickname of ?x"), recalled and bound as one: the
    absence of what that ``Find`` would find ("bands with no nickname"). It reads from its
    refs and assigns nothing; at least one ref is a variable, or it would say nothing of a row.
    """

    description: str
    refs: tuple[Ref, ...]

    @property
    def inputs(self) -> tuple[Var, ...]:
        seen = dict.fromkeys(_vars_of(self.refs))
        seen.update(dict.fromkeys(Var(name) for name in VARIABLE_IN_TEXT.findall(self.description)))
        return tuple(seen)

    @property
    def target(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Rank:
    """``Rank ?var by ?key in descending order and keep the first [N].``

    ``var`` is ``None`` for MemQ's ``Sort the result based on ?key ...``, which orders the
    result rows as a whole rather than naming the variable being ranked.

    ``skip``: ``... and keep results 6 to 10.`` (``skip=5, keep=5``), a window further down
    the ranking (SPARQL's ``OFFSET``); the first N are ``skip=0``.
    """

    var: Var | None
    key: Var
    descending: bool
    keep: int = 1
    skip: int = 0

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.key,) if self.var is None else (self.var, self.key)

    @property
    def target(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Count:
    """``Count ?var, assign it to ?target.``

    ``per``: ``Count ?var for each ?g, assign it to ?target.`` counts per value of ``?g``
    (SPARQL's ``GROUP BY ?g``), so the answer can be ``?g and ?target``; a ``Make sure`` on
    ``?target`` then keeps the groups whose count passes (``HAVING``).
    """

    var: Var
    target: Var
    per: tuple[Var, ...] = ()

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var, *self.per)


@dataclass(frozen=True, slots=True)
class Compute:
    """``Compute the average|sum|minimum|maximum of ?var, assign it to ?target.``

    An answer computed from many values (QALD's aggregation questions): one of
    :data:`FUNCTIONS` over the values ``?var`` takes. ``Count`` stays its own step (MemQ's).
    ``per``: ``Compute the average of ?v for each ?g, assign it to ?a.``, one value per
    group, as for :class:`Count`.
    """

    function: str
    var: Var
    target: Var
    per: tuple[Var, ...] = ()

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var, *self.per)


@dataclass(frozen=True, slots=True)
class Calculate:
    """``Compute ?a minus ?b, assign it to ?target.``: arithmetic on two values of a row.

    ``op`` is one of :data:`ARITHMETIC`: ``plus``, ``minus``, ``times``, ``divided by`` and
    ``as a percentage of`` (``100 * ?a / ?b``), for the differences and shares analytic
    questions ask ("how many years between the first and the last album").
    """

    op: str
    a: Var
    b: Var
    target: Var

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.a, self.b)


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

    ``more``: ``The answer is ?x and ?v1.``, further answer columns (a ``SELECT`` of several
    variables: "each band and the year it was formed"); ``var`` stays the first.
    """

    var: Var
    exists: bool = False
    more: tuple[Var, ...] = ()

    @property
    def inputs(self) -> tuple[Var, ...]:
        return (self.var, *self.more)

    @property
    def columns(self) -> tuple[Var, ...]:
        """Every answer variable, in the order the sentence names them."""
        return (self.var, *self.more)

    @property
    def target(self) -> None:
        return None


Step = Find | MakeSure | Absent | Rank | Count | Compute | Calculate | Combine | Answer


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
    and an optional ``Find`` need a new one; a ``Find`` may not read its own target; ``Rank``
    needs a key other than the ranked variable; a count per group is not of a group
    variable; there is exactly one answer line, it comes last and names each column once.
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
            raise PlanError(f"a step follows the answer line (line {answer_line}); the answer comes last", line)
        for var in step.inputs:
            if var not in assigned_by:
                raise PlanError(f"{var} is used before it is assigned", line)
        problem = _step_problem(step, assigned_by)
        if problem is not None:
            raise PlanError(problem, line)
        if isinstance(step, Answer):
            answer_line = line
        target = step.target
        if target is not None:
            optional = isinstance(step, Find) and step.optional
            assigned_by[target] = "an optional Find" if optional else type(step).__name__
    if answer_line is None:
        raise PlanError("the plan has no answer line ('The answer is ?v.')", end_line)


def _step_problem(step: Step, assigned_by: Mapping[Var, str]) -> str | None:
    """What is wrong with ``step`` given the variables assigned before it (``None``: nothing)."""
    if isinstance(step, Find):
        return _find_problem(step, assigned_by)
    if isinstance(step, Count | Compute | Calculate | Combine):
        return _new_value_problem(step, assigned_by)
    if isinstance(step, Rank):
        if step.keep < 1:
            return f"Rank keeps {step.keep} results; it must keep at least 1"
        if step.skip < 0:
            return f"Rank skips {step.skip} results; it cannot skip fewer than 0"
        if step.var == step.key:
            return f"{step.key} is ranked by itself"
    elif isinstance(step, MakeSure):
        return _make_sure_problem(step)
    elif isinstance(step, Absent) and not step.inputs:
        return "'Make sure nothing is ...' names no variable; it must say of which ?v nothing is"
    elif isinstance(step, Answer):
        return _answer_problem(step)
    return None


def _find_problem(step: Find, assigned_by: Mapping[Var, str]) -> str | None:
    if step.target in step.inputs:
        return f"{step.target} is both an input and the output of this Find"
    if step.optional and step.target in assigned_by:
        return f"{step.target} is already assigned; an optional Find ('... if any') needs a new variable"
    if assigned_by.get(step.target, "Find") != "Find":
        return f"{step.target} was assigned by {assigned_by[step.target]}; only Find steps may share a variable"
    return None


def _new_value_problem(step: Count | Compute | Calculate | Combine, assigned_by: Mapping[Var, str]) -> str | None:
    kind = type(step).__name__
    if isinstance(step, Compute) and step.function not in FUNCTIONS:
        return f"unknown function {step.function!r}; one of: {', '.join(FUNCTIONS)}"
    if isinstance(step, Calculate) and step.op not in ARITHMETIC:
        return f"unknown arithmetic {step.op!r}; one of: {', '.join(ARITHMETIC)}"
    if step.target in assigned_by:
        return f"{step.target} is already assigned; {kind} needs a new variable"
    if isinstance(step, Combine) and step.a == step.b:
        return f"Combine joins {step.a} with itself"
    if isinstance(step, Calculate) and step.a == step.b:
        return f"{step.a} is computed with itself"
    if isinstance(step, Count | Compute):
        if step.var in step.per:
            return f"{step.var} is both what is counted or computed and a group ('for each {step.var}')"
        if len(set(step.per)) != len(step.per):
            return "a group variable is named twice after 'for each'"
    return None


def _make_sure_problem(step: MakeSure) -> str | None:
    if step.op not in OPERATORS:
        return f"unknown comparison {step.op!r}; one of: {', '.join(OPERATORS)}"
    if step.value == step.var:
        return f"{step.var} is compared with itself"
    if step.op == "contains" and not (isinstance(step.value, Literal) and step.value.kind == "string"):
        return f'{step.var} contains a quoted text ("word"), not {step.value!r}'
    return None


def _answer_problem(step: Answer) -> str | None:
    if len(set(step.columns)) != len(step.columns):
        return "the answer names a variable twice"
    if step.exists and step.more:
        return "a yes/no answer ('whether ?v exists') is about one variable"
    return None
