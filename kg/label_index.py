"""An index of every entity's names, built once per store and kept on disk.

Entity linking compares question n-grams with entity labels. Reading the labels out of a
store takes a SELECT over every label triple plus a degree count (about two seconds on the
532k-triple FB15k-237 store, see ``benchmarks/bench_linker.py``), which must not be paid
per question, so the index is built once, written into the store's folder (or to a given
path, atomically) and reloaded in about a tenth of that. The cache records the store's
triple count and the settings it was built with; any difference rebuilds it. Endpoints are
read in pages (LIMIT/OFFSET over an ORDER BY), local stores in one go.

Labels are compared after :func:`normalize` (case-folding, NFKD accent stripping,
punctuation to spaces, whitespace collapsed). A label with punctuation inside is also
indexed with the punctuation dropped, so that ``U.S. Open`` is found from ``us open`` and
``Schleswig-Holstein`` from ``schleswig holstein``.

Entities that no label predicate names get a name made from their IRI's local name
(:mod:`nl2sparql.kg.local_names`), so graphs whose names live only in IRIs can be linked too,
except records (instances of a class no instance of which has a label, where others have);
the index counts how many entities each source named (:attr:`LabelIndex.sources`).
"""

from __future__ import annotations

import bisect
import math
import re
import time
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.atomic import read_gzip_json, write_gzip_json
from nl2sparql.kg.local_names import (
    DEGREE_QUERY,
    LOCAL_NAME,
    LOCAL_NAME_VARIANT,
    local_name_records,
    record_nodes,
    schema_terms,
)

FREEBASE_NS = "http://rdf.freebase.com/ns/"
FREEBASE_NAME = FREEBASE_NS + "type.object.name"
FREEBASE_ALIAS = FREEBASE_NS + "common.topic.alias"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_PREF_LABEL = "http://www.w3.org/2004/02/skos/core#prefLabel"
SKOS_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
SCHEMA_NAME = "http://schema.org/name"
SCHEMA_NAME_HTTPS = "https://schema.org/name"
FOAF_NAME = "http://xmlns.com/foaf/0.1/name"

# Names an entity is shown by (the first one found, in this order) and matched on.
DEFAULT_NAME_PREDICATES: tuple[str, ...] = (
    FREEBASE_NAME,
    RDFS_LABEL,
    SKOS_PREF_LABEL,
    SCHEMA_NAME,
    SCHEMA_NAME_HTTPS,
    FOAF_NAME,
)
# Other names an entity is matched on but not shown by.
DEFAULT_ALIAS_PREDICATES: tuple[str, ...] = (SKOS_ALT_LABEL, FREEBASE_ALIAS)

CACHE_FILE = "label-index.json.gz"
ENDPOINT_PAGE_SIZE = 10_000
FORMAT_VERSION = 4
ALIAS_ONLY = "alias"  # the source of an entity that only aliases name

# How a label key was made from a label (kept per key so a ranker can weigh them).
NAME, NAME_SQUASHED, ALIAS, ALIAS_SQUASHED = 0, 1, 2, 3
_SQUASHED = {NAME: NAME_SQUASHED, ALIAS: ALIAS_SQUASHED}


class LabelIndexError(Nl2SparqlError):
    """The label index cannot be built, read or written."""


class _Term(Protocol):
    type: str
    value: str
    lang: str | None


class _Result(Protocol):
    rows: list[dict[str, Any]]


class SelectStore(Protocol):
    """What the index needs of a store: ``select`` as in :mod:`nl2sparql.kg`."""

    def select(self, query: str, timeout: float | None = None) -> _Result: ...


# ASCII text (most labels and questions) takes a table-driven path; the rest goes char by char.
_ASCII_TO_SPACE = {i: " " for i in range(128) if not chr(i).isalnum()}
_ASCII_DROP = {i: (" " if chr(i).isspace() else None) for i in range(128) if not chr(i).isalnum()}


def _fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def normalize(text: str) -> str:
    """The form labels and mentions are compared in.

    >>> normalize("  Beyoncé   Knowles-Carter! ")
    'beyonce knowles carter'
    >>> normalize("James K. Polk")
    'james k polk'
    """
    folded = _fold(text)
    if folded.isascii():
        return " ".join(folded.translate(_ASCII_TO_SPACE).split())
    return " ".join("".join(c if c.isalnum() else " " for c in folded).split())


_LEGAL_FORM = re.compile(
    r"[\s,]+(?:inc|incorporated|corp|corporation|co|ltd|limited|llc|llp|plc|gmbh|ag|s\.?a|n\.?v|b\.?v|"
    r"s\.?p\.?a|l\.?p|pty\.? ltd)\.?$",
    re.IGNORECASE,
)


def without_legal_form(text: str) -> str:
    """A company's name without the legal form it ends in, as people write it (``""`` when
    it ends in none): an alias, so *American Airlines* links *American Airlines Inc.*

    >>> without_legal_form("American Airlines Inc."), without_legal_form("Southwest Airlines Co.")
    ('American Airlines', 'Southwest Airlines')
    >>> without_legal_form("Siemens AG"), without_legal_form("Monaco"), without_legal_form("Inc.")
    ('Siemens', '', '')
    """
    short = _LEGAL_FORM.sub("", text).strip()
    return short if short != text.strip() and len(normalize(short)) > 2 else ""


def squash(text: str) -> str:
    """Like :func:`normalize` but punctuation is dropped instead of split on.

    >>> squash("U.S. Open"), squash("AC/DC")
    ('us open', 'acdc')
    """
    folded = _fold(text)
    if folded.isascii():
        return " ".join(folded.translate(_ASCII_DROP).split())
    return " ".join("".join(c if c.isalnum() or c.isspace() else "" for c in folded).split())


def short_id(iri: str, namespace: str = FREEBASE_NS) -> str:
    """``http://rdf.freebase.com/ns/m.03_r3`` -> ``m.03_r3``; IRIs outside ``namespace`` stay whole."""
    return iri[len(namespace) :] if namespace and iri.startswith(namespace) else iri


def entity_iri(entity_id: str, namespace: str = FREEBASE_NS) -> str:
    """The inverse of :func:`short_id`; also accepts ``ns:m.x`` and ``<iri>``."""
    text = entity_id.strip()
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1]
    if text.startswith("ns:"):
        return namespace + text[3:]
    if "://" in text or text.startswith("urn:"):
        return text
    return namespace + text


@dataclass(frozen=True, slots=True)
class LabelRecord:
    """One label triple as read from the store: entity IRI, label predicate, text."""

    entity: str
    predicate: str
    text: str


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What building (or loading) an index cost and produced."""

    entities: int
    labels: int
    keys: int
    seconds: float
    cache_path: Path | None
    cache_bytes: int
    loaded_from_cache: bool
    sources: dict[str, int]  # label predicate (or ``local name``) -> entities it named

    def describe(self) -> str:
        """``12 entities named: 10 by rdfs:label, 2 by IRI local names``."""
        parts = [f"{n:,} by {source_name(source)}" for source, n in self.sources.items()]
        return f"{self.entities:,} entities named: " + (", ".join(parts) or "none")


def source_name(source: str) -> str:
    """A label predicate as a reader knows it (``rdfs:label``; ``IRI local names``)."""
    known = {
        LOCAL_NAME: "IRI local names",
        ALIAS_ONLY: "aliases only",
        FREEBASE_NAME: "type.object.name",
        RDFS_LABEL: "rdfs:label",
        SKOS_PREF_LABEL: "skos:prefLabel",
        SCHEMA_NAME: "schema:name",
        SCHEMA_NAME_HTTPS: "schema:name",
        FOAF_NAME: "foaf:name",
    }
    return known.get(source, source)


class LabelIndex:
    """Entities with their display names, degrees and normalised label keys.

    ``keys`` maps a normalised label to ``(entity position, kind)`` pairs; ``vocabulary``
    lists the keys (for fuzzy matching) and ``token_keys`` maps a token to the positions
    in ``vocabulary`` of the keys that contain it (for partial-name matching).
    """

    __slots__ = (
        "alias_predicates",
        "degrees",
        "fingerprint",
        "ids",
        "keys",
        "labels",
        "languages",
        "local_names",
        "log_degree",
        "name_predicates",
        "names",
        "namespace",
        "sources",
        "token_keys",
        "vocabulary",
        "_by_length",
        "_length_starts",
    )

    def __init__(
        self,
        ids: Sequence[str],
        names: Sequence[str],
        degrees: Sequence[int],
        labels: Sequence[tuple[int, bool, str]],
        *,
        name_predicates: Sequence[str] = DEFAULT_NAME_PREDICATES,
        alias_predicates: Sequence[str] = DEFAULT_ALIAS_PREDICATES,
        namespace: str = FREEBASE_NS,
        languages: Sequence[str] | None = ("en",),
        fingerprint: int | None = None,
        local_names: bool = True,
        sources: dict[str, int] | None = None,
    ) -> None:
        if not (len(ids) == len(names) == len(degrees)):
            raise LabelIndexError("ids, names and degrees must have the same length")
        self.ids = list(ids)
        self.names = list(names)
        self.degrees = [int(d) for d in degrees]
        self.labels = list(labels)
        self.name_predicates = tuple(name_predicates)
        self.alias_predicates = tuple(alias_predicates)
        self.namespace = namespace
        self.languages = tuple(languages) if languages is not None else None
        self.fingerprint = fingerprint
        self.local_names = local_names
        self.sources = dict(sources or {})
        top = max(self.degrees, default=0)
        scale = math.log1p(top) or 1.0
        self.log_degree = [math.log1p(d) / scale for d in self.degrees]
        self.keys: dict[str, list[tuple[int, int]]] = {}
        for position, is_alias, text in self.labels:
            kind = ALIAS if is_alias else NAME
            self._add(normalize(text), position, kind)
            self._add(squash(text), position, _SQUASHED[kind])
        for entries in self.keys.values():
            entries.sort(key=lambda e: (e[1], -self.degrees[e[0]]))
        self.vocabulary = list(self.keys)
        self._by_length = sorted(self.vocabulary, key=len)
        longest = len(self._by_length[-1]) if self._by_length else 0
        self._length_starts = [0] * (longest + 2)
        for length in range(longest + 2):
            self._length_starts[length] = bisect.bisect_left(self._by_length, length, key=len)
        self.token_keys: dict[str, list[int]] = {}
        for k, key in enumerate(self.vocabulary):
            for token in set(key.split()):
                self.token_keys.setdefault(token, []).append(k)

    def _add(self, key: str, position: int, kind: int) -> None:
        if not key:
            return
        entries = self.keys.setdefault(key, [])
        if all(p != position for p, _ in entries):
            entries.append((position, kind))

    def keys_of_length(self, shortest: int, longest: int) -> list[str]:
        """The label keys whose length is in ``[shortest, longest]``."""
        top = len(self._length_starts) - 1
        lo = self._length_starts[min(max(shortest, 0), top)]
        hi = self._length_starts[min(max(longest + 1, 0), top)]
        return self._by_length[lo:hi]

    def __len__(self) -> int:
        return len(self.ids)

    def entity_id(self, position: int) -> str:
        """The short id (``m.03_r3``) of the entity at ``position``."""
        return short_id(self.ids[position], self.namespace)

    # -- building -----------------------------------------------------------------

    @classmethod
    def from_records(
        cls,
        records: Iterable[LabelRecord],
        degrees: dict[str, int],
        *,
        name_predicates: Sequence[str] = DEFAULT_NAME_PREDICATES,
        alias_predicates: Sequence[str] = DEFAULT_ALIAS_PREDICATES,
        namespace: str = FREEBASE_NS,
        languages: Sequence[str] | None = ("en",),
        fingerprint: int | None = None,
        local_names: bool = True,
    ) -> LabelIndex:
        """An index from label triples and an entity -> degree map (entities without one get 0).

        Records under :data:`LOCAL_NAME` name an entity after every label predicate; those
        under :data:`LOCAL_NAME_VARIANT` are matched like aliases."""
        shown = (*name_predicates, LOCAL_NAME)
        rank = {p: i for i, p in enumerate(shown)}
        alias_set = {*alias_predicates, LOCAL_NAME_VARIANT}
        positions: dict[str, int] = {}
        best_name: list[tuple[int, str]] = []
        labels: list[tuple[int, bool, str]] = []
        seen: set[tuple[int, bool, str]] = set()
        for record in records:
            if record.predicate not in rank and record.predicate not in alias_set:
                continue
            if not normalize(record.text):
                continue  # nothing to match on
            position = positions.get(record.entity)
            if position is None:
                position = positions[record.entity] = len(best_name)
                best_name.append((len(rank) + 1, record.text))
            is_alias = record.predicate not in rank
            if not is_alias:
                order = rank[record.predicate]
                current = best_name[position]
                if (order, record.text) < current:
                    best_name[position] = (order, record.text)
            for label in ((position, is_alias, record.text), (position, True, without_legal_form(record.text))):
                if label[2] and label not in seen:
                    seen.add(label)
                    labels.append(label)
        ids = list(positions)
        sources: dict[str, int] = {}
        for order, _ in best_name:
            source = shown[order] if order < len(shown) else ALIAS_ONLY
            sources[source] = sources.get(source, 0) + 1
        return cls(
            ids,
            [text for _, text in best_name],
            [degrees.get(iri, 0) for iri in ids],
            labels,
            name_predicates=name_predicates,
            alias_predicates=alias_predicates,
            namespace=namespace,
            languages=languages,
            fingerprint=fingerprint,
            local_names=local_names,
            sources=dict(sorted(sources.items(), key=lambda item: (-item[1], item[0]))),
        )

    # -- persistence --------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "nl2sparql-label-index",
            "version": FORMAT_VERSION,
            "name_predicates": list(self.name_predicates),
            "alias_predicates": list(self.alias_predicates),
            "namespace": self.namespace,
            "languages": list(self.languages) if self.languages is not None else None,
            "fingerprint": self.fingerprint,
            "local_names": self.local_names,
            "sources": self.sources,
            "ids": self.ids,
            "names": self.names,
            "degrees": self.degrees,
            "labels": [[p, int(a), t] for p, a, t in self.labels],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "label index") -> LabelIndex:
        if data.get("format") != "nl2sparql-label-index":
            raise LabelIndexError(f"{source} is not a label index file")
        if data.get("version") != FORMAT_VERSION:
            raise LabelIndexError(
                f"{source} has format version {data.get('version')}, this version reads {FORMAT_VERSION}"
            )
        try:
            return cls(
                data["ids"],
                data["names"],
                data["degrees"],
                [(int(p), bool(a), str(t)) for p, a, t in data["labels"]],
                name_predicates=data["name_predicates"],
                alias_predicates=data["alias_predicates"],
                namespace=data["namespace"],
                languages=data["languages"],
                fingerprint=data["fingerprint"],
                local_names=bool(data["local_names"]),
                sources={str(k): int(v) for k, v in data["sources"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise LabelIndexError(f"{source} is malformed: {exc!r}") from exc

    def save(self, path: Path) -> int:
        """Write the index (gzipped JSON) atomically; returns the file size in bytes."""
        return write_gzip_json(path, self.to_json())

    @classmethod
    def load(cls, path: Path) -> LabelIndex:
        path = Path(path)
        try:
            data = read_gzip_json(path)
        except FileNotFoundError as exc:
            raise LabelIndexError(f"no label index at {path}") from exc
        except (OSError, EOFError, ValueError) as exc:
            raise LabelIndexError(f"cannot read label index {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise LabelIndexError(f"{path} is not a label index file")
        return cls.from_json(data, source=str(path))


# -- reading a store ----------------------------------------------------------------


def _values(iris: Iterable[str]) -> str:
    return " ".join(f"<{iri}>" for iri in iris)


def _paged(store: SelectStore, query: str, order: str, page_size: int | None) -> Iterator[dict[str, Any]]:
    if page_size is None:
        yield from store.select(query).rows
        return
    offset = 0
    while True:
        rows = store.select(f"{query} ORDER BY {order} LIMIT {page_size} OFFSET {offset}").rows
        yield from rows
        if len(rows) < page_size:
            return
        offset += page_size


def _language_ok(lang: str | None, languages: Sequence[str] | None) -> bool:
    if languages is None or not lang:
        return True
    primary = lang.lower().split("-", 1)[0]
    return primary in languages


def read_labels(
    store: SelectStore,
    predicates: Sequence[str],
    *,
    languages: Sequence[str] | None = ("en",),
    page_size: int | None = None,
) -> Iterator[LabelRecord]:
    """Every ``?entity ?predicate ?label`` with a literal label in one of ``languages`` (or none)."""
    query = (
        f"SELECT ?e ?p ?l WHERE {{ VALUES ?p {{ {_values(predicates)} }} ?e ?p ?l "
        "FILTER(isIRI(?e) && isLiteral(?l)) }"
    )
    wanted = tuple(language.lower() for language in languages) if languages is not None else None
    for row in _paged(store, query, "?e ?p ?l", page_size):
        label = row["l"]
        if _language_ok(label.lang, wanted):
            yield LabelRecord(row["e"].value, row["p"].value, label.value)


def read_degrees(
    store: SelectStore, predicates: Sequence[str], *, page_size: int | None = None
) -> dict[str, int]:
    """Triples in and out of every labelled entity: the popularity prior."""
    values = _values(predicates)
    labelled = f"SELECT DISTINCT ?e WHERE {{ VALUES ?p {{ {values} }} ?e ?p ?l FILTER(isIRI(?e)) }}"
    query = (
        f"SELECT ?e (COUNT(*) AS ?d) WHERE {{ {{ {labelled} }} {{ ?e ?q ?o }} UNION {{ ?s ?q ?e }} }} "
        "GROUP BY ?e"
    )
    return {row["e"].value: int(row["d"].value) for row in _paged(store, query, "?e", page_size)}


def store_fingerprint(store: SelectStore) -> int:
    """The store's triple count, which keys the on-disk cache (``Store.stats`` when the store
    has it, which the Oxigraph store caches per generation; a COUNT query otherwise)."""
    stats = getattr(store, "stats", None)
    if callable(stats):
        return int(stats().triples)
    rows = store.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows
    return int(rows[0]["n"].value) if rows else 0


def default_page_size(store: object) -> int | None:
    """Remote endpoints cap result sizes, so they are read in pages; local stores in one go."""
    return ENDPOINT_PAGE_SIZE if getattr(store, "name", None) == "endpoint" else None


def build_label_index(
    store: SelectStore,
    *,
    name_predicates: Sequence[str] = DEFAULT_NAME_PREDICATES,
    alias_predicates: Sequence[str] = DEFAULT_ALIAS_PREDICATES,
    languages: Sequence[str] | None = ("en",),
    namespace: str = FREEBASE_NS,
    page_size: int | None = None,
    fingerprint: int | None = None,
    local_names: bool = True,
) -> LabelIndex:
    """Read labels and degrees out of ``store`` (``page_size`` pages both with LIMIT/OFFSET);
    with ``local_names``, entities no label predicate names are named from their IRIs."""
    predicates = tuple(dict.fromkeys((*name_predicates, *alias_predicates)))
    if not predicates:
        raise LabelIndexError("no label predicates given")
    if page_size is not None and page_size <= 0:
        raise LabelIndexError(f"page size must be positive, got {page_size}")
    try:
        # Sorted, so the index (and its cache file) does not depend on the store's row order.
        records = sorted(
            read_labels(store, predicates, languages=languages, page_size=page_size),
            key=lambda r: (r.entity, r.predicate, r.text),
        )
        degrees = read_degrees(store, predicates, page_size=page_size)
        # A labelled class or property is the graph's vocabulary, not an entity a question is about.
        schema = {iri for iri in schema_terms(store) if not iri.startswith(FREEBASE_NS)}
        records = [r for r in records if r.entity not in schema]
        if local_names:
            named = {r.entity for r in records}
            named |= record_nodes(store, predicates) if named else set()
            rows = _paged(store, DEGREE_QUERY, "?e", page_size)
            made, made_degrees = local_name_records(rows, named, schema)
            records += [LabelRecord(*record) for record in sorted(made)]
            degrees.update(made_degrees)
    except Nl2SparqlError as exc:
        raise LabelIndexError(f"cannot read labels from the store: {exc}") from exc
    return LabelIndex.from_records(
        records,
        degrees,
        name_predicates=name_predicates,
        alias_predicates=alias_predicates,
        namespace=namespace,
        languages=languages,
        fingerprint=fingerprint,
        local_names=local_names,
    )


def default_cache_path(store: object) -> Path | None:
    """``<store folder>/label-index.json.gz`` for stores that live in a folder, else ``None``."""
    folder = getattr(store, "path", None)
    return Path(folder) / CACHE_FILE if folder else None


def load_or_build(
    store: SelectStore,
    cache_path: Path | None = None,
    *,
    name_predicates: Sequence[str] = DEFAULT_NAME_PREDICATES,
    alias_predicates: Sequence[str] = DEFAULT_ALIAS_PREDICATES,
    languages: Sequence[str] | None = ("en",),
    namespace: str = FREEBASE_NS,
    page_size: int | None | str = "auto",
    rebuild: bool = False,
    local_names: bool = True,
) -> tuple[LabelIndex, BuildReport]:
    """The cached index when it was built from this store with these settings, else a fresh
    one, written to the cache.

    ``cache_path`` defaults to :func:`default_cache_path`; with neither, nothing is cached.
    ``page_size="auto"`` pages endpoints (:func:`default_page_size`).
    """
    start = time.perf_counter()
    path = Path(cache_path) if cache_path is not None else default_cache_path(store)
    pages = default_page_size(store) if page_size == "auto" else page_size
    if isinstance(pages, str):
        raise LabelIndexError(f"page size must be a number, None or 'auto', got {page_size!r}")
    try:
        fingerprint = store_fingerprint(store)
    except Nl2SparqlError as exc:
        raise LabelIndexError(f"cannot count the store's triples: {exc}") from exc
    wanted = (
        fingerprint,
        tuple(name_predicates),
        tuple(alias_predicates),
        tuple(languages) if languages is not None else None,
        namespace,
        local_names,
    )
    if path is not None and path.is_file() and not rebuild:
        try:
            cached: LabelIndex | None = LabelIndex.load(path)
        except LabelIndexError:
            cached = None  # unreadable or from another version: rebuilt and overwritten below
        if cached is not None and _settings(cached) == wanted:
            return cached, _report(cached, start, path, True)
    index = build_label_index(
        store,
        name_predicates=name_predicates,
        alias_predicates=alias_predicates,
        languages=languages,
        namespace=namespace,
        page_size=pages,
        fingerprint=fingerprint,
        local_names=local_names,
    )
    if path is not None:
        try:
            index.save(path)
        except OSError as exc:
            raise LabelIndexError(f"cannot write label index {path}: {exc}") from exc
    return index, _report(index, start, path, False)


def _settings(index: LabelIndex) -> tuple[object, ...]:
    return (
        index.fingerprint,
        index.name_predicates,
        index.alias_predicates,
        index.languages,
        index.namespace,
        index.local_names,
    )


def _report(index: LabelIndex, start: float, path: Path | None, cached: bool) -> BuildReport:
    size = path.stat().st_size if path is not None and path.is_file() else 0
    return BuildReport(
        entities=len(index),
        labels=len(index.labels),
        keys=len(index.vocabulary),
        seconds=time.perf_counter() - start,
        cache_path=path,
        cache_bytes=size,
        loaded_from_cache=cached,
        sources=dict(index.sources),
    )
