"""Bad input to ``nl2sparql translate`` and ``nl2sparql ask``: one clear error per line, never a traceback.

A dataset holds empty and huge questions, lines that are not JSON or not UTF-8, records
without a question and entity ids the KG does not know; an endpoint may be down. Each
must become an ``error`` on that line's own output record while the batch goes on, the
output must stay one JSON object per input line, and the exit code must say whether any
line failed. Everything runs for real: an Oxigraph store of the fixture graph of
``conftest.py``, a memory bank built from that store with the bundled MiniLM, and the
oracle planner (gold plans from the lines' gold SPARQL). No home folder is needed.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FixtureKG

import nl2sparql.cli as cli
from nl2sparql.batch import BatchReport, translate_file
from nl2sparql.pipeline import Pipeline

UNREACHABLE = "http://127.0.0.1:9/sparql"  # the discard port: nothing listens there
SIBLING_QUESTION = "who is the sibling of cy quill?"
SIBLING_GOLD = """PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x
WHERE {
FILTER (?x != ns:m.0p_cy)
ns:m.0p_cy ns:people.person.sibling_s ?y .
?y ns:people.sibling_relationship.sibling ?x .
}
"""
FILMS_QUESTION = "what films did cy quill play in?"
FILMS_GOLD = """PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x
WHERE {
ns:m.0p_cy ns:film.actor.film ?y .
?y ns:film.performance.film ?x .
}
"""
CY = {"m.0p_cy": "Cy Quill"}
HUGE = "who? " * 19_999 + "who?!"  # 100,000 characters


def _json(**record: Any) -> bytes:
    return json.dumps(record).encode("utf-8")


# (input line, the id its output record has, words its error must contain; None = no error)
LINES: list[tuple[bytes, str, tuple[str, ...] | None]] = [
    (_json(id="good", question=SIBLING_QUESTION, entities=CY, gold_sparql=SIBLING_GOLD), "good", None),
    (_json(id="empty", question="", entities=CY, gold_sparql=SIBLING_GOLD), "empty", ("question is empty",)),
    (_json(id="blank", question=" \t  ", entities=CY, gold_sparql=SIBLING_GOLD), "blank", ("question is empty",)),
    (_json(id="huge", question=HUGE, entities=CY, gold_sparql=SIBLING_GOLD), "huge", ("100,000 characters",)),
    (b'{"id": "torn", "question": ', "line-5", (":5:", "not JSON", "column 28")),
    (b'\xff\xfe{"id": "bytes", "question": "who?"}', "line-6", (":6:", "not UTF-8")),
    (b'["who is the sibling of cy quill?"]', "line-7", (":7:", "expected a JSON object, got list")),
    (_json(id="no-question", entities=CY), "no-question", (":8:", "no 'question'")),
    (_json(id="number", question=42), "number", (":9:", "'question' must be a string, got int")),
    (
        _json(id="unknown", question=SIBLING_QUESTION, entities={"m.0zz_nobody": "Nobody"}, gold_sparql=SIBLING_GOLD),
        "unknown",
        ("unknown entity", "m.0zz_nobody"),
    ),
    (_json(id="surrogate", question="who \udcff is?", entities=CY), "surrogate", ("not valid UTF-8",)),
    (_json(id="gold", question=SIBLING_QUESTION, entities=CY, gold_sparql=7), "gold", ("'gold_sparql' must be",)),
    (
        _json(id="no-entity", question="who is it?", entities={"": ""}, gold_sparql=SIBLING_GOLD),
        "no-entity",
        ("entity id is empty",),
    ),
    (_json(question=FILMS_QUESTION, gold_sparql=FILMS_GOLD), "line-14", None),  # no id, entities linked
]
FAILED = sum(words is not None for _, _, words in LINES)


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _records(path: Path) -> list[dict[str, Any]]:
    """The output, checked to be one JSON object per line with every field of the format."""
    records = []
    for line in path.read_bytes().decode("utf-8").splitlines():
        record = json.loads(line)
        assert isinstance(record, dict)
        assert {"id", "question", "type", "plan", "sparql", "answers", "error", "timings_ms"} <= set(record)
        records.append(record)
    return records


def _check(records: list[dict[str, Any]]) -> None:
    assert [r["id"] for r in records] == [line_id for _, line_id, _ in LINES]
    for record, (_, line_id, words) in zip(records, LINES, strict=True):
        if words is None:
            assert record["error"] is None, (line_id, record["error"])
        else:
            assert isinstance(record["error"], str) and "\n" not in record["error"], line_id
            for word in words:
                assert word in record["error"], (line_id, record["error"])
            assert record["answers"] == [] and record["sparql"] is None


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, fixture_kg: FixtureKG) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("translate")
    mixed = _write(folder / "mixed.jsonl", [line for line, _, _ in LINES])
    good = _write(folder / "good.jsonl", [line for line, _, words in LINES if words is None])
    return {"folder": folder, "store": fixture_kg.store, "bank": fixture_kg.bank, "mixed": mixed, "good": good}


@pytest.fixture(scope="module")
def pipeline(files: dict[str, Path]) -> Iterator[Pipeline]:
    with Pipeline.from_settings(
        store=str(files["store"]), bank=str(files["bank"]), planner="oracle", timeout=10
    ) as pipeline:
        yield pipeline


def _flags(files: dict[str, Path]) -> list[str]:
    return ["--store", str(files["store"]), "--bank", str(files["bank"]), "--planner", "oracle"]


def _env(folder: Path) -> dict[str, str]:
    """The environment of a user with no home folder, no config and no NL2SPARQL_* settings but the data."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NL2SPARQL_") or k == "NL2SPARQL_DATA"}
    env.update(NL2SPARQL_HOME=str(folder / "no-home"), HF_HUB_OFFLINE="1", PYTHONIOENCODING="utf-8")
    return env


def _subprocess(args: list[str | bytes], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nl2sparql", *args],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=folder,
        env=_env(folder),
        timeout=300,  # a hang fails the test instead of stalling the suite
    )


def _in_process(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


# -- the batch, in process ----------------------------------------------------------------


def test_each_bad_line_gets_its_own_error_and_the_batch_goes_on(pipeline: Pipeline, files: dict[str, Path]) -> None:
    target = files["folder"] / "in-process.jsonl"
    report = translate_file(pipeline, files["mixed"], target, progress=False)
    assert report == BatchReport(total=len(LINES), written=len(LINES), skipped=0, failed=FAILED)
    records = _records(target)
    _check(records)
    by_id = {r["id"]: r for r in records}
    assert by_id["good"]["answers"] == ["m.0p_dee"] and by_id["good"]["sparql"].startswith("PREFIX")
    assert sorted(by_id["line-14"]["answers"]) == ["m.0f_ember", "m.0f_glass", "m.0f_tide"]
    assert by_id["surrogate"]["question"] == "who \udcff is?"  # escaped again, so the line stays JSON


def test_concurrent_workers_write_the_same_lines_in_the_same_order(pipeline: Pipeline, files: dict[str, Path]) -> None:
    alone, together = files["folder"] / "one-worker.jsonl", files["folder"] / "four-workers.jsonl"
    translate_file(pipeline, files["mixed"], alone, progress=False)
    report = translate_file(pipeline, files["mixed"], together, progress=False, workers=4)
    assert report == BatchReport(total=len(LINES), written=len(LINES), skipped=0, failed=FAILED)

    def stable(path: Path) -> list[dict[str, object]]:
        return [{k: v for k, v in r.items() if k != "timings_ms"} for r in _records(path)]

    assert stable(together) == stable(alone)


def test_a_rerun_skips_the_ids_already_written(pipeline: Pipeline, files: dict[str, Path]) -> None:
    target = files["folder"] / "resumed.jsonl"
    translate_file(pipeline, files["mixed"], target, progress=False)
    written = target.read_bytes()
    again = translate_file(pipeline, files["mixed"], target, progress=False)
    assert again == BatchReport(total=len(LINES), written=0, skipped=len(LINES), failed=0)
    assert target.read_bytes() == written
    # A killed run: the last record lost and the one before it torn half-way.
    lines = written.splitlines(keepends=True)
    target.write_bytes(b"".join(lines[:-2]) + lines[-2][:20])
    resumed = translate_file(pipeline, files["mixed"], target, progress=False)
    assert resumed == BatchReport(total=len(LINES), written=2, skipped=len(LINES) - 2, failed=1)
    _check(_records(target))


def test_standard_input_to_standard_output(
    pipeline: Pipeline, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(files["mixed"].read_bytes())))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    report = translate_file(pipeline, "-", "-", progress=False)
    assert report.failed == FAILED
    target = files["folder"] / "stdout.jsonl"
    target.write_text(out.getvalue(), encoding="utf-8")
    _check(_records(target))


# -- the command ---------------------------------------------------------------------------


def test_translate_command_exits_non_zero_when_a_line_failed(files: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    done = _subprocess(["translate", str(files["mixed"]), "--out", str(target), "--quiet", *_flags(files)], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"lines={len(LINES)} written={len(LINES)} skipped=0 failed={FAILED}"
    _check(_records(target))


def test_translate_command_exits_zero_when_no_line_failed(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.jsonl"
    argv = ["translate", str(files["good"]), "--out", str(target), "--quiet", "--json", *_flags(files)]
    code, _, err = _in_process(argv, monkeypatch)
    assert code == 0, err
    assert json.loads(err) == {"lines": 2, "written": 2, "skipped": 0, "failed": 0}
    assert [r["error"] for r in _records(target)] == [None, None]


def test_translate_command_with_unwritable_output(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for target in (tmp_path / "missing" / "out.jsonl", tmp_path):
        code, _, err = _in_process(["translate", str(files["good"]), "--out", str(target), *_flags(files)], monkeypatch)
        assert code == 1
        assert err.startswith(f"nl2sparql: error: cannot write {target}: ") and err.count("\n") == 1


def test_unreachable_endpoint_is_an_error_on_every_line(files: dict[str, Path], tmp_path: Path) -> None:
    lines = [
        _json(id="given", question=SIBLING_QUESTION, entities=CY, gold_sparql=SIBLING_GOLD),
        _json(id="empty", question="", entities=CY),
        _json(id="linked", question=FILMS_QUESTION, gold_sparql=FILMS_GOLD),
    ]
    source = _write(tmp_path / "in.jsonl", lines)
    target = tmp_path / "out.jsonl"
    args = ["translate", str(source), "--out", str(target), "--quiet", "--endpoint", UNREACHABLE, "--timeout", "2"]
    done = _subprocess([*args, "--bank", str(files["bank"]), "--planner", "oracle"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    errors = {r["id"]: r["error"] for r in _records(target)}
    assert list(errors) == ["given", "empty", "linked"]
    assert errors["empty"] == "the question is empty"
    for line_id in ("given", "linked"):
        assert UNREACHABLE in errors[line_id] and "unreachable" in errors[line_id], errors[line_id]


# -- ask -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "extra", "words"),
    [
        ("", [], "the question is empty"),
        ("  \t ", [], "the question is empty"),
        (HUGE, [], "the question has 100,000 characters"),
        ("who \udcff\udcfe is?", [], "the question is not valid UTF-8"),  # how Python hands over bytes in argv
        (SIBLING_QUESTION, ["--entities", '{"m.0zz_nobody": "Nobody"}'], "unknown entity (not in the store): m.0zz"),
        (SIBLING_QUESTION, ["--entities", '{"m.0p_cy": "Cy'], "--entities is not JSON"),
        (
            SIBLING_QUESTION,
            ["--entities", '{"m.0p_cy": ""}', "--endpoint", UNREACHABLE, "--timeout", "2"],
            f"SPARQL endpoint {UNREACHABLE} is unreachable",
        ),
    ],
    ids=["empty", "blank", "huge", "not-utf8", "unknown-entity", "entities-not-json", "endpoint"],
)
def test_ask_with_a_bad_question_is_one_line_on_stderr(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, question: str, extra: list[str], words: str
) -> None:
    flags = _flags(files)
    if "--endpoint" in extra:
        flags = flags[2:]  # an endpoint instead of the store
    code, out, err = _in_process(["ask", question, *flags, *extra], monkeypatch)
    assert code == 1
    assert out == ""
    assert err.startswith("nl2sparql: error: ") and err.count("\n") == 1, err
    assert words in err


def test_ask_command_with_bytes_that_are_not_utf8(files: dict[str, Path], tmp_path: Path) -> None:
    done = _subprocess(["ask", b"who \xff\xfe is?", "--entities", json.dumps(CY), *_flags(files)], tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "nl2sparql: error: the question is not valid UTF-8 text (at character 5)\n"


def test_a_translation_keeps_a_named_id_the_store_lacks(pipeline: Pipeline) -> None:
    named = {"m.0zz_nobody": "Nobody Quill"}
    translated = pipeline.translate(
        SIBLING_QUESTION, named, gold_sparql=SIBLING_GOLD.replace("m.0p_cy", "m.0zz_nobody")
    )
    assert translated.error is None and "m.0zz_nobody" in (translated.sparql or "")
    with pytest.raises(Exception, match="unknown entity"):
        pipeline.translate(SIBLING_QUESTION, {"m.0zz_nobody": ""}, gold_sparql=SIBLING_GOLD)
    with pytest.raises(Exception, match="unknown entity"):
        pipeline.ask(SIBLING_QUESTION, named, gold_sparql=SIBLING_GOLD)
