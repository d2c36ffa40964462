"""The dates a question writes, as the ISO text a plan writes them in.

Questions write dates as people do ("28 October 1981", "March 4, 1933", "3-4-1933",
"10/20/09", "12/2010"); a plan writes ``1981-10-28``. A word-piece decoder turns the
first into the second badly ("1877-11-31" for "December 31, 1877", or the year alone), so
the plan's date is put right from these (:mod:`~nl2sparql.planner.copied_values`).
Numeric dates are read month first, as the English of WebQSP and CWQ writes them, unless
the first number cannot be a month; a two-digit year is 19xx from 30 on, else 20xx.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_WRITTEN = [
    rf"{_DAY}\s+(?:of\s+)?{_MONTH},?\s*{_YEAR}",  # 28 October 1981
    rf"{_MONTH},?\s+{_DAY}(?:\s*,\s*|\s+){_YEAR}",  # March 4, 1933 / July, 2, 2009 / April 04 2008
    r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})",  # 1933-03-05
    r"(?P<month>\d{1,2})[-/](?P<day>\d{1,2})[-/](?P<year>\d{4}|\d{2})",  # 3-4-1933 / 10/20/09
    rf"{_MONTH},?\s+{_YEAR}",  # October 1981
    r"(?P<month>\d{1,2})/(?P<year>\d{4})",  # 12/2010
]


@dataclass(frozen=True, slots=True)
class QuestionDate:
    """A date the question writes: its ISO text (``YYYY-MM-DD``, or ``YYYY-MM`` when the
    question names no day) and where it stands in the question."""

    iso: str
    start: int
    end: int


_PATTERNS = [re.compile(r"(?<![\w/-])" + p + r"(?![\w/-])", re.IGNORECASE) for p in _WRITTEN]


def question_dates(question: str) -> list[QuestionDate]:
    """The dates ``question`` writes, in order; a span is read by the first form that fits.

    >>> [d.iso for d in question_dates("died on December 31, 1877 or 28 October 1981?")]
    ['1877-12-31', '1981-10-28']
    >>> [d.iso for d in question_dates("from 3-4-1933, on 10/20/09, since 1933-03-05, ended 12/2010")]
    ['1933-03-04', '2009-10-20', '1933-03-05', '2010-12']
    >>> [d.iso for d in question_dates("founded in 1899 with 4-1 and 1,000 fans")]
    []
    """
    found: list[QuestionDate] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(question):
            if any(match.start() < d.end and d.start < match.end() for d in found):
                continue
            iso = _iso(match.groupdict())
            if iso is not None:
                found.append(QuestionDate(iso, match.start(), match.end()))
    return sorted(found, key=lambda d: d.start)


def without_dates(question: str, dates: list[QuestionDate]) -> str:
    """``question`` with the spans of ``dates`` blanked, so that their digits are not read as numbers.

    >>> q = "ended prior to 28 October 1981 with 40 wins"
    >>> without_dates(q, question_dates(q)).split()
    ['ended', 'prior', 'to', 'with', '40', 'wins']
    """
    for found in dates:
        question = question[: found.start] + " " * (found.end - found.start) + question[found.end :]
    return question


def _iso(parts: dict[str, str | None]) -> str | None:
    year_text, month_text, day_text = parts["year"] or "", parts["month"] or "", parts.get("day")
    year = int(year_text)
    if len(year_text) == 2:
        year += 1900 if year >= 30 else 2000
    month = int(month_text) if month_text.isdigit() else _MONTHS[month_text.lower().rstrip(".")]
    day = int(day_text) if day_text else None
    if day is not None and month > 12 and day <= 12:  # 21-12-1907: the day came first
        month, day = day, month
    try:
        date(year, month, day or 1)
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day is not None else "")
