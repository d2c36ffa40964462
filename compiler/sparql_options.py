"""What one SPARQL reader (dialect) accepts: the options the transformer reads.

Kept apart from ``sparql_transformer`` (which builds the compiler's AST nodes) so that the
compiler's dialect table can import it without importing the transformer and lark.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ReaderOptions:
    """What one reader (dialect) accepts."""

    #: prefixes usable without a PREFIX declaration, ``(prefix, namespace)``
    builtin_prefixes: tuple[tuple[str, str], ...] = ()
    #: accept ``OR`` / ``AND`` for ``||`` / ``&&`` and a bare expression after ``HAVING``
    virtuoso: bool = False
    #: function and datatype IRIs to rewrite, ``(written, meant)``
    iri_aliases: tuple[tuple[str, str], ...] = ()
    #: in comparisons, read ``"2015-08-10"^^xsd:dateTime`` (not a valid xsd:dateTime) as
    #: Virtuoso does, ``"2015-08-10T00:00:00"``; years and year-months likewise
    complete_datetimes: bool = False
