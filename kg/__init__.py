"""Knowledge-graph access: read-only stores (Oxigraph, rdflib, SPARQL endpoint), dataset loaders, importers.

Importing this package is cheap: store back-ends (pyoxigraph, rdflib, SPARQLWrapper) load
only when :func:`open_store` first asks for one.
"""

from nl2sparql.kg.errors import (
    EndpointError,
    LoadError,
    QueryError,
    QueryTimeout,
    StoreError,
    UnsupportedQuery,
)
from nl2sparql.kg.readonly import ReadOnlyViolation, check_read_only
from nl2sparql.kg.store import Store, available_stores, open_store, register_store
from nl2sparql.kg.terms import SelectResult, StoreStats, Term

__all__ = [
    "EndpointError",
    "LoadError",
    "QueryError",
    "QueryTimeout",
    "ReadOnlyViolation",
    "SelectResult",
    "Store",
    "StoreError",
    "StoreStats",
    "Term",
    "UnsupportedQuery",
    "available_stores",
    "check_read_only",
    "open_store",
    "register_store",
]
