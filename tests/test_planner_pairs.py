"""Training-pair files: written atomically, read back exactly, refused line by line when broken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nl2sparql.config import data_file
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Find, Mention
from nl2sparql.plan.writer import format_plan
from nl2sparql.planner.errors import PlannerDataError
from nl2sparql.planner.input_format import names_from_input
from nl2sparql.planner.pairs import PlanPair, data_files, make_pair, pairs_sha256, read_pairs, write_pairs

PLAN = "Type: composition\nFind the siblings of {name}, assign it to ?x.\nThe answer is ?x.\n"


def webqsp_pairs(count: int) -> list[PlanPair]:
    """Pairs made from real WebQSP questions and topic entities (the plan is a fixed template)."""
    records = json.loads(data_file("webqsp/WebQSP.train.json").read_text())["Questions"]
    pairs = []
    for record in records:
        parse = record["Parses"][0]
        name = parse.get("TopicEntityName")
        if name and len(pairs) < count:
            plan = PLAN.replace("{name}", "{" + name + "}")
            pairs.append(
                make_pair(record["QuestionId"], record["ProcessedQuestion"], {parse["TopicEntityMid"]: name}, plan)
            )
    return pairs


def test_pairs_round_trip_and_outputs_are_canonical(tmp_path: Path) -> None:
    pairs = webqsp_pairs(25)
    assert write_pairs(tmp_path / "train.jsonl", pairs) == 25
    assert read_pairs(tmp_path / "train.jsonl") == pairs
    for pair in pairs:
        name = names_from_input(pair.input)[0]
        find = parse_plan(pair.output).steps[0]
        assert isinstance(find, Find) and find.refs == (Mention(name),)
        assert pair.output == format_plan(parse_plan(pair.output))
    assert pairs_sha256(pairs) == pairs_sha256(read_pairs(tmp_path / "train.jsonl"))
    assert pairs_sha256(pairs) != pairs_sha256(pairs[1:])
    assert [p.name for p in tmp_path.iterdir()] == ["train.jsonl"]  # no temp file left behind


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", ":2: not JSON"),
        ('["a", "b"]', ":2: expected an object"),
        ('{"id": "b", "input": "question: q entities:"}', ":2: 'output' must be a non-empty string"),
        ('{"id": "a", "input": "q", "output": "Type: composition\\nThe answer is ?x.\\n"}', ":2: id 'a'"),
        (
            '{"id": "b", "input": "q", "output": "Find the x of Y.\\n"}',
            ":2: the output plan does not parse",
        ),
        (
            '{"id": "b", "input": "q", "output": "Type: composition\\nThe answer is ?x.\\n"}',
            ":2: the output plan does not parse: line 2: ?x is used before",
        ),
    ],
)
def test_a_bad_line_is_named(tmp_path: Path, line: str, message: str) -> None:
    good = {
        "id": "a",
        "input": "question: q entities:",
        "output": "Type: composition\nFind the a of B, assign it to ?x.\nThe answer is ?x.\n",
    }
    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps(good) + "\n" + line + "\n")
    with pytest.raises(PlannerDataError) as caught:
        read_pairs(path)
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_empty_and_missing_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "train.jsonl").write_text("\n\n")
    with pytest.raises(PlannerDataError, match="no training pairs"):
        read_pairs(tmp_path / "train.jsonl")
    with pytest.raises(PlannerDataError, match="cannot read"):
        read_pairs(tmp_path / "absent.jsonl")


def test_data_folder_has_train_and_maybe_dev(tmp_path: Path) -> None:
    with pytest.raises(PlannerDataError, match="does not exist"):
        data_files(tmp_path / "nowhere")
    with pytest.raises(PlannerDataError, match="no train.jsonl"):
        data_files(tmp_path)
    write_pairs(tmp_path / "train.jsonl", webqsp_pairs(2))
    assert data_files(tmp_path) == (tmp_path / "train.jsonl", None)
    write_pairs(tmp_path / "dev.jsonl", webqsp_pairs(1))
    assert data_files(tmp_path) == (tmp_path / "train.jsonl", tmp_path / "dev.jsonl")
    assert data_files(tmp_path / "dev.jsonl") == (tmp_path / "dev.jsonl", None)
