"""How plan constraints are written as SPARQL: value types, casts and the answer filters.

The same plan can be written as SPARQL in more than one correct way, and the gold
queries of the two Freebase benchmarks differ exactly there: WebQSP orders dates as
``ORDER BY xsd:dateTime(?d)``, the comparatives and superlatives CWQ added write
``FILTER(?d < "1971"^^xsd:dateTime)`` and ``ORDER BY ?d`` for dates but cast numbers
(``xsd:integer(?n) < 5000``). A :class:`Style` names those choices, so a query can be
written the way a given benchmark (or a given store) expects; :data:`STYLES` holds the
measured presets. What a value *is* (a date, an integer, a float) comes from the KG's
schema through :attr:`LoweringOptions.value_type`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from nl2sparql.compiler.ast import XSD, XSD_DATETIME, XSD_DECIMAL, XSD_DOUBLE, XSD_INTEGER
from nl2sparql.errors import Nl2SparqlError

XSD_FLOAT = XSD + "float"
#: value types the lowering knows; a ``value_type`` callback returns one of them (or ``None``)
VALUE_TYPES: tuple[str, ...] = (XSD_DATETIME, XSD_INTEGER, XSD_DECIMAL, XSD_FLOAT, XSD_DOUBLE)

ValueType = Callable[[str], str | None]


class LoweringError(Nl2SparqlError):
    """A plan (with the statements chosen for it) that cannot be written as one query."""


def _frozen(mapping: Mapping[str | None, str | None]) -> Mapping[str | None, str | None]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class Style:
    """Casts to put around a variable, by the variable's value type (``None``: no cast).

    ``order_cast``: around a ``Rank`` key (``ORDER BY xsd:dateTime(?d)``);
    ``compare_cast``: around a variable compared with a constant (``xsd:integer(?n) < 5``).
    Time windows always cast (``xsd:dateTime(?from) <= "2011-12-31"^^xsd:dateTime``):
    both benchmarks write them so.
    """

    name: str
    order_cast: Mapping[str | None, str | None] = field(default_factory=dict)
    compare_cast: Mapping[str | None, str | None] = field(default_factory=dict)
    #: ``Make sure ?v is "text"`` with no constant of the memory to go by: put the plain
    #: literal in the triple (CWQ's ``?c ns:...number "4327642"``) rather than test
    #: ``str(?v) = "text"`` (WebQSP's form, which also matches tagged and typed values)
    inline_strings: bool = False

    def order_cast_for(self, datatype: str | None) -> str | None:
        """The cast around a ranking key of this value type (key ``None``: a type the schema does not give)."""
        return self.order_cast.get(datatype)

    def compare_cast_for(self, datatype: str | None) -> str | None:
        return self.compare_cast.get(datatype)


STYLES: Mapping[str, Style] = MappingProxyType(
    {
        # Counted on the gold ORDER BY keys by the range of the predicate that binds them:
        # WebQSP (train + test part-A) casts dates to xsd:dateTime (100 of 109), floats and
        # keys of unknown type to xsd:float (14 of 14), integers to xsd:integer (2 of 4).
        "webqsp": Style(
            "webqsp",
            order_cast=_frozen(
                {XSD_DATETIME: XSD_DATETIME, XSD_FLOAT: XSD_FLOAT, XSD_INTEGER: XSD_INTEGER, None: XSD_FLOAT}
            ),
            compare_cast=_frozen({XSD_DATETIME: XSD_DATETIME}),
        ),
        # The superlatives CWQ added leave dates bare (33 of 33) and cast every other key to
        # xsd:integer (32 of 32); its comparatives compare dates bare and cast numbers likewise.
        "cwq": Style(
            "cwq",
            order_cast=_frozen({XSD_INTEGER: XSD_INTEGER, XSD_FLOAT: XSD_INTEGER, None: XSD_INTEGER}),
            compare_cast=_frozen({XSD_INTEGER: XSD_INTEGER, XSD_FLOAT: XSD_INTEGER, XSD_DECIMAL: XSD_INTEGER}),
            inline_strings=True,
        ),
        # no casts at all: the plainest SPARQL 1.1
        "plain": Style("plain"),
    }
)


def style(name: str | Style) -> Style:
    """The style called ``name`` (a :class:`Style` is returned as it is)."""
    if isinstance(name, Style):
        return name
    try:
        return STYLES[name]
    except KeyError:
        raise LoweringError(f"unknown lowering style {name!r}; known: {', '.join(STYLES)}") from None


@dataclass(frozen=True, slots=True)
class LoweringOptions:
    """Choices the plan leaves open.

    * ``style``: casts, see :class:`Style`.
    * ``language``: add WebQSP's answer filter ``FILTER(!isLiteral(?x) || lang(?x) = "" ||
      langMatches(lang(?x), "en"))`` for this language (``None``: leave it out).
    * ``keep_ties``: ``Rank ... keep the first`` keeps every answer tied for first place
      (a ``MAX``/``MIN`` subquery) instead of exactly one row (``LIMIT 1``).
    * ``value_type``: predicate IRI -> XSD type of its values (from the KG's schema); used
      to type literals and pick casts. Without it, literals are typed by how they look.
    * ``range_of``: predicate IRI -> the type of its objects (``film.film``); tells whether
      a time window is on a CVT or on the variable itself.
    """

    style: Style = field(default_factory=lambda: STYLES["webqsp"])
    language: str | None = "en"
    keep_ties: bool = False
    value_type: ValueType | None = None
    range_of: Callable[[str], str | None] | None = None
