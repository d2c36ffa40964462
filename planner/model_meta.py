"""``planner.json``, the record a trained planner folder carries: read without loading a model.

It says what loading needs (base, architecture, LoRA or full, the target codec, the input
format) and how the planner was trained; reading it must not import torch, which the
numpy runtime (:mod:`~nl2sparql.planner.numpy_model`) plans without.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nl2sparql.planner.errors import PlannerModelError
from nl2sparql.planner.input_format import INPUT_FORMAT_VERSION

META_FILE = "planner.json"
META_FORMAT = 1


def read_meta(folder: str | Path) -> dict[str, Any]:
    """``planner.json`` of a trained model folder, checked for what loading needs."""
    path = Path(folder) / META_FILE
    if not path.is_file():
        raise PlannerModelError(
            f"{folder} is not a trained planner (no {META_FILE}); train one with 'nl2sparql planner train'"
        )
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PlannerModelError(f"{path} is unreadable: {exc}") from None
    missing = [key for key in ("format", "base", "architecture", "method", "codec", "input_format") if key not in meta]
    if missing:
        raise PlannerModelError(f"{path} lacks {', '.join(missing)}")
    if meta["format"] != META_FORMAT:
        raise PlannerModelError(f"{path} has format {meta['format']}; this version reads format {META_FORMAT}")
    if meta["input_format"] != INPUT_FORMAT_VERSION:
        raise PlannerModelError(
            f"{path}: the model was trained on input format {meta['input_format']}, "
            f"this version writes format {INPUT_FORMAT_VERSION}; retrain it"
        )
    return meta
