"""One base class for every error the product reports to a user.

The CLI and the service catch :class:`Nl2SparqlError` and print its message; anything
else reaching them is a bug. Subclasses live next to the code that raises them.
"""

from __future__ import annotations


class Nl2SparqlError(Exception):
    """An error with a message meant for the user (no traceback is shown for it)."""


class ConfigError(Nl2SparqlError):
    """A setting, path or data folder is missing or wrong."""


class InvalidQuestion(Nl2SparqlError):
    """A question that cannot be asked: empty, too long, or not text."""


class DeadlineExceeded(Nl2SparqlError, TimeoutError):
    """The caller's deadline passed before the question was answered."""
