"""``nl2sparql compile`` end to end: a real (small) memory bank, real recall, the pattern graph's store.

The bank holds the statements of :mod:`test_reconstruct_patterns` embedded with the
bundled MiniLM (loaded once per session by the shared embedder), so recall here is the
product's recall. Errors must come out as one line on stderr, never a traceback.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_reconstruct_patterns import ENTITIES, STATEMENTS, _graph

import nl2sparql.cli as cli
from nl2sparql.compiler.assemble import statement_triples
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.bank_file import save_bank
from nl2sparql.memory_bank.embedder import default_embedder
from nl2sparql.memory_bank.statement import Constraint, Statement, parse_triples

PLAN = """Type: composition
Find the children of the person Ann Lee, assign it to ?c.
Find the place of birth of the person ?c, assign it to ?x.
The answer is ?x.
"""


def _entries() -> list[Statement | Constraint]:
    out: list[Statement | Constraint] = []
    for recalled in STATEMENTS:
        if recalled.kind == "graph":
            triples = parse_triples(recalled.sparql)
            structure = 1 if len(statement_triples(recalled.sparql)) == 1 else 2 + (len(recalled.inputs) > 1)
            stmt = Statement.create(structure, triples, recalled.inputs, recalled.output or "")
            out.append(stmt.with_(description=recalled.description))
        else:
            item = Constraint.create(recalled.kind, recalled.sparql, recalled.inputs, ("people.marriage.from",))
            out.append(item.with_(description=recalled.description))
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    folder = Path(tmp_path_factory.mktemp("compile"))
    bank = MemoryBank.build(_entries(), embedder=default_embedder())
    bank_path = save_bank(bank, folder / "family.nl2sq")
    graph = folder / "graph.nt"
    graph.write_text(_graph(), encoding="utf-8")
    store = OxigraphStore(folder / "store")
    store.load(graph, progress=False)
    store.close()
    plan = folder / "plan.txt"
    plan.write_text(PLAN, encoding="utf-8")
    entities = folder / "entities.json"
    entities.write_text(json.dumps(ENTITIES), encoding="utf-8")
    yield {"bank": bank_path, "store": folder / "store", "plan": plan, "entities": entities, "folder": folder}


def run(argv: list[str], monkeypatch: pytest.MonkeyPatch, stdin: str | None = None) -> tuple[int, str, str]:
    if "nl2sparql.compile_cmd" not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", (*cli.COMMAND_MODULES, "nl2sparql.compile_cmd"))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def _args(files: dict[str, Path], *extra: str) -> list[str]:
    return [
        "compile",
        "--plan",
        str(files["plan"]),
        "--entities",
        str(files["entities"]),
        "--bank",
        str(files["bank"]),
        *extra,
    ]


def test_compile_prints_the_query(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(_args(files), monkeypatch)
    assert code == 0, err
    assert "ns:m.p_ann ns:people.person.children ?c ." in out
    assert "?c ns:people.person.place_of_birth ?x ." in out
    assert out.startswith("PREFIX ns: <http://rdf.freebase.com/ns/>")


def test_compile_to_full_iris_from_standard_input(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    argv = [
        "compile",
        "--plan",
        "-",
        "--entities",
        json.dumps(ENTITIES),
        "--bank",
        str(files["bank"]),
        "--to",
        "full-iri",
    ]
    code, out, err = run(argv, monkeypatch, stdin=PLAN)
    assert code == 0, err
    assert "<http://rdf.freebase.com/ns/people.person.children>" in out and "PREFIX" not in out


def test_compile_runs_on_a_store(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(_args(files, "--store", str(files["store"])), monkeypatch)
    assert code == 0, err
    lines = out.splitlines()
    assert "# 2 answer(s)" in lines
    assert sorted(lines[-2:]) == ["m.t_lumen", "m.t_porta"]


def test_compile_json_has_the_trace(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(_args(files, "--store", str(files["store"]), "--json"), monkeypatch)
    assert code == 0, err
    data = json.loads(out)
    assert sorted(data["answers"]) == ["m.t_lumen", "m.t_porta"]
    assert data["attempts"][0]["answers"] == 2
    assert data["recalled"]["1"]["candidates"][0]["description"] == "?e2 is the children of the person ?e1"


def test_malformed_plan_is_one_line_with_its_position(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    bad = "Type: composition\nFind the children of Ann Lee assign it to ?c.\nThe answer is ?c.\n"
    argv = ["compile", "--plan", "-", "--entities", str(files["entities"]), "--bank", str(files["bank"])]
    code, out, err = run(argv, monkeypatch, stdin=bad)
    assert code == 1 and out == ""
    assert err.startswith("nl2sparql: error: line 2, column")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_unknown_mention_lists_the_entities(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    plan = "Find the children of the person Ann Leigh, assign it to ?c.\nThe answer is ?c.\n"
    argv = ["compile", "--plan", "-", "--entities", str(files["entities"]), "--bank", str(files["bank"])]
    code, _, err = run(argv, monkeypatch, stdin=plan)
    assert code == 1 and "Traceback" not in err
    assert "matches none of the question's entities" in err and "Ann Lee (m.p_ann)" in err


@pytest.mark.parametrize(
    ("entities", "message"),
    [("{not json", "--entities: not valid JSON"), ('{"m.1": 3}', "--entities: expected a JSON object")],
)
def test_bad_entities(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, entities: str, message: str) -> None:
    argv = ["compile", "--plan", str(files["plan"]), "--entities", entities, "--bank", str(files["bank"])]
    code, _, err = run(argv, monkeypatch)
    assert code == 1 and message in err and "Traceback" not in err


def test_missing_files(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    missing = str(files["folder"] / "nothing-here")
    code, _, err = run(_args(files)[:-1] + [missing], monkeypatch)
    assert code == 1 and "Traceback" not in err and "nothing-here" in err
    argv = ["compile", "--plan", missing, "--entities", str(files["entities"]), "--bank", str(files["bank"])]
    code, _, err = run(argv, monkeypatch)
    assert code == 1 and "cannot read the plan" in err
