"""Units of measure: a question writes *80 minutes* where the graph keeps milliseconds.

A comparison's number is read in the unit the question writes after it and rescaled to the
unit the compared attribute names (*the milliseconds of the track*, *the UTC offset in
seconds*, *the weight in pounds*), when both are units of one dimension.
"""

from __future__ import annotations

import re

from nl2sparql.candidates.cues import SCALES, singular_word

#: a unit's dimension and its size in the dimension's base unit
UNITS: dict[str, tuple[str, float]] = {
    "millisecond": ("time", 0.001), "second": ("time", 1.0), "minute": ("time", 60.0), "hour": ("time", 3600.0),
    "day": ("time", 86400.0), "week": ("time", 604800.0),
    "millimetre": ("length", 0.001), "millimeter": ("length", 0.001), "mm": ("length", 0.001),
    "centimetre": ("length", 0.01), "centimeter": ("length", 0.01), "cm": ("length", 0.01),
    "metre": ("length", 1.0), "meter": ("length", 1.0), "kilometre": ("length", 1000.0),
    "kilometer": ("length", 1000.0), "km": ("length", 1000.0), "mile": ("length", 1609.344),
    "foot": ("length", 0.3048), "feet": ("length", 0.3048), "inch": ("length", 0.0254),
    "gram": ("mass", 1.0), "kilogram": ("mass", 1000.0), "kg": ("mass", 1000.0), "tonne": ("mass", 1e6),
    "pound": ("mass", 453.59237), "lb": ("mass", 453.59237), "ounce": ("mass", 28.349523125),
    "byte": ("data", 1.0), "kilobyte": ("data", 1e3), "megabyte": ("data", 1e6), "gigabyte": ("data", 1e9),
}  # fmt: skip


def unit(word: str) -> tuple[str, float] | None:
    """The dimension and size of a unit word, singular or plural (``None``: no unit)."""
    return UNITS.get(word) or UNITS.get(singular_word(word))


def attribute_unit(attribute: str) -> tuple[str, float] | None:
    """The unit an attribute's words name (*milliseconds*, *utc offset in seconds*), or ``None``.

    >>> attribute_unit("utc offset in seconds")
    ('time', 1.0)
    """
    found = [u for word in re.findall(r"[a-z]+", attribute) if (u := unit(word))]
    return found[-1] if found else None


#: the scale an attribute keeps its numbers in (*sales in billions of dollars*): the scale
#: words a question writes, in the plural
_SCALES = {f"{word}s": float(size) for word, size in SCALES.items()}


def attribute_scale(attribute: str) -> float:
    """The scale an attribute's words name (*market value in billions of dollars*: 1e9), else 1.

    >>> attribute_scale("sales in billions of dollars"), attribute_scale("population")
    (1000000000.0, 1)
    """
    found = [_SCALES[word] for word in re.findall(r"[a-z]+", attribute) if word in _SCALES]
    return found[-1] if found else 1


def rescaled(number: str, asked: str, attribute: str, scale: int = 1) -> str:
    """``number`` in the unit ``attribute`` (its words, lower-cased) names, when the question
    wrote it in another unit (``asked``) of the same dimension, or with a scale word
    (``scale``: *150 billion*) where the attribute keeps a scale of its own; else unchanged.

    >>> rescaled("80", "minutes", "milliseconds")
    '4800000'
    >>> rescaled("80", "", "milliseconds")
    '80'
    >>> rescaled("150000000000", "dollars", "sales in billions of dollars", 10**9)
    '150'
    >>> rescaled("150", "", "sales in billions of dollars")
    '150'
    """
    if scale > 1 and attribute_scale(attribute) > 1:
        return _written(float(number) / attribute_scale(attribute))
    source, target = unit(asked) if asked else None, attribute_unit(attribute)
    if source is None or target is None or source[0] != target[0] or source[1] == target[1]:
        return number
    try:
        value = float(number) * source[1] / target[1]
    except ValueError:
        return number
    return _written(value)


def _written(value: float) -> str:
    return str(int(round(value))) if abs(value - round(value)) < 1e-9 else f"{value:.6f}".rstrip("0")


#: the datatypes whose values are ordered as numbers are (dates and years too)
_XSD_NUMERIC = ("integer", "decimal", "double", "float", "int", "long", "short", "gYear", "date", "dateTime", "time")


def is_number(datatype: str | None) -> bool:
    """Whether values of ``datatype`` (an XSD IRI) rank and compare as numbers.

    >>> is_number("http://www.w3.org/2001/XMLSchema#date"), is_number("http://www.w3.org/2001/XMLSchema#string")
    (True, False)
    """
    return bool(datatype) and datatype.rsplit("#", 1)[-1] in _XSD_NUMERIC  # type: ignore[union-attr]
