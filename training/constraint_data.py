"""Planner pairs in two constraint forms of CWQ: a value the answer once had, and "during <event>".

``planner data --constraints N`` writes them (:mod:`.constraint_extend` says what each form
is). They are built, checked and written as the complex pairs are (:mod:`.complex_data`):
a WebQSP train query outside both dev splits is extended, its question written from its
own words by the templates below, its plan synthesised from the extended query, and the
pair kept only when that plan rebuilds the query through the bank. Every attempt goes to
``constraints.jsonl`` with its query, plan and status.

Why: the default planner wrote a CVT's date or an unrelated relation for *what
Portuguese-speaking country had a child labor percentage of 1.8?*, and one step per
answer for *who was the US president during WW2?*, where CWQ's gold plans compare the
event's start and end; neither form was in its training data.
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nl2sparql.training import constraint_extend as forms
from nl2sparql.training.complex_data import ComplexBuilder, ComplexReport, Loaded, write_built_pairs
from nl2sparql.training.complex_extend import Extension
from nl2sparql.training.complex_source import Source
from nl2sparql.training.complex_verbalise import is_hub, relation_noun, stem

CONSTRAINT_FILE = "constraints.jsonl"
VALUE_TEMPLATES = (
    "{stem}, where the {noun} was once {value}?",
    "{stem} with {article} {noun} of {value}?",
    "{stem}, whose {noun} is {value}?",
)
DURING_EVENTS = 3
DURING_TEMPLATES = ("{stem} during {event}?", "{stem} at the time of {event}?", "{stem} while {event} was going on?")


def spoken_date(iso: str, rng: random.Random) -> str:
    """An ISO date as a question writes it: ``March 4, 1933``, ``3-4-1933`` or as it is.

    >>> sorted({spoken_date("1933-03-04", random.Random(s)) for s in range(20)})
    ['1933-03-04', '3-4-1933', 'March 4, 1933']
    """
    year, month, day = (int(part) for part in iso.split("-"))
    return rng.choice((f"{calendar.month_name[month]} {day}, {year}", f"{month}-{day}-{year}", iso))


class ConstraintBuilder(ComplexBuilder):
    """A :class:`ComplexBuilder` whose categories are the two forms of :mod:`.constraint_extend`."""

    name = "constraint"
    categories = forms.CATEGORIES
    #: a source with a dated CVT gives a *during* pair for up to three events: few sources have one
    turns = {"during": DURING_EVENTS}

    def __init__(self, builder: ComplexBuilder) -> None:
        super().__init__(builder.schema, builder.facts, builder.synthesiser, builder.compiler)
        self.events = forms.events(builder.facts, builder.schema)
        self.spans = forms.time_spans(builder.schema)

    def extend(self, source: Source, category: str, rng: random.Random) -> Extension | str:
        if category == "value":
            return forms.value(source, self.facts, self.schema, rng, self.paths)
        if category == "during":
            return forms.during(source, self.schema, rng, self.events, self.spans)
        raise ValueError(f"unknown constraint form {category!r}; known: {', '.join(forms.CATEGORIES)}")

    def verbalise(self, extension: Extension, source: Source, rng: random.Random) -> str:
        detail = extension.detail
        if extension.category == "during":
            return rng.choice(DURING_TEMPLATES).format(stem=stem(source.question), event=detail["name"])
        noun = relation_noun(detail["path"], is_hub(detail["path"], self.synthesiser.decomposer))
        said = spoken_date(detail["value"], rng) if detail["kind"] == "date" else detail["value"]
        article = "an" if noun[:1] in "aeiou" else "a"
        text = rng.choice(VALUE_TEMPLATES)
        return text.format(stem=stem(source.question), noun=noun, value=said, article=article)


def write_constraint_data(
    out: str | Path,
    total: int,
    loaded: Loaded,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    exemplars: tuple[Any, int] | None = None,
) -> tuple[int, ComplexReport]:
    """Add up to ``total`` constraint pairs to ``out/train.jsonl`` and every attempt to
    ``constraints.jsonl`` (``loaded``: what :func:`~.complex_data.load_builder` loads)."""
    builder = ConstraintBuilder(loaded.builder)
    attempts = Path(out) / CONSTRAINT_FILE
    return write_built_pairs(attempts, builder, loaded.sources, total, seed + 2, progress, exemplars)
