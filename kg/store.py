"""The small, read-only interface every knowledge-graph store offers, and the store registry.

The pipeline only needs to run SELECT and ASK queries, fetch names and read predicate
counts, so a store is five methods (:class:`Store`). Built-in stores are found lazily by
name, so importing :mod:`nl2sparql.kg` loads neither pyoxigraph, rdflib nor SPARQLWrapper;
third-party stores plug in through the ``nl2sparql.stores`` entry-point group (the same
way rdflib finds its plugins) or :func:`register_store` at run time.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable
from importlib.metadata import entry_points
from types import TracebackType
from typing import Any, ClassVar

from nl2sparql.kg.errors import QueryError, StoreError, UnsupportedQuery
from nl2sparql.kg.readonly import check_read_only
from nl2sparql.kg.terms import SelectResult, StoreStats, Term

NS = "http://rdf.freebase.com/ns/"
NAME_PREDICATE = NS + "type.object.name"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
ENTRY_POINT_GROUP = "nl2sparql.stores"

_LABEL_CHUNK = 200


class Store(ABC):
    """A read-only SPARQL store. Subclasses implement ``_select`` and ``_ask``.

    ``select`` and ``ask`` pass every query through
    :func:`~nl2sparql.kg.readonly.check_read_only` first, with the store's SERVICE
    allow-list, and apply ``timeout`` (seconds; the store's default when ``None``).
    """

    name: ClassVar[str] = "store"

    def __init__(self, *, timeout: float | None = None, allowed_services: Collection[str] = ()) -> None:
        self.default_timeout = timeout
        self.allowed_services = frozenset(allowed_services)

    # -- the interface -----------------------------------------------------------------
    def select(self, query: str, timeout: float | None = None) -> SelectResult:
        """Run a SELECT query."""
        form = check_read_only(query, self.allowed_services)
        if form != "SELECT":
            raise UnsupportedQuery(f"select() runs SELECT queries; this is an {form} query, use ask()")
        return self._select(query, self._timeout(timeout))

    def ask(self, query: str, timeout: float | None = None) -> bool:
        """Run an ASK query."""
        form = check_read_only(query, self.allowed_services)
        if form != "ASK":
            raise UnsupportedQuery(f"ask() runs ASK queries; this is a {form} query, use select()")
        return self._ask(query, self._timeout(timeout))

    def query(self, query: str, timeout: float | None = None) -> SelectResult | bool:
        """Run a SELECT or an ASK query, whichever ``query`` is."""
        form = check_read_only(query, self.allowed_services)
        if form == "ASK":
            return self._ask(query, self._timeout(timeout))
        return self._select(query, self._timeout(timeout))

    def labels(self, ids: Iterable[str]) -> dict[str, str]:
        """Names of entities: ``ns:type.object.name``, else ``rdfs:label``; English first.

        ``ids`` are Freebase ids (``m.0abc``) or full IRIs; the result is keyed by the id as
        given and leaves out entities without a name (CVT nodes, unknown ids).
        """
        wanted = {_to_iri(i): i for i in dict.fromkeys(ids)}
        found: dict[str, tuple[int, str]] = {}
        iris = list(wanted)
        for start in range(0, len(iris), _LABEL_CHUNK):
            chunk = iris[start : start + _LABEL_CHUNK]
            values = " ".join(f"<{iri}>" for iri in chunk)
            result = self.select(
                f"SELECT ?s ?p ?name WHERE {{ VALUES ?s {{ {values} }} VALUES ?p {{ <{NAME_PREDICATE}> "
                f"<{RDFS_LABEL}> }} ?s ?p ?name . FILTER(isLiteral(?name)) }}"
            )
            for row in result.rows:
                rank = _label_rank(row["p"], row["name"])
                iri = row["s"].value
                if iri not in found or rank < found[iri][0]:
                    found[iri] = (rank, row["name"].value)
        return {wanted[iri]: found[iri][1] for iri in iris if iri in found}

    def stats(self) -> StoreStats:
        """Triple count and triples per predicate."""
        result = self.select("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p")
        predicates = {row["p"].value: int(row["n"].value) for row in result.rows if "p" in row}
        return StoreStats(sum(predicates.values()), predicates)

    def close(self) -> None:  # noqa: B027 - stores holding nothing need not override it
        """Release the store's resources; the store is unusable afterwards."""

    # -- for subclasses ----------------------------------------------------------------
    @abstractmethod
    def _select(self, query: str, timeout: float | None) -> SelectResult: ...

    @abstractmethod
    def _ask(self, query: str, timeout: float | None) -> bool: ...

    def _timeout(self, timeout: float | None) -> float | None:
        value = self.default_timeout if timeout is None else timeout
        if value is not None and value <= 0:
            raise QueryError(f"timeout must be positive, got {value}")
        return value

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _to_iri(entity: str) -> str:
    if entity.startswith(("http://", "https://", "urn:")):
        return entity
    return NS + entity


def _label_rank(predicate: Term, name: Term) -> int:
    lang_rank = (
        0 if name.lang in ("en",) or (name.lang or "").startswith("en-") else 1 if not name.lang else 2
    )
    return (0 if predicate.value == NAME_PREDICATE else 3) + lang_rank


# -- registry ----------------------------------------------------------------------------

StoreFactory = Callable[..., Store]

_BUILTIN: dict[str, str] = {
    "oxigraph": "nl2sparql.kg.oxigraph_store:OxigraphStore",
    "rdflib": "nl2sparql.kg.rdflib_store:RdflibStore",
    "endpoint": "nl2sparql.kg.endpoint_store:EndpointStore",
}
_REGISTERED: dict[str, StoreFactory] = {}


def register_store(name: str, factory: StoreFactory) -> None:
    """Make ``open_store(name, **options)`` call ``factory(**options)``."""
    if not name or not callable(factory):
        raise StoreError(f"register_store needs a name and a callable, got {name!r}, {factory!r}")
    _REGISTERED[name] = factory


def available_stores() -> list[str]:
    """Names ``open_store`` accepts: registered, built-in and entry-point stores."""
    names = set(_REGISTERED) | set(_BUILTIN)
    names |= {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names)


def open_store(name: str, **options: Any) -> Store:
    """Open the store called ``name`` (``oxigraph``, ``rdflib``, ``endpoint`` or a plugin)."""
    factory = _resolve(name)
    try:
        store = factory(**options)
    except TypeError as exc:
        raise StoreError(f"store {name!r}: bad options {sorted(options)}: {exc}") from exc
    if not isinstance(store, Store):
        raise StoreError(f"store {name!r}: factory returned {type(store).__name__}, not a Store")
    return store


def _resolve(name: str) -> StoreFactory:
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name in _BUILTIN:
        module, _, attr = _BUILTIN[name].partition(":")
        factory = getattr(importlib.import_module(module), attr)
    else:
        matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not matches:
            raise StoreError(f"unknown store {name!r}; available: {', '.join(available_stores())}")
        try:
            factory = matches[0].load()
        except Exception as exc:  # a broken plugin must not look like a missing one
            raise StoreError(f"store plugin {name!r} ({matches[0].value}) failed to load: {exc}") from exc
    _REGISTERED[name] = factory
    return factory
