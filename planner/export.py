"""Ship a trained LoRA planner: its adapter in half precision, without what loading rebuilds.

A LoRA planner folder (``planner train --lora``) holds the adapter in float32 beside a
copy of the base's tokenizer. Loading rebuilds the base (and its tokenizer) from
``planner.json``'s ``base``, so only the adapter, its config and ``planner.json`` are
needed, and float16 halves the adapter (the weights are cast back to the model's float32
when applied; a float16 rounding of a LoRA update is far below what decoding notices).
This is how the default planner in ``nl2sparql/planner/default`` was made from a training run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.model import META_FILE, read_meta

ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")


def export_planner(source: str | Path, target: str | Path, half: bool = True) -> dict[str, Any]:
    """Copy the LoRA planner in ``source`` to ``target`` (replaced atomically); returns its ``planner.json``."""
    import torch
    from safetensors.torch import load_file, save_file

    source, target = Path(source), Path(target)
    meta = read_meta(source)
    if meta["method"] != "lora":
        raise PlannerModelError(f"{source} holds a fully fine-tuned model; only LoRA planners are exported")
    missing = [name for name in ADAPTER_FILES if not (source / name).is_file()]
    if missing:
        raise PlannerModelError(f"{source} lacks {', '.join(missing)}")
    staging = target.with_name(f".{target.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    shutil.copy2(source / "adapter_config.json", staging / "adapter_config.json")
    weights = load_file(str(source / "adapter_model.safetensors"))
    if half:
        weights = {k: v.to(torch.float16) if v.is_floating_point() else v for k, v in weights.items()}
    save_file(weights, str(staging / "adapter_model.safetensors"))
    meta["data"] = {key: value for key, value in meta.get("data", {}).items() if not key.endswith("_file")}
    meta["exported"] = {"from": source.name, "dtype": "float16" if half else "float32"}
    (staging / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if target.exists():
        shutil.rmtree(target)
    os.replace(staging, target)
    return meta
