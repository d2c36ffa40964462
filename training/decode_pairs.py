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
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.input_format import names_from_input, question_from_input
from nl2sparql.planner.pairs import PlanPair, read_pairs

if TYPE_CHECKING:
    from nl2sparql.planner.model import PlannerModel

MAX_BATCH = 256
#: a larger pairs file is refused before it is read (the dev splits' are under 1 MB)
MAX_PAIRS_BYTES = 256 * 1024 * 1024


def decoded_pairs(
    model: PlannerModel, pairs: Sequence[PlanPair], batch_size: int, *, constrained: bool, progress: bool = False
) -> Iterator[tuple[PlanPair, str]]:
    """Each pair with the plan text ``model`` writes for its input, greedy, ``batch_size`` at a time."""
    from tqdm.auto import tqdm

    for start in tqdm(range(0, len(pairs), batch_size), desc="decode", unit="batch", disable=not progress):
        chunk = pairs[start : start + batch_size]
        inputs = [pair.input for pair in chunk]
        plans = model.generate(inputs, [names_from_input(text) for text in inputs], constrained=constrained)
        yield from zip(chunk, (plan for (plan,) in plans), strict=True)


def decode_pairs(folder: Path, pairs_file: Path, out: Path, batch_size: int = 64, progress: bool = True) -> int:
    """Write ``{"id", "question", "plan"}`` lines for every pair of ``pairs_file`` into ``out``
    (replaced whole, never left half-written); return how many were written."""
    from nl2sparql.kg.atomic import atomic_output
    from nl2sparql.planner.model import PlannerModel

    if not 1 <= batch_size <= MAX_BATCH:
        raise PlannerError(f"--batch takes 1 to {MAX_BATCH} (got {batch_size})")
    if not out.parent.is_dir() or out.is_dir():
        raise PlannerError(f"cannot write {out}: {'it is a folder' if out.is_dir() else 'its folder does not exist'}")
    if pairs_file.is_file() and pairs_file.stat().st_size > MAX_PAIRS_BYTES:
        raise PlannerError(f"{pairs_file} is larger than {MAX_PAIRS_BYTES // 2**20} MiB")
    pairs = read_pairs(pairs_file)
    model = PlannerModel.load(folder)
    with atomic_output(out) as sink:
        for pair, plan in decoded_pairs(model, pairs, batch_size, constrained=True, progress=progress):
            record = {"id": pair.id, "question": question_from_input(pair.input), "plan": plan}
            sink.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    return len(pairs)
