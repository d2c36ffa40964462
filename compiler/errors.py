"""Errors the compiler reports to users: every one names what is wrong and where.

A syntax error carries the line, column, offending token and what the grammar expected
there (never a lark exception); a validation error says which rule the query breaks.
Both are :class:`~nl2sparql.errors.Nl2SparqlError`, so the CLI and the service print
them as one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from nl2sparql.errors import Nl2SparqlError


class SparqlSyntaxError(Nl2SparqlError):
    """The text is not a query of the dialect it was read as."""

    def __init__(
        self,
        message: str,
        line: int,
        column: int,
        token: str | None = None,
        expected: Sequence[str] = (),
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.token = token
        self.expected = tuple(expected)
        super().__init__(self.describe())

    def describe(self, source: str | None = None) -> str:
        """``[source:]line:column: message[; expected ...]`` (the compiler's one-line form)."""
        where = f"{source}:" if source else ""
        text = f"{where}{self.line}:{self.column}: {self.message}"
        if self.expected:
            shown = ", ".join(self.expected[:12]) + (", ..." if len(self.expected) > 12 else "")
            text += f"; expected {shown}"
        return text


class SparqlValidationError(Nl2SparqlError):
    """The query parses but breaks a rule (unbound projection, illegal aggregate, ...)."""

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        self.problems = tuple(problems) or (message,)
        super().__init__(message)


class DialectError(Nl2SparqlError):
    """An unknown reader or generator dialect was asked for."""


class CartesianProductWarning(UserWarning):
    """Two parts of a group share no variable, so their answers multiply."""
