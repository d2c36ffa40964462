"""Ship a trained LoRA planner: its adapter in half precision, without what loading rebuilds.

A LoRA planner folder (``planner train --lora``) holds the adapter in float32 beside a
copy of the base's tokenizer. Loading rebuilds the base (and its tokenizer) from
``planner.json``'s ``base``, so only the adapter, its config and ``planner.json`` are
needed, and float16 halves the adapter (the weights are cast back to the model's float32
when applied; a float16 rounding of a LoRA update is far below what decoding notices);
int8 with a scale per row halves it again (:mod:`~nl2sparql.planner.adapter_int8`).
This is how the default planner in ``nl2sparql/planner/default`` was made from a training run.

``blend`` exports a weight-space ensemble instead (WiSE-FT, Wortsman et al. 2022): every
adapter tensor ``weight * source + (1 - weight) * blend``, where ``blend`` is the planner
the run started from (``--init``). A run that continues a planner on new data moves away
from what the old one did well; part of the way back keeps most of the new and most of
the old (the shipped default is such a blend: see the README's Planner section).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nl2sparql.planner.adapter_int8 import CONFIG_FILE, FLOAT_FILE, INT8_FILE, quantize, read_adapter_weights
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.model import META_FILE, read_meta
from nl2sparql.planner.output_tokens import record, recorded

DTYPES = ("float16", "int8", "float32")


def export_planner(
    source: str | Path,
    target: str | Path,
    dtype: str = "float16",
    blend: str | Path | None = None,
    weight: float = 0.5,
) -> dict[str, Any]:
    """Copy the LoRA planner in ``source`` to ``target`` (replaced atomically) with its adapter
    stored as ``dtype`` (:data:`DTYPES`; int8: :mod:`~nl2sparql.planner.adapter_int8`), or,
    with ``blend``, ``weight`` of it and the rest of ``blend`` (:func:`blended`); returns its
    ``planner.json``."""
    import torch
    from safetensors.torch import save_file

    if dtype not in DTYPES:
        raise PlannerModelError(f"cannot store an adapter as {dtype!r}; choose one of {', '.join(DTYPES)}")
    source, target = Path(source), Path(target)
    meta = read_meta(source)
    if meta["method"] != "lora":
        raise PlannerModelError(f"{source} holds a fully fine-tuned model; only LoRA planners are exported")
    if not (source / CONFIG_FILE).is_file():
        raise PlannerModelError(f"{source} lacks {CONFIG_FILE}")
    weights = read_adapter_weights(source)  # names a missing or unreadable weights file
    if blend is not None:
        weights = _blend_with(meta, weights, Path(blend), weight)
    staging = target.with_name(f".{target.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    shutil.copy2(source / CONFIG_FILE, staging / CONFIG_FILE)
    if dtype == "int8":
        save_file(quantize(weights), str(staging / INT8_FILE))
    else:
        cast = torch.float16 if dtype == "float16" else torch.float32
        cast_weights = {k: v.to(cast) if v.is_floating_point() else v for k, v in weights.items()}
        save_file(cast_weights, str(staging / FLOAT_FILE))
    meta["data"] = {key: value for key, value in meta.get("data", {}).items() if not key.endswith("_file")}
    meta["exported"] = {"from": source.name, "dtype": dtype}
    if blend is not None:
        meta["exported"]["blend"] = {"with": Path(blend).name, "weight": weight}
    (staging / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if target.exists():
        shutil.rmtree(target)
    os.replace(staging, target)
    return meta


def blended(weights: Mapping[str, Any], other: Mapping[str, Any], weight: float) -> dict[str, Any]:
    """``weight * weights + (1 - weight) * other``, tensor by tensor.

    >>> import torch
    >>> blended({"w": torch.ones(2)}, {"w": torch.zeros(2)}, 0.75)["w"].tolist()
    [0.75, 0.75]
    """
    return {name: weight * tensor + (1 - weight) * other[name] for name, tensor in weights.items()}


def _blend_with(meta: dict[str, Any], weights: dict[str, Any], blend: Path, weight: float) -> dict[str, Any]:
    """``weights`` blended with ``blend``'s adapter after checking that the two are the same
    model (base, rank, tensor names and shapes); ``meta`` records the tokens of both."""
    if not 0 < weight < 1:
        raise PlannerModelError(f"--weight {weight}: a blend's weight is between 0 and 1 (the share of the source)")
    other_meta = read_meta(blend)
    for key in ("method", "base", "lora"):
        if other_meta.get(key) != meta.get(key):
            raise PlannerModelError(
                f"cannot blend with {blend}: its {key} is {other_meta.get(key)!r}, the source's {meta.get(key)!r}"
            )
    other = read_adapter_weights(blend)
    unlike = sorted(set(weights) ^ set(other)) or [k for k in weights if weights[k].shape != other[k].shape]
    if unlike:
        raise PlannerModelError(f"cannot blend with {blend}: the adapters differ in {unlike[:3]}")
    record(meta, recorded(other_meta))
    return blended(weights, other, weight)
