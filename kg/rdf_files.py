"""RDF input files: which format a file is in, and a byte reader with a progress bar.

Shared by the Oxigraph and rdflib stores so both accept the same files (N-Triples,
Turtle, RDF/XML; ``.gz`` for any of them) and report the same clear errors. The format
comes from the extension unless given explicitly.
"""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from xml.parsers import expat

from tqdm import tqdm

from nl2sparql.kg.errors import LoadError

# Canonical format names, their aliases, and extensions.
FORMATS: dict[str, tuple[str, ...]] = {
    "nt": ("nt", "ntriples", "n-triples"),
    "ttl": ("ttl", "turtle"),
    "rdfxml": ("rdfxml", "rdf/xml", "rdf-xml", "xml", "rdf", "owl"),
}
EXTENSIONS: dict[str, str] = {
    ".nt": "nt",
    ".ttl": "ttl",
    ".rdf": "rdfxml",
    ".owl": "rdfxml",
    ".xml": "rdfxml",
}

# Errors a damaged gzip stream raises while it is read.
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


@dataclass(frozen=True, slots=True)
class RdfFile:
    """A checked input: an existing file and its canonical format name."""

    path: Path
    format: str
    compressed: bool


def format_name(name: str) -> str:
    """The canonical format for a user-given name (``turtle`` -> ``ttl``)."""
    key = name.strip().lower()
    for canonical, aliases in FORMATS.items():
        if key in aliases:
            return canonical
    raise LoadError(f"unknown RDF format {name!r}; use one of: nt, ttl, rdfxml")


def check_file(path: str | Path, format: str | None = None) -> RdfFile:
    """Check that ``path`` exists and has a known format, before any store is touched."""
    path = Path(path)
    if not path.exists():
        raise LoadError(f"{path}: no such file")
    if not path.is_file():
        raise LoadError(f"{path}: not a file")
    compressed = path.suffix.lower() == ".gz"
    if format is not None:
        return RdfFile(path, format_name(format), compressed)
    inner = Path(path.stem) if compressed else path
    canonical = EXTENSIONS.get(inner.suffix.lower())
    if canonical is None:
        raise LoadError(
            f"{path}: unknown RDF format (extension {inner.suffix or 'none'!r}); "
            "use .nt, .ttl, .rdf/.owl/.xml (optionally .gz) or give the format (nt, ttl, rdfxml)"
        )
    return RdfFile(path, canonical, compressed)


class _CountingReader(io.RawIOBase):
    """Reads a raw file and advances a progress bar by the bytes read."""

    def __init__(self, raw: BinaryIO, bar: tqdm) -> None:
        self._raw = raw
        self._bar = bar

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        n = self._raw.readinto(buffer)  # type: ignore[attr-defined]
        if n:
            self._bar.update(n)
        return n or 0

    def close(self) -> None:
        self._raw.close()
        super().close()


class ProgressInput:
    """Context manager giving a binary stream of the (decompressed) file content with progress."""

    def __init__(self, rdf: RdfFile, progress: bool = True) -> None:
        self.rdf = rdf
        self.progress = progress
        self._bar: tqdm | None = None
        self._stream: BinaryIO | None = None

    def __enter__(self) -> BinaryIO:
        size = self.rdf.path.stat().st_size
        self._bar = tqdm(
            total=size,
            unit="B",
            unit_scale=True,
            desc=self.rdf.path.name,
            disable=None if self.progress else True,
            leave=False,
        )
        raw = io.BufferedReader(_CountingReader(open(self.rdf.path, "rb"), self._bar), 1 << 20)
        stream: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb") if self.rdf.compressed else raw  # type: ignore[assignment]
        self._stream = stream
        self._raw = raw
        return stream

    def __exit__(self, *exc: object) -> None:
        if self._stream is not None:
            self._stream.close()
        self._raw.close()
        if self._bar is not None:
            self._bar.close()


def syntax_error(rdf: RdfFile, message: str, line: int | None = None, column: int | None = None) -> LoadError:
    """A one-line :class:`LoadError` naming the file and, where it can be found, the line."""
    if line is None:
        line, column = locate_syntax_error(rdf)
    message = " ".join(str(message).split())
    if len(message) > 300:
        message = message[:297] + "..."
    where = f":{line}" if line else ""
    where += f":{column}" if line and column else ""
    return LoadError(f"{rdf.path}{where}: syntax error ({rdf.format}): {message}")


def locate_syntax_error(rdf: RdfFile) -> tuple[int | None, int | None]:
    """Line and column of the first syntax error in ``rdf``, by a second, independent parser.

    Used when the parser that failed did not say where: Oxigraph's for N-Triples and
    Turtle, expat's for RDF/XML (which catches XML that is not well-formed).
    """
    try:
        with ProgressInput(rdf, progress=False) as stream:
            if rdf.format == "rdfxml":
                parser = expat.ParserCreate()
                try:
                    parser.ParseFile(stream)
                except expat.ExpatError as exc:
                    return exc.lineno, exc.offset
                return None, None
            import pyoxigraph as ox

            fmt = ox.RdfFormat.N_TRIPLES if rdf.format == "nt" else ox.RdfFormat.TURTLE
            for _ in ox.parse(input=stream, format=fmt):
                pass
    except SyntaxError as exc:
        return exc.lineno, exc.offset
    except (OSError, ValueError, *GZIP_ERRORS):
        pass
    return None, None
