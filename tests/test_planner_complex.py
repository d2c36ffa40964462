"""Synthetic complex questions (CWQ's recipe) built from real WebQSP train questions.

For each category (composition, conjunction, comparative, superlative) the first WebQSP
train question of one relation and no constraint that extends (a different one for each
category) is extended, verbalised, given its gold plan and rebuilt
through a real bank (the embedder, recall and the compiler as the oracle reconstruction
runs them) to its own query. The bank holds the statements of the four synthetic queries
and of 40 other WebQSP train queries, so recall has to choose. The dev split is never a
source, of questions or of facts.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from conftest import rebuild_compiler

from nl2sparql.compiler import canonical, parse
from nl2sparql.config import data_file
from nl2sparql.kg.freebase_schema import load_schema
from nl2sparql.kg.splits import is_webqsp_dev
from nl2sparql.reconstruction import PlanCompiler
from nl2sparql.training.complex_data import ComplexBuilder, complex_pairs
from nl2sparql.training.complex_extend import CATEGORIES, Extension
from nl2sparql.training.complex_facts import build_fact_index, training_records
from nl2sparql.training.complex_rebuild import rebuild_failure
from nl2sparql.training.complex_source import Source, read_source
from nl2sparql.training.complex_verbalise import verbalise
from nl2sparql.training.synthesise import PlanSynthesiser

DISTRACTORS = 40


class _Id:
    def __init__(self, id: str) -> None:
        self.id = id


@pytest.fixture(scope="module")
def parts() -> dict[str, Any]:
    schema = load_schema()
    records = training_records(data_file("webqsp/WebQSP.train.json"))
    sources = [s for s in (read_source(r, schema) for r in records) if isinstance(s, Source)]
    builder = ComplexBuilder(schema, build_fact_index(records, schema), PlanSynthesiser(), None)
    return {"schema": schema, "records": records, "sources": sources, "builder": builder}


def _first(builder: ComplexBuilder, sources: list[Source], category: str, used: set[str]) -> tuple[Source, Extension]:
    """The first unused one-relation question with no constraint that extends to ``category``."""
    for source in [s for s in sources if len(s.chain) == 1 and len(s.entities) == 1 and s.id not in used]:
        extension = builder.extend(source, category, random.Random(f"0:{source.id}:{category}"))
        if isinstance(extension, Extension):
            try:
                builder.synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
            except Exception:  # noqa: BLE001 - the next source, as the data run does
                continue
            used.add(source.id)
            return source, extension
    raise AssertionError(f"no WebQSP train question extends to a {category}")


@pytest.fixture(scope="module")
def built(parts: dict[str, Any]) -> dict[str, tuple[Source, Extension]]:
    used: set[str] = set()
    return {c: _first(parts["builder"], parts["sources"], c, used) for c in CATEGORIES}


@pytest.fixture(scope="module")
def compiler(parts: dict[str, Any], built: dict[str, tuple[Source, Extension]]) -> PlanCompiler:
    """A bank of the synthetic queries' statements and of other WebQSP train queries' statements."""
    distractors = parts["sources"][100 : 100 + DISTRACTORS]
    return rebuild_compiler(parts["builder"], [e for _, e in built.values()], distractors)


def test_dev_split_is_never_a_source(parts: dict[str, Any]) -> None:
    assert parts["sources"] and not any(is_webqsp_dev(s) for s in parts["sources"])
    facts = parts["builder"].facts
    seen = {f.source for fs in facts.by_subject.values() for f in fs}
    assert seen and not any(is_webqsp_dev(_Id(s)) for s in seen)


@pytest.mark.parametrize("category", CATEGORIES)
def test_one_pair_per_category_rebuilds_its_query(
    category: str, parts: dict[str, Any], built: dict[str, tuple[Source, Extension]], compiler: PlanCompiler
) -> None:
    source, extension = built[category]
    builder: ComplexBuilder = parts["builder"]
    question = verbalise(extension, source, builder.synthesiser.decomposer)
    synthesis = builder.synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
    print(f"\n{category} from {source.id}: {source.question!r} -> {question!r}\n{synthesis.text}")
    assert question != source.question and question.strip()
    assert synthesis.plan.type == category
    assert rebuild_failure(extension.sparql, synthesis, dict(extension.entities), compiler) is None
    rebuilt = compiler.compile(synthesis.plan, extension.entities).query
    assert canonical(rebuilt) == canonical(parse(extension.sparql, "virtuoso"))
    assert canonical(rebuilt) != canonical(parse(source.sparql, "virtuoso"))


def test_question_keeps_the_source_words_and_names_the_addition(built: dict[str, tuple[Source, Extension]]) -> None:
    source, ext = built["composition"]
    assert source.mention.lower() in source.question.lower()
    assert ext.detail["name"] in ext.entities.values() and source.topic not in ext.entities
    source, ext = built["conjunction"]
    assert ext.detail["entity"] in ext.entities and source.topic in ext.topics


def test_the_data_run_keeps_only_pairs_that_rebuild(
    parts: dict[str, Any], built: dict[str, tuple[Source, Extension]], compiler: PlanCompiler
) -> None:
    builder = ComplexBuilder(parts["schema"], parts["builder"].facts, parts["builder"].synthesiser, compiler)
    sources = [source for source, _ in built.values()]
    pairs, records, report = complex_pairs(builder, sources, 4)
    kept = {r["id"] for r in records if r["status"] == "kept"}
    assert {p.id for p in pairs} == kept and sum(report.kept.values()) == len(pairs) >= 1
    assert all(r["status"] != "kept" for r in records if r["id"] not in kept)
    with pytest.raises(ValueError, match="between 0"):
        complex_pairs(builder, sources, -1)


def test_cli_refuses_a_bad_count_or_a_missing_bank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nl2sparql.cli import main

    out = tmp_path / "out"
    assert main(["planner", "data", "--out", str(out), "--complex", "-1"]) == 1
    assert "--complex takes a number" in capsys.readouterr().err
    code = main(["planner", "data", "--out", str(out), "--complex", "4", "--bank", str(tmp_path / "absent.nl2sq")])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists() and "no bank at" in err and "absent.nl2sq" in err
