"""``nl2sparql sparql``: dialect conversion, checks and errors as one clear line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nl2sparql import cli

GOLD = """#MANUAL SPARQL
PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x
WHERE {
FILTER (?x != ns:m.06w2sn5)
FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))
ns:m.06w2sn5 ns:people.person.sibling_s ?y .
?y ns:people.sibling_relationship.sibling ?x .
?x ns:people.person.gender ?g .
FILTER (?g = ns:m.05zppz)
}
"""


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None, monkeypatch=None
) -> tuple[int, str, str]:  # noqa: ANN001
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main(["sparql", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_virtuoso_to_full_iri(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gold.rq"
    path.write_text(GOLD)
    code, out, err = run([str(path), "--from", "virtuoso", "--to", "full-iri"], capsys)
    assert code == 0 and err == ""
    assert out.startswith("SELECT DISTINCT ?x\nWHERE {\n  FILTER (?x != <http://rdf.freebase.com/ns/m.06w2sn5>)")
    assert "||" in out and " OR " not in out


def test_optimize_validate_and_json_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(["-", "--from", "virtuoso", "--optimize", "--validate", "--json"], capsys, GOLD, monkeypatch)
    assert code == 0
    data = json.loads(out)
    assert data["ok"] is True and data["problems"] == [] and data["to"] == "sparql11"
    assert "?x ns:people.person.gender ns:m.05zppz ." in data["sparql"] and "?g" not in data["sparql"]


def test_stats_file_orders_triples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    query = tmp_path / "q.rq"
    query.write_text("SELECT * { ?a <http://ex/big> ?b . ?b <http://ex/small> ?c }")
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"triples": 10, "predicates": {"http://ex/big": 9, "http://ex/small": 1}}))
    code, out, _ = run([str(query), "--optimize", "--stats", str(stats), "--to", "full-iri"], capsys)
    assert code == 0 and out.index("small") < out.index("big")
    stats.write_text("[1, 2]")
    code, _, err = run([str(query), "--optimize", "--stats", str(stats)], capsys)
    assert code == 1 and "expected a JSON object of predicate IRI -> integer count" in err


def test_syntax_error_is_one_line_with_file_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.rq"
    path.write_text("SELECT ?x WHERE {\n  ?x <http://p> ?y\n  FILTER (?y > )\n}\n")
    code, out, err = run([str(path)], capsys)
    assert code == 1 and out == ""
    assert err.startswith(f"{path}:3:16: unexpected ')'; expected ") and err.count("\n") == 1


def test_syntax_error_as_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["--json"], capsys, "SELECT ?x { ?x <http://p> ?y FILTER (?y = 1 OR ?y = 2) }", monkeypatch)
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and (data["line"], data["column"]) == (1, 45)
    assert "read with the 'virtuoso' dialect" in data["error"]


def test_validation_errors_and_strict_warnings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run(["--validate"], capsys, "SELECT ?z { ?x <http://p> ?y }", monkeypatch)
    assert code == 1 and err == "<stdin>: error: SELECT projects ?z, which the pattern never binds\n"
    product = "SELECT * { ?x <http://p> ?y . ?a <http://q> ?b }"
    code, out, err = run(["--validate"], capsys, product, monkeypatch)
    assert code == 0 and "warning: no variable links" in err and out.startswith("SELECT *")
    code, _, err = run(["--validate", "--strict"], capsys, product, monkeypatch)
    assert code == 1 and "error: no variable links" in err


def test_catalog_and_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = tmp_path / "predicates.txt"
    catalog.write_text("# the graph's predicates\n<http://p>\n")
    code, _, err = run(["--validate", "--catalog", str(catalog)], capsys, "SELECT * { ?x <http://q> ?y }", monkeypatch)
    assert code == 1 and "the graph has no predicate <http://q>" in err
    code, _, err = run(
        ["--validate", "--run"],
        capsys,
        "CONSTRUCT { ?x <http://p> 1 } WHERE { ?x <http://p> 1 }",
        monkeypatch,
    )
    assert code == 1 and "only SELECT and ASK" in err


def test_canonical(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _, first, _ = run(["--canonical"], capsys, "SELECT ?a { ?a <http://p> ?b . ?b <http://q> 1 }", monkeypatch)
    _, second, _ = run(["--canonical"], capsys, "SELECT ?s { ?o <http://q> 1 . ?s <http://p> ?o }", monkeypatch)
    assert first == second and "?v0" in first


def test_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([str(tmp_path / "nope.rq")], capsys)
    assert code == 1 and err.startswith("nl2sparql: error: cannot read ") and "nope.rq" in err


def test_help_shows_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["sparql", "--help"])
    assert "examples:" in capsys.readouterr().out
