"""Plans and questions over the size limits are refused before any work, naming the limit.

A 5,000-step plan sent to ``nl2sparql compile`` used to spend minutes embedding and
reconstructing its steps; now it is refused before the bank is even opened (the test
points ``--bank`` at a file that does not exist to show it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.kg.store import open_store
from nl2sparql.memory_bank.build_store import build_bank_from_store
from nl2sparql.plan.reader import MAX_PLAN_CHARS, MAX_PLAN_STEPS, parse_plan
from nl2sparql.plan.steps import Plan, PlanError
from nl2sparql.reconstruction import PlanCompiler

MUSIC = Path(__file__).parent / "fixtures" / "own_kg" / "music.ttl"
BEATLES = {"http://example.org/music/data/TheBeatlesB": "The Beatles B"}


def chain(steps: int, words: str = "the city that ?x{prev} is born in") -> str:
    """A plan of ``steps`` steps: a Find from The Beatles B, then ``steps - 2`` chained Finds, the answer."""
    lines = ["Type: composition", "Find the members of The Beatles B, assign it to ?x0."]
    lines += [f"Find {words.format(prev=i - 1)}, assign it to ?x{i}." for i in range(1, steps - 1)]
    lines.append(f"The answer is ?x{steps - 2}.")
    return "\n".join(lines) + "\n"


def test_a_plan_at_the_step_limit_parses() -> None:
    assert len(parse_plan(chain(MAX_PLAN_STEPS)).steps) == MAX_PLAN_STEPS


def test_too_many_steps_are_refused() -> None:
    text = chain(MAX_PLAN_STEPS + 1, "the b of ?x{prev}")
    assert len(text) < MAX_PLAN_CHARS
    with pytest.raises(PlanError, match=rf"the plan has {MAX_PLAN_STEPS + 1} steps; .* at most {MAX_PLAN_STEPS}"):
        parse_plan(text)


def test_a_5000_step_plan_is_refused_by_its_length() -> None:
    with pytest.raises(PlanError, match=r"the plan has [\d,]+ characters; .* at most 20,000 \(MAX_PLAN_CHARS\)"):
        parse_plan(chain(5000))


def test_compile_refuses_a_5000_step_plan_before_opening_the_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.txt"
    plan.write_text(chain(5000), encoding="utf-8")
    missing_bank = tmp_path / "no-such-bank.nl2sq"
    argv = ["compile", "--plan", str(plan), "--entities", '{"x": "y"}', "--bank", str(missing_bank)]
    assert main(argv) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "MAX_PLAN_CHARS" in err[0]


def test_a_built_plan_object_over_the_limit_is_refused(tmp_path: Path) -> None:
    bank, _ = build_bank_from_store(open_store("rdflib", paths=[MUSIC]))
    compiler = PlanCompiler(bank)
    small = parse_plan(chain(3))
    assert compiler.resolve(small, BEATLES).plan == small
    huge = Plan(small.type, small.steps[:-1] * 2500 + small.steps[-1:])
    with pytest.raises(PlanError, match=r"the plan has 5,001 steps; .* \(MAX_PLAN_STEPS\)"):
        compiler.resolve(huge, BEATLES)


def test_ask_refuses_an_overlong_question_before_opening_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing")
    argv = ["ask", "why " * 1500, "--store", missing, "--bank", missing]  # 5,999 characters once stripped
    assert main(argv) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the question has 5,999 characters" in err[0] and "MAX_QUESTION_CHARS" in err[0]
