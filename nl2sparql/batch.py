"""Batch translation of JSON Lines: one question per line in, one result per line out.

A researcher runs a whole dataset through it, so it must survive what a dataset holds:
a line that is not JSON or not UTF-8, a missing question, an unknown entity id. Each
becomes an ``error`` on its own output line and the batch goes on; the run reports how
many lines failed so the exit code can say so. Output is appended line by line and
flushed, and a rerun skips the ids already written (a torn last line from a killed run
is cut off first), so a long run can be resumed.

Formats (ARCHITECTURE.md)::

    in:  {"id": "WebQTest-7", "question": "...", "entities": {"m.03djm": "..."}, "gold_sparql": "..."}
    out: {"id": ..., "question": ..., "type": ..., "plan": [...], "sparql": ..., "answers": [...],
          "error": null, "timings_ms": {...}}
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.results import AskResult


@dataclass(frozen=True, slots=True)
class BatchReport:
    total: int
    written: int
    skipped: int
    failed: int


@dataclass(frozen=True, slots=True)
class Line:
    """One input line: its number, id, and either a request or the reason it cannot be one."""

    number: int
    id: str
    request: Mapping[str, Any] | None
    error: str | None = None


def read_lines(stream: BinaryIO, where: str) -> Iterator[Line]:
    """Input records; a bad line yields a :class:`Line` with ``error`` instead of raising."""
    for number, raw in enumerate(stream, start=1):
        fallback = f"line-{number}"
        if not raw.strip():
            continue
        try:
            # Without its line break, so a JSON error's column points into the line; a byte
            # order mark (Windows editors write one) is not part of the first record.
            text = raw.decode("utf-8").rstrip("\r\n").removeprefix("\ufeff" if number == 1 else "")
        except UnicodeDecodeError as exc:
            yield Line(number, fallback, None, f"{where}:{number}: not UTF-8 ({exc.reason} at byte {exc.start})")
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            yield Line(number, fallback, None, f"{where}:{number}: not JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(record, dict):
            yield Line(number, fallback, None, f"{where}:{number}: expected a JSON object, got {type(record).__name__}")
            continue
        record_id = fallback if record.get("id") in (None, "") else str(record["id"])
        question = record.get("question")
        if question is None:
            yield Line(number, record_id, record, f"{where}:{number}: the record has no 'question'")
            continue
        if not isinstance(question, str):
            kind = type(question).__name__
            yield Line(number, record_id, record, f"{where}:{number}: 'question' must be a string, got {kind}")
            continue
        entities = record.get("entities")
        if entities is not None and not (
            isinstance(entities, dict) and all(isinstance(v, str | type(None)) for v in entities.values())
        ):
            yield Line(number, record_id, record, f"{where}:{number}: 'entities' must map ids to names")
            continue
        if not isinstance(record.get("gold_sparql", ""), str | type(None)):
            yield Line(number, record_id, record, f"{where}:{number}: 'gold_sparql' must be a string")
            continue
        yield Line(number, record_id, record)


def done_ids(path: Path) -> set[str]:
    """Ids already in an output file; a torn last line (a killed run) is removed first."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end != len(data):
        with path.open("r+b") as handle:
            handle.truncate(end)
        data = data[:end]
    ids = set()
    for raw in data.splitlines():
        try:
            ids.add(str(json.loads(raw)["id"]))
        except (ValueError, KeyError, TypeError):
            continue
    return ids


def dumps_line(record: Mapping[str, Any]) -> str:
    """One JSON line; ASCII escapes when a string holds a lone surrogate (UTF-8 cannot encode it)."""
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # e.g. a \udcff escape in the input: escaped again, the line stays JSON
        text = json.dumps(record)
    return text + "\n"


def output_record(line_id: str, question: str, result: AskResult | None, error: str | None) -> dict[str, Any]:
    if result is None:
        return {
            "id": line_id,
            "question": question,
            "type": None,
            "plan": [],
            "sparql": None,
            "answers": [],
            "error": error,
            "timings_ms": {},
        }
    return {
        "id": line_id,
        "question": result.question,
        "type": result.type,
        "plan": list(result.plan),
        "sparql": result.sparql,
        "answers": [a.id for a in result.answers],
        "names": {a.id: a.name for a in result.answers if a.name},
        "error": result.error,
        "timings_ms": {k: round(v, 3) for k, v in result.timings_ms.items()},
    }


def translate_file(
    pipeline: Any,
    source: Path | str,
    target: Path | str,
    *,
    execute: bool = True,
    dialect: str | None = None,
    progress: bool = True,
    workers: int = 1,
) -> BatchReport:
    """Run every line of ``source`` through ``pipeline`` into ``target`` (``-`` = stdin/stdout).

    ``workers`` questions are answered at once (a batching planner then decodes their plans
    together); the output keeps the input's order whatever the number of workers.
    """
    import sys

    from tqdm import tqdm

    source_name = str(source)
    target_path = None if str(target) == "-" else Path(target)
    if source_name == "-":
        stream: BinaryIO = sys.stdin.buffer
    else:
        try:
            stream = open(source_name, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise Nl2SparqlError(f"cannot read {source_name}: {exc.strerror}") from None
    try:
        skip = done_ids(target_path) if target_path else set()
        out = target_path.open("a", encoding="utf-8") if target_path else sys.stdout
    except OSError as exc:
        if source_name != "-":
            stream.close()
        raise Nl2SparqlError(f"cannot write {target}: {exc.strerror}") from None
    total = written = skipped = failed = 0
    pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="nl2sparql-translate") if workers > 1 else None
    try:
        bar = tqdm(read_lines(stream, source_name), desc="translate", unit="q", disable=not progress)
        pending: deque[tuple[Line, Future[tuple[AskResult | None, str | None]] | None]] = deque()
        for line in bar:
            total += 1
            if line.id in skip:
                skipped += 1
                continue
            if line.error is not None or pool is None:
                pending.append((line, None))
            else:
                pending.append((line, pool.submit(_answer, pipeline, line, execute, dialect)))
            # in input order, as soon as the oldest is done; at most 2 x workers questions in flight
            while pending and (len(pending) > 2 * workers or pending[0][1] is None or pending[0][1].done()):
                failed += _write(out, *pending.popleft(), pipeline, execute, dialect)
                written += 1
        while pending:
            failed += _write(out, *pending.popleft(), pipeline, execute, dialect)
            written += 1
        if target_path:
            os.fsync(out.fileno())
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if source_name != "-":
            stream.close()
        if target_path:
            out.close()
    return BatchReport(total, written, skipped, failed)


def _answer(pipeline: Any, line: Line, execute: bool, dialect: str | None) -> tuple[AskResult | None, str | None]:
    """The result for one line, or the error that stopped it (a line's error never stops the batch)."""
    if line.error is not None:
        return None, line.error
    assert line.request is not None
    try:
        result = pipeline.ask(
            line.request["question"],
            line.request.get("entities") or None,
            execute=execute,
            dialect=dialect,
            gold_sparql=line.request.get("gold_sparql"),
        )
    except Nl2SparqlError as exc:
        return None, str(exc)
    return result, result.error


def _write(
    out: TextIO,
    line: Line,
    future: Future[tuple[AskResult | None, str | None]] | None,
    pipeline: Any,
    execute: bool,
    dialect: str | None,
) -> int:
    """Write one line's output record (answering it here when no worker did); 1 when it failed."""
    result, error = future.result() if future is not None else _answer(pipeline, line, execute, dialect)
    question = (line.request or {}).get("question")
    question = question if isinstance(question, str) else ""
    out.write(dumps_line(output_record(line.id, question, result, error)))
    out.flush()
    return int(error is not None)
