"""Plans written elsewhere: ``planner decode`` writes them, ``plans:FILE`` reads them back.

The decoder is the shipped planner on real WebQSP questions; what it wrote must come back
from the plans file, question by question, as the same plan.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.config import data_file
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.backends import open_planner, recorded
from nl2sparql.planner.backends.local import SHIPPED_PLANNER
from nl2sparql.planner.backends.recorded import RecordedPlanner
from nl2sparql.planner.errors import PlannerDataError, PlannerError
from nl2sparql.planner.input_format import format_input
from nl2sparql.planner.model import META_FILE
from nl2sparql.training.decode_pairs import decode_pairs

PLAN = "Type: simple\nFind the sibling of the person Justin Bieber, assign it to ?x.\nThe answer is ?x.\n"


def write_lines(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_recorded_plan_is_found_by_its_question_whatever_its_case(tmp_path: Path) -> None:
    plans = write_lines(tmp_path / "plans.jsonl", [{"question": "who is justin bieber's brother?", "plan": PLAN}])
    planner = open_planner(f"plans:{plans}")
    assert isinstance(planner, RecordedPlanner)
    output = planner.plan("Who is  Justin Bieber's brother? ")
    assert output.text == format_plan(output.plan) and "sibling of the person" in output.text
    assert planner.info() == {"planner": "plans", "file": str(plans), "plans": 1}


def test_a_question_the_file_lacks_is_that_questions_error(tmp_path: Path) -> None:
    plans = write_lines(tmp_path / "plans.jsonl", [{"question": "a?", "plan": PLAN}, {"question": "b?", "plan": "x"}])
    outputs = open_planner(f"plans:{plans}").plan_batch(["a?", "c?", "b?"], errors="return")
    assert not isinstance(outputs[0], PlannerError)
    assert isinstance(outputs[1], PlannerError) and "has no plan for this question" in str(outputs[1])
    assert isinstance(outputs[2], PlannerError) and "does not parse" in str(outputs[2])


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"question": "a?", "plan": "p"}', "{not json"], "line 2: not JSON"),
        (['{"question": "a?"}'], 'line 1: needs {"question": TEXT, "plan": TEXT}'),
        (['["a?", "p"]'], "line 1: needs"),
        (['{"question": "A?", "plan": "p"}', '{"question": "a?", "plan": "q"}'], "line 2: a second, different plan"),
    ],
)
def test_a_bad_plans_file_is_refused_by_line(tmp_path: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "plans.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PlannerError, match=message.replace("{", r"\{").replace("}", r"\}")):
        open_planner(f"plans:{path}")


def test_a_missing_file_and_a_missing_argument_are_named(tmp_path: Path) -> None:
    with pytest.raises(PlannerError, match="no such file"):
        open_planner(f"plans:{tmp_path / 'none.jsonl'}")
    with pytest.raises(PlannerError, match="plans: needs a file"):
        open_planner("plans:")
    with pytest.raises(PlannerError, match="unknown options"):
        open_planner(f"plans:{tmp_path}", beams=4)


@pytest.mark.skipif(not (SHIPPED_PLANNER / META_FILE).is_file(), reason="no planner shipped")
def test_decoded_plans_come_back_as_the_same_plans(tmp_path: Path) -> None:
    examples = load_dataset(data_file("webqsp/WebQSP.test.part-A.json"), "webqsp")[:3]
    pairs = write_lines(
        tmp_path / "dev.jsonl",
        [{"id": e.id, "input": format_input(e.question, e.entities), "output": PLAN} for e in examples],
    )
    out = tmp_path / "plans.jsonl"
    assert main(["planner", "decode", str(SHIPPED_PLANNER), "--pairs", str(pairs), "--out", str(out), "--quiet"]) == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [w["id"] for w in written] == [e.id for e in examples]
    assert not list(tmp_path.glob(".*.tmp"))
    planner = open_planner(f"plans:{out}")
    for example, record in zip(examples, written, strict=True):
        assert planner.plan(example.question).text == format_plan(planner.plan(record["question"]).plan)
        assert "Find" in record["plan"] or "find" in record["plan"]


def test_decode_checks_its_arguments_before_loading_anything(tmp_path: Path) -> None:
    with pytest.raises(PlannerError, match="--batch takes 1 to 256"):
        decode_pairs(tmp_path / "no-planner", tmp_path / "none.jsonl", tmp_path / "out.jsonl", batch_size=0)
    with pytest.raises(PlannerError, match="its folder does not exist"):
        decode_pairs(tmp_path / "no-planner", tmp_path / "none.jsonl", tmp_path / "no" / "out.jsonl")
    with pytest.raises(PlannerError, match="it is a folder"):
        decode_pairs(tmp_path / "no-planner", tmp_path / "none.jsonl", tmp_path)
    with pytest.raises(PlannerDataError, match="cannot read training pairs"):
        decode_pairs(tmp_path / "no-planner", tmp_path / "none.jsonl", tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_the_question_key_example_holds() -> None:
    result = doctest.testmod(recorded)
    assert result.attempted > 0 and result.failed == 0
