"""Errors the knowledge-graph layer reports to a user.

All are :class:`~nl2sparql.errors.Nl2SparqlError`, so the CLI and the service print the
message (which names the store, file, URL or line) instead of a traceback.
"""

from __future__ import annotations

from nl2sparql.errors import Nl2SparqlError


class StoreError(Nl2SparqlError):
    """A store cannot be opened, or a name given to ``open_store`` is unknown."""


class QueryError(Nl2SparqlError):
    """The engine rejected or failed a query (syntax error, engine error)."""


class QueryTimeout(QueryError):
    """A query ran past its time limit."""


class UnsupportedQuery(QueryError):
    """The query is not a SELECT or ASK query (CONSTRUCT, DESCRIBE, ...), or is not lexable."""


class LoadError(Nl2SparqlError):
    """A file could not be loaded into a store; the store is left as it was."""


class EndpointError(QueryError):
    """A remote SPARQL endpoint is unreachable or answered with an error."""
