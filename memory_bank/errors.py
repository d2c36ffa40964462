"""Errors the memory bank reports to users (all :class:`Nl2SparqlError`, so the CLI prints one line)."""

from __future__ import annotations

from nl2sparql.errors import Nl2SparqlError


class MemoryBankError(Nl2SparqlError):
    """Base of the memory bank's errors."""


class BankFormatError(MemoryBankError):
    """A bank file or folder is malformed: truncated, corrupt, a bad member path or a bad record."""


class BankDimensionError(MemoryBankError):
    """A bank was embedded with a model of another dimension than the one in use."""


class DecompositionError(MemoryBankError):
    """A query cannot be cut into statements (no triples, variable predicates, unreadable text)."""
