"""Exemplars: the plans of similar training questions in the planner's input.

The memory is built from real WebQSP train questions with plans synthesised from their
gold queries, embedded by the bundled MiniLM; a tiny encoder-decoder (the one of
``test_planner_training.py``) is trained on exemplar inputs to check that training records
the count, ships the memory with the model, and that the backends read it back.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from test_planner_training import config, log_lines, one_thread, tiny_bert  # noqa: F401  (fixtures)

from nl2sparql.config import data_file
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.planner import exemplars as exemplars_module
from nl2sparql.planner.backends import open_planner
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.exemplars import ExemplarMemory, exemplar_text, mask_names, memory_pairs, with_exemplars
from nl2sparql.planner.input_format import (
    examples_in_input,
    format_input,
    names_from_input,
    question_from_input,
    with_examples,
)
from nl2sparql.planner.model import LoraSettings
from nl2sparql.planner.pairs import EXEMPLARS_DIR, PlanPair, write_pairs
from nl2sparql.training.complex_data import source_question
from nl2sparql.training.data import DataReport, is_webqsp_dev, synthesised_pairs
from nl2sparql.training.train import train


@pytest.fixture(scope="module")
def pairs() -> list[PlanPair]:
    examples = load_dataset(data_file("webqsp/WebQSP.train.json"), "webqsp")[:120]
    train_pairs, _ = synthesised_pairs(examples, is_webqsp_dev, "webqsp-train", DataReport())
    return train_pairs


@pytest.fixture(scope="module")
def memory(pairs: list[PlanPair]) -> ExemplarMemory:
    return ExemplarMemory.build(pairs)


def test_doctests_hold() -> None:
    assert doctest.testmod(exemplars_module).failed == 0


def test_names_are_masked_in_questions_and_plans() -> None:
    assert mask_names("who is Justin Bieber's brother, justin bieber?", ["Justin Bieber"]) == "who is X's brother, X?"
    assert mask_names("the new york times in new york", ["New York", "New York Times"]) == "the X in X"
    text = exemplar_text(
        "Type: simple\nFind the sibling of the person Cy Quill, assign it to ?x.\nThe answer is ?x.\n", ["Cy Quill"]
    )
    assert text == "Type: simple ; Find the sibling of the person X, assign it to ?x."


def test_the_input_keeps_its_question_and_names_with_exemplars() -> None:
    text = with_examples(
        format_input("who is x?", {"m.1": "A", "m.2": "B"}), ["Type: simple ; Find a", "Type: simple ; Find b"]
    )
    assert text == "question: who is x? entities: A | B examples: Type: simple ; Find a // Type: simple ; Find b"
    assert names_from_input(text) == ("A", "B") and question_from_input(text) == "who is x?"
    assert examples_in_input(text) == 2 and examples_in_input(format_input("who is x?", {"m.1": "A"})) == 0
    assert with_examples("question: q entities: A", []) == "question: q entities: A"


def _shared(memory: ExemplarMemory, text: str, source: str) -> bool:
    """Whether another source question has the very same exemplar."""
    return any(t == text and i != source for t, i in zip(memory.texts, memory.ids, strict=True))


def test_similar_questions_find_each_others_plans(pairs: list[PlanPair], memory: ExemplarMemory) -> None:
    assert len(memory.ids) == len(pairs) > 80 and memory.vectors.shape[0] == len(pairs)
    # a question whose topic entity is written in it, as most are
    first = next(p for p in pairs if names_from_input(p.input)[0].lower() in question_from_input(p.input))
    question, names = question_from_input(first.input), names_from_input(first.input)
    own = exemplar_text(first.output, names)
    found = memory.nearest([question], [names], 3)[0]
    assert found[0] == own and len(set(found)) == 3
    others = memory.nearest([question], [names], 3, exclude=[first.id])[0]
    assert own not in others or _shared(memory, own, first.id)
    # the same question about another entity finds the same plan: names do not count
    renamed = question.replace(names[0].lower(), "frank zappa")
    assert memory.nearest([renamed], [["Frank Zappa"]], 1)[0][0] == own


def test_training_inputs_never_hold_their_own_plan(pairs: list[PlanPair], memory: ExemplarMemory) -> None:
    marked = with_exemplars(pairs, memory, 2, own=True)
    assert [p.id for p in marked] == [p.id for p in pairs] and all(examples_in_input(p.input) == 2 for p in marked)
    for before, after in zip(pairs, marked, strict=True):
        own = exemplar_text(before.output, names_from_input(before.input))
        held = after.input.partition(" examples: ")[2].split(" // ")
        assert own not in held or _shared(memory, own, before.id)
        assert question_from_input(after.input) == question_from_input(before.input)
    webqsp_test = PlanPair("WebQTest-9", pairs[0].input, pairs[0].output)
    assert memory_pairs([*pairs[:3], webqsp_test]) == pairs[:3]  # nothing built on a test question


def test_pairs_made_from_a_memory_question_skip_its_plan(pairs: list[PlanPair], memory: ExemplarMemory) -> None:
    """Complex pairs are built on WebQSP train questions: their ids are not the source's."""
    made = [PlanPair(f"{p.id}-conjunction", p.input, p.output) for p in pairs]
    blind = with_exemplars(made, memory, 1, own=True)
    told = with_exemplars(made, memory, 1, own=True, sources=[source_question(p.id) for p in made])
    leaks = 0
    for before, unaware, aware in zip(pairs, blind, told, strict=True):
        own = exemplar_text(before.output, names_from_input(before.input))
        leaks += unaware.input.endswith(own) and not _shared(memory, own, before.id)
        assert not aware.input.endswith(own) or _shared(memory, own, before.id)
    assert leaks > len(pairs) // 2  # without its source named, a pair finds its own plan first


def test_the_memory_saves_loads_and_names_what_is_missing(memory: ExemplarMemory, tmp_path: Path) -> None:
    memory.save(tmp_path / "m")
    loaded = ExemplarMemory.load(tmp_path / "m")
    assert loaded.ids == memory.ids and loaded.texts == memory.texts
    assert (loaded.vectors == memory.vectors).all()
    with pytest.raises(PlannerModelError, match=r"no exemplar memory in .* run 'nl2sparql setup'"):
        ExemplarMemory.load(tmp_path / "absent")
    (tmp_path / "m" / "exemplars.jsonl").write_text('{"id": "a", "text": "t"}\n')
    with pytest.raises(PlannerModelError, match="1 exemplars but vectors of shape"):
        ExemplarMemory.load(tmp_path / "m")


def test_a_planner_trained_on_exemplars_ships_and_reads_its_memory(
    tiny_bert: Path,  # noqa: F811
    pairs: list[PlanPair],
    memory: ExemplarMemory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = tmp_path / "data"
    write_pairs(data / "train.jsonl", with_exemplars(pairs[:8], memory, 2, own=True))
    memory.save(data / EXEMPLARS_DIR)
    result = train(config(data, tmp_path / "out", f"ed:{tiny_bert}", method="lora", epochs=1), progress=False)
    assert result.meta["exemplars"] == 2 and (result.out / EXEMPLARS_DIR / "vectors.npy").is_file()

    planner = open_planner(f"hf:{result.out}", num_beams=1, sample_tries=0)
    seen: list[str] = []
    generate = planner.model.generate

    def spy(inputs, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.extend(inputs)
        return generate(inputs, *args, **kwargs)

    monkeypatch.setattr(planner.model, "generate", spy)
    request = {"question": question_from_input(pairs[0].input), "entities": {"m.x": "Frank Zappa"}}
    planner.plan_batch([request], errors="return")  # one epoch on 8 pairs: whether it parses is no matter
    assert len(seen) == 1 and examples_in_input(seen[0]) == 2 and names_from_input(seen[0]) == ("Frank Zappa",)

    # Without its memory (and none in the home folder) the planner says what to run.
    (result.out / EXEMPLARS_DIR).rename(tmp_path / "moved")
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path / "home"))
    with pytest.raises(PlannerModelError, match="run 'nl2sparql setup'"):
        open_planner(f"hf:{result.out}")


def test_a_run_can_start_from_a_trained_lora_planner(tiny_bert: Path, pairs: list[PlanPair], tmp_path: Path) -> None:  # noqa: F811
    data = tmp_path / "data"
    write_pairs(data / "train.jsonl", pairs[:8])
    base = f"ed:{tiny_bert}"
    first = train(config(data, tmp_path / "first", base, method="lora", epochs=6, lr=5e-3), progress=False)
    fresh = train(config(data, tmp_path / "fresh", base, method="lora", epochs=1, lr=5e-3), progress=False)
    warm = train(
        config(data, tmp_path / "warm", base, method="lora", epochs=1, lr=5e-3, init=str(first.out)), progress=False
    )
    first_loss = {
        name: [line["loss"] for line in log_lines(run.out) if line["event"] == "step"][0]
        for name, run in (("fresh", fresh), ("warm", warm))
    }
    # the warm run starts where the first one ended, the fresh one where the first one began
    ended = [line["train_loss"] for line in log_lines(first.out) if line["event"] == "epoch"][-1]
    assert abs(first_loss["warm"] - ended) < 0.05 and first_loss["fresh"] - first_loss["warm"] > 0.1
    assert warm.meta["init"]["from"] == "first" and warm.meta["init"]["epochs"] == 6 and fresh.meta["init"] is None
    with pytest.raises(PlannerModelError, match="LoRA rank 16; this run is lora on .* with rank 4"):
        train(
            config(data, tmp_path / "r4", base, method="lora", lora=LoraSettings(r=4, alpha=8), init=str(first.out)),
            progress=False,
        )
