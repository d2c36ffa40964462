"""FB15k-237 -> Freebase-shaped N-Triples, with the CVT nodes the dataset collapsed put back.

FB15k-237 writes a two-hop Freebase path through a compound value type (CVT) node as one
relation, ``/film/actor/film./film/performance/film``. Questions over Freebase (WebQSP,
CWQ) and the memory bank's statements go through the CVT, so the importer expands every
such triple ``(h, p1.p2, t)`` into ``h p1 c . c p2 t .`` with a fresh node ``c`` per
triple. CVT nodes are IRIs ``ns:cvt.<n>`` (numbered in input order, so the output is
deterministic and a CVT can be named in a query) and get no ``ns:type.object.name``:
an entity without a name is a CVT. Every entity of the graph gets its English name from
``FB15k_mid2name.txt`` (underscores become spaces); names of entities absent from the
triples are not written, so no node floats free of the graph.

Output order: names sorted by MID, then the triples of train, valid and test in file order.
The file is written to a temporary file beside the target and moved into place.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.atomic import atomic_output

NS = "http://rdf.freebase.com/ns/"
NAME_PREDICATE = NS + "type.object.name"
SPLITS: tuple[str, ...] = ("train.txt", "valid.txt", "test.txt")
NAMES_FILE = "FB15k_mid2name.txt"
CVT_PREFIX = NS + "cvt."

# Bumped whenever the output of the importer changes (test caches key on it).
FORMAT_VERSION = 1


class Fb15kImportError(Nl2SparqlError):
    """The FB15k-237 source folder or one of its files is missing or malformed."""


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import wrote."""

    path: Path
    triples: int
    cvt_nodes: int
    entities: int
    names: int
    relations: int
    source_triples: int


def mid_iri(mid: str) -> str:
    """``/m/027rn`` -> ``http://rdf.freebase.com/ns/m.027rn``."""
    return NS + mid.strip("/").replace("/", ".")


def relation_predicates(relation: str) -> tuple[str, ...]:
    """``/film/actor/film./film/performance/film`` -> the two predicate IRIs through the CVT.

    >>> relation_predicates("/people/person/gender")
    ('http://rdf.freebase.com/ns/people.person.gender',)
    >>> [p.rsplit("/", 1)[1] for p in relation_predicates("/film/actor/film./film/performance/film")]
    ['film.actor.film', 'film.performance.film']
    """
    return tuple(NS + part.strip("/").replace("/", ".") for part in relation.split("./"))


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"@en'


def read_names(path: Path) -> dict[str, str]:
    """MID -> English name (underscores as spaces) from ``FB15k_mid2name.txt``."""
    names: dict[str, str] = {}
    with _open_source(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[0].startswith("/"):
                raise Fb15kImportError(f"{path}:{number}: expected 'MID<TAB>name', got {line[:80]!r}")
            names[parts[0]] = parts[1].replace("_", " ")
    return names


def read_triples(path: Path) -> Iterator[tuple[str, str, str]]:
    """(head MID, relation, tail MID) per line of an FB15k-237 split (CRLF tolerated)."""
    with _open_source(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != 3 or not all(parts) or not parts[1].startswith("/"):
                raise Fb15kImportError(
                    f"{path}:{number}: expected 'MID<TAB>/relation<TAB>MID', got {line[:80]!r}"
                )
            yield parts[0], parts[1], parts[2]


class _Counter:
    def __init__(self) -> None:
        self.triples = 0
        self.cvt = 0
        self.entities = 0
        self.names = 0
        self.relations: set[str] = set()
        self.source = 0


def _expand(src: Path, count: _Counter) -> Iterator[str]:
    names = read_names(src / NAMES_FILE)
    splits = [src / name for name in SPLITS]
    for path in splits:
        if not path.is_file():
            raise Fb15kImportError(f"missing FB15k-237 file {path}")
    entities: set[str] = set()
    for path in splits:
        for head, _, tail in read_triples(path):
            entities.add(head)
            entities.add(tail)
    count.entities = len(entities)
    for mid in sorted(entities):
        name = names.get(mid)
        if name is not None:
            count.names += 1
            count.triples += 1
            yield f"<{mid_iri(mid)}> <{NAME_PREDICATE}> {_literal(name)} .\n"
    for path in splits:
        for head, relation, tail in read_triples(path):
            count.source += 1
            count.relations.add(relation)
            predicates = relation_predicates(relation)
            h, t = mid_iri(head), mid_iri(tail)
            if len(predicates) == 1:
                count.triples += 1
                yield f"<{h}> <{predicates[0]}> <{t}> .\n"
            elif len(predicates) == 2:
                cvt = f"{CVT_PREFIX}{count.cvt}"
                count.cvt += 1
                count.triples += 2
                yield f"<{h}> <{predicates[0]}> <{cvt}> .\n<{cvt}> <{predicates[1]}> <{t}> .\n"
            else:
                raise Fb15kImportError(f"{path}: relation {relation!r} has more than two hops")


def import_fb15k237(src: Path, out: Path) -> ImportReport:
    """Write the CVT-expanded graph of the FB15k-237 folder ``src`` to ``out`` (``.nt`` or ``.nt.gz``)."""
    src, out = Path(src), Path(out)
    if not src.is_dir():
        raise Fb15kImportError(f"FB15k-237 folder {src} does not exist")
    if not (out.name.endswith(".nt") or out.name.endswith(".nt.gz")):
        raise Fb15kImportError(f"output {out} must end in .nt or .nt.gz")
    out.parent.mkdir(parents=True, exist_ok=True)
    count = _Counter()
    with atomic_output(out) as raw:
        # mtime=0 and no file name in the gzip header keep .nt.gz output byte-identical across runs.
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if out.suffix == ".gz" else None
        sink = gz or raw
        buffer: list[str] = []
        for line in _expand(src, count):
            buffer.append(line)
            if len(buffer) >= 8192:
                sink.write("".join(buffer).encode("utf-8"))
                buffer.clear()
        sink.write("".join(buffer).encode("utf-8"))
        if gz is not None:
            gz.close()
    return ImportReport(
        path=out,
        triples=count.triples,
        cvt_nodes=count.cvt,
        entities=count.entities,
        names=count.names,
        relations=len(count.relations),
        source_triples=count.source,
    )


def _open_source(path: Path):  # noqa: ANN202 - a text file handle
    if not path.is_file():
        raise Fb15kImportError(f"missing FB15k-237 file {path}")
    return open(path, encoding="utf-8", newline="")
