"""Training, saving, loading and decoding planners, on tiny models the test builds.

Two tiny bases stand in for the real ones (no weights can be downloaded, and the real
ones are slow here): a 2-layer BERT encoder with a character vocabulary (``ed:`` base,
warm-started into an encoder-decoder exactly like ``minilm-ed``, WordPiece tokenizer, the
``flat`` codec) and a 2-layer GPT-2 with a byte-level tokenizer (``hf:`` causal base, the
``plain`` codec). Inputs are real WebQSP questions and topic entities.
"""

from __future__ import annotations

import argparse
import json
import shutil
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file

from nl2sparql.config import data_file
from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner.backends import open_planner
from nl2sparql.planner.backends.local import LocalPlanner
from nl2sparql.planner.decoding import DecodingOptions
from nl2sparql.planner.errors import PlannerError, PlannerModelError
from nl2sparql.planner.input_format import format_input
from nl2sparql.planner.model import META_FILE, PlannerModel, build_base, parse_base
from nl2sparql.planner.output_tokens import recorded
from nl2sparql.planner.pairs import PlanPair, make_pair, read_pairs, write_pairs
from nl2sparql.planner.target_text import encode_target
from nl2sparql.training import cli
from nl2sparql.training import train as train_module
from nl2sparql.training.train import TrainConfig, TrainResult, train

PLAN = "Type: composition\nFind the siblings of {name}, assign it to ?x.\nThe answer is ?x.\n"


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    # Tiny models gain nothing from threads, and on a shared CPU two threads wait on each other.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table (its byte-level BPE alphabet)."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    codes = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return dict(zip(printable, map(chr, codes), strict=True))


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import BertConfig, BertModel, BertTokenizer

    folder = tmp_path_factory.mktemp("tiny-bert")
    words = ["type", "composition", "find", "the", "of", "assign", "it", "to", "answer", "is", "siblings"]
    chars = [*string.ascii_lowercase, *string.digits, *"?.,:;{}()\"'-_|/!&"]
    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        *chars,
        *("##" + c for c in chars if c.isalnum()),
        *words,
    ]
    (folder / "vocab.txt").write_text("\n".join(dict.fromkeys(vocab)) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(dict.fromkeys(vocab)),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    vocab = {char: index for index, char in enumerate(_bytes_to_unicode().values())}
    vocab["<|endoftext|>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt")).save_pretrained(str(folder))
    torch.manual_seed(0)
    end = len(vocab) - 1
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=512,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=end,
        eos_token_id=end,
    )
    GPT2LMHeadModel(config).save_pretrained(str(folder))
    return folder


def webqsp_pairs(count: int, skip: int = 0) -> list[PlanPair]:
    records = json.loads(data_file("webqsp/WebQSP.train.json").read_text())["Questions"]
    pairs = []
    for record in records[skip:]:
        parse = record["Parses"][0]
        name = parse.get("TopicEntityName")
        if name and name.isascii() and len(name) < 16 and len(pairs) < count:
            entities = {parse["TopicEntityMid"]: name}
            plan = PLAN.replace("{name}", "{" + name + "}")
            pairs.append(make_pair(record["QuestionId"], record["ProcessedQuestion"], entities, plan))
    return pairs


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pairs")
    write_pairs(folder / "train.jsonl", webqsp_pairs(8))
    write_pairs(folder / "dev.jsonl", webqsp_pairs(2, skip=500))
    return folder


def config(data: Path, out: Path, base: str, **changes: object) -> TrainConfig:
    settings: dict[str, object] = {"epochs": 3, "batch_size": 4, "lr": 1e-3, "evaluate": False}
    settings.update(changes)
    return TrainConfig(data=data, out=out, base=base, **settings)  # type: ignore[arg-type]


def log_lines(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def lora_ed(tiny_bert: Path, data: Path, tmp_path_factory: pytest.TempPathFactory) -> TrainResult:
    out = tmp_path_factory.mktemp("lora-ed")
    return train(config(data, out, f"ed:{tiny_bert}", method="lora", epochs=4, lr=5e-3), progress=False)


def test_lora_training_logs_checkpoints_and_learns(lora_ed: TrainResult) -> None:
    out = lora_ed.out
    lines = log_lines(out)
    steps = [line for line in lines if line["event"] == "step"]
    epochs = [line for line in lines if line["event"] == "epoch"]
    assert [s["step"] for s in steps] == list(range(1, 9))  # 8 pairs, batch 4, 4 epochs
    assert all({"loss", "lr", "elapsed"} <= set(s) for s in steps)
    assert [e["epoch"] for e in epochs] == [1, 2, 3, 4] and all(e["dev_loss"] is not None for e in epochs)
    assert epochs[-1]["train_loss"] < epochs[0]["train_loss"]
    assert epochs[-1]["dev_loss"] < epochs[0]["dev_loss"]
    assert not (out / "checkpoints").exists()  # removed once the model is saved
    meta = json.loads((out / META_FILE).read_text())
    assert meta["method"] == "lora" and meta["codec"] == "flat" and meta["architecture"] == "seq2seq"
    assert meta["data"]["train_pairs"] == 8 and meta["data"]["dev_pairs"] == 2 and meta["seed"] == 0
    assert len(meta["data"]["train_sha256"]) == 64 and meta["metrics"]["dev_loss"] == [e["dev_loss"] for e in epochs]
    # the tokens of the training plans (never the dev plans): the numpy runtime's shortlist
    model = lora_ed.model
    targets = [model.tokenizer.encode(encode_target(pair.output, model.codec)) for pair in webqsp_pairs(8)]
    assert recorded(meta) == {t for target in targets for t in target} - set(model.tokenizer.all_special_ids)


def test_lora_saves_only_the_adapter_and_the_new_parts(lora_ed: TrainResult, tiny_bert: Path) -> None:
    out = lora_ed.out
    assert (out / "adapter_model.safetensors").is_file() and not (out / "model.safetensors").exists()
    saved = load_file(str(out / "adapter_model.safetensors"))
    lora_b = [name for name in saved if "lora_B" in name]
    assert lora_b and all(saved[name].abs().sum() > 0 for name in lora_b)  # B starts at zero: it moved
    assert any("crossattention" in name for name in saved) and any("transform" in name for name in saved)
    assert not any("word_embeddings" in name for name in saved)
    fresh, _, _ = build_base(parse_base(f"ed:{tiny_bert}"))
    trained = lora_ed.model.model.get_base_model()
    frozen = "encoder.embeddings.word_embeddings.weight"
    assert torch.equal(fresh.state_dict()[frozen], trained.state_dict()[frozen])


def test_a_reloaded_adapter_writes_what_the_trained_model_wrote(lora_ed: TrainResult, data: Path) -> None:
    inputs = [json.loads(line)["input"] for line in (data / "train.jsonl").read_text().splitlines()]
    loaded = PlannerModel.load(lora_ed.out)
    assert loaded.generate(inputs, max_new_tokens=40) == lora_ed.model.generate(inputs, max_new_tokens=40)
    batch = lora_ed.model.batch(inputs[:2], [lora_ed.model.target_ids(PLAN.replace("{name}", "X"))] * 2)
    with torch.no_grad():
        lora_ed.model.model.eval()
        expected = lora_ed.model.model(**batch).logits
        assert torch.allclose(loaded.model(**batch).logits, expected, atol=1e-5)


def _forward_both(exported: Path, trained: Path, data: Path, n: int) -> tuple[Any, Any]:
    """The outputs of the exported and the trained planner on the same ``n`` training inputs."""
    inputs = [json.loads(line)["input"] for line in (data / "train.jsonl").read_text().splitlines()][:n]
    models = PlannerModel.load(exported), PlannerModel.load(trained)
    batch = models[1].batch(inputs, [models[1].target_ids(PLAN.replace("{name}", "X"))] * n)
    with torch.no_grad():
        for model in models:
            model.model.eval()
        return models[0].model(**batch), models[1].model(**batch)


def test_an_exported_adapter_is_half_the_size_and_decodes_the_same(
    lora_ed: TrainResult, data: Path, tmp_path: Path
) -> None:
    from nl2sparql.training.export import export_planner

    target = tmp_path / "shipped"
    meta = export_planner(lora_ed.out, target)
    assert sorted(p.name for p in target.iterdir()) == ["adapter_config.json", "adapter_model.safetensors", META_FILE]
    saved, original = (
        load_file(str(target / "adapter_model.safetensors")),
        load_file(str(lora_ed.out / "adapter_model.safetensors")),
    )
    assert saved.keys() == original.keys() and all(t.dtype == torch.float16 for t in saved.values())
    assert (target / "adapter_model.safetensors").stat().st_size < 0.6 * (
        lora_ed.out / "adapter_model.safetensors"
    ).stat().st_size
    assert meta["exported"]["dtype"] == "float16" and "train_file" not in meta["data"]
    shipped, trained = _forward_both(target, lora_ed.out, data, 2)
    assert torch.allclose(shipped.logits, trained.logits, atol=1e-2)
    with pytest.raises(PlannerModelError, match="is not a trained planner"):
        export_planner(tmp_path / "absent", tmp_path / "x")
    assert not (tmp_path / "x").exists() and not (tmp_path / ".x.partial").exists()
    with pytest.raises(PlannerModelError, match="cannot store an adapter as 'int4'"):
        export_planner(lora_ed.out, tmp_path / "x", "int4")


def test_a_blend_stores_the_weighted_sum_of_two_adapters_of_one_model(lora_ed: TrainResult, tmp_path: Path) -> None:
    """--blend: each tensor is weight * source + (1 - weight) * blend, checked before anything is written."""
    import doctest

    from safetensors.torch import save_file

    from nl2sparql.planner.adapter_int8 import read_adapter_weights
    from nl2sparql.training import export
    from nl2sparql.training.export import export_planner

    examples = doctest.testmod(export)
    assert examples.attempted > 0 and examples.failed == 0

    trained = load_file(str(lora_ed.out / "adapter_model.safetensors"))
    negated = tmp_path / "negated"
    export_planner(lora_ed.out, negated, "float32")
    save_file({k: -v for k, v in trained.items()}, str(negated / "adapter_model.safetensors"))
    meta = json.loads((negated / META_FILE).read_text())
    meta["output_tokens"] = "7 8"
    (negated / META_FILE).write_text(json.dumps(meta))

    exported = export_planner(lora_ed.out, tmp_path / "blend", "float32", blend=negated, weight=0.75)
    blend = read_adapter_weights(tmp_path / "blend")
    assert blend.keys() == trained.keys()
    assert all(torch.allclose(blend[k], 0.5 * v, atol=1e-6) for k, v in trained.items())
    assert exported["exported"]["blend"] == {"with": "negated", "weight": 0.75}
    assert {7, 8} <= recorded(exported) and recorded(json.loads((lora_ed.out / META_FILE).read_text())) <= recorded(
        exported
    )

    with pytest.raises(PlannerModelError, match="a blend's weight is between 0 and 1"):
        export_planner(lora_ed.out, tmp_path / "x", blend=negated, weight=1.5)
    meta["lora"] = {**meta["lora"], "r": meta["lora"]["r"] * 2}
    (negated / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(PlannerModelError, match="cannot blend with .*negated: its lora is"):
        export_planner(lora_ed.out, tmp_path / "x", blend=negated, weight=0.5)
    meta["lora"] = json.loads((lora_ed.out / META_FILE).read_text())["lora"]
    (negated / META_FILE).write_text(json.dumps(meta))
    first = sorted(trained)[0]
    save_file({k: -v for k, v in trained.items() if k != first}, str(negated / "adapter_model.safetensors"))
    with pytest.raises(PlannerModelError, match="the adapters differ in"):
        export_planner(lora_ed.out, tmp_path / "x", blend=negated, weight=0.5)
    assert not (tmp_path / "x").exists() and not (tmp_path / ".x.partial").exists()


def test_an_int8_adapter_is_smaller_still_and_scores_the_same(lora_ed: TrainResult, data: Path, tmp_path: Path) -> None:
    from nl2sparql.planner.adapter_int8 import INT8_FILE, read_adapter_weights
    from nl2sparql.training.export import export_planner

    target = tmp_path / "int8"
    meta = export_planner(lora_ed.out, target, "int8")
    assert sorted(p.name for p in target.iterdir()) == ["adapter_config.json", INT8_FILE, META_FILE]
    assert meta["exported"]["dtype"] == "int8"
    assert (target / INT8_FILE).stat().st_size < 0.45 * (lora_ed.out / "adapter_model.safetensors").stat().st_size
    stored = load_file(str(target / INT8_FILE))
    assert {t.dtype for t in stored.values()} <= {torch.int8, torch.float16} and torch.int8 in {
        t.dtype for t in stored.values()
    }
    small, full = _forward_both(target, lora_ed.out, data, 4)
    assert abs(small.loss.item() - full.loss.item()) < 0.01 * full.loss.item() + 1e-3
    assert (small.logits.argmax(-1) == full.logits.argmax(-1)).float().mean() > 0.99
    # what a warm start (--init) and a re-export read: the weights back in float32, within a step
    back, original = read_adapter_weights(target), load_file(str(lora_ed.out / "adapter_model.safetensors"))
    assert back.keys() == original.keys() and all(back[k].dtype == torch.float32 for k in back)
    for name, weight in original.items():
        step = weight.abs().amax(dim=-1, keepdim=True) / 127 if weight.dim() == 2 else weight.abs().max() / 1000
        assert ((back[name] - weight).abs() <= step / 2 + 1e-3 * step + 1e-6).all(), name
    again = export_planner(target, tmp_path / "again")
    assert again["exported"] == {"from": "int8", "dtype": "float16"}
    (target / INT8_FILE).write_bytes(b"not safetensors")
    with pytest.raises(PlannerModelError, match=f"cannot read the planner adapter .*{INT8_FILE}"):
        PlannerModel.load(target)
    (tmp_path / "again" / "adapter_model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(PlannerModelError, match="cannot apply the LoRA adapter"):
        PlannerModel.load(tmp_path / "again")


def test_bf16_training_learns_and_is_recorded(tiny_bert: Path, data: Path, tmp_path: Path) -> None:
    settings = {"method": "lora", "lr": 5e-3, "precision": "bf16"}
    result = train(config(data, tmp_path / "bf16", f"ed:{tiny_bert}", **settings), progress=False)
    epochs = [line for line in log_lines(result.out) if line["event"] == "epoch"]
    assert epochs[-1]["train_loss"] < epochs[0]["train_loss"] and result.meta["precision"] == "bf16"
    with pytest.raises(PlannerModelError, match="unknown precision 'fp8'"):
        train(config(data, tmp_path / "fp8", f"ed:{tiny_bert}", precision="fp8"), progress=False)
    with pytest.raises(PlannerModelError, match="--max-source-tokens takes 16 to 512 .got 4096."):
        train(config(data, tmp_path / "long", f"ed:{tiny_bert}", max_source_tokens=4096), progress=False)
    assert not (tmp_path / "long").exists()  # refused before any work


def crash_after(monkeypatch: pytest.MonkeyPatch, *, epoch: int | None = None, step: int | None = None) -> None:
    """Make the next training run stop (as Ctrl-C would) right after it saves the checkpoint
    of epoch ``epoch``'s end, or of step ``step``."""
    save = train_module._save_checkpoint

    def save_then_crash(out: Path, at_epoch: int, state: dict[str, object]) -> Path:
        path = save(out, at_epoch, state)
        if (epoch is not None and at_epoch == epoch and not state.get("batches")) or state["step"] == step:
            raise KeyboardInterrupt
        return path

    monkeypatch.setattr(train_module, "_save_checkpoint", save_then_crash)


def test_full_training_resumes_to_the_same_weights(
    tiny_bert: Path, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = f"ed:{tiny_bert}"
    straight = train(config(data, tmp_path / "straight", base, method="full"), progress=False)

    crash_after(monkeypatch, epoch=2)
    with pytest.raises(KeyboardInterrupt):
        train(config(data, tmp_path / "resumed", base, method="full"), progress=False)
    monkeypatch.undo()
    assert not (tmp_path / "resumed" / META_FILE).exists()
    assert [p.name for p in (tmp_path / "resumed" / "checkpoints").iterdir()] == ["epoch-002.pt"]
    with pytest.raises(PlannerModelError, match="pass --resume"):
        train(config(data, tmp_path / "resumed", base, method="full"), progress=False)
    with pytest.raises(PlannerModelError, match=r"settings differ from that run \(lr\)"):
        train(config(data, tmp_path / "resumed", base, method="full", lr=2e-3), resume=True, progress=False)

    resumed = train(config(data, tmp_path / "resumed", base, method="full"), resume=True, progress=False)
    expected = straight.model.model.state_dict()
    for name, tensor in resumed.model.model.state_dict().items():
        assert torch.equal(tensor, expected[name]), name
    assert [line["step"] for line in log_lines(tmp_path / "resumed") if line["event"] == "step"] == list(range(1, 7))
    assert (tmp_path / "resumed" / "model.safetensors").is_file()
    with pytest.raises(PlannerModelError, match="has finished"):
        train(config(data, tmp_path / "resumed", base, method="full"), resume=True, progress=False)
    assert json.loads((tmp_path / "resumed" / META_FILE).read_text())["method"] == "full"


def test_training_cut_within_an_epoch_resumes_to_the_same_weights_and_losses(
    tiny_bert: Path, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, settings = f"ed:{tiny_bert}", {"method": "lora", "lr": 5e-3}
    straight = train(config(data, tmp_path / "straight", base, **settings), progress=False)

    crash_after(monkeypatch, step=3)  # 2 batches an epoch: step 3 is the first of epoch 2
    with pytest.raises(KeyboardInterrupt):
        train(config(data, tmp_path / "cut", base, checkpoint_steps=1, **settings), progress=False)
    monkeypatch.undo()
    assert [p.name for p in (tmp_path / "cut" / "checkpoints").iterdir()] == ["epoch-002-step-0000003.pt"]

    # how often checkpoints are kept changes no weight, so a resume may choose otherwise
    resumed = train(config(data, tmp_path / "cut", base, **settings), resume=True, progress=False)
    expected = straight.model.model.state_dict()
    for name, tensor in resumed.model.model.state_dict().items():
        assert torch.equal(tensor, expected[name]), name
    steps = [line["step"] for line in log_lines(tmp_path / "cut") if line["event"] == "step"]
    assert steps == list(range(1, 7))
    assert resumed.meta["metrics"]["train_loss"] == straight.meta["metrics"]["train_loss"]


def test_a_batch_in_slices_has_the_gradient_and_loss_of_the_whole(lora_ed: TrainResult, data: Path) -> None:
    """``--accumulate``: a batch of 8 in 1, 2 or 3 slices (dropout off) gives one gradient."""
    planner = lora_ed.model
    planner.model.eval()
    examples, _ = train_module._encode(planner, read_pairs(data / "train.jsonl"), 256)
    parameters = [p for p in planner.model.parameters() if p.requires_grad]
    found = []
    for slices in (1, 2, 3):
        settings = config(data, Path("unused"), "ed:unused", accumulate=slices)
        loss, tokens = train_module._backward(planner, examples, settings)
        found.append((loss, tokens, [p.grad.clone() for p in parameters]))
        planner.model.zero_grad(set_to_none=True)
    (loss, tokens, grads), *others = found
    for other_loss, other_tokens, other_grads in others:
        assert other_tokens == tokens and other_loss == pytest.approx(loss, rel=1e-5)
        assert all(torch.allclose(a, b, rtol=1e-4, atol=1e-7) for a, b in zip(grads, other_grads, strict=True))
    with pytest.raises(PlannerModelError, match="--accumulate takes 1 to the batch size"):
        train(config(data, Path("unused"), "ed:unused", accumulate=9, batch_size=8), progress=False)


@pytest.fixture(scope="module")
def memorised(tiny_bert: Path, data: Path, tmp_path_factory: pytest.TempPathFactory) -> TrainResult:
    out = tmp_path_factory.mktemp("memorised")
    settings = {"method": "full", "epochs": 100, "lr": 1e-2, "evaluate": True}
    return train(config(data, out, f"ed:{tiny_bert}", **settings), progress=False)


def test_a_learnt_plan_comes_back_through_the_hf_and_default_backends(
    memorised: TrainResult, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = [json.loads(line) for line in (data / "train.jsonl").read_text().splitlines()]
    records = json.loads(data_file("webqsp/WebQSP.train.json").read_text())["Questions"]
    by_id = {r["QuestionId"]: r for r in records}
    planner = open_planner(f"hf:{memorised.out}", num_beams=2)
    requests = []
    for pair in pairs:
        parse = by_id[pair["id"]]["Parses"][0]
        requests.append(
            {"question": by_id[pair["id"]]["ProcessedQuestion"], "entities": {"m": parse["TopicEntityName"]}}
        )
    outputs = planner.plan_batch(requests, batch_size=3)
    assert [o.plan for o in outputs] == [parse_plan(p["output"]) for p in pairs]  # type: ignore[union-attr]
    assert outputs[0].text == pairs[0]["output"]  # type: ignore[union-attr]  (canonical, names restored)
    assert memorised.meta["metrics"]["dev_parse_rate"] == 1.0

    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    shutil.copytree(memorised.out, tmp_path / "planner")
    default = open_planner("default", num_beams=1)
    assert default.plan(**requests[0]).plan == outputs[0].plan  # type: ignore[union-attr]
    info = default.info()
    assert info["planner"] == "default" and info["method"] == "full" and info["decoding"]["num_beams"] == 1


def test_a_merged_lora_planner_is_cached_and_reads_back_the_same(
    lora_ed: TrainResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    monkeypatch.setenv("NL2SPARQL_PLANNER_CACHE", "1")
    built = PlannerModel.load(lora_ed.out)
    (cached,) = (tmp_path / "cache").iterdir()
    assert (cached / "complete").is_file() and not cached.name.startswith(".")
    read = PlannerModel.load(lora_ed.out)
    expected = built.model.state_dict()
    assert read.model.state_dict().keys() == expected.keys()
    assert all(torch.equal(tensor, expected[name]) for name, tensor in read.model.state_dict().items())
    source = [format_input("who is justin bieber's brother?", {"m.1": "Justin Bieber"})]
    assert read.generate(source, [["Justin Bieber"]], max_new_tokens=24) == built.generate(
        source, [["Justin Bieber"]], max_new_tokens=24
    )
    (cached / "complete").unlink()  # a torn cache is rebuilt, not read
    PlannerModel.load(lora_ed.out)
    assert (cached / "complete").is_file() and list((tmp_path / "cache").iterdir()) == [cached]


def test_decoding_gives_up_naming_the_question_and_the_last_error(tiny_bert: Path) -> None:
    # unconstrained: with the grammar even this random model writes a plan (test_planner_constrained.py)
    model, tokenizer, architecture = build_base(parse_base(f"ed:{tiny_bert}"))
    free = DecodingOptions(num_beams=2, sample_tries=2, constrained=False)
    planner = LocalPlanner(PlannerModel(model, tokenizer, architecture), free)
    with pytest.raises(PlannerError) as caught:
        planner.plan("who is justin bieber's brother?", {"m.06w2sn5": "Justin Bieber"})
    # greedy (1), then the beams (2), then the samples (2)
    assert caught.value.question == "who is justin bieber's brother?" and caught.value.attempts == 5
    assert "no readable plan after 5 tries; last error: line " in str(caught.value)
    again = LocalPlanner(PlannerModel(model, tokenizer, architecture), free)
    with pytest.raises(PlannerError) as repeated:
        again.plan("who is justin bieber's brother?", {"m.06w2sn5": "Justin Bieber"})
    assert str(repeated.value) == str(caught.value)  # seeded: the same tries every time
    # the old decoding: no greedy pass
    beams_only = DecodingOptions(num_beams=2, sample_tries=2, lazy_beams=False, constrained=False)
    with pytest.raises(PlannerError, match="after 4 tries"):
        LocalPlanner(PlannerModel(model, tokenizer, architecture), beams_only).plan("who is x?", {"m.1": "X"})


def test_causal_lora_learns_the_completion_only(tiny_gpt2: Path, data: Path, tmp_path: Path) -> None:
    result = train(config(data, tmp_path / "causal", f"hf:{tiny_gpt2}", method="lora", lr=1e-2), progress=False)
    model = result.model
    assert model.architecture == "causal" and model.codec == "plain"
    source = format_input("who is x?", {"m.1": "X"})
    target = model.target_ids(PLAN.replace("{name}", "X"))
    batch = model.batch([source], [target])
    prompt = len(model.tokenizer.encode(source + "\nplan:\n"))
    labels = batch["labels"][0].tolist()
    assert labels[:prompt] == [-100] * prompt and labels[prompt:] == target
    assert model.tokenizer.decode(target[:-1]) == PLAN.replace("{name}", "X").strip()  # byte-level: as written
    epochs = [line for line in log_lines(tmp_path / "causal") if line["event"] == "epoch"]
    assert epochs[-1]["train_loss"] < epochs[0]["train_loss"]

    inputs = [json.loads(line)["input"] for line in (data / "train.jsonl").read_text().splitlines()][:3]
    reloaded = open_planner(f"hf:{tiny_gpt2}+{tmp_path / 'causal'}")
    assert isinstance(reloaded, LocalPlanner) and reloaded.model.codec == "plain"
    assert reloaded.model.generate(inputs, max_new_tokens=30) == model.generate(inputs, max_new_tokens=30)
    with pytest.raises(PlannerModelError, match="holds no LoRA adapter"):
        open_planner(f"hf:{tiny_gpt2}+{tiny_gpt2}")


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="nl2sparql")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["planner", *argv])
    code = args.func(args)
    return code, capsys.readouterr().out


def test_cli_trains_describes_and_runs(
    tiny_bert: Path, data: Path, tmp_path: Path, memorised: TrainResult, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli-run"
    argv = ["train", "--data", str(data), "--out", str(out), "--base", f"ed:{tiny_bert}", "--epochs", "1"]
    code, printed = run_cli([*argv, "--batch", "4", "--lora", "--threads", "1", "--quiet", "--no-eval"], capsys)
    assert code == 0 and f"planner saved in {out} (lora" in printed and "dev loss per epoch: " in printed
    code, printed = run_cli(["info", "--planner", f"hf:{out}", "--json"], capsys)
    info = json.loads(printed)
    assert info["method"] == "lora" and info["codec"] == "flat" and info["base"] == f"ed:{tiny_bert}"
    assert info["epochs"] == 1 and info["parameters"] > 0

    pair = json.loads((data / "train.jsonl").read_text().splitlines()[0])
    record = json.loads(data_file("webqsp/WebQSP.train.json").read_text())["Questions"][0]
    entities = json.dumps([record["Parses"][0]["TopicEntityName"]])
    code, printed = run_cli(
        ["run", "--planner", f"hf:{memorised.out}", record["ProcessedQuestion"], "--entities", entities],
        capsys,
    )
    assert code == 0 and printed == pair["output"]


def test_a_planner_trained_on_relation_hints_reads_the_pipelines_bank(
    tiny_bert: Path, data: Path, tmp_path: Path
) -> None:
    from nl2sparql.kg.store import open_store
    from nl2sparql.memory_bank.build_store import build_bank_from_store
    from nl2sparql.memory_bank.embedder import default_embedder
    from nl2sparql.pipeline import _open_planner
    from nl2sparql.planner.exemplars import planner_inputs
    from nl2sparql.planner.input_format import relations_in_input
    from nl2sparql.planner.pairs import read_pairs
    from nl2sparql.planner.relation_hints import add_relation_hints
    from nl2sparql.settings import Settings

    store = open_store("oxigraph", path=tmp_path / "store")
    store.load(Path(__file__).parent / "fixtures" / "own_kg" / "records.ttl", progress=False)
    bank = build_bank_from_store(store, embedder=default_embedder(), source="records")[0]
    hinted = tmp_path / "hinted"
    write_pairs(hinted / "train.jsonl", add_relation_hints(read_pairs(data / "train.jsonl"), bank, 3))
    result = train(config(hinted, tmp_path / "out", f"ed:{tiny_bert}", method="lora", epochs=1), progress=False)
    assert result.meta["relations"] == 3
    with pytest.raises(PlannerModelError, match="reads relation hints, but no memory bank was given"):
        LocalPlanner(PlannerModel.load(result.out))

    planner = _open_planner(Settings(planner=f"hf:{result.out}", plan_batch=1), bank)
    assert planner.hints is not None and planner.hints.bank is bank
    (text,) = planner_inputs(["Who are the members of Radiohead?"], [{"r": "Radiohead"}], None, 0, planner.hints)
    assert relations_in_input(text)[0] == "the member of the band"
    assert planner.plan("Who are the members of Radiohead?", {"r": "Radiohead"}).text  # it decodes from them
