"""Planner specs, the registry, the oracle backend, batching and the ``planner run/info`` commands.

The oracle is given a small synthesiser written here (real WebQSP gold SPARQL in, a plan
naming the query's first predicate out): the real one belongs to the reconstruction work.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from nl2sparql.config import data_file
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Answer, Find, Mention, Plan, PlanError, Var
from nl2sparql.planner.backends import LOCAL_PLANNERS, available_planners, open_planner, register_planner
from nl2sparql.planner.backends.base import Planner, PlannerOutput, PlanRequest
from nl2sparql.planner.backends.local import SHIPPED_FREEBASE, SHIPPED_PLAIN, SHIPPED_PLANNER
from nl2sparql.planner.errors import PlannerError, PlannerModelError
from nl2sparql.planner.model import META_FILE, read_meta
from nl2sparql.planner.relation_hints import relation_count
from nl2sparql.training import cli
from nl2sparql.training.oracle import OraclePlanner


def first_predicate_plan(gold_sparql: str, entities: Mapping[str, str]) -> Plan:
    """A stand-in synthesiser: 'Find the <first ns: predicate> of <first entity>'."""
    match = re.search(r"ns:m\.\w+ ns:([\w.]+)", gold_sparql)
    if match is None:
        raise PlanError("no topic-entity triple in the query")
    description = "the " + match.group(1).rsplit(".", 1)[-1].replace("_", " ")
    return Plan(
        "composition",
        (Find(description, (Mention(next(iter(entities.values()))),), Var("x")), Answer(Var("x"))),
    )


@pytest.fixture(scope="module")
def gold() -> list[dict[str, object]]:
    records = json.loads(data_file("webqsp/WebQSP.test.part-A.json").read_text())["Questions"][:20]
    return [
        {
            "question": r["ProcessedQuestion"],
            "entities": {r["Parses"][0]["TopicEntityMid"]: r["Parses"][0]["TopicEntityName"]},
            "gold_sparql": r["Parses"][0]["Sparql"],
        }
        for r in records
        if r["Parses"][0].get("TopicEntityName")
    ]


def test_the_oracle_plans_real_gold_queries(gold: list[dict[str, object]]) -> None:
    planner = open_planner("oracle", synthesise=first_predicate_plan)
    outputs = planner.plan_batch(gold, batch_size=7)
    assert len(outputs) == len(gold)
    for record, output in zip(gold, outputs, strict=True):
        assert isinstance(output, PlannerOutput) and output.attempts == 1
        assert output.plan == parse_plan(output.text)
        (name,) = record["entities"].values()  # type: ignore[union-attr]
        assert output.plan.steps[0].refs == (Mention(name),)  # type: ignore[union-attr]


def test_the_oracle_needs_gold_sparql_and_a_synthesiser() -> None:
    planner = open_planner("oracle", synthesise=first_predicate_plan)
    with pytest.raises(PlannerError, match="'who is it\\?'.*needs the question's gold SPARQL"):
        planner.plan("who is it?", {"m.1": "X"})
    with pytest.raises(PlannerError, match="no gold plan from its SPARQL: no topic-entity triple"):
        planner.plan("who is it?", {"m.1": "X"}, "SELECT ?x WHERE { ?x ?p ?o }")
    with pytest.raises(PlannerError, match="needs a callable"):
        OraclePlanner(None)  # type: ignore[arg-type]
    with pytest.raises(PlannerError, match="returned str, not a Plan"):
        OraclePlanner(lambda sparql, entities: "Type: x").plan("q", {}, "SELECT")  # type: ignore[arg-type,return-value]


def test_plain_oracle_uses_the_projects_synthesiser(gold: list[dict[str, object]]) -> None:
    planner = open_planner("oracle")
    assert planner.info()["synthesise"] == "nl2sparql.training.synthesise.PlanSynthesiser.synthesise"
    results = planner.plan_batch(gold, errors="return")
    planned = [r for r in results if isinstance(r, PlannerOutput)]
    assert planned, [str(r) for r in results]
    assert all(r.plan == parse_plan(r.text) and r.plan.answer is not None for r in planned)
    assert all(isinstance(r, PlannerError) for r in results if r not in planned)


def test_the_oracle_synthesiser_can_be_named_by_import_path() -> None:
    planner = open_planner("oracle:json:loads")
    assert planner.info()["synthesise"] == "json.loads"
    with pytest.raises(PlannerError, match="cannot import the synthesiser"):
        open_planner("oracle:no_such_module_xyz:f")
    with pytest.raises(PlannerError, match="oracle:package.module:function"):
        open_planner("oracle:json")


class EchoPlanner(Planner):
    """Plans 'Find the answer of <question's first entity>'; fails for questions with no entity."""

    name = "echo"

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[tuple[str, Plan, int] | PlannerError]:
        results: list[tuple[str, Plan, int] | PlannerError] = []
        for request in requests:
            if not request.entities:
                results.append(PlannerError("no entity to plan with", request.question))
                continue
            name = next(iter(request.entities.values()))
            text = f"Type: composition\nFind the answer of {name}, assign it to ?x.\nThe answer is ?x.\n"
            results.append((text, parse_plan(text), 1))
        return results


def open_echo(argument: str, **options: object) -> EchoPlanner:
    return EchoPlanner()


def test_registered_backends_open_by_scheme_and_unknown_ones_are_listed() -> None:
    register_planner("echo", open_echo)
    assert {"default", "hf", "openai", "oracle", "echo"} <= set(available_planners())
    assert isinstance(open_planner("echo"), EchoPlanner)
    with pytest.raises(PlannerError, match="unknown planner 'nope'; available: .*default.*hf.*openai.*oracle"):
        open_planner("nope:x")
    with pytest.raises(PlannerError, match="a planner spec is needed"):
        open_planner("  ")
    with pytest.raises(ValueError, match="identifier"):
        register_planner("bad name", lambda argument: EchoPlanner())


def test_entry_point_plugins_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    import nl2sparql.planner.backends as backends

    point = EntryPoint("viaep", f"{__name__}:open_echo", "nl2sparql.planners")
    broken = EntryPoint("broken", "no_such_module_xyz:f", "nl2sparql.planners")
    monkeypatch.setattr(
        backends, "entry_points", lambda group: [point, broken] if group == "nl2sparql.planners" else []
    )
    assert "viaep" in available_planners()
    assert isinstance(open_planner("viaep"), EchoPlanner)
    with pytest.raises(PlannerError, match="plugin 'broken'.*failed to load"):
        open_planner("broken")


def test_batches_raise_or_return_errors_in_order() -> None:
    planner = EchoPlanner()
    requests = [{"question": "a?", "entities": {"m.1": "A"}}, "b?", PlanRequest("c?", {"m.3": "C"})]
    with pytest.raises(PlannerError, match="'b\\?'"):
        planner.plan_batch(requests)
    results = planner.plan_batch(requests, batch_size=2, errors="return")
    assert [type(r).__name__ for r in results] == ["PlannerOutput", "PlannerError", "PlannerOutput"]
    assert "Find the answer of C" in results[2].text  # type: ignore[union-attr]
    with pytest.raises(PlannerError, match="non-empty 'question'"):
        planner.plan_batch([{"entities": {}}])
    with pytest.raises(PlannerError, match="'entities' must map ids to names"):
        planner.plan_batch([{"question": "q", "entities": ["A"]}])


def test_the_default_planner_says_how_to_get_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nl2sparql.planner.backends import local

    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    monkeypatch.setattr(local, "SHIPPED_PLANNER", tmp_path / "not-shipped")  # a checkout without one
    monkeypatch.setattr(local, "SHIPPED_PLAIN", tmp_path / "not-shipped-plain")
    monkeypatch.setattr(local, "SHIPPED_FREEBASE", tmp_path / "not-shipped-freebase")
    with pytest.raises(PlannerModelError, match=f"no trained planner in {tmp_path / 'planner'}: run 'nl2sparql setup'"):
        open_planner("default")
    for name in ("grounded", "plain", "freebase"):
        folder = "not-shipped" if name == "grounded" else f"not-shipped-{name}"
        with pytest.raises(PlannerModelError, match=f"no {name} planner in {tmp_path / folder}: reinstall"):
            open_planner(name)
        with pytest.raises(PlannerError, match=f"the '{name}' planner takes no argument"):
            open_planner(f"{name}:{tmp_path}")
    with pytest.raises(PlannerModelError, match="is not a folder"):
        open_planner(f"hf:{tmp_path / 'absent'}")
    (tmp_path / "model").mkdir()
    with pytest.raises(PlannerModelError, match="no config.json"):
        open_planner(f"hf:{tmp_path / 'model'}")


@pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")
def test_grounded_is_the_shipped_default_and_plain_the_previous_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``default`` (with no planner trained into home) and ``grounded`` open the same shipped
    folder, whose planner reads relation hints; ``plain`` opens the previous default, which
    reads none. Both folders are packaged."""
    from nl2sparql.planner.backends import local

    opened: list[tuple[str, Path]] = []
    monkeypatch.setattr(local, "_open_folder", lambda name, folder, options: opened.append((name, folder)))
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path))
    for name in ("default", "grounded", "plain", "freebase"):
        open_planner(name)
    shipped = [("default", SHIPPED_PLANNER), ("grounded", SHIPPED_PLANNER), ("plain", SHIPPED_PLAIN)]
    assert opened == [*shipped, ("freebase", SHIPPED_FREEBASE)]
    assert relation_count(read_meta(SHIPPED_PLANNER)) == 8 and relation_count(read_meta(SHIPPED_PLAIN)) == 0
    assert relation_count(read_meta(SHIPPED_FREEBASE)) == 8
    assert {"default", "grounded", "plain", "freebase"} <= set(available_planners()) & set(LOCAL_PLANNERS)
    root = SHIPPED_PLANNER.parents[1]
    if (root / "setup.py").is_file():  # a checkout, not an installed wheel
        setup_py, manifest = (root / "setup.py").read_text(), (root / "MANIFEST.in").read_text()
        for folder in (SHIPPED_PLANNER, SHIPPED_PLAIN, SHIPPED_FREEBASE):
            assert f'"{folder.name}/*"' in setup_py and f"graft planner/{folder.name}\n" in manifest


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="nl2sparql")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["planner", *argv])
    code = args.func(args)
    return code, capsys.readouterr().out


def test_cli_run_prints_the_plan_as_text_or_json(capsys: pytest.CaptureFixture[str]) -> None:
    register_planner("echo", open_echo)
    code, out = run_cli(["run", "--planner", "echo", "who?", "--entities", '["Justin Bieber"]'], capsys)
    assert code == 0 and out.splitlines()[1] == "Find the answer of Justin Bieber, assign it to ?x."
    code, out = run_cli(["run", "--planner", "echo", "who?", "--entities", '{"m.1": "X"}', "--json"], capsys)
    record = json.loads(out)
    assert record["type"] == "composition" and record["plan"][-1] == "The answer is ?x." and record["attempts"] == 1


def test_cli_reports_bad_entities_and_lists_planners(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PlannerError, match="--entities is not JSON"):
        run_cli(["run", "--planner", "echo", "who?", "--entities", "{oops"], capsys)
    with pytest.raises(PlannerError, match="--entities must be"):
        run_cli(["run", "--planner", "echo", "who?", "--entities", "[1, 2]"], capsys)
    with pytest.raises(PlannerError, match="--beams applies to local models"):
        run_cli(["run", "--planner", "echo", "who?", "--beams", "2"], capsys)
    with pytest.raises(PlannerError, match="--bank applies to local models"):
        run_cli(["eval", "--planner", "echo", "--bank", "my.nl2sq"], capsys)
    code, out = run_cli(["info", "--json"], capsys)
    assert code == 0 and {"default", "grounded", "plain", "hf", "openai", "oracle"} <= set(json.loads(out)["planners"])


def test_the_other_beams_that_read_as_other_plans_are_alternatives() -> None:
    from nl2sparql.planner.decoding import _alternatives

    first = "Type: simple\nFind the spouse of X, assign it to ?x.\nThe answer is ?x.\n"
    other = first.replace("spouse", "sibling")
    found = _alternatives([first, "Find the", other, other, first], parse_plan(first))
    assert found == ((other, parse_plan(other)),)
