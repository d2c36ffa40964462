"""``nl2sparql bank ...`` end to end on a small WebQSP file the test writes from the real one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.config import data_file


@pytest.fixture(scope="module")
def questions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = json.loads(data_file("webqsp/WebQSP.train.json").read_text(encoding="utf-8"))
    data["Questions"] = data["Questions"][:30]
    path = tmp_path_factory.mktemp("webqsp") / "small.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def bank(questions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("banks") / "small.nl2sq"
    assert main(["bank", "build", "--from-queries", str(questions), "--out", str(out), "--json"]) == 0
    return out


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_build_info_recall(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    info = _json(capsys, ["bank", "info", str(bank), "--json"])
    assert info["embedder"] == {"name": "sentence-transformers/all-MiniLM-L6-v2", "dimension": 384}
    assert info["statements"] == sum(info["counts"]["structure"].values()) > 0
    recall = _json(
        capsys,
        ["bank", "recall", str(bank), "the sibling of Justin Bieber", "the gender of ?x", "--top", "3", "--json"],
    )
    first, second = recall["recalls"]
    assert first["candidates"][0]["description"] == "?e2 is the sibling of the person ?e1"
    assert second["candidates"][0]["description"] == "?e2 is the gender of the person ?e1"
    assert len(first["candidates"]) == 3 and first["selected"]


def test_merge_export_import(bank: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    merged = _json(capsys, ["bank", "merge", str(bank), str(bank), "--out", str(tmp_path / "m.nl2sq"), "--json"])
    info = _json(capsys, ["bank", "info", str(bank), "--json"])
    assert merged["statements"] == info["statements"]  # the same statements once, supports doubled
    assert _json(capsys, ["bank", "import", str(bank), "--into", str(tmp_path / "f"), "--json"])["statements"]
    _json(capsys, ["bank", "export", str(tmp_path / "f"), "--out", str(tmp_path / "again.nl2sq"), "--json"])
    assert (tmp_path / "again.nl2sq").read_bytes() == bank.read_bytes()


def test_coverage_and_decompose(bank: Path, questions: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, ["bank", "coverage", str(bank), "--dataset", str(questions), "--json"])
    (only,) = report["coverage"]
    assert only["queries"] == 30 and only["covered"] == only["with_statements"]
    query = (
        "SELECT ?x WHERE { ns:m.06w2sn5 ns:people.person.sibling_s ?y . "
        "?y ns:people.sibling_relationship.sibling ?x . }"
    )
    out = _json(capsys, ["bank", "decompose", query, "--topic", "m.06w2sn5", "--json"])
    (stmt,) = out["statements"]
    assert stmt["structure"] == 2 and stmt["bindings"] == {"?e1": "ns:m.06w2sn5", "?e2": "?x", "?cvt": "?y"}


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bank", "info", str(tmp_path / "absent.nl2sq")]) == 1
    assert "no such bank file" in capsys.readouterr().err
    (tmp_path / "junk.nl2sq").write_bytes(b"PK\x03\x04 not really")
    assert main(["bank", "info", str(tmp_path / "junk.nl2sq")]) == 1
    err = capsys.readouterr().err
    assert "truncated" in err and "Traceback" not in err
    assert main(["bank", "decompose", "SELECT ?x WHERE { ?x"]) == 1
    assert "does not parse" in capsys.readouterr().err
