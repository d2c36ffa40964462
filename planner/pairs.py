"""Training pairs for the planner: JSON Lines of ``{"id", "input", "output"}``.

``input`` is the text :func:`~nl2sparql.planner.input_format.format_input` writes and
``output`` the plan text. Whatever produces pairs (gold plans synthesised from SPARQL,
KG-pattern plans, hand-written ones) writes them with :func:`make_pair` and
:func:`write_pairs`; training reads them with :func:`read_pairs`, which refuses a file
with a broken line, a duplicate id or a plan that does not parse, naming file and line,
before any time is spent on training.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Plan, PlanError
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.errors import PlannerDataError
from nl2sparql.planner.input_format import format_input

#: the id prefix of KG-pattern pairs (``training/patterns.py``), whose plans are in a store bank's words
PATTERN_PREFIX = "lpkg-"
TRAIN_FILE = "train.jsonl"
#: the exemplar memory ``planner data --exemplars`` writes beside the pairs
EXEMPLARS_DIR = "exemplars"
DEV_FILE = "dev.jsonl"


@dataclass(frozen=True, slots=True)
class PlanPair:
    """One training example: the planner's input text and the plan it should write."""

    id: str
    input: str
    output: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "input": self.input, "output": self.output}


def is_pattern_pair(pair: PlanPair) -> bool:
    """A KG-pattern pair (``training/patterns.py``): its plan is in the store bank's words."""
    return pair.id.startswith(PATTERN_PREFIX)


def make_pair(id: str, question: str, entities: Mapping[str, str] | None, plan: Plan | str) -> PlanPair:
    """A pair whose input is formatted the way inference formats it and whose output is canonical."""
    parsed = parse_plan(plan) if isinstance(plan, str) else plan
    return PlanPair(id, format_input(question, entities), format_plan(parsed, check=True))


def read_pairs(path: str | Path, check_plans: bool = True) -> list[PlanPair]:
    """The pairs in ``path``; :class:`PlannerDataError` names the file and line of the first bad one."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise PlannerDataError(f"cannot read training pairs {path}: {exc.strerror or exc}") from None
    pairs: list[PlanPair] = []
    seen: dict[str, int] = {}
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise PlannerDataError(f"{where}: not JSON ({exc.msg}, column {exc.colno})") from None
            if not isinstance(record, dict):
                raise PlannerDataError(f"{where}: expected an object with id, input and output")
            for key in ("id", "input", "output"):
                if not isinstance(record.get(key), str) or not record[key].strip():
                    raise PlannerDataError(f"{where}: {key!r} must be a non-empty string")
            if record["id"] in seen:
                raise PlannerDataError(f"{where}: id {record['id']!r} already used on line {seen[record['id']]}")
            seen[record["id"]] = number
            if check_plans:
                try:
                    parse_plan(record["output"])
                except PlanError as exc:
                    raise PlannerDataError(f"{where}: the output plan does not parse: {exc}") from None
            pairs.append(PlanPair(record["id"], record["input"], record["output"]))
    if not pairs:
        raise PlannerDataError(f"{path}: no training pairs in the file")
    return pairs


def write_pairs(path: str | Path, pairs: Iterable[PlanPair]) -> int:
    """Write ``pairs`` as JSON Lines (atomically: a temp file, then a rename); the number written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for pair in pairs:
                out.write(json.dumps(pair.to_json(), ensure_ascii=False) + "\n")
                count += 1
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return count


def pairs_sha256(pairs: Iterable[PlanPair]) -> str:
    """A digest of the pairs' content (ids, inputs, outputs in order), recorded with a trained model."""
    digest = hashlib.sha256()
    for pair in pairs:
        digest.update(json.dumps(pair.to_json(), ensure_ascii=False, sort_keys=True).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def data_files(data: str | Path) -> tuple[Path, Path | None]:
    """``(train, dev)`` of ``data``: a folder with ``train.jsonl`` (and maybe ``dev.jsonl``), or one file."""
    data = Path(data)
    if data.is_file():
        return data, None
    if not data.is_dir():
        raise PlannerDataError(f"training data {data} does not exist (a folder with {TRAIN_FILE}, or a .jsonl file)")
    train = data / TRAIN_FILE
    if not train.is_file():
        raise PlannerDataError(f"training data folder {data} has no {TRAIN_FILE}")
    dev = data / DEV_FILE
    return train, dev if dev.is_file() else None
