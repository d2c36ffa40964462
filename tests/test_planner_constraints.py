"""CWQ's constraint forms (a value the answer once had, "during <event>") built from real WebQSP train questions.

For each form the first WebQSP train question that extends to it is extended, verbalised,
given its gold plan and rebuilt to its own query through a real bank (the embedder,
recall and the compiler as the oracle reconstruction runs them) that also holds the
statements of 40 other WebQSP train queries. No seed of a question of either dev split is
ever a source.
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
from nl2sparql.kg.splits import seeds_cwq_dev
from nl2sparql.planner.pairs import TRAIN_FILE, read_pairs
from nl2sparql.reconstruction import PlanCompiler
from nl2sparql.training import constraint_data, constraint_extend
from nl2sparql.training.complex_data import ComplexBuilder, source_question, write_built_pairs
from nl2sparql.training.complex_extend import Extension
from nl2sparql.training.complex_facts import build_fact_index, training_records
from nl2sparql.training.complex_rebuild import rebuild_failure
from nl2sparql.training.complex_source import Source, read_source
from nl2sparql.training.constraint_data import CONSTRAINT_FILE, ConstraintBuilder
from nl2sparql.training.constraint_extend import CATEGORIES
from nl2sparql.training.synthesise import PlanSynthesiser

DISTRACTORS = 40


@pytest.fixture(scope="module")
def parts() -> dict[str, Any]:
    schema = load_schema()
    records = training_records(data_file("webqsp/WebQSP.train.json"))
    sources = [s for s in (read_source(r, schema) for r in records) if isinstance(s, Source)]
    base = ComplexBuilder(schema, build_fact_index(records, schema), PlanSynthesiser(), None)
    return {"schema": schema, "sources": sources, "builder": ConstraintBuilder(base)}


def _first(builder: ConstraintBuilder, sources: list[Source], form: str) -> tuple[Source, Extension]:
    plain = [s for s in sources if len(s.entities) == 1 and "?sk" not in s.sparql]  # no constraint of its own
    for source in plain:
        extension = builder.extend(source, form, random.Random(f"0:{source.id}:{form}"))
        if isinstance(extension, Extension):
            try:
                builder.synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
            except Exception:  # noqa: BLE001 - the next source, as the data run does
                continue
            return source, extension
    raise AssertionError(f"no WebQSP train question extends to {form!r}")


@pytest.fixture(scope="module")
def built(parts: dict[str, Any]) -> dict[str, tuple[Source, Extension]]:
    return {form: _first(parts["builder"], parts["sources"], form) for form in CATEGORIES}


@pytest.fixture(scope="module")
def compiler(parts: dict[str, Any], built: dict[str, tuple[Source, Extension]]) -> PlanCompiler:
    distractors = parts["sources"][100 : 100 + DISTRACTORS]
    return rebuild_compiler(parts["builder"], [e for _, e in built.values()], distractors)


@pytest.mark.parametrize("form", CATEGORIES)
def test_one_pair_per_form_rebuilds_its_query(
    form: str, parts: dict[str, Any], built: dict[str, tuple[Source, Extension]], compiler: PlanCompiler
) -> None:
    source, extension = built[form]
    builder: ConstraintBuilder = parts["builder"]
    question = builder.verbalise(extension, source, random.Random(0))
    synthesis = builder.synthesiser.synthesise(extension.sparql, extension.entities, extension.topics)
    print(f"\n{form} from {source.id}: {source.question!r} -> {question!r}\n{synthesis.text}")
    assert question.startswith(source.question.rstrip("?. ")) and question != source.question
    assert rebuild_failure(extension.sparql, synthesis, dict(extension.entities), compiler) is None
    rebuilt = compiler.compile(synthesis.plan, extension.entities).query
    assert canonical(rebuilt) == canonical(parse(extension.sparql, "virtuoso"))
    assert canonical(rebuilt) != canonical(parse(source.sparql, "virtuoso"))


def test_a_value_is_compared_as_cwq_writes_it(
    built: dict[str, tuple[Source, Extension]], parts: dict[str, Any]
) -> None:
    _, ext = built["value"]
    detail = ext.detail
    literal = f'"{detail["value"]}"' + ("^^xsd:dateTime" if detail["kind"] == "date" else "")
    assert f"{literal} ." in ext.sparql
    assert detail["value_from"] in ("gold answers", "made up")
    plan = parts["builder"].synthesiser.synthesise(ext.sparql, ext.entities, ext.topics).text
    assert f"is {detail['value']}" in plan or f'is "{detail["value"]}"' in plan


def test_during_compares_the_event_span_with_the_fact(
    built: dict[str, tuple[Source, Extension]], parts: dict[str, Any]
) -> None:
    source, ext = built["during"]
    name = ext.detail["name"]
    assert ext.detail["event"] in ext.entities and ext.detail["event"] in ext.topics and source.topic in ext.topics
    plan = parts["builder"].synthesiser.synthesise(ext.sparql, ext.entities, ext.topics).text
    assert f"Find the start date of the event {name}" in plan and f"Find the end date of the event {name}" in plan
    assert "is less than ?v" in plan and "is greater than ?v" in plan


def test_no_seed_of_a_dev_question_is_extended(parts: dict[str, Any]) -> None:
    seeds = [s for s in parts["sources"] if seeds_cwq_dev(s.id)][:20]
    assert seeds and all(int(s.id.rsplit("-", 1)[1]) % 5 == 0 for s in seeds)
    for source in seeds:
        for form in CATEGORIES:
            found = parts["builder"].extend(source, form, random.Random(0))
            assert found == "the seed of a CWQ dev question"


def test_the_pairs_and_every_attempt_are_written(
    parts: dict[str, Any], built: dict[str, tuple[Source, Extension]], compiler: PlanCompiler, tmp_path: Path
) -> None:
    base = parts["builder"]
    builder = ConstraintBuilder(ComplexBuilder(base.schema, base.facts, base.synthesiser, compiler))
    sources = [s for s, _ in built.values()]
    written, report = write_built_pairs(tmp_path / CONSTRAINT_FILE, builder, sources, 4, 0, None, None)
    pairs = read_pairs(tmp_path / TRAIN_FILE)
    attempts = [json.loads(line) for line in (tmp_path / CONSTRAINT_FILE).read_text().splitlines()]
    assert written == len(pairs) == sum(report.kept.values()) >= 1 and report.name == "constraint"
    assert {p.id for p in pairs} == {a["id"] for a in attempts if a["status"] == "kept"}
    assert all(a["category"] in CATEGORIES for a in attempts)


def test_a_dated_source_gives_a_during_pair_for_several_events(
    parts: dict[str, Any], built: dict[str, tuple[Source, Extension]], compiler: PlanCompiler, tmp_path: Path
) -> None:
    base = parts["builder"]
    builder = ConstraintBuilder(ComplexBuilder(base.schema, base.facts, base.synthesiser, compiler))
    source, _ = built["during"]
    total = 2 * constraint_data.DURING_EVENTS
    write_built_pairs(tmp_path / CONSTRAINT_FILE, builder, [source], total, 0, None, None)
    attempts = [json.loads(line) for line in (tmp_path / CONSTRAINT_FILE).read_text().splitlines()]
    during = [a for a in attempts if a["category"] == "during"]
    turns = ("", *(str(n) for n in range(2, constraint_data.DURING_EVENTS + 1)))
    assert [a["id"] for a in during] == [f"{source.id}-during{t}" for t in turns]
    assert len({a["detail"]["event"] for a in during}) == len(during)
    assert {source_question(a["id"]) for a in during} == {source.id}
    kept = {p.id for p in read_pairs(tmp_path / TRAIN_FILE)}
    assert {a["id"] for a in during if a["status"] == "kept"} <= kept and len(kept) >= 2


def test_cli_refuses_a_bad_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nl2sparql.cli import main

    out = tmp_path / "out"
    assert main(["planner", "data", "--out", str(out), "--constraints", "-1"]) == 1
    assert "--constraints takes a number" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("module", [constraint_extend, constraint_data], ids=lambda m: m.__name__)
def test_the_examples_in_the_docstrings_hold(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted >= 1 and result.failed == 0
