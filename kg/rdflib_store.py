"""A pure-Python, in-memory store over an rdflib ``Graph``.

For small graphs and for cross-checking: it needs no native code and no folder, and its
SPARQL engine is independent of Oxigraph's, so agreeing answers mean something. Files are
parsed into a fresh graph first and merged only when every file parsed, so a bad file
leaves the store as it was.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Collection, Iterable
from typing import Any

from rdflib import BNode, Graph, URIRef
from rdflib import Literal as RdfLiteral

from nl2sparql.kg.deadline import check_cancelled, run_with_deadline
from nl2sparql.kg.errors import LoadError, QueryError
from nl2sparql.kg.rdf_files import GZIP_ERRORS, ProgressInput, RdfFile, check_file, syntax_error
from nl2sparql.kg.store import Store
from nl2sparql.kg.terms import SelectResult, Term

# "at line 3 of <>" (Turtle), "<unknown>:5:0" (RDF/XML)
_LINE = re.compile(r"at line (\d+)|<unknown>:(\d+):\d+")
_RDFLIB_FORMATS = {"nt": "nt", "ttl": "turtle", "rdfxml": "xml"}


class RdflibStore(Store):
    """An rdflib graph held in memory; ``paths`` are loaded at construction."""

    name = "rdflib"

    def __init__(
        self,
        paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] = (),
        *,
        format: str | None = None,
        graph: Graph | None = None,
        timeout: float | None = None,
        allowed_services: Collection[str] = (),
    ) -> None:
        super().__init__(timeout=timeout, allowed_services=allowed_services)
        self.graph = graph if graph is not None else Graph()
        if isinstance(paths, str | os.PathLike):
            paths = [paths]
        files = [check_file(p, format) for p in paths]
        if files:
            self._merge(files, progress=False)

    def _merge(self, files: list[RdfFile], progress: bool) -> None:
        staged = Graph()
        for rdf in files:
            _parse_into(staged, rdf, progress)
        for triple in staged:
            self.graph.add(triple)

    def _select(self, query: str, timeout: float | None) -> SelectResult:
        def work(cancelled: threading.Event) -> SelectResult:
            result = self._run(query)
            names = tuple(str(v) for v in (result.vars or ()))
            rows: list[dict[str, Term]] = []
            try:
                for row in result:
                    check_cancelled(cancelled)
                    values = row.asdict()  # type: ignore[union-attr]
                    rows.append({n: _term(values[n]) for n in names if values.get(n) is not None})
            except Exception as exc:  # rdflib raises many types while evaluating lazily
                raise QueryError(f"query failed on the rdflib store: {exc}") from exc
            return SelectResult(names, rows)

        return run_with_deadline(work, timeout, what="query on the rdflib store", interrupt=True)

    def _ask(self, query: str, timeout: float | None) -> bool:
        def work(cancelled: threading.Event) -> bool:
            result = self._run(query)
            return bool(result.askAnswer)

        return run_with_deadline(work, timeout, what="query on the rdflib store", interrupt=True)

    def _run(self, query: str) -> Any:
        try:
            return self.graph.query(query)
        except Exception as exc:  # pyparsing errors carry the position
            line, column = getattr(exc, "lineno", None), getattr(exc, "col", None)
            if line:
                where = f" at line {line}" + (f", column {column}" if column else "")
                message = getattr(exc, "msg", None) or str(exc)
                raise QueryError(f"SPARQL syntax error{where}: {message}") from exc
            raise QueryError(f"query failed on the rdflib store: {exc}") from exc

    def close(self) -> None:
        self.graph = Graph()


def _parse_into(graph: Graph, rdf: RdfFile, progress: bool) -> None:
    try:
        with ProgressInput(rdf, progress) as stream:
            graph.parse(source=stream, format=_RDFLIB_FORMATS[rdf.format])
    except GZIP_ERRORS as exc:
        raise LoadError(f"{rdf.path}: truncated or corrupt gzip data: {exc}") from exc
    except OSError as exc:
        raise LoadError(f"{rdf.path}: {exc}") from exc
    except Exception as exc:  # rdflib's parsers raise their own types, some with the line in the text
        match = _LINE.search(str(exc))
        line = int(match.group(1) or match.group(2)) if match else None
        raise syntax_error(rdf, str(exc), line) from exc


def _term(value: Any) -> Term:
    if isinstance(value, URIRef):
        return Term("uri", str(value))
    if isinstance(value, BNode):
        return Term("bnode", str(value))
    if isinstance(value, RdfLiteral):
        datatype = str(value.datatype) if value.datatype is not None else None
        return Term.literal(str(value), datatype, value.language)
    return Term("literal", str(value))
