"""``nl2sparql kg ...`` through ``nl2sparql.cli.main``: import, load, query, stats and errors."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURE_GRAPH, VirtuosoEndpoint, fixture_graph_nt

from nl2sparql.cli import main

NS = "http://rdf.freebase.com/ns/"
TRIPLES = len([line for line in fixture_graph_nt().splitlines() if line.strip()])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("nl2sparql: error: ")
    return lines[0]


@pytest.fixture()
def mini_fb15k(tmp_path: Path) -> Path:
    """A three-triple FB15k-237 folder in the real format (CRLF lines, tab-separated)."""
    folder = tmp_path / "fb15k"
    folder.mkdir()
    (folder / "train.txt").write_bytes(
        b"/m/0a\t/people/person/spouse_s./people/marriage/spouse\t/m/0b\r\n/m/0a\t/people/person/gender\t/m/0g\r\n"
    )
    (folder / "valid.txt").write_bytes(b"/m/0b\t/film/actor/film./film/performance/film\t/m/0f\r\n")
    (folder / "test.txt").write_bytes(b"")
    (folder / "FB15k_mid2name.txt").write_text(
        '/m/0a\tAda_"Quill"\n/m/0b\tBen_Quill\n/m/0g\tFemale\n/m/0f\tTidewater\n/m/0z\tUnused\n',
        encoding="utf-8",
    )
    return folder


def test_import_fb15k237(capsys: pytest.CaptureFixture[str], mini_fb15k: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "mini.nt.gz"
    code, out, _ = run(capsys, "kg", "import-fb15k237", "--src", str(mini_fb15k), "--out", str(out_file), "--json")
    assert code == 0
    report = json.loads(out)
    assert report == {
        "triples": 9,
        "cvt_nodes": 2,
        "entities": 4,
        "names": 4,
        "relations": 3,
        "source_triples": 3,
        "path": str(out_file),
    }
    lines = gzip.decompress(out_file.read_bytes()).decode().splitlines()
    assert lines == [
        f'<{NS}m.0a> <{NS}type.object.name> "Ada \\"Quill\\""@en .',
        f'<{NS}m.0b> <{NS}type.object.name> "Ben Quill"@en .',
        f'<{NS}m.0f> <{NS}type.object.name> "Tidewater"@en .',
        f'<{NS}m.0g> <{NS}type.object.name> "Female"@en .',
        f"<{NS}m.0a> <{NS}people.person.spouse_s> <{NS}cvt.0> .",
        f"<{NS}cvt.0> <{NS}people.marriage.spouse> <{NS}m.0b> .",
        f"<{NS}m.0a> <{NS}people.person.gender> <{NS}m.0g> .",
        f"<{NS}m.0b> <{NS}film.actor.film> <{NS}cvt.1> .",
        f"<{NS}cvt.1> <{NS}film.performance.film> <{NS}m.0f> .",
    ]
    code, out, _ = run(capsys, "kg", "import-fb15k237", "--src", str(mini_fb15k), "--out", str(tmp_path / "m.nt"))
    assert code == 0 and "wrote 9 triples (2 CVT nodes" in out
    assert (tmp_path / "m.nt").read_text().splitlines() == lines


def test_load_query_stats(capsys: pytest.CaptureFixture[str], fixture_nt: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    code, out, _ = run(capsys, "kg", "load", str(fixture_nt), "--store", str(store), "--json", "--no-progress")
    assert code == 0
    report = json.loads(out)
    assert (report["triples_before"], report["added"], report["triples_after"]) == (0, TRIPLES, TRIPLES)

    query = f"SELECT ?n WHERE {{ <{NS}m.0p_ada> <{NS}type.object.name> ?n }}"
    code, out, _ = run(capsys, "kg", "query", "--store", str(store), query)
    assert code == 0
    assert json.loads(out) == {
        "head": {"vars": ["n"]},
        "results": {"bindings": [{"n": {"type": "literal", "value": "Ada Quill", "xml:lang": "en"}}]},
    }
    code, out, _ = run(capsys, "kg", "query", "--store", str(store), "ASK { ?s ?p ?o }")
    assert (code, json.loads(out)) == (0, {"head": {}, "boolean": True})

    query_file = tmp_path / "q.rq"
    query_file.write_text("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", encoding="utf-8")
    code, out, _ = run(capsys, "kg", "query", "--store", str(store), "--timeout", "30", f"@{query_file}")
    assert json.loads(out)["results"]["bindings"][0]["n"]["value"] == str(TRIPLES)

    code, out, _ = run(capsys, "kg", "stats", "--store", str(store), "--json")
    stats = json.loads(out)
    assert stats["triples"] == TRIPLES and stats["predicates"][f"{NS}people.marriage.spouse"] == 8
    code, out, _ = run(capsys, "kg", "stats", "--store", str(store), "--top", "2")
    assert out.splitlines()[0] == f"triples: {TRIPLES:,}" and len(out.splitlines()) == 4


def test_query_from_stdin(
    capsys: pytest.CaptureFixture[str], fixture_nt: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    assert run(capsys, "kg", "load", str(fixture_nt), "--store", str(store), "--no-progress")[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(f"ASK {{ <{NS}m.0p_ada> ?p ?o }}"))
    code, out, _ = run(capsys, "kg", "query", "--store", str(store), "-")
    assert (code, json.loads(out)["boolean"]) == (0, True)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["kg", "load", "{tmp}/missing.nt", "--store", "{tmp}/store"], r"missing\.nt: no such file"),
        (["kg", "query", "--store", "{tmp}/nostore", "ASK {}"], "store folder .*nostore does not exist"),
        (["kg", "query", "--store", "{tmp}/store", "DROP ALL"], r"refused: DROP \(line 1\)"),
        (
            ["kg", "query", "--store", "{tmp}/store", "SELECT ?s\nWHERE { ?s }"],
            "SPARQL syntax error at line 2",
        ),
        (
            ["kg", "query", "--store", "{tmp}/store", "@{tmp}/none.rq"],
            r"cannot read the query file .*none\.rq",
        ),
        (["kg", "query", "--endpoint", "http://127.0.0.1:9/sparql", "ASK {}"], "unreachable after 4 attempt"),
        (["kg", "load", "{tmp}/bad.nt", "--store", "{tmp}/store"], r"bad\.nt:2:\d+: syntax error"),
    ],
)
def test_errors_print_one_clear_line(
    capsys: pytest.CaptureFixture[str], fixture_nt: Path, tmp_path: Path, argv: list[str], message: str
) -> None:
    assert run(capsys, "kg", "load", str(fixture_nt), "--store", str(tmp_path / "store"), "--no-progress")[0] == 0
    (tmp_path / "bad.nt").write_text("<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> .\n", encoding="utf-8")
    code, out, err = run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 1 and out == ""
    assert re.search(message, one_error_line(err))


def test_a_failed_load_does_not_create_the_store_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "kg", "load", str(tmp_path / "x.csv"), "--store", str(tmp_path / "new"))
    assert code == 1 and "no such file" in one_error_line(err)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    "command", [["kg"], ["kg", "load"], ["kg", "query"], ["kg", "stats"], ["kg", "import-fb15k237"]]
)
def test_help_has_examples(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "nl2sparql kg" in out


@pytest.mark.virtuoso
def test_query_and_stats_on_an_endpoint(capsys: pytest.CaptureFixture[str], virtuoso: VirtuosoEndpoint) -> None:
    query = f"SELECT ?n WHERE {{ <{NS}m.0t_vale> <{NS}type.object.name> ?n }}"
    code, out, _ = run(capsys, "kg", "query", "--endpoint", virtuoso.url, "--default-graph", FIXTURE_GRAPH, query)
    assert code == 0
    values = sorted((b["n"]["value"], b["n"]["xml:lang"]) for b in json.loads(out)["results"]["bindings"])
    assert values == [("Val", "fr"), ("Vale", "en")]
    code, out, _ = run(
        capsys,
        "kg",
        "stats",
        "--endpoint",
        virtuoso.basic_url,
        "--user",
        virtuoso.user,
        "--password",
        virtuoso.password,
        "--default-graph",
        FIXTURE_GRAPH,
        "--json",
    )
    assert code == 0 and json.loads(out)["triples"] == TRIPLES
    code, _, err = run(capsys, "kg", "query", "--endpoint", virtuoso.basic_url, "ASK {}")
    assert code == 1 and "HTTP 401" in one_error_line(err)
