"""KG-pattern planning data (LPKG) grounded in the Freebase-shaped fixture graph of conftest.

The graph is loaded into a real Oxigraph store in a temporary folder; the bank is built
from that store with the real embedder. Instances are checked three ways: their answers
against an independent engine (rdflib over the same N-Triples), their plans against the
plan grammar and the gold-plan conventions, and their plans' reconstruction through the
memory against the grounded answers.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.compiler import generate, parse
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.kg.store import Store, open_store
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.build_store import build_bank_from_store
from nl2sparql.memory_bank.embedder import default_embedder
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Answer, Combine, Count, Find, MakeSure, Rank
from nl2sparql.planner.input_format import format_input
from nl2sparql.planner.pairs import PlanPair, read_pairs, write_pairs
from nl2sparql.training import pattern_questions as say
from nl2sparql.training.pattern_data import PATTERN_FILE, add_pairs, check_instances, sample_instances
from nl2sparql.training.pattern_graph import PatternGraph
from nl2sparql.training.patterns import PATTERNS, Instance, generate_instances

PER_PATTERN = 5
PLAN_TYPES = {
    "1p": "simple",
    "2p": "composition",
    "3p": "composition",
    "2i": "conjunction",
    "3i": "conjunction",
    "ip": "conjunction",
    "pi": "conjunction",
    "2u": "union",
    "compare": "comparative",
    "superlative": "superlative",
    "count": "count",
    "ask": "yes-no",
}


@pytest.fixture(scope="module")
def store_dir(fixture_nt: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pattern-store") / "store"
    loader = OxigraphStore(folder)
    loader.load(fixture_nt, progress=False)
    loader.close()
    return folder


@pytest.fixture(scope="module")
def store(store_dir: Path) -> Store:
    return OxigraphStore(store_dir)


@pytest.fixture(scope="module")
def bank(store: Store) -> MemoryBank:
    bank, _ = build_bank_from_store(store, embedder=default_embedder(), source="fixture")
    return bank


@pytest.fixture(scope="module")
def instances(store: Store, bank: MemoryBank) -> list[Instance]:
    made, report = generate_instances(store, PER_PATTERN * len(PATTERNS), seed=3, entries=bank.statements)
    assert report.unavailable == {}
    assert dict(report.made) == {p: PER_PATTERN for p in PATTERNS}, report.lines()
    return made


def test_every_pattern_yields_pairs_that_parse(instances: list[Instance]) -> None:
    assert Counter(i.pattern for i in instances) == {p: PER_PATTERN for p in PATTERNS}
    for instance in instances:
        pair = instance.pair
        assert pair.id.startswith(f"lpkg-{instance.pattern}-") and len(pair.id.rsplit("-", 1)[1]) == 6
        assert pair.input == format_input(instance.question, instance.entities)
        plan = parse_plan(pair.output)
        assert plan.type == PLAN_TYPES[instance.pattern], pair.output
        steps = plan.steps
        finds = [s for s in steps if isinstance(s, Find)]
        hops = {"1p": 1, "2p": 2, "3p": 3, "2i": 2, "3i": 3, "2u": 2, "ip": 3, "pi": 3}
        assert len(finds) == hops.get(instance.pattern, len(finds))
        # Every entity of the question is named by a step, and WebQSP's answer filter is there.
        names = set(instance.entities.values())
        assert all(name in pair.output for name in names)
        if instance.pattern == "ask":
            anchor, value = instance.entities.values()
            assert isinstance(steps[-1], Answer) and steps[-1].exists, pair.output
            assert f"Make sure ?x is {value}." in pair.output and instance.answers in (("true",), ("false",))
            assert instance.sparql.split("\n")[1] == "ASK"
            continue
        assert f"Make sure ?x is not {next(iter(instance.entities.values()))}." in pair.output
        if instance.pattern == "2u":
            assert any(isinstance(s, Combine) for s in steps)
        if instance.pattern == "count":
            assert isinstance(steps[-2], Count) and instance.answers[0].isdigit()
        if instance.pattern == "superlative":
            assert isinstance(steps[-2], Rank) and len(instance.answers) == 1
        if instance.pattern == "compare":
            compared = [s for s in steps if isinstance(s, MakeSure) and s.op != "is"]
            assert [s.op in ("greater than", "less than", "after", "before") for s in compared] == [True]


def _dates_as_dates(sparql: str) -> str:
    """rdflib cannot cast ``xsd:date`` to ``xsd:dateTime``; the fixture's dates are all
    ``xsd:date``, so comparing them with the same day as an ``xsd:date`` means the same."""
    return re.sub(
        r'xsd:dateTime\(\?num\) ([<>]) "(\d{4}-\d{2}-\d{2})T00:00:00"\^\^xsd:dateTime',
        r'?num \1 "\2"^^<http://www.w3.org/2001/XMLSchema#date>',
        sparql,
    )


def test_grounded_answers_match_another_engine(instances: list[Instance], fixture_nt: Path) -> None:
    """Every instance has 1..20 answers (none an entity of its question) and rdflib agrees with them."""
    other = open_store("rdflib", paths=[fixture_nt])
    for instance in instances:
        if instance.pattern == "ask":
            truth = other.ask(generate(parse(instance.sparql, "virtuoso"), "full-iri"))
            assert instance.answers == (str(truth).lower(),), instance.sparql
            continue
        assert instance.answers and len(instance.answers) <= 20
        if instance.pattern != "count":
            assert not set(instance.answers) & set(instance.entities)
        rows = other.select(generate(parse(_dates_as_dates(instance.sparql), "virtuoso"), "full-iri")).rows
        values = {next(iter(r.values())).value.rsplit("/", 1)[-1] for r in rows}
        assert values == set(instance.answers), instance.sparql


def test_a_chain_answers_what_its_hops_answer(instances: list[Instance], store: Store) -> None:
    """A 2p instance's answers are the second hop applied to the first hop's answers, hop by hop."""
    chain = next(i for i in instances if i.pattern == "2p")
    lines = chain.sparql.split("WHERE {\n", 1)[1].rsplit("\n}", 1)[0].splitlines()
    first = [line for line in lines if "?v1" in line and "?x" not in line]
    second = [line for line in lines if "?x" in line and not line.startswith("FILTER")]
    prefix = chain.sparql.split("\n", 1)[0]

    def run(where: list[str], var: str) -> set[str]:
        query = f"{prefix}\nSELECT DISTINCT {var} WHERE {{\n" + "\n".join(where) + "\n}"
        rows = store.select(generate(parse(query, "virtuoso"), "full-iri")).rows
        return {next(iter(r.values())).value.rsplit("/", 1)[-1] for r in rows}

    middles = run(first, "?v1")
    reached: set[str] = set()
    for middle in middles:
        reached |= run([line.replace("?v1", f"ns:{middle}") for line in second], "?x")
    anchor = next(iter(chain.entities))
    assert reached - {anchor} == set(chain.answers)


def test_reconstruction_gives_the_grounded_answers(instances: list[Instance], bank: MemoryBank, store: Store) -> None:
    sample = sample_instances(instances, 3 * len(PATTERNS), seed=0)  # 3 of each pattern
    report = check_instances(sample, bank, store)
    assert report.checked == {p: 3 for p in PATTERNS}
    assert report.rate == 1.0, report.failures
    # The check is not vacuous: a wrong answer set is caught.
    wrong = [replace(i, answers=(*i.answers, "m.0_nowhere")) for i in sample[:2]]
    assert check_instances(wrong, bank, store).rate == 0.0


def test_the_same_seed_gives_the_same_instances(store: Store, bank: MemoryBank) -> None:
    graph = PatternGraph.load(store, bank.statements)
    first, _ = generate_instances(store, 22, seed=9, graph=graph)
    again, _ = generate_instances(store, 22, seed=9, graph=graph)
    other, _ = generate_instances(store, 22, seed=10, graph=graph)
    assert [i.to_json() for i in first] == [i.to_json() for i in again]
    assert [i.pair for i in first] == [i.pair for i in again]
    assert [i.sparql for i in first] != [i.sparql for i in other]


def test_a_store_without_values_has_no_comparisons(store: Store, bank: MemoryBank) -> None:
    graph = PatternGraph.load(store, bank.statements)
    plain = PatternGraph([*graph.relations], graph.names)  # the entity relations only
    made, report = generate_instances(store, 18, seed=1, graph=plain)
    assert set(report.unavailable) == {"compare", "superlative"}
    assert sum(report.wanted.values()) == 18 and "compare" not in report.wanted
    assert {i.pattern for i in made} <= set(PATTERNS) - {"compare", "superlative"}


def test_ask_questions_are_true_and_false(store: Store, bank: MemoryBank) -> None:
    """Yes/no questions that are always true teach a planner nothing: both answers occur."""
    made, _ = generate_instances(store, 12, seed=4, patterns=("ask",), entries=bank.statements)
    assert {i.answers for i in made} == {("true",), ("false",)}
    for instance in made:
        _, value = instance.entities.values()
        assert value in instance.question and instance.question.endswith("?")


def test_add_pairs_keeps_the_gold_bytes(tmp_path: Path, instances: list[Instance]) -> None:
    train = tmp_path / "train.jsonl"
    write_pairs(train, [PlanPair("WebQTrn-1", "question: q entities: A", "Type: simple\nThe answer is ?x.\n")])
    gold = train.read_bytes()
    assert add_pairs(train, [i.pair for i in instances[:4]]) == 5
    assert train.read_bytes().startswith(gold)
    assert [p.id for p in read_pairs(train, check_plans=False)][1:] == [i.id for i in instances[:4]]
    with pytest.raises(Exception, match="already in the file"):
        add_pairs(train, [instances[0].pair])


def test_cli_writes_pattern_pairs_and_checks_them(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["planner", "data", "--sources", "none", "--patterns", "22", "--store", str(store_dir), "--seed", "4"]
    assert main([*argv, "--out", str(tmp_path / "a"), "--quiet", "--json", "--check", "11"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["train"] == 22 and record["dev"] == 0
    assert record["check"]["checked"] == 11 and record["check"]["rate"] == 1.0
    pairs = read_pairs(tmp_path / "a" / "train.jsonl")
    assert len(pairs) == 22 and all(p.id.startswith("lpkg-") for p in pairs)
    assert (tmp_path / "a" / "dev.jsonl").read_text() == ""
    audit = [json.loads(line) for line in (tmp_path / "a" / PATTERN_FILE).read_text().splitlines()]
    assert [a["id"] for a in audit] == [p.id for p in pairs] and all(a["answers"] for a in audit)
    # The same seed writes the same bytes.
    assert main([*argv, "--out", str(tmp_path / "b"), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "made/wanted: 1p 2/2" in text and "wrote" in text
    for name in ("train.jsonl", "dev.jsonl", PATTERN_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_cli_refuses_a_missing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(["planner", "data", "--out", str(out), "--patterns", "5", "--store", str(tmp_path / "absent")])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert err.count("\n") == 1 and "no such store folder" in err and str(tmp_path / "absent") in err
    assert main(["planner", "data", "--out", str(out), "--sources", "dbpedia"]) == 1
    assert "unknown source(s) dbpedia" in capsys.readouterr().err
    assert main(["planner", "data", "--out", str(out), "--check", "3"]) == 1
    assert "--patterns" in capsys.readouterr().err


def test_question_phrases() -> None:
    film = say.phrase("?e2 is the film of the actor ?e1")
    director = say.phrase("?e2 is the director of the film ?e1")
    inner = say.about(film, "Natalie Portman")
    assert inner == "the film of the actor Natalie Portman"
    assert say.over(director, inner) == "the director of the film of the actor Natalie Portman"
    assert say.over("the location that the location ?e1 is contained by", "the place of birth of the person X") == (
        "the location that the place of birth of the person X is contained by"
    )
    assert say.over_both(director, "A", "B") == "the director of the film that is A and B"
    assert say.plural("the film of the actor X") == "the films of the actor X"
    assert say.plural("the country whose capital is X") == "the countries whose capital is X"
    assert say.plural("the olympic games whose sports is X") == "the olympic games whose sports is X"
    assert say.plural("the honored for of X") == "the honored for of X"
    assert say.value_noun("the date of birth of the person ?e1") == "date of birth"
    assert say.value_noun("the end date of the marriage of the person ?e1") == "end date"
    assert say.count_noun(film) == "films" and say.count_noun("the person whose gender is ?e1") is None
    rng = random.Random(0)
    assert say.question(rng, "1p", {"a": inner}) in {t.format(a=inner) for t in say.TEMPLATES["1p"]}
