"""An adapter stored in 8 bits: each weight matrix as int8 rows with a float16 scale per row.

The shipped planner's adapter is 7 MB of new cross-attention plus the LoRA factors; in
float16 it is 10 MB, in int8 with a scale per output row (absmax / 127) half that. A
row's rounding error is at most half a step, 1/254 of the row's largest weight; vectors
(biases, layer norms) stay float16. Loading dequantizes to float32 before peft sees
the weights, so the model is the same shape as one loaded from float16.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import torch

from nl2sparql.planner.errors import PlannerModelError

INT8_FILE = "adapter_model.int8.safetensors"
FLOAT_FILE = "adapter_model.safetensors"
CONFIG_FILE = "adapter_config.json"
SCALE_SUFFIX = ":scale"


def quantize(weights: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """int8 rows and their float16 scales for the matrices, float16 for the rest.

    >>> q = quantize({"w": torch.tensor([[1.0, -0.5], [0.0, 0.0]]), "b": torch.tensor([0.25])})
    >>> q["w"].tolist(), q["w:scale"].tolist(), q["b"].dtype
    ([[127, -64], [0, 0]], [0.00787353515625, 0.0], torch.float16)
    >>> dequantize(q)["w"].tolist()
    [[0.99993896484375, -0.50390625], [0.0, 0.0]]
    """
    out: dict[str, torch.Tensor] = {}
    for name, tensor in weights.items():
        if not tensor.is_floating_point() or tensor.dim() != 2:
            out[name] = tensor.to(torch.float16) if tensor.is_floating_point() else tensor
            continue
        scale = tensor.float().abs().amax(dim=1) / 127
        steps = torch.where(scale > 0, scale, torch.ones_like(scale)).to(torch.float16).float()
        out[name] = torch.round(tensor.float() / steps[:, None]).clamp(-127, 127).to(torch.int8)
        out[name + SCALE_SUFFIX] = torch.where(scale > 0, steps, torch.zeros_like(steps)).to(torch.float16)
    return out


def dequantize(stored: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """float32 weights back from :func:`quantize`'s output."""
    weights: dict[str, torch.Tensor] = {}
    for name, tensor in stored.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        scale = stored.get(name + SCALE_SUFFIX)
        if scale is not None:
            weights[name] = tensor.float() * scale.float()[:, None]
        else:
            weights[name] = tensor.float() if tensor.is_floating_point() else tensor
    return weights


def read_adapter_weights(folder: Path) -> dict[str, torch.Tensor]:
    """The adapter weights in ``folder`` in float32, whichever way they are stored;
    :class:`PlannerModelError` naming the file when it is missing or unreadable."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    path = folder / (INT8_FILE if (folder / INT8_FILE).is_file() else FLOAT_FILE)
    try:
        stored = load_file(str(path))
    except (OSError, SafetensorError) as exc:
        raise PlannerModelError(f"cannot read the planner adapter {path}: {exc}") from None
    if path.name == INT8_FILE:
        return dequantize(stored)
    return {k: v.float() if v.is_floating_point() else v for k, v in stored.items()}


@contextmanager
def readable_adapter(folder: Path) -> Iterator[Path]:
    """``folder``, or for an int8 adapter a temporary folder holding it in float32 (what peft reads)."""
    if not (folder / INT8_FILE).is_file():
        yield folder
        return
    from safetensors.torch import save_file

    with tempfile.TemporaryDirectory(prefix="nl2sparql-adapter-") as temporary:
        staging = Path(temporary)
        shutil.copy2(folder / CONFIG_FILE, staging / CONFIG_FILE)
        save_file(read_adapter_weights(folder), str(staging / FLOAT_FILE))
        yield staging
