"""Ship a trained LoRA planner: its adapter in half precision, without what loading rebuilds.

A LoRA planner folder (``planner train --lora``) holds the adapter in float32 beside a
copy of the base's tokenizer. Loading rebuilds the base (and its tokenizer) from
``planner.json``'s ``base``, so only the adapter, its config and ``planner.json`` are
needed, and float16 halves the adapter (the weights are cast back to the model's float32
when applied; a float16 rounding of a LoRA update is far below what decoding notices);
int8 with a scale per row halves it again (:mod:`~nl2sparql.planner.adapter_int8`).
This is how the default planner in ``nl2sparql/planner/default`` was made from a training run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from nl2sparql.planner.adapter_int8 import CONFIG_FILE, FLOAT_FILE, INT8_FILE, quantize, read_adapter_weights
from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.model import META_FILE, read_meta

DTYPES = ("float16", "int8", "float32")


def export_planner(source: str | Path, target: str | Path, dtype: str = "float16") -> dict[str, Any]:
    """Copy the LoRA planner in ``source`` to ``target`` (replaced atomically) with its adapter
    stored as ``dtype`` (:data:`DTYPES`; int8: :mod:`~nl2sparql.planner.adapter_int8`);
    returns its ``planner.json``."""
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
    (staging / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if target.exists():
        shutil.rmtree(target)
    os.replace(staging, target)
    return meta
