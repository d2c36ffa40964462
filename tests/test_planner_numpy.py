"""The numpy runtime of the planner writes what transformers writes, and plans without torch.

A tiny random encoder-decoder (the 2-layer BERT of test_planner_training) and the shipped
planner are decoded both ways: greedy, grammar-constrained greedy and beam search must
give the same texts, token for token. A fresh process that opens the shipped planner once
its merged weights are built must plan and embed without importing torch or transformers
(what a fresh ``nl2sparql ask`` gains: seconds of start-up).
"""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_planner_training import one_thread, tiny_bert  # noqa: F401  (fixtures)

from nl2sparql.kg.splits import is_webqsp_dev
from nl2sparql.memory_bank import bert_numpy
from nl2sparql.memory_bank.build_queries import build_bank_from_queries, load_examples
from nl2sparql.planner import merged_cache, output_tokens
from nl2sparql.planner import numpy_model as numpy_runtime
from nl2sparql.planner.backends.local import SHIPPED_PLANNER, exemplars_for, hints_for, load_model
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.exemplars import exemplar_count, planner_inputs
from nl2sparql.planner.input_format import entity_names
from nl2sparql.planner.model import META_FILE, PlannerModel, build_base, parse_base, read_meta
from nl2sparql.planner.numpy_model import NumpyPlanner, open_numpy
from nl2sparql.planner.pairs import EXEMPLARS_DIR
from nl2sparql.training.data import build_exemplar_memory

INPUTS = (
    "question: who is justin bieber's brother? entities: Justin Bieber",
    "question: what county is san diego in? entities: San Diego",
    "question: where was ada quill born, and when did she die? entities: Ada Quill",
)
NAMES = (("Justin Bieber",), ("San Diego",), ("Ada Quill",))


@pytest.fixture(scope="module")
def tiny_pair(tiny_bert: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[PlannerModel, NumpyPlanner]:  # noqa: F811
    """The tiny random encoder-decoder in transformers and, from its saved folder, in numpy."""
    model, tokenizer, architecture = build_base(parse_base(f"ed:{tiny_bert}"))
    torch_model = PlannerModel(model, tokenizer, architecture, max_source_tokens=48)
    folder = tmp_path_factory.mktemp("tiny-ed")
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    meta = {"codec": torch_model.codec, "max_source_tokens": 48}
    return torch_model, NumpyPlanner(folder, meta)


@pytest.mark.parametrize(
    "options",
    [
        {"num_beams": 1},
        {"num_beams": 1, "constrained": True},
        {"num_beams": 3, "num_return_sequences": 3},
    ],
    ids=["greedy", "constrained", "beams"],
)
def test_a_tiny_model_decodes_the_same_in_numpy(
    tiny_pair: tuple[PlannerModel, NumpyPlanner],
    options: dict[str, object],
    one_thread: None,  # noqa: F811
) -> None:
    torch_model, numpy_model = tiny_pair
    expected = torch_model.generate(INPUTS, NAMES, max_new_tokens=40, **options)  # type: ignore[arg-type]
    assert numpy_model.generate(INPUTS, NAMES, max_new_tokens=40, **options) == expected  # type: ignore[arg-type]
    # one at a time as in a batch: padding changes nothing
    one = [numpy_model.generate([i], [n], max_new_tokens=40, **options)[0] for i, n in zip(INPUTS, NAMES, strict=True)]  # type: ignore[arg-type]
    assert one == expected


def test_a_shortlisted_head_writes_what_the_whole_head_writes_within_it(
    tiny_pair: tuple[PlannerModel, NumpyPlanner],
    tmp_path: Path,
) -> None:
    torch_model, whole = tiny_pair
    expected = whole.generate(INPUTS, NAMES, max_new_tokens=40)
    tokenizer = whole.tokenizer
    sources = [tokenizer.encode(text) for text in INPUTS]
    state = whole.decoder.start(*whole._encoded(sources))
    written = {t for row in whole._greedy(state, None, 40, 0, None, None) for t in row[1:]}
    folder = tmp_path / "tiny-ed"
    torch_model.model.save_pretrained(str(folder))
    torch_model.tokenizer.save_pretrained(str(folder))

    def shortlisted(tokens: set[int]) -> NumpyPlanner:
        return NumpyPlanner(folder, {**whole.meta, output_tokens.KEY: " ".join(map(str, sorted(tokens)))})

    # every token the whole head chose is in the list: the same plans, computed over fewer tokens
    within = shortlisted(written)
    assert within.shortlist is not None and len(within.shortlist.ids[0]) < whole.decoder.embeddings.words.shape[0] // 2
    assert within.generate(INPUTS, NAMES, max_new_tokens=40) == expected
    # a token neither listed nor in the input is never written
    dropped = min(written - {t for source in sources for t in source})
    without = shortlisted(written - {dropped})
    rows = without.generate(INPUTS, NAMES, max_new_tokens=40)
    assert rows != expected
    state = without.decoder.start(*without._encoded(sources))
    assert all(dropped not in row for row in without._greedy(state, without._head(sources)[0], 40, 0, None, None))


@pytest.mark.parametrize(
    "options", [{"num_beams": 1}, {"num_beams": 3, "num_return_sequences": 3}], ids=["greedy", "beams"]
)
def test_a_question_decoded_in_a_batch_copies_no_word_of_the_others(
    tiny_pair: tuple[PlannerModel, NumpyPlanner],
    tmp_path: Path,
    options: dict[str, int],
) -> None:
    torch_model, whole = tiny_pair
    tokenizer = whole.tokenizer
    first = INPUTS[0]
    own = set(tokenizer.encode(first))
    state = whole.decoder.start(*whole._encoded([tokenizer.encode(first)]))
    written = [t for t in whole._greedy(state, None, 40, 0, None, None)[0][1:] if t not in own]
    # a neighbour whose input holds the words the whole head writes for the first question
    neighbour = "question: " + tokenizer.decode(written, skip_special_tokens=True)
    theirs = set(tokenizer.encode(neighbour)) - own
    folder = tmp_path / "tiny-ed"
    torch_model.model.save_pretrained(str(folder))
    torch_model.tokenizer.save_pretrained(str(folder))
    listed = " ".join(map(str, sorted(set(written) - theirs)))
    planner = NumpyPlanner(folder, {**whole.meta, output_tokens.KEY: listed})
    alone = planner.generate([first], [NAMES[0]], max_new_tokens=40, **options)[0]  # type: ignore[arg-type]
    unlisted = NumpyPlanner(folder, whole.meta).generate([first], [NAMES[0]], max_new_tokens=40, **options)[0]  # type: ignore[arg-type]
    assert alone != unlisted  # the neighbour's words are what the whole head would write
    batched = planner.generate([first, neighbour], [NAMES[0], ()], max_new_tokens=40, **options)  # type: ignore[arg-type]
    assert batched[0] == alone
    assert batched[1] == planner.generate([neighbour], [()], max_new_tokens=40, **options)[0]  # type: ignore[arg-type]


def test_beams_over_a_shortlist_in_parts_rank_as_over_the_whole_head(
    tiny_pair: tuple[PlannerModel, NumpyPlanner],
) -> None:
    _, model = tiny_pair
    sources = [model.tokenizer.encode(text) for text in INPUTS]
    vocabulary = model.decoder.embeddings.words.shape[0]
    # every token, in two parts whose concatenation is out of id order (a static list, then an input's)
    ids = np.arange(vocabulary)
    parts = model.decoder.shortlist(ids[ids % 3 != 0]).plus(model.decoder.shortlist(ids[ids % 3 == 0]))

    def beams(head: bert_numpy.Shortlist | None) -> list[list[list[int]]]:
        state = model.decoder.start(*model._encoded(sources))
        return model._beam_search(state, head, len(sources), 3, 3, 30)

    assert beams(parts) == beams(None)


def test_a_greedy_decode_lends_its_encoding_to_the_beams_that_follow_once(
    tiny_pair: tuple[PlannerModel, NumpyPlanner],
) -> None:
    _, model = tiny_pair
    encoder, calls = model.encoder, []

    def counted(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls.append(ids.shape[1])
        return encoder(ids, mask)

    beams = {"num_beams": 3, "num_return_sequences": 3, "max_new_tokens": 30}
    fresh = model.generate(INPUTS[:2], NAMES[:2], **beams)  # type: ignore[arg-type]
    model.encoder = counted  # type: ignore[assignment]
    try:
        model.generate(INPUTS[:2], NAMES[:2], max_new_tokens=30)
        assert len(calls) == 2
        assert model.generate(INPUTS[:2], NAMES[:2], **beams) == fresh  # type: ignore[arg-type]
        assert len(calls) == 2  # the beams read what the greedy decode encoded
        model.generate(INPUTS[:2], NAMES[:2], **beams)  # type: ignore[arg-type]
        assert len(calls) == 4  # taken once: a second search encodes again
        model.generate(INPUTS[:1], NAMES[:1], max_new_tokens=30)
        model.generate(INPUTS[:1], NAMES[:1], max_new_tokens=30)
        assert len(calls) == 6  # a question planned again is encoded again
    finally:
        model.encoder = encoder


def test_a_planned_question_lends_its_input_to_its_alternatives_once(
    tiny_pair: tuple[PlannerModel, NumpyPlanner], monkeypatch: pytest.MonkeyPatch
) -> None:
    from nl2sparql.planner.backends import local
    from nl2sparql.planner.backends.base import PlanRequest

    made: list[str] = []

    def counted(questions: list[str], *args: Any) -> list[str]:
        made.extend(questions)
        return planner_inputs(questions, *args)

    monkeypatch.setattr(local, "planner_inputs", counted)
    planner = local.LocalPlanner(tiny_pair[1], name="tiny")
    requests = [PlanRequest("what county is san diego in?", {"m.0d6lp": "San Diego"}), PlanRequest("who is ada?")]
    planned = planner.inputs(requests)
    assert len(made) == 2 and "san diego" in planned[0]
    assert planner.inputs(requests, reuse=True) == planned and len(made) == 2  # the alternatives' inputs
    assert planner.inputs(requests, reuse=True) == planned and len(made) == 4  # taken once
    planner.inputs(requests[:1])
    planner.inputs(requests[:1])
    assert len(made) == 6  # a question planned again is built again


def test_sampling_is_seeded(tiny_pair: tuple[PlannerModel, NumpyPlanner]) -> None:
    _, numpy_model = tiny_pair

    def sample(seed: int) -> list[list[str]]:
        options = {"temperature": 0.8, "top_p": 0.95, "max_new_tokens": 30}
        return numpy_model.generate(INPUTS, NAMES, do_sample=True, seed=seed, **options)  # type: ignore[arg-type]

    assert sample(3) == sample(3)
    assert all(len(texts) == 1 for texts in sample(4))


def test_the_bert_layers_doctests() -> None:
    assert doctest.testmod(bert_numpy).failed == 0
    assert doctest.testmod(output_tokens).failed == 0
    runtime = doctest.testmod(numpy_runtime)  # the batch's blocked cells (_cells)
    assert runtime.attempted > 0 and runtime.failed == 0


def test_a_gelu_through_the_error_function_matches_its_definition() -> None:
    import math

    values = np.linspace(-6, 6, 241, dtype=np.float32)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in values.tolist()], dtype=np.float32)
    assert np.abs(bert_numpy.gelu(values) - exact).max() < 1e-6
    # an array larger than the pieces GELU works on is computed piece by piece, to the same values
    many = np.random.default_rng(0).normal(size=(70, 1500)).astype(np.float32)
    whole = 0.5 * many * (1 + bert_numpy.erf(many * np.float32(1 / math.sqrt(2))))
    assert many.size > 2 * bert_numpy._CHUNK and np.array_equal(bert_numpy.gelu(many), whole)


def test_beams_that_share_one_encoder_output_attend_as_if_each_had_its_copy() -> None:
    rng = np.random.default_rng(0)
    size, heads, sources, width, length = 8, 2, 3, 4, 5

    def linear() -> bert_numpy.Linear:
        kernel, bias = rng.normal(size=(size, size)), rng.normal(size=size)
        return bert_numpy.Linear(kernel.astype(np.float32), bias.astype(np.float32))

    norm = bert_numpy.Norm(np.ones(size, np.float32), np.zeros(size, np.float32), 1e-12)
    attention = bert_numpy.Attention(linear(), linear(), linear(), linear(), norm, heads)
    encoded = rng.normal(size=(sources, length, size)).astype(np.float32)
    mask = np.ones((sources, length), dtype=np.int64)
    mask[1, 3:] = 0
    hidden = rng.normal(size=(sources * width, 1, size)).astype(np.float32)
    shared = attention.attend(hidden, *attention.keys_values(encoded), bert_numpy.attention_bias(mask), group=width)
    copies = np.repeat(np.arange(sources), width)
    each = attention.attend(hidden, *attention.keys_values(encoded[copies]), bert_numpy.attention_bias(mask[copies]))
    assert np.allclose(shared, each, atol=1e-5)


def test_a_beam_state_drops_the_questions_whose_search_is_done() -> None:
    # three questions of two beams each; the second question's search is done
    rows, room = np.arange(6, dtype=np.float32), np.zeros((6, 1, 4, 1), np.float32)
    room[:, 0, :2, 0] = rows[:, None]
    source = np.arange(3, dtype=np.float32).reshape(3, 1, 1, 1)
    state = bert_numpy.DecoderState([(room, room.copy())], [(source, source)], np.zeros((3, 1, 1, 1)), 2, 2)
    # question 0 keeps its first beam twice, question 2 swaps its beams
    kept = state.select(np.array([0, 0, 5, 4]), same_sources=True, sources=np.array([0, 2]))
    assert kept.own[0][0][:, 0, :2, 0].tolist() == [[0, 0], [0, 0], [5, 5], [4, 4]]
    assert kept.source[0][0].ravel().tolist() == [0, 2] and kept.source_bias.shape[0] == 2
    assert kept.group == 2 and kept.length == 2


@pytest.fixture(scope="module")
def shipped_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home folder with the shipped planner's exemplars and its merged weights (built by the
    torch loader, as the first ``ask`` after ``setup`` does)."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NL2SPARQL_HOME", str(home))
        patch.setenv("NL2SPARQL_PLANNER_CACHE", "1")
        build_exemplar_memory(home / EXEMPLARS_DIR)
        PlannerModel.load(SHIPPED_PLANNER)
        assert merged_cache.cache_folder(SHIPPED_PLANNER) is not None
    return home


def _dev_inputs(meta: dict[str, Any], home: Path, count: int) -> tuple[list[str], list[tuple[str, ...]]]:
    examples = [e for e in load_examples("webqsp-train") if is_webqsp_dev(e)][:count]
    training = [e for e in load_examples("webqsp-train") if not is_webqsp_dev(e)][:300]
    bank = build_bank_from_queries(training, source="webqsp-train[:300]")[0]
    memory = exemplars_for(SHIPPED_PLANNER, meta, home=home)
    hints = hints_for(meta, bank)
    entities = [dict(e.entities) for e in examples]
    inputs = planner_inputs([e.question for e in examples], entities, memory, exemplar_count(meta), hints)
    return inputs, [entity_names(e) for e in entities]


@pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")
def test_the_shipped_planner_plans_the_same_in_numpy(shipped_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SPARQL_HOME", str(shipped_home))
    monkeypatch.setenv("NL2SPARQL_PLANNER_CACHE", "1")
    meta = read_meta(SHIPPED_PLANNER)
    numpy_model = open_numpy(SHIPPED_PLANNER, meta)
    assert numpy_model is not None
    assert isinstance(load_model(SHIPPED_PLANNER, meta), NumpyPlanner)
    torch_model = PlannerModel.load(SHIPPED_PLANNER)
    inputs, names = _dev_inputs(meta, shipped_home, 8)
    greedy = torch_model.generate(inputs, names, constrained=True)
    assert numpy_model.generate(inputs, names, constrained=True) == greedy
    beams = {"num_beams": 4, "num_return_sequences": 4}
    assert numpy_model.generate(inputs[:2], names[:2], **beams) == torch_model.generate(inputs[:2], names[:2], **beams)  # type: ignore[arg-type]
    assert numpy_model.parameter_count() == torch_model.parameter_count()


@pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")
def test_the_runtime_is_chosen_by_the_environment(shipped_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SPARQL_HOME", str(shipped_home))
    monkeypatch.setenv("NL2SPARQL_PLANNER_CACHE", "1")
    meta = read_meta(SHIPPED_PLANNER)
    monkeypatch.setenv("NL2SPARQL_PLANNER_RUNTIME", "torch")
    assert isinstance(load_model(SHIPPED_PLANNER, meta), PlannerModel)
    monkeypatch.setenv("NL2SPARQL_PLANNER_RUNTIME", "onnx")
    with pytest.raises(PlannerModelError, match="NL2SPARQL_PLANNER_RUNTIME is 'onnx'"):
        load_model(SHIPPED_PLANNER, meta)
    monkeypatch.setenv("NL2SPARQL_PLANNER_RUNTIME", "auto")
    monkeypatch.setenv("NL2SPARQL_PLANNER_CACHE", "0")  # no merged weights to read: torch loads it
    assert open_numpy(SHIPPED_PLANNER, meta) is None


FRESH_PROCESS = """
import json, sys
from nl2sparql.memory_bank.embedder import Embedder
from nl2sparql.planner.backends.local import SHIPPED_PLANNER, load_model
from nl2sparql.planner.model_meta import read_meta
model = load_model(SHIPPED_PLANNER, read_meta(SHIPPED_PLANNER))
plan = model.generate(["question: what county is san diego in? entities: San Diego"], [["San Diego"]], constrained=True)
vector = Embedder().encode_one("the county of the city")
print(json.dumps({"runtime": type(model).__name__, "plan": plan[0][0], "norm": float((vector ** 2).sum()),
                  "loaded": [m for m in ("torch", "transformers", "peft") if m in sys.modules]}))
"""


@pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")
def test_a_fresh_process_plans_and_embeds_without_torch(shipped_home: Path) -> None:
    env = {**os.environ, "NL2SPARQL_HOME": str(shipped_home), "HF_HUB_OFFLINE": "1", "NL2SPARQL_PLANNER_CACHE": "1"}
    env.pop("NL2SPARQL_PLANNER_RUNTIME", None)
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["runtime"] == "NumpyPlanner" and result["loaded"] == []
    assert result["plan"].lower().startswith("type:") and abs(result["norm"] - 1.0) < 1e-5
