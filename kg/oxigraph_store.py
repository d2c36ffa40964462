"""The embedded default store: an on-disk Oxigraph (pyoxigraph) database in a folder.

Loads must be all-or-nothing: a syntax error on line 400,000 or a Ctrl-C must leave the
store exactly as it was. Oxigraph's transactional ``Store.load`` holds the whole file in
memory and took 17 s (470 MB) for the 532k-triple FB15k-237 graph here; ``bulk_load``
took 5 s but writes as it goes. So a load works on a *staging copy* (3.6 s and 450 MB at
peak for the same file, everything included): the current generation is checkpointed
into a new folder (``Store.backup``: hard links, instant), the files are bulk-loaded
into the copy, and only when every file went in is the copy made current by atomically
replacing the one-line pointer file ``active``. Queries use read-only handles
on the active generation, so readers never see a half-done load, and a handle notices
a newer generation (written by another process) before its next query.

Folder layout::

    STORE/active               name of the current generation ("gen-000002")
    STORE/gen-000002/          the Oxigraph (RocksDB) database
    STORE/gen-000002.stats.json  cached stats() of that generation
    STORE/.lock                held by a running load

A folder that is itself a plain pyoxigraph database can be queried too, but not loaded
into (its writes could not be made atomic).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from nl2sparql.kg.atomic import write_atomic
from nl2sparql.kg.deadline import check_cancelled, run_with_deadline
from nl2sparql.kg.errors import LoadError, QueryError, StoreError
from nl2sparql.kg.rdf_files import GZIP_ERRORS, ProgressInput, RdfFile, check_file, syntax_error
from nl2sparql.kg.store import Store
from nl2sparql.kg.terms import SelectResult, StoreStats, Term

ACTIVE = "active"
_GEN = re.compile(r"gen-(\d{6})")
_QUERY_POSITION = re.compile(r"error at (\d+):(\d+):\s*")
_OX_FORMATS = {"nt": ox.RdfFormat.N_TRIPLES, "ttl": ox.RdfFormat.TURTLE, "rdfxml": ox.RdfFormat.RDF_XML}


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What a load did."""

    files: tuple[Path, ...]
    triples_before: int
    triples_after: int
    seconds: float

    @property
    def added(self) -> int:
        return self.triples_after - self.triples_before


class OxigraphStore(Store):
    """An Oxigraph database in the folder ``path`` (created empty when missing)."""

    name = "oxigraph"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float | None = None,
        allowed_services: Collection[str] = (),
    ) -> None:
        super().__init__(timeout=timeout, allowed_services=allowed_services)
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._handle: ox.Store | None = None
        self._generation: str | None = None
        self._closed = False
        self._plain = _is_plain_database(self.path)
        if not self._plain:
            self._initialise()

    # -- opening ---------------------------------------------------------------------------
    def _initialise(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"store path {self.path} is a file, not a folder")
        if (self.path / ACTIVE).is_file():
            return
        self.path.mkdir(parents=True, exist_ok=True)
        with self._exclusive(wait=True):
            if (self.path / ACTIVE).is_file():  # another process initialised it meanwhile
                return
            entries = [p for p in self.path.iterdir() if p.name != ".lock"]
            # Only what an interrupted initialisation leaves may be there: its generation, temp files.
            if any(not (_GEN.fullmatch(p.name) or p.name.startswith(f".{ACTIVE}.")) for p in entries):
                raise StoreError(
                    f"{self.path} is neither an nl2sparql Oxigraph store nor an empty folder; "
                    "give a new or empty folder"
                )
            for entry in entries:
                if entry.is_dir():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
            first = "gen-000000"
            _create_empty(self.path / first)
            write_atomic(self.path / ACTIVE, first + "\n")

    def _active_generation(self) -> str:
        try:
            name = (self.path / ACTIVE).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise StoreError(f"cannot read {self.path / ACTIVE}: {exc}") from exc
        if not _GEN.fullmatch(name) or not (self.path / name).is_dir():
            raise StoreError(f"{self.path / ACTIVE} names {name!r}, which is not a generation folder")
        return name

    def _store(self) -> ox.Store:
        """The read-only handle on the active generation, reopened when it changed."""
        with self._lock:
            if self._closed:
                raise StoreError(f"store {self.path} is closed")
            if self._plain:
                if self._handle is None:
                    self._handle = _open_read_only(self.path)
                return self._handle
            generation = self._active_generation()
            if self._handle is None or generation != self._generation:
                self._handle = None
                self._handle = _open_read_only(self.path / generation)
                self._generation = generation
            return self._handle

    def close(self) -> None:
        with self._lock:
            self._handle = None
            self._closed = True

    # -- queries -----------------------------------------------------------------------------
    def _select(self, query: str, timeout: float | None) -> SelectResult:
        store = self._store()

        def work(cancelled: threading.Event) -> SelectResult:
            # pyoxigraph result objects must be dropped on the thread that made them, so
            # nothing of them may outlive this function (not even in a traceback).
            solutions = self._run(store, query)
            try:
                if not isinstance(solutions, ox.QuerySolutions):
                    raise QueryError("expected SELECT results")
                names = tuple(v.value for v in solutions.variables)
                rows: list[dict[str, Term]] = []
                for solution in solutions:
                    check_cancelled(cancelled)
                    rows.append({n: _term(v) for n, v in zip(names, solution, strict=True) if v is not None})
                    del solution
                return SelectResult(names, rows)
            except (SyntaxError, OSError, ValueError, TypeError) as exc:
                raise QueryError(f"query failed on {self.path}: {exc}") from None
            finally:
                del solutions

        return run_with_deadline(work, timeout, what=f"query on {self.path}")

    def _ask(self, query: str, timeout: float | None) -> bool:
        store = self._store()

        def work(cancelled: threading.Event) -> bool:
            result = self._run(store, query)
            try:
                if not isinstance(result, ox.QueryBoolean):
                    raise QueryError("expected an ASK result")
                return bool(result)
            finally:
                del result

        return run_with_deadline(work, timeout, what=f"query on {self.path}")

    def _run(self, store: ox.Store, query: str) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        try:
            return store.query(query)
        except SyntaxError as exc:
            message = str(exc.msg)
            match = _QUERY_POSITION.match(message)
            if match:  # "error at 3:9: expected ..."
                where = f" at line {match.group(1)}, column {match.group(2)}"
                message = message[match.end() :]
            else:
                where = f" at line {exc.lineno}" if exc.lineno else ""
            raise QueryError(f"SPARQL syntax error{where}: {message}") from None
        except (OSError, ValueError, TypeError) as exc:
            raise QueryError(f"query failed on {self.path}: {exc}") from exc

    # -- stats -------------------------------------------------------------------------------
    def stats(self) -> StoreStats:
        """Triple count and per-predicate counts, cached beside the generation they describe."""
        self._store()
        if self._plain or self._generation is None:
            return super().stats()
        cache = self.path / f"{self._generation}.stats.json"
        try:
            return StoreStats.from_json(json.loads(cache.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            pass
        stats = super().stats()
        with contextlib.suppress(OSError):
            write_atomic(cache, json.dumps(stats.to_json(), sort_keys=True))
        return stats

    # -- loading -----------------------------------------------------------------------------
    def load(
        self,
        paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
        format: str | None = None,
        *,
        progress: bool = True,
        base_iri: str | None = None,
    ) -> LoadReport:
        """Add the triples of ``paths`` (all or nothing) and make them visible to queries."""
        if isinstance(paths, str | os.PathLike):
            paths = [paths]
        files = [check_file(p, format) for p in paths]
        if not files:
            raise LoadError("no files to load")
        if self._plain:
            raise LoadError(
                f"{self.path} is a plain pyoxigraph database; load into a new nl2sparql store folder instead"
            )
        started = time.perf_counter()
        with self._exclusive():
            self._remove_leftovers()
            current = self._active_generation()
            staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=self.path))
            try:
                before, after = self._load_into_staging(current, staging, files, progress, base_iri)
                target = _next_generation(current, self.path)
                os.replace(staging, self.path / target)
                write_atomic(self.path / ACTIVE, target + "\n")
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            self._remove_leftovers()
        self._store()
        return LoadReport(tuple(f.path for f in files), before, after, time.perf_counter() - started)

    def _load_into_staging(
        self, current: str, staging: Path, files: list[RdfFile], progress: bool, base_iri: str | None
    ) -> tuple[int, int]:
        staging.rmdir()  # backup() wants to create the folder itself
        reader = _open_read_only(self.path / current)
        before = len(reader)
        reader.backup(str(staging))
        del reader
        writer = ox.Store(str(staging))
        for rdf in files:
            _bulk_load(writer, rdf, progress, base_iri)
        writer.flush()
        after = len(writer)
        del writer
        return before, after

    @contextlib.contextmanager
    def _exclusive(self, wait: bool = False) -> Iterator[None]:
        """Hold the store's lock: loads fail at once when it is taken, initialisation waits."""
        with open(self.path / ".lock", "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                raise StoreError(
                    f"another process is loading into {self.path}; try again when it is done"
                ) from exc
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _remove_leftovers(self) -> None:
        """Staging folders of interrupted loads, old generations and their stats files."""
        active = self._active_generation()
        for entry in self.path.iterdir():
            stale_gen = _GEN.fullmatch(entry.name) and entry.name != active
            stale_stats = entry.name.endswith(".stats.json") and entry.name != f"{active}.stats.json"
            leftover = entry.name.startswith(".") and entry.name != ".lock"  # staging folders, temp files
            if entry.is_dir() and (leftover or stale_gen):
                shutil.rmtree(entry, ignore_errors=True)
            elif entry.is_file() and (leftover or stale_stats):
                entry.unlink(missing_ok=True)


def _bulk_load(writer: ox.Store, rdf: RdfFile, progress: bool, base_iri: str | None) -> None:
    try:
        with ProgressInput(rdf, progress) as stream:
            writer.bulk_load(input=stream, format=_OX_FORMATS[rdf.format], base_iri=base_iri)
    except SyntaxError as exc:
        raise syntax_error(rdf, exc.msg, exc.lineno, exc.offset) from exc
    except GZIP_ERRORS as exc:
        raise LoadError(f"{rdf.path}: truncated or corrupt gzip data: {exc}") from exc
    except OSError as exc:
        raise LoadError(f"{rdf.path}: {exc}") from exc
    except ValueError as exc:
        raise LoadError(f"{rdf.path}: {exc}") from exc


def _term(value: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> Term:
    if isinstance(value, ox.NamedNode):
        return Term("uri", value.value)
    if isinstance(value, ox.BlankNode):
        return Term("bnode", value.value)
    if isinstance(value, ox.Literal):
        return Term.literal(value.value, value.datatype.value, value.language)
    return Term("literal", str(value))


def _is_plain_database(path: Path) -> bool:
    return (path / "CURRENT").is_file() and not (path / ACTIVE).exists()


def _open_read_only(path: Path) -> ox.Store:
    try:
        return ox.Store.read_only(str(path))
    except OSError as exc:
        raise StoreError(f"cannot open the Oxigraph database {path}: {exc}") from exc


def _create_empty(path: Path) -> None:
    try:
        store = ox.Store(str(path))
        store.flush()
        del store
    except OSError as exc:
        raise StoreError(f"cannot create an Oxigraph database in {path}: {exc}") from exc


def _next_generation(current: str, folder: Path) -> str:
    number = int(current.split("-")[1]) + 1
    while (folder / f"gen-{number:06d}").exists():
        number += 1
    return f"gen-{number:06d}"
