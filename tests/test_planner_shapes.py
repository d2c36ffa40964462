"""QALD's question shapes (yes/no, text match, aggregate, top k, more than) built from real WebQSP train questions.

For each shape the first one-relation WebQSP train question outside the dev split that
takes it is rewritten, verbalised, given its plan by the gold-plan synthesiser and
rebuilt through a real bank (embedder, recall, compiler) to its own query; the bank
also holds the statements of 40 other train queries, so recall has to choose.
"""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import rebuild_compiler

from nl2sparql.compiler import canonical, parse
from nl2sparql.config import data_file
from nl2sparql.kg.freebase_schema import load_schema
from nl2sparql.plan.steps import YES_NO, Compute, Count, MakeSure, Rank
from nl2sparql.planner.pairs import TRAIN_FILE, read_pairs
from nl2sparql.reconstruction import PlanCompiler
from nl2sparql.training import shape_extend
from nl2sparql.training import shape_verbalise as say
from nl2sparql.training.complex_data import ComplexBuilder, complex_pairs, write_built_pairs
from nl2sparql.training.complex_extend import Extension
from nl2sparql.training.complex_facts import build_fact_index, training_records
from nl2sparql.training.complex_rebuild import rebuild_failure
from nl2sparql.training.complex_source import Source, read_source
from nl2sparql.training.shape_data import SHAPE_FILE, ShapeBuilder
from nl2sparql.training.shape_extend import SHAPES
from nl2sparql.training.synthesise import PlanSynthesiser

DISTRACTORS = 40


@pytest.fixture(scope="module")
def parts() -> dict[str, Any]:
    schema = load_schema()
    records = training_records(data_file("webqsp/WebQSP.train.json"))
    sources = [s for s in (read_source(r, schema) for r in records) if isinstance(s, Source)]
    complex_builder = ComplexBuilder(schema, build_fact_index(records, schema), PlanSynthesiser(), None)
    return {"schema": schema, "sources": sources, "builder": ShapeBuilder(complex_builder, records)}


def _first(builder: ShapeBuilder, sources: list[Source], shape: str, used: set[str]) -> tuple[Source, Extension, str]:
    for source in [s for s in sources if len(s.chain) == 1 and len(s.entities) == 1 and s.id not in used]:
        rng = random.Random(f"1:{source.id}:{shape}")
        extension = builder.extend(source, shape, rng)
        if not isinstance(extension, Extension):
            continue
        try:
            question = builder.verbalise(extension, source, rng)
            builder.synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
        except Exception:  # noqa: BLE001 - the next source, as the data run does
            continue
        used.add(source.id)
        return source, extension, question
    raise AssertionError(f"no WebQSP train question takes the {shape} shape")


@pytest.fixture(scope="module")
def built(parts: dict[str, Any]) -> dict[str, tuple[Source, Extension, str]]:
    used: set[str] = set()
    return {s: _first(parts["builder"], parts["sources"], s, used) for s in SHAPES}


@pytest.fixture(scope="module")
def compiler(parts: dict[str, Any], built: dict[str, tuple[Source, Extension, str]]) -> PlanCompiler:
    distractors = parts["sources"][100 : 100 + DISTRACTORS]
    return rebuild_compiler(parts["builder"], [e for _, e, _ in built.values()], distractors)


@pytest.mark.parametrize("shape", SHAPES)
def test_one_pair_per_shape_rebuilds_its_query(
    shape: str, parts: dict[str, Any], built: dict[str, tuple[Source, Extension, str]], compiler: PlanCompiler
) -> None:
    source, extension, question = built[shape]
    synthesis = parts["builder"].synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
    print(f"\n{shape} from {source.id}: {source.question!r} -> {question!r}\n{synthesis.text}")
    assert question.strip() and question != source.question
    assert rebuild_failure(extension.sparql, synthesis, dict(extension.entities), compiler) is None
    rebuilt = compiler.compile(synthesis.plan, extension.entities).query
    assert canonical(rebuilt) == canonical(parse(extension.sparql, "virtuoso"))
    steps = synthesis.plan.steps
    if shape == "yes-no":
        assert synthesis.plan.type == YES_NO and "ASK" in extension.sparql
    elif shape == "contains":
        assert any(getattr(s, "op", None) == "contains" for s in steps)
        assert extension.detail["word"] in question
    elif shape == "aggregate":
        assert any(isinstance(s, Compute) for s in steps) and "ORDER BY" not in extension.sparql
    elif shape == "nested":
        inner = parts["builder"].records[extension.detail["fact_from"]]["RawQuestion"]
        assert synthesis.plan.type == "composition" and say.answers_phrase(inner) in question
        assert source.mention.lower() not in question.lower()
    elif shape == "more":
        assert synthesis.plan.type == YES_NO and sum(isinstance(s, Count) for s in steps) == 2
        assert any(isinstance(s, MakeSure) and s.op in ("greater than", "less than") for s in steps)
        assert extension.detail["other"] in question and ("more" in question or "fewer" in question)
    else:
        assert any(isinstance(s, Rank) and s.keep == extension.detail["k"] for s in steps)


def test_yes_no_is_true_or_false_by_the_gold_answers(built: dict[str, tuple[Source, Extension, str]]) -> None:
    source, extension, question = built["yes-no"]
    detail = extension.detail
    if detail["kind"] == "entity":
        assert detail["name"] in question
        assert (detail["name"] in dict(extension.entities).values()) and detail["answer"] in (True, False)


def test_more_compares_the_gold_answer_counts(
    parts: dict[str, Any], built: dict[str, tuple[Source, Extension, str]]
) -> None:
    source, extension, _ = built["more"]
    records = parts["builder"].records
    other = next(e for e in extension.entities if e not in source.entities)
    counts = {
        str(r["Parses"][0]["TopicEntityMid"]): len(r["Parses"][0]["Answers"])
        for r in records.values()
        if tuple(r["Parses"][0].get("InferentialChain") or ()) == source.chain
    }
    mine, theirs = counts[source.topic], counts[other]
    assert mine != theirs
    assert extension.detail["answer"] == (mine > theirs if extension.detail["comparison"] == ">" else mine < theirs)
    assert extension.sparql.count("COUNT(DISTINCT") == 2 and f"ns:{other}" in extension.sparql


def test_one_clause_questions_about_the_answers() -> None:
    assert say.answers_phrase("what albums did queen record?") == "the albums that queen record"
    assert say.answers_phrase("how old is obama?") is None
    question = "what albums did queen record, which has the latest release date?"
    worded = {say.aggregate(question, "AVG", "number", random.Random(i)) for i in range(40)}
    assert "what is the average release date of the albums that queen record?" in worded
    ranked = {say.top_k(question, 2, random.Random(i)) for i in range(80)}
    assert "what are the two latest albums that queen record?" in ranked


def test_questions_turn_around_the_answer() -> None:
    assert say.yes_no("what country is the grand bahama island in?", "Bahamas") == (
        "is the grand bahama island in Bahamas?"
    )
    married = say.yes_no("who did tim burton marry?", "Helena Bonham Carter")
    assert married == "did tim burton marry Helena Bonham Carter?"
    assert say.yes_no("how old is obama?", "55") is None
    parts = say.superlative_parts("what movies has x starred in, which has the latest initial release date?")
    assert parts == ("what movies has x starred in", "initial release date")


def test_the_data_run_keeps_only_pairs_that_rebuild(
    parts: dict[str, Any], built: dict[str, tuple[Source, Extension, str]], compiler: PlanCompiler
) -> None:
    builder = ShapeBuilder(
        ComplexBuilder(parts["schema"], parts["builder"].facts, parts["builder"].synthesiser, compiler),
        parts["builder"].records.values(),
    )
    pairs, records, report = complex_pairs(builder, [s for s, _, _ in built.values()], 4, 1)
    kept = {r["id"] for r in records if r["status"] == "kept"}
    assert {p.id for p in pairs} == kept and sum(report.kept.values()) == len(pairs) >= 1
    assert report.name == "shape" and all(r["category"] in SHAPES for r in records)


def test_the_pairs_and_every_attempt_are_written(
    parts: dict[str, Any], built: dict[str, tuple[Source, Extension, str]], compiler: PlanCompiler, tmp_path: Path
) -> None:
    builder = ShapeBuilder(
        ComplexBuilder(parts["schema"], parts["builder"].facts, parts["builder"].synthesiser, compiler),
        parts["builder"].records.values(),
    )
    sources = [s for s, _, _ in built.values()]
    written, report = write_built_pairs(tmp_path / SHAPE_FILE, builder, sources, 4, 1, None, None)
    pairs = read_pairs(tmp_path / TRAIN_FILE)
    attempts = [json.loads(line) for line in (tmp_path / SHAPE_FILE).read_text().splitlines()]
    assert written == len(pairs) == sum(report.kept.values()) >= 1
    assert {p.id for p in pairs} == {a["id"] for a in attempts if a["status"] == "kept"}


def test_cli_refuses_a_bad_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nl2sparql.cli import main

    out = tmp_path / "out"
    assert main(["planner", "data", "--out", str(out), "--shapes", "-1"]) == 1
    assert "--shapes takes a number" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("module", [shape_extend, say], ids=lambda m: m.__name__)
def test_the_examples_in_the_docstrings_hold(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted >= 2 and result.failed == 0
