"""Plan text -> :class:`~nl2sparql.plan.steps.Plan`, with errors that say where and what was expected.

``plan.lark`` reads the sentence structure (LALR, contextual lexer); this module turns the
parse tree into the typed steps of :mod:`nl2sparql.plan.steps`, splits each ``Find`` by
the rule of :mod:`nl2sparql.plan.refs`, and runs the semantic checks. Every
failure is a :class:`PlanSyntaxError` (line, column, expected forms) or a
:class:`PlanError` (line): the planner's output is untrusted text, and the pipeline's
retry logic needs to tell "unreadable" from "wrong" without a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from nl2sparql.plan.refs import split_find, unquote
from nl2sparql.plan.steps import (
    TIME_OPERATORS,
    Absent,
    Answer,
    Calculate,
    Combine,
    Compute,
    Count,
    Find,
    Literal,
    MakeSure,
    Mention,
    Plan,
    PlanError,
    PlanSyntaxError,
    Rank,
    Ref,
    Step,
    Var,
    check_plan,
)

__all__ = ["PlanError", "PlanSyntaxError", "parse_plan", "read_plan"]

#: What a step line may start with, in the order an error message lists them.
STEP_FORMS: dict[str, str] = {
    "_FIND": "Find ...",
    "_MAKE_SURE": "Make sure ...",
    "_RANK": "Rank ...",
    "_SORT": "Sort the result ...",
    "_COUNT": "Count ...",
    "_COMPUTE": "Compute ...",
    "_COMBINE": "Combine ...",
    "_THE_ANSWER_IS": "The answer is ...",
}
_VALUE = 'a value (?var, number, date, "string", name or {name}) ending the sentence'
TERMINAL_FORMS: dict[str, str] = {
    "_TYPE": "Type: <name>",
    "TYPE_NAME": "a type name (composition, conjunction, comparative, superlative, ...)",
    "DESCRIPTION": "a description followed by ', assign it to ?v'",
    "_ASSIGN": "', assign it to'",
    "VAR": "a variable (?x)",
    "_IS": "'is'",
    "NOT": "'not'",
    "COMPARISON": "a comparison (greater than, less than, at least, at most, before, after)",
    "HOLDS_DURING": "'holds during'",
    "NOT_HOLDS_DURING": "'does not hold during'",
    "CONTAINS": "'contains'",
    "NOT_CONTAINS": "'does not contain'",
    "FUNCTION": "'the average', 'the sum', 'the minimum' or 'the maximum'",
    "_OF": "'of'",
    "_WHETHER": "'whether'",
    "IF_ANY": "'if any'",
    "_NOTHING_IS": "'nothing is'",
    "CLAUSE": "a description ending the sentence (the nickname of ?x)",
    "_FOR_EACH": "'for each'",
    "ARITHMETIC": "'plus', 'minus', 'times', 'divided by' or 'as a percentage of'",
    "_EXISTS": "'exists'",
    "NUMBER": _VALUE,
    "DATE": _VALUE,
    "STRING": _VALUE,
    "BRACED": _VALUE,
    "MENTION": _VALUE,
    "_BY": "'by'",
    "_IN": "'in'",
    "DIRECTION": "'descending' or 'ascending'",
    "_ORDER": "'order'",
    "_AND": "'and'",
    "_KEEP_FIRST": "'keep the first'",
    "KEEP_RESULTS": "'keep results'",
    "_TO": "'to'",
    "KEEP_COUNT": "a number",
    "RESULT": "'result'",
    "_THE_ANSWER_IS": "'the answer is'",
    "_DOT": "'.'",
    "_NL": "end of line",
    "$END": "end of plan",
}
_ORDER = list(STEP_FORMS) + list(TERMINAL_FORMS)
_YEAR = re.compile(r"\d{4}")
#: Longer lines are refused before parsing: no sentence of a plan is this long, and the
#: free-text terminals' look-aheads would make pathological lines slow.
MAX_LINE_LENGTH = 2000
#: Plans with more steps or characters are refused before any work: real plans have a
#: handful of steps, and every step costs an embedding and a reconstruction search (a
#: 5,000-step plan spent about a minute in recall alone before these bounds).
MAX_PLAN_STEPS = 64
MAX_PLAN_CHARS = 20_000
_SPACES = re.compile(r"[ \t]+")


@cache
def _parser() -> Lark:
    return Lark.open_from_package(
        "nl2sparql.plan", "plan.lark", parser="lalr", lexer="contextual", transformer=_ToSteps()
    )


def _var(token: Token) -> Var:
    return Var(str(token)[1:])


def number_literal(text: str, op: str) -> Literal:
    """The number ``text`` as the grammar reads it after ``op``: four digits after a time
    operator (before, after) are a year, anything else a number."""
    return Literal(text, "year" if op in TIME_OPERATORS and _YEAR.fullmatch(text) else "number")


def _value(token: Token, op: str) -> Ref:
    text = str(token)
    if token.type == "VAR":
        return _var(token)
    if token.type == "NUMBER":
        return number_literal(text, op)
    if token.type == "DATE":
        return Literal(text, "date")
    if token.type == "STRING":
        return Literal(unquote(text), "string")
    if token.type == "BRACED":
        name = text[1:-1].strip()
        if not name:
            raise PlanSyntaxError("an empty {} where a name was expected", token.line or 0, token.column or 0)
        return Mention(name)
    return Mention(text)


def _line(token: Token) -> int:
    """The step's line: every step is one line, so any of its tokens tells."""
    return token.line or 0


def _count_of(token: Token, least: int) -> int:
    """A ``keep`` number, refused below ``least`` where it is written."""
    number = int(token)
    if number < least:
        raise PlanSyntaxError(
            f"'{number}' keeps nothing; expected a number >= {least}",
            token.line or 0,
            token.column or 0,
            (f"a number >= {least}",),
        )
    return number


def _keep(tokens: tuple[Token, ...]) -> tuple[int, int]:
    """``(keep, skip)`` of ``keep the first [N]`` or ``keep results A to B`` (B >= A >= 1)."""
    counts = [token for token in tokens if token.type == "KEEP_COUNT"]
    if not any(token.type == "KEEP_RESULTS" for token in tokens):
        return (_count_of(counts[0], 1) if counts else 1), 0
    first, last = _count_of(counts[0], 1), _count_of(counts[1], 1)
    if last < first:
        raise PlanSyntaxError(
            f"'results {first} to {last}' keeps nothing; the second number must be at least the first",
            counts[1].line or 0,
            counts[1].column or 0,
            (f"a number >= {first}",),
        )
    return last - first + 1, first - 1


class _ToSteps(Transformer[Token, list[object]]):
    """Parse tree -> ``[type name?, (step, line), ...]``; run inside the LALR parser (no tree is built)."""

    def start(self, children: list[object]) -> list[object]:
        return children

    @v_args(inline=True)
    def header(self, name: Token) -> str:
        return str(name)

    @v_args(inline=True)
    def find(self, description: Token, target: Token, *if_any: Token) -> tuple[Step, int]:
        body, refs = _split_description(description)
        return Find(body, refs, _var(target), optional=bool(if_any)), _line(description)

    @v_args(inline=True)
    def make_sure_absent(self, clause: Token) -> tuple[Step, int]:
        body, refs = _split_description(clause)
        return Absent(body, refs), _line(clause)

    @v_args(inline=True)
    def make_sure_is(self, var: Token, *rest: Token) -> tuple[Step, int]:
        negated = any(token.type == "NOT" for token in rest)
        comparison = next((token for token in rest if token.type == "COMPARISON"), None)
        op = _SPACES.sub(" ", str(comparison)).lower() if comparison is not None else "is"
        return MakeSure(_var(var), op, _value(rest[-1], op), negated), _line(var)

    @v_args(inline=True)
    def make_sure_during(self, var: Token, _op: Token, value: Token) -> tuple[Step, int]:
        return MakeSure(_var(var), "holds during", _value(value, "holds during")), _line(var)

    @v_args(inline=True)
    def make_sure_not_during(self, var: Token, _op: Token, value: Token) -> tuple[Step, int]:
        step = MakeSure(_var(var), "holds during", _value(value, "holds during"), negated=True)
        return step, _line(var)

    @v_args(inline=True)
    def make_sure_contains(self, var: Token, op: Token, value: Token) -> tuple[Step, int]:
        """The text is a quoted string; a bare word (``contains night``) reads as the same string."""
        if value.type in ("VAR", "BRACED"):
            raise PlanSyntaxError(
                f'expected a quoted text after {str(op).lower()!r} (Make sure ?v contains "word".); found {value!s}',
                value.line or 0,
                value.column or 0,
                ('a quoted text ("word")',),
            )
        text = unquote(str(value)) if value.type == "STRING" else str(value)
        step = MakeSure(_var(var), "contains", Literal(text, "string"), negated=op.type == "NOT_CONTAINS")
        return step, _line(var)

    @v_args(inline=True)
    def rank(self, var: Token, key: Token, direction: Token, *rest: Token) -> tuple[Step, int]:
        descending = str(direction).lower() == "descending"
        keep, skip = _keep(rest)
        return Rank(_var(var), _var(key), descending, keep, skip), _line(var)

    @v_args(inline=True)
    def sort(self, key: Token, direction: Token, *rest: Token) -> tuple[Step, int]:
        descending = str(direction).lower() == "descending"
        keep, skip = _keep(rest)
        return Rank(None, _var(key), descending, keep, skip), _line(key)

    @v_args(inline=True)
    def count(self, var: Token, *rest: Token) -> tuple[Step, int]:
        per = tuple(_var(token) for token in rest[:-1])
        return Count(_var(var), _var(rest[-1]), per), _line(var)

    @v_args(inline=True)
    def compute(self, function: Token, var: Token, *rest: Token) -> tuple[Step, int]:
        name = _SPACES.sub(" ", str(function)).lower().removeprefix("the ")
        per = tuple(_var(token) for token in rest[:-1])
        return Compute(name, _var(var), _var(rest[-1]), per), _line(function)

    @v_args(inline=True)
    def calculate(self, a: Token, op: Token, b: Token, target: Token) -> tuple[Step, int]:
        name = _SPACES.sub(" ", str(op)).lower()
        return Calculate(name, _var(a), _var(b), _var(target)), _line(a)

    @v_args(inline=True)
    def combine(self, a: Token, b: Token, target: Token) -> tuple[Step, int]:
        return Combine(_var(a), _var(b), _var(target)), _line(a)

    @v_args(inline=True)
    def answer(self, var: Token, *more: Token) -> tuple[Step, int]:
        return Answer(_var(var), more=tuple(_var(token) for token in more)), _line(var)

    @v_args(inline=True)
    def answer_whether(self, var: Token) -> tuple[Step, int]:
        return Answer(_var(var), exists=True), _line(var)


def _split_description(description: Token) -> tuple[str, tuple[Ref, ...]]:
    """A ``Find``'s (or ``Make sure nothing is``'s) description and refs, by :func:`split_find`;
    braces are only allowed around a name after an `` of ``."""
    body, refs = split_find(str(description))
    brace = next((i for i, char in enumerate(body) if char in "{}"), None)
    if brace is not None:
        raise PlanSyntaxError(
            "'{' or '}' is only allowed around a name after an ' of ': "
            "expected Find <description> of {name}, assign it to ?v.",
            description.line or 0,
            (description.column or 0) + brace,
            ("Find <description> of {name}, assign it to ?v.",),
        )
    return body, refs


def expected_forms(names: Iterable[str]) -> tuple[str, ...]:
    """Human forms for a set of lark terminal names; a step opener set becomes the list of steps."""
    names = set(names)
    if "_FIND" in names:
        forms = [form for name, form in STEP_FORMS.items() if name in names]
        if "_TYPE" in names:
            forms.insert(0, TERMINAL_FORMS["_TYPE"])
        return tuple(forms)
    forms = [TERMINAL_FORMS.get(name, name) for name in sorted(names, key=_rank_of)]
    return tuple(dict.fromkeys(forms))


def _rank_of(name: str) -> tuple[int, str]:
    return (_ORDER.index(name) if name in _ORDER else len(_ORDER), name)


def _syntax_error(error: UnexpectedInput, text: str) -> PlanSyntaxError:
    if isinstance(error, UnexpectedToken):
        names = error.expected
        line, column = error.token.line, error.token.column
        if error.token.type == "$END" or line is None or column is None:
            line, column = error.line, error.column
    elif isinstance(error, UnexpectedCharacters):
        names, line, column = error.allowed, error.line, error.column
    else:
        names, line, column = getattr(error, "expected", set()), error.line, error.column
    if line is None or line < 1:
        line = text.count("\n") or 1
        column = len(text.split("\n")[line - 1]) + 1 if text else 1
    if column is None or column < 1:
        column = 1
    forms = expected_forms(names)
    source = text.split("\n")[line - 1] if line - 1 < text.count("\n") + 1 else ""
    rest = source[column - 1 :].strip()
    found = f"'{rest[:40]}{'...' if len(rest) > 40 else ''}'" if rest else "end of line"
    if len(forms) == 1:
        message = f"expected {forms[0]}; found {found}"
    else:
        message = f"expected one of: {', '.join(forms)}; found {found}"
    return PlanSyntaxError(message, line, column, forms)


def read_plan(text: str) -> tuple[Plan, list[int], int]:
    """Parse ``text`` without the semantic checks: the plan, each step's line, the last line.

    Raises :class:`PlanSyntaxError`.
    """
    if not isinstance(text, str):
        raise TypeError(f"plan text must be str, not {type(text).__name__}")
    text = text.replace("\r\n", "\n")
    check_plan_size(text)
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > MAX_LINE_LENGTH:
            raise PlanSyntaxError(
                f"line is {len(line)} characters long; a plan sentence has at most {MAX_LINE_LENGTH}",
                number,
                MAX_LINE_LENGTH + 1,
                ("a shorter sentence",),
            )
    try:
        children = _parser().parse(text + "\n")
    except UnexpectedInput as error:
        raise _syntax_error(error, text) from None
    except VisitError as error:
        if isinstance(error.orig_exc, PlanError):
            raise error.orig_exc from None
        raise
    plan_type = children[0] if children and isinstance(children[0], str) else None
    numbered = [child for child in children if isinstance(child, tuple)]
    steps = tuple(step for step, _line in numbered)
    lines = [line for _step, line in numbered]
    last_line = len(text.rstrip().split("\n")) + 1 if text.strip() else 1
    return Plan(plan_type, steps), lines, last_line


def check_plan_size(text: str | None = None, steps: int | None = None) -> None:
    """Refuse a plan over :data:`MAX_PLAN_CHARS` characters or :data:`MAX_PLAN_STEPS` steps
    (step lines for text, ``steps`` for a plan already built) with a :class:`PlanError`."""
    if text is not None:
        if len(text) > MAX_PLAN_CHARS:
            raise PlanError(
                f"the plan has {len(text):,} characters; a plan has at most {MAX_PLAN_CHARS:,} (MAX_PLAN_CHARS)"
            )
        lines = [line for line in text.split("\n") if line.strip()]
        steps = sum(not line.lstrip().lower().startswith("type:") for line in lines)
    if steps is not None and steps > MAX_PLAN_STEPS:
        raise PlanError(f"the plan has {steps:,} steps; a plan has at most {MAX_PLAN_STEPS} (MAX_PLAN_STEPS)")


def parse_plan(text: str) -> Plan:
    """The :class:`Plan` written in ``text``.

    Raises :class:`PlanSyntaxError` (with line, column and the expected forms) for text
    outside the grammar and :class:`PlanError` (with the line) for a plan that reads but
    cannot run: a variable used before it is assigned, no answer line, a step after it.
    """
    plan, lines, last_line = read_plan(text)
    check_plan(plan, lines, last_line)
    return plan
