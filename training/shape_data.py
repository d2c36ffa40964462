"""Planner pairs in QALD's shapes (yes/no, text match, aggregate, top k, more than, nested questions).

``planner data --shapes N`` writes them.

They are built, checked and written the way the complex pairs are (:mod:`.complex_data`):
a WebQSP train query outside the dev split is rewritten (:mod:`.shape_extend`), its
question written from its own words (:mod:`.shape_verbalise`), its plan synthesised from
the rewritten query, and the pair kept only when that plan rebuilds the query through
the bank. Every attempt goes to ``shapes.jsonl`` with its query, plan and status.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from nl2sparql.training import shape_extend as shapes
from nl2sparql.training import shape_verbalise as say
from nl2sparql.training.complex_data import ComplexBuilder, ComplexReport, Loaded, write_built_pairs
from nl2sparql.training.complex_extend import Extension, composition
from nl2sparql.training.complex_source import Source
from nl2sparql.training.complex_verbalise import VerbaliseError, replace_mention, verbalise

SHAPE_FILE = "shapes.jsonl"


class ShapeBuilder(ComplexBuilder):
    """A :class:`ComplexBuilder` whose categories are the QALD shapes of :data:`shapes.SHAPES`."""

    name = "shape"
    categories = shapes.SHAPES

    def __init__(self, builder: ComplexBuilder, records: Iterable[Mapping[str, Any]]) -> None:
        super().__init__(builder.schema, builder.facts, builder.synthesiser, builder.compiler)
        self.records = {str(r.get("QuestionId")): r for r in records}
        self.pool = shapes.answers_by_relation(self.records.values())
        self.topics = shapes.topics_by_chain(self.records.values())

    def extend(self, source: Source, category: str, rng: random.Random) -> Extension | str:
        record = self.records[source.id]
        if category == "yes-no":
            return shapes.yes_no(source, shapes.answer_names(record), shapes.answer_years(record), self.pool, rng)
        if category == "contains":
            return shapes.contains(source, shapes.answer_names(record), rng)
        if category in ("aggregate", "top-k"):
            ranked = super().extend(source, "superlative", rng)
            return ranked if isinstance(ranked, str) else shapes.from_superlative(ranked, category, rng)
        if category == "nested":
            nested = composition(source, self.facts, self.schema, rng, into_only=True)
            return nested if isinstance(nested, str) else replace(nested, category="nested")
        if category == "more":
            return shapes.more(source, shapes.answer_count(record), self.topics.get(source.chain, ()), rng)
        raise ValueError(f"unknown shape {category!r}; known: {', '.join(shapes.SHAPES)}")

    def verbalise(self, extension: Extension, source: Source, rng: random.Random) -> str:
        detail = extension.detail
        if extension.category == "yes-no":
            if detail["kind"] == "date":
                text = say.before_year(source.question, detail["year"], rng)
            else:
                text = say.yes_no(source.question, detail["name"])
        elif extension.category == "nested":
            inner = say.answers_phrase(str(self.records[detail["fact_from"]].get("RawQuestion") or ""))
            text = replace_mention(source.question, source.mention, inner) if inner else None
        elif extension.category == "more":
            text = say.more_than(source.question, source.mention, detail["other"], detail["comparison"], rng)
        elif extension.category == "contains":
            text = say.contains(source.question, detail["word"], rng)
        else:
            ranked = verbalise(replace(extension, category="superlative"), source, self.synthesiser.decomposer)
            if extension.category == "aggregate":
                text = say.aggregate(ranked, detail["function"], detail["kind"], rng)
            else:
                text = say.top_k(ranked, detail["k"], rng)
        if text is None:
            raise VerbaliseError(f"no {extension.category} question fits {source.question!r}")
        return text


def write_shape_data(
    out: str | Path,
    total: int,
    loaded: Loaded,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    exemplars: tuple[Any, int] | None = None,
) -> tuple[int, ComplexReport]:
    """Add up to ``total`` shape pairs to ``out/train.jsonl`` and every attempt to ``shapes.jsonl``
    (``loaded``: what :func:`~.complex_data.load_builder` loads, shared with the complex pairs)."""
    builder = ShapeBuilder(loaded.builder, loaded.records)
    attempts = Path(out) / SHAPE_FILE
    return write_built_pairs(attempts, builder, loaded.sources, total, seed + 1, progress, exemplars)
