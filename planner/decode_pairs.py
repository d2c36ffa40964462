"""``nl2sparql planner decode``: a trained planner's plans for the inputs of a pairs file.

A planner on a pretrained causal base decodes several times slower than the shipped one on
a CPU, so its plans for the dev splits are written once where it runs fast (a GPU, found by
itself) and judged here by the whole pipeline: ``nl2sparql eval --planner plans:FILE``
(:mod:`nl2sparql.planner.backends.recorded`). Decoding is greedy and constrained by the plan
grammar, the pipeline's first try; the inputs are the pairs' own (``planner data`` wrote them
with the exemplars and relation hints of its bank).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.input_format import names_from_input, question_from_input
from nl2sparql.planner.pairs import read_pairs

MAX_BATCH = 256
#: a larger pairs file is refused before it is read (the dev splits' are under 1 MB)
MAX_PAIRS_BYTES = 256 * 1024 * 1024


def decode_pairs(folder: Path, pairs_file: Path, out: Path, batch_size: int = 64, progress: bool = True) -> int:
    """Write ``{"id", "question", "plan"}`` lines for every pair of ``pairs_file`` into ``out``
    (replaced whole, never left half-written); return how many were written."""
    from tqdm.auto import tqdm

    from nl2sparql.planner.model import PlannerModel

    if not 1 <= batch_size <= MAX_BATCH:
        raise PlannerError(f"--batch takes 1 to {MAX_BATCH} (got {batch_size})")
    if not out.parent.is_dir() or out.is_dir():
        raise PlannerError(f"cannot write {out}: {'it is a folder' if out.is_dir() else 'its folder does not exist'}")
    if pairs_file.is_file() and pairs_file.stat().st_size > MAX_PAIRS_BYTES:
        raise PlannerError(f"{pairs_file} is larger than {MAX_PAIRS_BYTES // 2**20} MiB")
    pairs = read_pairs(pairs_file)
    model = PlannerModel.load(folder)
    temp = out.with_name(f".{out.name}.tmp")
    try:
        with temp.open("w", encoding="utf-8") as sink:
            for start in tqdm(range(0, len(pairs), batch_size), desc="decode", unit="batch", disable=not progress):
                chunk = pairs[start : start + batch_size]
                inputs = [pair.input for pair in chunk]
                plans = model.generate(inputs, [names_from_input(text) for text in inputs], constrained=True)
                for pair, (plan,) in zip(chunk, plans, strict=True):
                    record = {"id": pair.id, "question": question_from_input(pair.input), "plan": plan}
                    sink.write(json.dumps(record, ensure_ascii=False) + "\n")
        os.replace(temp, out)
    finally:
        temp.unlink(missing_ok=True)
    return len(pairs)
