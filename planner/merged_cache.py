"""Merged LoRA planner weights kept between runs, so that a CLI run loads its planner once.

Loading a LoRA planner rebuilds its base (MiniLM read twice, the new cross-attention
initialised), applies the adapter with peft and merges it: several seconds of every
``nl2sparql ask`` before the question is read, and peft's import alone is a good part of
them. The merged model is the same every time, so the first load writes it (weights,
config, tokenizer) to ``<home>/cache/planner-<key>``, keyed by the sha256 of the planner
folder's files and the torch and transformers versions; later loads read it with one
``from_pretrained`` and never import peft, and the numpy runtime (planner/numpy_model.py)
reads it without torch. It is only a cache: one that cannot be written
is skipped, one that cannot be read is rebuilt, and ``NL2SPARQL_PLANNER_CACHE=0`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from nl2sparql.config import home_dir

#: files of a planner folder larger than this are not hashed (and not part of a LoRA planner)
MAX_HASHED_BYTES = 256 << 20
DONE_FILE = "complete"


def enabled() -> bool:
    return os.environ.get("NL2SPARQL_PLANNER_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def cache_folder(planner: Path) -> Path | None:
    """Where the merged weights of the planner in ``planner`` are kept; ``None`` when it cannot say."""
    try:
        # read from the installed metadata: importing torch to ask costs a second
        digest = hashlib.sha256(f"torch {version('torch')} transformers {version('transformers')}".encode())
        for path in sorted(p for p in planner.iterdir() if p.is_file()):
            if path.stat().st_size > MAX_HASHED_BYTES:
                return None
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    except (OSError, PackageNotFoundError):
        return None
    return home_dir() / "cache" / f"planner-{digest.hexdigest()[:24]}"


def read(folder: Path | None, loader: Any) -> tuple[Any, Any] | None:
    """``(model, tokenizer)`` from a complete cache folder through ``loader``, else ``None``."""
    if folder is None or not (folder / DONE_FILE).is_file():
        return None
    try:
        return loader(folder)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001  (a damaged cache is rebuilt, never fatal)
        return None


def write(folder: Path | None, model: Any, tokenizer: Any) -> None:
    """Save ``model`` and ``tokenizer`` to ``folder`` atomically; nothing when that fails."""
    if folder is None:
        return
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        model.save_pretrained(str(temp))
        tokenizer.save_pretrained(str(temp))
        (temp / DONE_FILE).write_text("1\n", encoding="utf-8")
        if folder.exists() and not (folder / DONE_FILE).is_file():  # a torn one, from a killed run
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(temp, folder)
        except OSError:  # another process wrote it first
            shutil.rmtree(temp, ignore_errors=True)
    except (OSError, RuntimeError, ValueError):
        return
