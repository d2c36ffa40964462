"""The dialects the compiler reads and writes, by name.

Readers: ``sparql11`` (the W3C grammar, prefixes must be declared) and ``virtuoso``
(what the gold WebQSP / CWQ / GrailQA queries use: ``OR`` / ``AND`` for ``||`` / ``&&``,
bare ``HAVING`` expressions, ``xsd:datetime(...)`` meaning ``xsd:dateTime``, the
undeclared prefixes ``ns:``, ``xsd:``, ``rdf:``, ``rdfs:``, ``owl:``, and date-only
``xsd:dateTime`` literals in comparisons: ``"2015-08-10"^^xsd:dateTime`` is not a valid
xsd:dateTime, Virtuoso reads it as midnight, Oxigraph as an error that fails the filter,
so the reader writes it ``"2015-08-10T00:00:00"``; 622 comparisons in 377 gold queries).
Generators: ``sparql11``, ``full-iri`` (no prefixed names: pyoxigraph 0.5.13 rejects
``ns:a.b.c``) and ``virtuoso``; see :mod:`nl2sparql.compiler.generator`.
"""

from __future__ import annotations

from nl2sparql.compiler.ast import RDF, RDFS, XSD
from nl2sparql.compiler.errors import DialectError
from nl2sparql.compiler.sparql_options import ReaderOptions

FREEBASE = "http://rdf.freebase.com/ns/"
OWL = "http://www.w3.org/2002/07/owl#"

#: prefixes every generator may use (after the query's own), and Virtuoso knows unasked
WELL_KNOWN_PREFIXES: tuple[tuple[str, str], ...] = (
    ("ns", FREEBASE),
    ("xsd", XSD),
    ("rdf", RDF),
    ("rdfs", RDFS),
    ("owl", OWL),
)

READERS: dict[str, ReaderOptions] = {
    "sparql11": ReaderOptions(),
    "virtuoso": ReaderOptions(
        builtin_prefixes=WELL_KNOWN_PREFIXES,
        virtuoso=True,
        iri_aliases=((XSD + "datetime", XSD + "dateTime"),),
        complete_datetimes=True,
    ),
}

GENERATOR_NAMES: tuple[str, ...] = ("sparql11", "full-iri", "virtuoso")

#: the reader that reads back what a generator writes
READER_FOR: dict[str, str] = {"sparql11": "sparql11", "full-iri": "sparql11", "virtuoso": "virtuoso"}


def reader_options(dialect: str) -> ReaderOptions:
    """The options of reader ``dialect`` or a :class:`DialectError` naming the known ones."""
    try:
        return READERS[dialect]
    except KeyError:
        raise DialectError(f"unknown SPARQL reader {dialect!r}; known: {', '.join(READERS)}") from None


def reader_for(generator: str) -> str:
    """The reader dialect for the output of generator ``generator``."""
    try:
        return READER_FOR[generator]
    except KeyError:
        raise DialectError(f"unknown SPARQL generator {generator!r}; known: {', '.join(GENERATOR_NAMES)}") from None
