"""``nl2sparql planner eval``: scores against synthesised gold plans on real WebQSP questions."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.evaluation.planner_eval import score_plans, split_examples
from nl2sparql.plan.steps import Plan
from nl2sparql.planner.backends import open_planner
from nl2sparql.planner.backends.base import Planner, PlanRequest
from nl2sparql.planner.errors import PlannerError


class EveryOtherFails(Planner):
    """The oracle's plans for even questions, a planner error for odd ones, types swapped to 'simple'."""

    name = "every-other"

    def __init__(self) -> None:
        self.oracle = open_planner("oracle")

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[tuple[str, Plan, int] | PlannerError]:
        out: list[tuple[str, Plan, int] | PlannerError] = []
        for request in requests:
            if len(request.question) % 2:
                out.append(PlannerError("no plan", request.question, 1))
                continue
            plan = self.oracle.plan(request.question, request.entities, request.gold_sparql).plan
            out.append(("", Plan("simple", plan.steps), 1))
        return out


@pytest.fixture(scope="module")
def examples() -> list:
    return split_examples("part-a")[:24]


def test_the_oracle_scores_perfectly_on_real_questions(examples: list) -> None:
    report = score_plans(open_planner("oracle"), examples, batch_size=5)
    assert report["questions"] + report["no_gold_plan"] == len(examples) and report["questions"] >= 20
    for key in ("type_accuracy", "step_precision", "step_recall", "step_f1", "exact_plan"):
        assert report[key] == 1.0, key
    assert report["parse_failures"] == 0 and sum(g["questions"] for g in report["by_group"].values()) == 23


def test_failures_and_wrong_types_count_against_the_planner(examples: list) -> None:
    report = score_plans(EveryOtherFails(), examples, batch_size=4)
    scored = [e for e in examples if e.gold_sparql]
    failed = report["parse_failures"]
    assert 0 < failed < report["questions"] and report["parse_failure_rate"] == round(failed / report["questions"], 4)
    assert report["step_f1"] == round(1 - failed / report["questions"], 4)  # the others are the gold steps
    assert report["exact_plan"] < 1.0 and report["type_accuracy"] < 1.0 and len(scored) >= report["questions"]


def test_the_splits_are_the_untrained_ones() -> None:
    dev = split_examples("dev")
    assert {e.dataset for e in dev} == {"webqsp", "cwq"}
    assert all(int(e.id.split("-")[1]) % 10 == 0 for e in dev if e.dataset == "webqsp")
    with pytest.raises(Exception, match="unknown split 'test'"):
        split_examples("test")


def test_the_cli_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "planner",
            "eval",
            "--split",
            "part-a",
            "--planner",
            "oracle",
            "--limit-questions",
            "6",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0 and "| all | " in capsys.readouterr().out
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["run"]["split"] == "part-a" and report["step_f1"] == 1.0
    assert (tmp_path / "report.md").read_text().startswith("# planner oracle on part-a")
