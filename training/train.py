"""Fine-tune a planner on plan pairs: full or LoRA, checkpointed, resumable, reproducible.

One loop serves both model shapes (:mod:`.model`): seq2seq models learn the plan from the
input, causal models learn it as the completion of a prompt with the loss on the
completion only. The same seed gives the same model, whether training ran through or
stopped and resumed from a checkpoint: the batch order of each epoch comes from the seed
and the epoch, and a checkpoint keeps the optimiser, the schedule and the random state.

The output folder, while training::

    train_log.jsonl          one line per step {"event": "step", step, epoch, loss, lr, elapsed}
                             and per epoch {"event": "epoch", epoch, train_loss, dev_loss, elapsed}
    checkpoints/epoch-NNN.pt the latest epoch's trainable weights and trainer state, or
    checkpoints/epoch-NNN-step-SSSSSSS.pt  the same within epoch NNN, after step SSSSSSS
                             (``checkpoint_steps``: a long epoch on a CPU can stop and resume)

and when it is done, the model (weights or adapter, tokenizer, ``planner.json``); the
checkpoints go then (a full model's optimiser state is twice the model's size).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import torch

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import PlanError
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.adapter_int8 import read_adapter_weights
from nl2sparql.planner.errors import PlannerDataError, PlannerModelError
from nl2sparql.planner.input_format import (
    INPUT_FORMAT_VERSION,
    examples_in_input,
    relations_in_input,
)
from nl2sparql.planner.model import (
    DEFAULT_BASE,
    META_FILE,
    LoraSettings,
    PlannerModel,
    add_lora,
    build_base,
    default_device,
    parse_base,
    read_meta,
)
from nl2sparql.planner.names import DEFAULT_METHOD
from nl2sparql.planner.pairs import EXEMPLARS_DIR, PlanPair, data_files, pairs_sha256, read_pairs
from nl2sparql.training.decode_pairs import decoded_pairs

#: Full fine-tuning is the default for minilm-ed. Measured on 320 WebQSP pairs, 3 epochs: dev loss
#: 1.00 and every dev plan parsing (full, lr 3e-4), 1.24 / 53% (full, 1e-4), 1.17 / 95% (LoRA r16,
#: 5e-4), 2.46 / 0% (LoRA, 1e-4); a LoRA step costs about 0.9 of a full one on this model.
LOG_FILE = "train_log.jsonl"
CHECKPOINTS = "checkpoints"
#: At most this many pairs are held out for the dev loss when no dev.jsonl is given.
MAX_HELD_OUT = 300
#: the input lengths a run may keep (the MiniLM encoder has 512 positions)
MIN_SOURCE_TOKENS, MAX_SOURCE_TOKENS = 16, 512


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """What ``nl2sparql planner train`` does; everything that changes the result is recorded."""

    data: Path
    out: Path
    base: str = DEFAULT_BASE
    method: Literal["full", "lora"] = DEFAULT_METHOD
    epochs: int = 5
    batch_size: int = 16
    lr: float = 1e-4
    seed: int = 0
    lora: LoraSettings = field(default_factory=LoraSettings)
    warmup: float = 0.06
    weight_decay: float = 0.01
    max_source_tokens: int = 256
    max_target_tokens: int = 256
    dev_fraction: float = 0.05
    #: ``bf16`` runs forward and loss under bfloat16 autocast (weights and optimiser stay fp32):
    #: 1.5x faster per step on a CPU with AVX512-BF16 (measured: 3.2 s -> 2.2 s, batch 16).
    precision: Literal["fp32", "bf16"] = "fp32"
    evaluate: bool = True
    #: a LoRA planner folder (``planner train --lora`` output) whose trained weights start this run
    init: str | None = None
    #: recompute activations in the backward pass instead of keeping them: less memory
    #: (a causal base at batch 16 x 256 tokens), more time; the result is the same
    gradient_checkpointing: bool = False
    #: also save a checkpoint every this many steps within an epoch (0: at each epoch's end only)
    checkpoint_steps: int = 0
    #: each batch's gradient added up from this many slices: a batch of 64 in the memory of 16
    #: (the same mean loss; only the order of float sums and the dropout draws differ)
    accumulate: int = 1

    def fingerprint(self) -> dict[str, Any]:
        """The settings a resumed run must share with the run that wrote the checkpoint."""
        record = asdict(self)
        for key in ("data", "out", "evaluate", "gradient_checkpointing", "checkpoint_steps", "accumulate"):
            record.pop(key)
        return record


@dataclass(frozen=True, slots=True)
class TrainResult:
    """Where the planner was saved, its ``planner.json`` and the trained model, still in memory."""

    out: Path
    meta: dict[str, Any]
    model: PlannerModel


def _split(pairs: list[PlanPair], dev_pairs: list[PlanPair] | None, config: TrainConfig) -> tuple[list, list]:
    if dev_pairs is not None:
        return pairs, dev_pairs
    held = min(MAX_HELD_OUT, int(len(pairs) * config.dev_fraction))
    if held == 0:
        return pairs, []
    order = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(config.seed))
    dev_index = set(order[:held].tolist())
    return [p for i, p in enumerate(pairs) if i not in dev_index], [p for i, p in enumerate(pairs) if i in dev_index]


def _encode(model: PlannerModel, pairs: Sequence[PlanPair], limit: int) -> tuple[list[tuple[str, list[int]]], int]:
    encoded, skipped = [], 0
    for pair in pairs:
        try:
            target = model.target_ids(pair.output)
        except ValueError as exc:
            raise PlannerDataError(f"pair {pair.id!r}: {exc}") from None
        if len(target) > limit:
            skipped += 1
            continue
        encoded.append((pair.input, target))
    return encoded, skipped


def epoch_batches(lengths: Sequence[int], batch_size: int, generator: torch.Generator) -> list[list[int]]:
    """The batches of one epoch: shuffled, then sorted by length within pools of 50 batches.

    Examples of like length share a batch, so little compute goes to padding (plans vary
    from two lines to eight), while the pools and the shuffled batch order keep the epoch random.
    """
    order = torch.randperm(len(lengths), generator=generator).tolist()
    pool = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: lengths[i])
        batches += [chunk[k : k + batch_size] for k in range(0, len(chunk), batch_size)]
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def autocast(device: torch.device, precision: str) -> Any:
    """The autocast context for ``precision`` on ``device`` (a no-op for fp32)."""
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=precision == "bf16")


def dev_loss(model: PlannerModel, examples: Sequence[tuple[str, list[int]]], batch_size: int) -> float | None:
    """Mean loss per target token over ``examples`` (``None`` without examples)."""
    if not examples:
        return None
    model.model.eval()
    total, tokens = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            chunk = examples[start : start + batch_size]
            loss, count = model.loss(model.batch([i for i, _ in chunk], [t for _, t in chunk]))
            total += float(loss) * count
            tokens += count
    return total / tokens


def decode_metrics(model: PlannerModel, pairs: Sequence[PlanPair], batch_size: int = 32) -> dict[str, float]:
    """Greedy decoding of ``pairs``: share that parse and share equal to the gold plan (ignoring case)."""
    parsed = exact = 0
    for pair, text in decoded_pairs(model, pairs, batch_size, constrained=False):
        try:
            plan = parse_plan(text)
        except PlanError:
            continue
        parsed += 1
        exact += format_plan(plan).casefold() == format_plan(parse_plan(pair.output)).casefold()
    return {"dev_parse_rate": parsed / len(pairs), "dev_exact": exact / len(pairs)} if pairs else {}


class _Log:
    def __init__(self, path: Path, keep_until_step: int | None) -> None:
        self.path = path
        if keep_until_step is None:
            path.unlink(missing_ok=True)
        elif path.is_file():  # drop what was logged after the checkpoint being resumed
            kept = [
                line
                for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip() and json.loads(line).get("step", 0) <= keep_until_step
            ]
            path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
        self.handle = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self.handle.write(json.dumps(record) + "\n")
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()


def _latest_checkpoint(out: Path) -> Path | None:
    found = sorted((out / CHECKPOINTS).glob("epoch-*.pt"))
    return found[-1] if found else None


def _save_checkpoint(out: Path, epoch: int, state: dict[str, Any]) -> Path:
    """Keep ``state`` as the one checkpoint: after epoch ``epoch``, or within it when the state
    says how many of its batches are done (the names sort in training order)."""
    folder = out / CHECKPOINTS
    folder.mkdir(parents=True, exist_ok=True)
    within = f"-step-{state['step']:07d}" if state.get("batches") else ""
    path = folder / f"epoch-{epoch:03d}{within}.pt"
    temp = folder / f".{path.name}.tmp"
    torch.save(state, temp)
    os.replace(temp, path)
    for older in folder.glob("epoch-*.pt"):
        if older != path:
            older.unlink()
    return path


def _trainable_state(model: Any) -> dict[str, torch.Tensor]:
    return {name: p.detach().cpu().clone() for name, p in model.named_parameters() if p.requires_grad}


def _rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _resumable(config: TrainConfig, resume: bool) -> tuple[Path | None, dict[str, Any] | None]:
    """The checkpoint to resume from and its content; refuses to overwrite or mix runs by accident."""
    out = config.out
    path = _latest_checkpoint(out)
    if not resume:
        if path is not None or (out / META_FILE).is_file():
            raise PlannerModelError(
                f"{out} already holds a planner or a checkpoint; pass --resume to continue it, or another --out"
            )
        return None, None
    if path is None:
        if (out / META_FILE).is_file():
            raise PlannerModelError(f"training in {out} has finished (it holds {META_FILE}); nothing to resume")
        return None, None
    try:
        checkpoint = torch.load(path, weights_only=True)
    except (OSError, RuntimeError, EOFError) as exc:
        raise PlannerModelError(f"cannot read checkpoint {path}: {exc}") from None
    if checkpoint["config"] != config.fingerprint():
        differ = sorted(k for k, v in config.fingerprint().items() if checkpoint["config"].get(k) != v)
        raise PlannerModelError(f"cannot resume {path}: settings differ from that run ({', '.join(differ)})")
    return path, checkpoint


def _warm_start(model: Any, folder: Path, config: TrainConfig) -> dict[str, Any]:
    """Start from the trained weights of the LoRA planner in ``folder`` (same base and rank):
    a run on new inputs (exemplars) keeps what an earlier run learnt about writing plans.
    Returns the record of where the run began, for ``planner.json``."""
    from peft import set_peft_model_state_dict

    if config.method != "lora":
        raise PlannerModelError("--init continues a LoRA planner; train with --lora")
    meta = read_meta(folder)
    rank = meta.get("lora", {}).get("r")
    if meta.get("method") != "lora" or meta.get("base") != config.base or rank != config.lora.r:
        raise PlannerModelError(
            f"--init {folder}: that planner is {meta.get('method')} on {meta.get('base')} with LoRA rank "
            f"{rank}; this run is lora on {config.base} with rank {config.lora.r}"
        )
    weights = read_adapter_weights(folder)
    result = set_peft_model_state_dict(model, weights)
    if result.unexpected_keys:
        raise PlannerModelError(f"--init {folder}: weights this model lacks: {result.unexpected_keys[:3]}")
    keep = ("created", "epochs", "lr", "steps", "train_seconds")
    record = {"from": folder.name, **{key: meta.get(key) for key in keep}}
    record["train_sha256"] = meta.get("data", {}).get("train_sha256")
    return record


def train(config: TrainConfig, resume: bool = False, progress: bool = True) -> TrainResult:
    """Train a planner as ``config`` says and save it in ``config.out``; resume from its last checkpoint."""
    from tqdm.auto import tqdm
    from transformers import get_linear_schedule_with_warmup

    if config.method not in ("full", "lora"):
        raise PlannerModelError(f"unknown training method {config.method!r}; use full or lora")
    if config.precision not in ("fp32", "bf16"):
        raise PlannerModelError(f"unknown precision {config.precision!r}; use fp32 or bf16")
    if config.epochs < 1 or config.batch_size < 1 or config.lr <= 0 or config.checkpoint_steps < 0:
        raise PlannerModelError(
            "epochs and batch size must be at least 1, the learning rate positive and checkpoint steps not negative"
        )
    if not 1 <= config.accumulate <= config.batch_size:
        raise PlannerModelError(f"--accumulate takes 1 to the batch size {config.batch_size}, got {config.accumulate}")
    if not MIN_SOURCE_TOKENS <= config.max_source_tokens <= MAX_SOURCE_TOKENS:
        raise PlannerModelError(
            f"--max-source-tokens takes {MIN_SOURCE_TOKENS} to {MAX_SOURCE_TOKENS} (got {config.max_source_tokens})"
        )
    out = config.out
    checkpoint_path, checkpoint = _resumable(config, resume)
    train_file, dev_file = data_files(config.data)
    train_pairs, dev_pairs = _split(read_pairs(train_file), read_pairs(dev_file) if dev_file else None, config)
    exemplars = max((examples_in_input(p.input) for p in train_pairs), default=0)
    relations = max((len(relations_in_input(p.input)) for p in train_pairs), default=0)
    if exemplars and not (train_file.parent / EXEMPLARS_DIR).is_dir():
        raise PlannerDataError(f"the inputs hold exemplars but {train_file.parent / EXEMPLARS_DIR} is missing")
    data_hash = pairs_sha256(train_pairs)
    if checkpoint is not None and checkpoint["data_sha256"] != data_hash:
        raise PlannerModelError(f"cannot resume {checkpoint_path}: the training pairs changed since that run")

    base = parse_base(config.base)
    model, tokenizer, architecture = build_base(base, seed=config.seed)
    if config.gradient_checkpointing:
        enable_gradient_checkpointing(model)
    if config.method == "lora":
        model = add_lora(model, base, architecture, config.lora)
    init = _warm_start(model, Path(config.init).expanduser(), config) if config.init else None
    planner = PlannerModel(model, tokenizer, architecture, max_source_tokens=config.max_source_tokens)
    examples, skipped = _encode(planner, train_pairs, config.max_target_tokens)
    dev_examples, dev_skipped = _encode(planner, dev_pairs, config.max_target_tokens)
    if not examples:
        raise PlannerDataError(f"no training pair fits in {config.max_target_tokens} target tokens")

    lengths = [len(source) + len(target) for source, target in examples]
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=config.lr, weight_decay=config.weight_decay)
    steps_per_epoch = math.ceil(len(examples) / config.batch_size)
    total_steps = steps_per_epoch * config.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, int(config.warmup * total_steps), total_steps)

    start_epoch, step, elapsed_before, history = 0, 0, 0.0, []
    skip, sums = 0, (0.0, 0)  # batches of the first epoch already done, and their loss and tokens
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    if checkpoint is not None:
        missing = set(_trainable_state(model)) - set(checkpoint["weights"])
        if missing:
            raise PlannerModelError(f"{checkpoint_path} lacks weights for {sorted(missing)[:3]}")
        model.load_state_dict(checkpoint["weights"], strict=False)
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        _set_rng_state(checkpoint["rng"])
        start_epoch, step = checkpoint["epoch"], checkpoint["step"]
        elapsed_before, history = checkpoint["elapsed"], checkpoint["history"]
        skip = checkpoint.get("batches", 0)
        sums = (checkpoint.get("epoch_loss", 0.0), checkpoint.get("epoch_tokens", 0))
    out.mkdir(parents=True, exist_ok=True)
    log = _Log(out / LOG_FILE, step if checkpoint is not None else None)
    started = time.monotonic()

    def trainer_state(epoch: int, **within: Any) -> dict[str, Any]:
        return {
            "config": config.fingerprint(),
            "data_sha256": data_hash,
            "weights": _trainable_state(model),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "rng": _rng_state(),
            "epoch": epoch,
            "step": step,
            "elapsed": round(elapsed_before + time.monotonic() - started, 3),
            "history": history,
            **within,
        }

    try:
        for epoch in range(start_epoch, config.epochs):
            model.train()
            generator = torch.Generator().manual_seed(config.seed * 1_000_003 + epoch)
            batches = epoch_batches(lengths, config.batch_size, generator)
            done, (epoch_loss, epoch_tokens) = (skip, sums) if epoch == start_epoch else (0, (0.0, 0))
            bar = tqdm(
                batches[done:],
                initial=done,
                total=len(batches),
                desc=f"epoch {epoch + 1}/{config.epochs}",
                unit="batch",
                disable=not progress,
            )
            for indices in bar:
                value, tokens = _backward(planner, [examples[i] for i in indices], config)
                torch.nn.utils.clip_grad_norm_(parameters, 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                epoch_loss += value * tokens
                epoch_tokens += tokens
                elapsed = elapsed_before + time.monotonic() - started
                log.write(
                    {
                        "event": "step",
                        "step": step,
                        "epoch": epoch + 1,
                        "loss": round(value, 6),
                        "lr": scheduler.get_last_lr()[0],
                        "elapsed": round(elapsed, 3),
                    }
                )
                bar.set_postfix(loss=f"{value:.4f}")
                done += 1
                if config.checkpoint_steps and step % config.checkpoint_steps == 0 and done < len(batches):
                    sums_now = {"epoch_loss": epoch_loss, "epoch_tokens": epoch_tokens}
                    _save_checkpoint(out, epoch + 1, trainer_state(epoch, batches=done, **sums_now))
            bar.close()
            record = {
                "event": "epoch",
                "step": step,
                "epoch": epoch + 1,
                "train_loss": epoch_loss / epoch_tokens,
                "dev_loss": dev_loss(planner, dev_examples, config.batch_size),
                "elapsed": round(elapsed_before + time.monotonic() - started, 3),
            }
            history.append(record)
            log.write(record)
            _save_checkpoint(out, epoch + 1, trainer_state(epoch + 1))
    finally:
        log.close()
    train_seconds = elapsed_before + time.monotonic() - started

    metrics: dict[str, Any] = {
        "train_loss": [h["train_loss"] for h in history],
        "dev_loss": [h["dev_loss"] for h in history],
    }
    if config.evaluate and dev_pairs:
        metrics.update(decode_metrics(planner, dev_pairs))
    meta = _meta(config, base.spec, train_file, dev_file, train_pairs, dev_pairs, skipped + dev_skipped, step)
    meta["train_seconds"] = round(train_seconds, 1)
    meta["exemplars"], meta["init"] = exemplars, init
    meta["relations"] = relations
    meta["metrics"] = metrics
    _record_output_tokens(meta, planner, train_pairs, Path(config.init).expanduser() if config.init else None)
    _save_final(planner, out, meta, train_file.parent / EXEMPLARS_DIR if exemplars else None)
    shutil.rmtree(out / CHECKPOINTS, ignore_errors=True)  # a full model's optimiser state is twice its size
    return TrainResult(out, planner.meta, planner)


def _backward(planner: PlannerModel, chunk: list, config: TrainConfig) -> tuple[float, int]:
    """The gradient of one batch's mean token loss, in ``config.accumulate`` slices, each loss
    weighted by its share of the batch's target tokens (the memory of a slice, the step of the
    batch; one slice is the plain batch); returns the batch's loss and its target tokens."""
    size = math.ceil(len(chunk) / config.accumulate)
    slices = [chunk[start : start + size] for start in range(0, len(chunk), size)]
    batches = [planner.batch([i for i, _ in part], [t for _, t in part]) for part in slices]
    counts = [int((batch["labels"] != -100).sum()) for batch in batches]
    tokens = sum(counts)
    value = 0.0
    for batch, count in zip(batches, counts, strict=True):
        with autocast(planner.device, config.precision):
            loss, _ = planner.loss(batch)
        (loss * (count / tokens)).backward()
        value += loss.item() * count / tokens
    return value, tokens


def _record_output_tokens(meta: dict[str, Any], planner: Any, pairs: list[PlanPair], init: Path | None) -> None:
    """The tokens of the training plans, with those of the planner this run continues."""
    from nl2sparql.planner.output_tokens import KEY, record, target_tokens

    if init is not None:
        meta[KEY] = read_meta(init).get(KEY)
    record(meta, target_tokens(planner.tokenizer, (pair.output for pair in pairs), planner.codec))


def enable_gradient_checkpointing(model: Any) -> None:
    """Recompute each layer's activations in the backward pass (non-reentrant: LoRA's frozen
    inputs need no ``requires_grad`` trick); the KV cache is off while training anyway."""
    if not getattr(model, "supports_gradient_checkpointing", False):
        raise PlannerModelError(f"{type(model).__name__} does not support gradient checkpointing")
    kwargs = {"use_reentrant": False}
    if hasattr(model, "activation_checkpointing_enable"):  # transformers 5's name for it
        model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
    model.config.use_cache = False


def _meta(
    config: TrainConfig,
    base: str,
    train_file: Path,
    dev_file: Path | None,
    train_pairs: list[PlanPair],
    dev_pairs: list[PlanPair],
    skipped: int,
    steps: int,
) -> dict[str, Any]:
    """``planner.json``'s record of the run; ``base`` is the canonical spec (a packaged GGUF
    base by its name, which loading resolves from the installed package again)."""
    import peft
    import transformers

    return {
        "base": base,
        "input_format": INPUT_FORMAT_VERSION,
        "data": {
            "train_file": str(train_file.resolve()),
            "dev_file": str(dev_file.resolve()) if dev_file else None,
            "train_sha256": pairs_sha256(train_pairs),
            "dev_sha256": pairs_sha256(dev_pairs),
            "train_pairs": len(train_pairs),
            "dev_pairs": len(dev_pairs),
            "skipped_too_long": skipped,
        },
        "epochs": config.epochs,
        "batch_size": config.batch_size,
        "lr": config.lr,
        "precision": config.precision,
        "seed": config.seed,
        "lora": asdict(config.lora) if config.method == "lora" else None,
        "max_source_tokens": config.max_source_tokens,
        "steps": steps,
        "gradient_checkpointing": config.gradient_checkpointing,
        "device": str(default_device()),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "peft": peft.__version__,
        },
    }


def _save_final(planner: PlannerModel, out: Path, meta: dict[str, Any], exemplars: Path | None = None) -> None:
    """Write the model (and the exemplar memory it reads) to a temporary folder, then move it
    into ``out`` with ``planner.json`` last."""
    staging = out / ".final.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    planner.save(staging, meta)
    if exemplars is not None:
        shutil.copytree(exemplars, staging / EXEMPLARS_DIR)
    for item in sorted(staging.iterdir(), key=lambda p: p.name == META_FILE):
        os.replace(item, out / item.name)
    staging.rmdir()
