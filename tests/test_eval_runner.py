"""``nl2sparql eval`` end to end: a WebQSP-format file scored on a real store, bank and planner.

Nothing is mocked: an Oxigraph store of the fixture graph of ``conftest.py``, a memory bank
built from that store with the bundled MiniLM, the oracle planner (gold plans from the gold
SPARQL) and a dataset file written the way WebQSP writes one, Virtuoso-dialect gold queries
with ``PREFIX ns:`` included. The expected scores are worked out per question below:

* the oracle rebuilds the gold query exactly for plain predicates and for the
  ``film.actor.film`` CVT (edge hit rate 1, exact match);
* sibling and marriage CVTs are symmetric: the bank built from the store also holds the
  reading that goes in and out through the same predicate
  (``?cvt sibling_relationship.sibling <e> . ?cvt sibling_relationship.sibling ?x``),
  and recall ranks that one first, so the query answers right but is not the gold one:
  one of the gold's two predicates (edge hit rate 0.5), no exact match;
* two gold queries return nothing on the store (Ada Quill played in no film, Hal Orr never
  married), although the dataset lists answers for them (the full KG would have some):
  they are reported apart, out of the answer metrics, and still scored as queries.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import FixtureKG

import nl2sparql.cli as cli
from nl2sparql.evaluation.runner import translated_sparql
from nl2sparql.results import Answer, AskResult, Attempt

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PLOTS = ("answers_by_category", "answers_by_hops", "queries_by_category", "queries_by_hops", "latency")


@dataclass(frozen=True)
class Question:
    """One dataset question and what the oracle must score on it."""

    id: str
    text: str
    mid: str
    name: str  # the dataset's name for the topic entity
    where: str  # the gold query's triples
    reference: list[str] | None  # the gold query's answers on the store (None: it returns nothing)
    exact: bool
    edge_hit_rate: float
    hops: int
    alternative: str | None = None  # the triples of a second annotated parse


QUESTIONS = [
    Question(
        "Fix-1", "where was ada quill born?", "m.0p_ada", "Ada Quill",
        "ns:m.0p_ada ns:people.person.place_of_birth ?x .",
        ["m.0t_port"], True, 1.0, 1,
    ),
    Question(
        "Fix-2", "what films did cy quill play in?", "m.0p_cy", "Cy Quill",
        "ns:m.0p_cy ns:film.actor.film ?y .\n?y ns:film.performance.film ?x .",
        ["m.0f_ember", "m.0f_glass", "m.0f_tide"], True, 1.0, 2,
    ),
    Question(
        # The dataset spells the name in lower case, the store's label does not: the plan
        # shows whether the entity came from the dataset or from the linker.
        "Fix-3", "what country is nordhavn in?", "m.0t_nord", "nordhavn",
        "ns:m.0t_nord ns:location.location.containedby ?x .",
        ["m.0c_bo"], True, 1.0, 1,
    ),
    Question(
        "Fix-4", "who is the sibling of cy quill?", "m.0p_cy", "Cy Quill",
        "ns:m.0p_cy ns:people.person.sibling_s ?y .\n?y ns:people.sibling_relationship.sibling ?x .",
        ["m.0p_dee"], False, 0.5, 2,
        # a second annotator wrote the symmetric reading, the one recall ranks first
        "?y ns:people.sibling_relationship.sibling ns:m.0p_cy .\n?y ns:people.sibling_relationship.sibling ?x .",
    ),
    Question(
        "Fix-5", "what films did ada quill play in?", "m.0p_ada", "Ada Quill",
        "ns:m.0p_ada ns:film.actor.film ?y .\n?y ns:film.performance.film ?x .",
        None, True, 1.0, 2,
    ),
    Question(
        "Fix-6", "who is hal orr married to?", "m.0p_hal", "Hal Orr",
        "ns:m.0p_hal ns:people.person.spouse_s ?y .\n?y ns:people.marriage.spouse ?x .",
        None, False, 0.5, 2,
    ),
]  # fmt: skip
BY_ID = {q.id: q for q in QUESTIONS}
ANSWERED = [q for q in QUESTIONS if q.reference]
NOT_ON_STORE = {"Fix-5": ["m.0zz_film"], "Fix-6": ["m.0zz_spouse"]}  # the dataset's answers, from the full KG


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4)


EDGE_HIT_RATE = _mean([q.edge_hit_rate for q in QUESTIONS])  # 5/6
EXACT_MATCH = _mean([float(q.exact) for q in QUESTIONS])  # 4/6
ANY_PARSE = {"Fix-4": (1.0, True)}  # the symmetric reading is the second parse's


def gold_sparql(question: Question, where: str | None = None) -> str:
    """The gold query as WebQSP writes it (Virtuoso dialect, ``ns:`` prefix, the boiler-plate filters)."""
    return (
        "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
        "SELECT DISTINCT ?x\n"
        "WHERE {\n"
        f"FILTER (?x != ns:{question.mid})\n"
        "FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))\n"
        f"{where or question.where}\n"
        "}\n"
    )


def webqsp_record(question: Question) -> dict[str, Any]:
    answers = question.reference or NOT_ON_STORE[question.id]
    readings = [question.where] + ([question.alternative] if question.alternative else [])
    return {
        "QuestionId": question.id,
        "RawQuestion": question.text,
        "ProcessedQuestion": question.text.rstrip("?"),
        "Parses": [
            {
                "ParseId": f"{question.id}.P{index}",
                "AnnotatorId": index,
                "Sparql": gold_sparql(question, where),
                "PotentialTopicEntityMention": question.name.lower(),
                "TopicEntityName": question.name,
                "TopicEntityMid": question.mid,
                "InferentialChain": [line.split()[1].removeprefix("ns:") for line in where.splitlines()],
                "Constraints": [],
                "Time": None,
                "Order": None,
                "Answers": [{"AnswerType": "Entity", "AnswerArgument": a, "EntityName": None} for a in answers],
            }
            for index, where in enumerate(readings)
        ],
    }


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, fixture_kg: FixtureKG) -> dict[str, Path]:
    """The store, the bank built from it and the dataset file."""
    folder = tmp_path_factory.mktemp("eval")
    dataset = folder / "fixture-webqsp.json"
    records = [webqsp_record(q) for q in QUESTIONS]
    dataset.write_text(json.dumps({"Version": "1.0", "FreebaseVersion": "fixture", "Questions": records}, indent=1))
    return {"folder": folder, "store": fixture_kg.store, "bank": fixture_kg.bank, "dataset": dataset}


def _argv(files: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return [
        "eval", "--dataset", str(files["dataset"]), "--planner", "oracle",
        "--store", str(files["store"]), "--bank", str(files["bank"]), "--out", str(out), "--quiet", *extra,
    ]  # fmt: skip


def _env(folder: Path) -> dict[str, str]:
    """A user's environment with no home folder, no config and no NL2SPARQL_* settings but the data."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NL2SPARQL_") or k == "NL2SPARQL_DATA"}
    env.update(NL2SPARQL_HOME=str(folder / "no-home"), HF_HUB_OFFLINE="1", PYTHONIOENCODING="utf-8")
    return env


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.out / "report.json").read_text(encoding="utf-8"))

    @property
    def summary(self) -> dict[str, Any]:
        return self.report["summary"]  # type: ignore[no-any-return]

    def questions(self) -> dict[str, dict[str, Any]]:
        return {q["id"]: q for q in self.report["questions"]}


def run_in_process(files: dict[str, Path], name: str, *extra: str) -> Run:
    """``nl2sparql eval`` through :func:`nl2sparql.cli.main`, in a folder with no config file."""
    out = files["folder"] / name
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for key in [k for k in os.environ if k.startswith("NL2SPARQL_") and k != "NL2SPARQL_DATA"]:
            patch.delenv(key)
        patch.setenv("NL2SPARQL_HOME", str(files["folder"] / "no-home"))
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.chdir(files["folder"])
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli.main(_argv(files, out, *extra))
    return Run(code, stdout.getvalue(), stderr.getvalue(), out)


@pytest.fixture(scope="module")
def given(files: dict[str, Path]) -> Run:
    """The whole dataset, entities as the dataset gives them, queries executed."""
    run = run_in_process(files, "given")
    assert run.code == 0, run.stderr
    return run


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which must come first after the signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, path
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13, path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# -- the full run --------------------------------------------------------------------------


def test_eval_scores_each_question_as_the_oracle_should(given: Run) -> None:
    rows = given.questions()
    assert list(rows) == [q.id for q in QUESTIONS]
    for qid, row in rows.items():
        expected = BY_ID[qid]
        assert row["error"] is None or expected.reference is None, (qid, row["error"])
        assert row["type"] == row["gold_type"] == "simple", qid
        assert row["plan_parsed"] and row["step_f1"] == 1.0, qid
        assert row["hops"] == expected.hops, qid
        assert row["edge_hit_rate"] == expected.edge_hit_rate, (qid, row["translation"])
        assert row["exact_match"] is expected.exact, (qid, row["translation"])
        # scored against its best-matching parse, as WebQSP's own evaluation scores answers
        best = ANY_PARSE.get(qid, (expected.edge_hit_rate, expected.exact))
        assert (row["edge_hit_rate_any_parse"], row["exact_match_any_parse"]) == best, (qid, row["translation"])
        if expected.exact:
            assert row["ged"] == 0.0, qid
        else:
            assert row["ged"] > 0.0, qid
        assert row["reference"] == expected.reference, qid
        if expected.reference is not None:
            assert sorted(row["answers"]) == expected.reference, qid
            assert row["hits_at_1"] == 1.0 and row["f1"] == 1.0, qid
        stages = {"linked", "planned", "recalled", "compiled"} | ({"executed"} if expected.reference else set())
        assert set(row["timings_ms"]) == stages, qid  # a question without reference answers is only translated


def test_eval_summary(given: Run) -> None:
    summary = given.summary
    assert summary["questions"] == len(QUESTIONS) == 6
    assert summary["answer_metrics_on"] == len(ANSWERED) == 4
    assert summary["no_reference_answers"] == 2
    # Hits@1 and F1 over the four questions with reference answers only: were the two
    # without counted (as misses), they would be 4/6.
    assert summary["hits_at_1"] == 1.0
    assert summary["f1"] == 1.0
    # The query metrics cover all six questions.
    assert summary["edge_hit_rate"] == EDGE_HIT_RATE == pytest.approx(5 / 6, abs=1e-4)
    assert summary["exact_match"] == EXACT_MATCH == pytest.approx(4 / 6, abs=1e-4)
    assert summary["edge_hit_rate_any_parse"] == pytest.approx(5.5 / 6, abs=1e-4)
    assert summary["exact_match_any_parse"] == pytest.approx(5 / 6, abs=1e-4)
    assert summary["plan_type_accuracy"] == 1.0
    assert summary["step_f1"] == 1.0
    assert summary["plan_failures"] == 0
    # the oracle writes every gold plan, so the two questions that miss an edge lost it in
    # reconstruction (the symmetric sibling and spouse readings), none in planning
    assert [q.id for q in QUESTIONS if q.edge_hit_rate < 1.0] == ["Fix-4", "Fix-6"]
    assert summary["misses"] == {"planner": 0, "reconstruction": 2, "no gold plan": 0}
    assert summary["errors"] == {}  # the two questions whose gold answers nothing are only translated
    assert {"linked", "planned", "recalled", "compiled", "executed", "total"} <= set(summary["latency_ms"])
    groups = summary["groups"]
    assert groups["answers"]["by_category"] == {"simple": {"n": 4, "hits_at_1": 1.0, "f1": 1.0}}
    assert groups["queries"]["by_category"] == {
        "simple": {"n": 6, "edge_hit_rate": EDGE_HIT_RATE, "exact_match": EXACT_MATCH}
    }
    assert {k: v["n"] for k, v in groups["answers"]["by_hops"].items()} == {"1": 2, "2": 2}
    assert {k: v["n"] for k, v in groups["queries"]["by_hops"].items()} == {"1": 2, "2": 4}
    run = summary["run"]
    assert run["entities"] == "given"
    assert run["execute"] is True
    assert run["style"] == "webqsp"
    assert run["reference"] == "gold query on the same store"
    assert run["pipeline"]["planner"]["spec"] == "oracle"
    assert run["pipeline"]["store"]["kind"] == "oxigraph"
    assert given.stdout.splitlines()[0] == (
        f"questions=6 answer_metrics_on=4 hits_at_1=1.0 f1=1.0 edge_hit_rate={EDGE_HIT_RATE} "
        f"exact_match={EXACT_MATCH} ged={summary['ged']}"
    )


def test_questions_whose_gold_returns_nothing_are_reported_apart(given: Run) -> None:
    rows = given.questions()
    for qid in NOT_ON_STORE:  # the dataset's own answers are not the reference by default
        assert rows[qid]["reference"] is None
        assert rows[qid]["hits_at_1"] is None and rows[qid]["f1"] is None
        assert rows[qid]["edge_hit_rate"] is not None and rows[qid]["exact_match"] is not None


def test_questions_without_reference_answers_are_translated_not_run(given: Run) -> None:
    """Hal Orr has no marriage on the store: were the query run, execution-guided repair would
    move on to one that answers (his sibling) and the query metrics would judge that. They
    judge the translation: the marriage query, whatever the store holds."""
    for qid, predicate in (("Fix-6", "people.marriage.spouse"), ("Fix-5", "film.actor.film")):
        row = given.questions()[qid]
        assert row["answers"] == [] and row["error"] is None and "executed" not in row["timings_ms"]
        assert predicate in row["translation"] and predicate in row["sparql"], qid
    assert given.questions()["Fix-6"]["edge_hit_rate"] == 0.5


def test_report_markdown_and_plots(given: Run) -> None:
    markdown = (given.out / "report.md").read_text(encoding="utf-8")
    lines = markdown.splitlines()
    assert lines[0] == "# nl2sparql eval: fixture-webqsp.json (all, planner oracle)"
    for row in (
        "| metric | value |",
        "| questions | 6 |",
        "| answer_metrics_on | 4 |",
        "| no_reference_answers | 2 |",
        "| hits_at_1 | 1.000 |",
        "| f1 | 1.000 |",
        "| edge_hit_rate | 0.833 |",
        "| exact_match | 0.667 |",
        "| plan_type_accuracy | 1.000 |",
        "| step_f1 | 1.000 |",
        "| plan_failures | 0 |",
        "| misses by stage: planner | 0 |",
        "| misses by stage: reconstruction | 2 |",
        "## answers by category",
        "| simple | 4 | 1.000 | 1.000 |",
        "## queries by category",
        "| simple | 6 | 0.833 | 0.667 |",
        "## Latency (ms, nearest rank)",
    ):
        assert row in lines, row
    for name in PLOTS:
        width, height = png_size(given.out / f"{name}.png")
        assert width > 100 and height > 100, name
    assert sorted(p.name for p in given.out.iterdir()) == sorted(
        ["report.json", "report.md", *(f"{name}.png" for name in PLOTS)]
    ), "a temporary file was left behind"


# -- translated_sparql ---------------------------------------------------------------------


def test_translated_sparql_is_the_first_attempt_that_compiled() -> None:
    result = AskResult(
        question="who is the sibling of cy quill?",
        sparql="PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ns:m.0p_cy ns:b ?x }",
        answers=(Answer("m.0p_dee"),),
        attempts=(
            Attempt(sparql="", error="lowering failed"),  # did not compile
            Attempt(sparql="SELECT ?x WHERE { ?x <a> ?y }", answers=0),
            Attempt(sparql="SELECT ?x WHERE { ?x <b> ?y }", error="execution failed: timeout"),
            Attempt(sparql="SELECT ?x WHERE { ?x <c> ?y }", answers=1),
        ),
    )
    assert translated_sparql(result) == "SELECT ?x WHERE { ?x <a> ?y }"


def test_translated_sparql_falls_back_to_the_result_query() -> None:
    final = "SELECT ?x WHERE { ?x <b> ?y }"
    assert translated_sparql(AskResult(question="q", sparql=final)) == final
    nothing_compiled = (Attempt(sparql="", error="no valid query"), Attempt(sparql="", error="unbound ?y"))
    assert translated_sparql(AskResult(question="q", sparql=final, attempts=nothing_compiled)) == final
    assert translated_sparql(AskResult(question="q", error="planning failed: no gold SPARQL")) is None


# -- flags ---------------------------------------------------------------------------------


def test_no_execute_scores_the_queries_only(files: dict[str, Path], given: Run) -> None:
    run = run_in_process(files, "no-execute", "--no-execute")
    assert run.code == 0, run.stderr
    summary = run.summary
    assert summary["run"]["execute"] is False
    assert summary["questions"] == 6
    assert summary["answer_metrics_on"] == 0 and summary["no_reference_answers"] == 6
    assert summary["hits_at_1"] is None and summary["f1"] is None
    assert summary["edge_hit_rate"] == EDGE_HIT_RATE
    assert summary["exact_match"] == EXACT_MATCH
    assert summary["plan_type_accuracy"] == 1.0
    assert summary["groups"]["answers"] == {"by_category": {}, "by_hops": {}}
    assert "executed" not in summary["latency_ms"]
    executed = given.questions()
    for qid, row in run.questions().items():
        assert row["answers"] == [] and row["reference"] is None, qid
        assert row["hits_at_1"] is None and row["f1"] is None, qid
        assert row["translation"] == executed[qid]["translation"], qid  # the same first compiled query
    assert "| hits_at_1 | n/a |" in (run.out / "report.md").read_text(encoding="utf-8")
    assert not (run.out / "answers_by_category.png").exists()
    assert not (run.out / "answers_by_hops.png").exists()
    for name in ("queries_by_category", "queries_by_hops", "latency"):
        assert min(png_size(run.out / f"{name}.png")) > 100, name


def test_limit_questions_as_a_subprocess(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "limited"
    done = subprocess.run(
        [sys.executable, "-m", "nl2sparql", *_argv(files, out, "--limit-questions", "2")],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=tmp_path,
        env=_env(tmp_path),
        timeout=500,  # a hang fails the test instead of stalling the suite
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    stdout = done.stdout.splitlines()
    assert stdout[0] == "questions=2 answer_metrics_on=2 hits_at_1=1.0 f1=1.0 edge_hit_rate=1.0 exact_match=1.0 ged=0.0"
    assert stdout[1].startswith(f"wrote {out / 'report.json'}, {out / 'report.md'}")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [q["id"] for q in report["questions"]] == ["Fix-1", "Fix-2"]
    assert report["summary"]["questions"] == 2


def test_link_finds_the_entities_in_the_question(files: dict[str, Path], given: Run) -> None:
    run = run_in_process(files, "linked", "--link")
    assert run.code == 0, run.stderr
    assert run.summary["run"]["entities"] == "linked"
    with_given = given.questions()
    for qid, row in run.questions().items():
        assert sorted(row["answers"]) == sorted(with_given[qid]["answers"]), qid
        assert row["exact_match"] == with_given[qid]["exact_match"], qid
        # Judged against the same gold plan, named with the dataset's entities, as with
        # the entities given (plans are compared in lower case).
        assert row["step_f1"] == 1.0, (qid, row["plan"])
    # The dataset calls Nordhavn "nordhavn"; the linker takes the store's label.
    assert "nordhavn" in with_given["Fix-3"]["plan"][1]
    assert "Nordhavn" in run.questions()["Fix-3"]["plan"][1]
    summary = run.summary
    assert (summary["hits_at_1"], summary["f1"]) == (1.0, 1.0)
    assert summary["plan_type_accuracy"] == 1.0 and summary["step_f1"] == 1.0


def test_misses_are_laid_to_the_stage_that_lost_the_edge() -> None:
    import doctest

    from nl2sparql.evaluation import runner
    from nl2sparql.evaluation.runner import Scored, miss_attribution

    assert doctest.testmod(runner).failed == 0
    rows = [
        Scored("wrong plan", "q", None, 1, edge_hit_rate=0.0, step_f1=0.5),
        Scored("partly wrong plan", "q", None, 2, edge_hit_rate=0.5, step_f1=0.8),
        Scored("right plan, wrong relation", "q", None, 1, edge_hit_rate=0.0, step_f1=1.0),
        Scored("wrong plan, right edges", "q", None, 1, edge_hit_rate=1.0, step_f1=0.5),
        Scored("not translated", "q", None, 1),
        Scored("no gold plan", "q", None, 1, edge_hit_rate=0.25),
    ]
    assert miss_attribution(rows) == {"planner": 2, "reconstruction": 1, "no gold plan": 1}
    assert miss_attribution([]) == {"planner": 0, "reconstruction": 0, "no gold plan": 0}


def test_a_query_of_the_second_webqsp_parse_scores_in_full_against_any_parse() -> None:
    from nl2sparql.compiler import canonical, parse
    from nl2sparql.config import data_file
    from nl2sparql.evaluation.metrics import edge_hit_rate
    from nl2sparql.evaluation.reconstruction_report import predicates
    from nl2sparql.evaluation.runner import _best_over_parses
    from nl2sparql.kg.datasets import load_dataset

    examples = load_dataset(data_file("webqsp/WebQSP.test.part-A.json"), "webqsp")
    thailand = next(e for e in examples if e.question == "what language do people from thailand speak?")
    first, second = (parse(p.sparql, "virtuoso") for p in thailand.extra["parses"])
    assert predicates(first) != predicates(second)  # languages_spoken, official_language
    edge_hit, exact = edge_hit_rate(predicates(second), predicates(first)), canonical(second) == canonical(first)
    assert (edge_hit, exact) == (0.0, False)
    assert _best_over_parses(second, thailand, edge_hit, exact) == (1.0, True)
    assert _best_over_parses(None, thailand, 0.0, False) == (0.0, False)  # nothing compiled: nothing to match
    single = next(e for e in examples if len(e.extra["parses"]) == 1)
    assert _best_over_parses(second, single, 0.25, False) == (0.25, False)
