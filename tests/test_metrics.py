"""Answer metrics (Hits@1, F1), edge hit rate and exact match on hand-made cases with known values."""

from __future__ import annotations

import json
from functools import cache

import pytest

from nl2sparql.config import data_file
from nl2sparql.evaluation.metrics import (
    best_f1,
    edge_hit_rate,
    exact_match,
    f1,
    hits_at_1,
    macro_f1,
    precision_recall_f1,
    result_values,
    set_f1,
)


def test_hits_at_1_counts_only_the_first_answer() -> None:
    gold = {"m.a", "m.b"}
    assert hits_at_1(["m.a", "m.z"], gold) == 1.0
    # The gold answer is second: a "any top-k answer" implementation would say 1.0.
    assert hits_at_1(["m.z", "m.a"], gold) == 0.0
    assert hits_at_1([], gold) == 0.0
    assert hits_at_1(["m.a"], set()) == 0.0
    assert hits_at_1(("m.b",), frozenset(gold)) == 1.0


@pytest.mark.parametrize(
    ("predicted", "gold", "precision", "recall", "score"),
    [
        (["a", "b"], ["a", "b"], 1.0, 1.0, 1.0),
        (["a", "b", "c", "d"], ["a", "e"], 0.25, 0.5, 1 / 3),
        (["a"], ["a", "b", "c"], 1.0, 1 / 3, 0.5),
        (["x"], ["a"], 0.0, 0.0, 0.0),
        (["a", "a", "a", "b"], ["a", "c"], 0.5, 0.5, 0.5),  # duplicates do not count twice
        ([], [], 1.0, 1.0, 1.0),  # WebQSP eval.py: nothing to find, nothing claimed
        (["a"], [], 0.0, 1.0, 0.0),
        ([], ["a"], 1.0, 0.0, 0.0),
    ],
)
def test_precision_recall_f1(
    predicted: list[str], gold: list[str], precision: float, recall: float, score: float
) -> None:
    prf = precision_recall_f1(predicted, gold)
    assert prf.precision == pytest.approx(precision)
    assert prf.recall == pytest.approx(recall)
    assert prf.f1 == pytest.approx(score)
    assert f1(predicted, gold) == pytest.approx(score)


def test_macro_f1_averages_per_question() -> None:
    pairs = [(["a"], ["a"]), (["a", "b", "c", "d"], ["a", "e"]), ([], ["a"])]
    assert macro_f1(pairs) == pytest.approx((1 + 1 / 3 + 0) / 3)
    # Micro-averaging (pooling all answers) would give a different number: make sure we do not.
    assert macro_f1([(["a"], ["a"]), ([str(i) for i in range(9)], ["z"])]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="at least one"):
        macro_f1([])


def test_best_f1_takes_the_parse_that_fits_best() -> None:
    assert best_f1(["a", "b"], [["a"], ["a", "b"], []]) == 1.0
    assert best_f1(["a"], [["b"], ["a", "c"]]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        best_f1(["a"], [])


@pytest.mark.parametrize(
    ("predicted", "gold", "rate"),
    [
        (["p", "q"], ["p", "q"], 1.0),
        (["p"], ["p", "q"], 0.5),
        (["p", "q", "r", "s"], ["p"], 1.0),  # extra predicted edges cost nothing: it is a recall
        (["p"], ["p", "p"], 0.5),  # each gold occurrence counts ...
        (["p", "p", "p"], ["p", "p"], 1.0),  # ... and is matched at most as often as predicted
        (["p", "p"], ["p", "p", "q", "q"], 0.5),
        ([], ["p"], 0.0),
        (["p"], [], 1.0),
        ([], [], 1.0),
    ],
)
def test_edge_hit_rate_multiset(predicted: list[str], gold: list[str], rate: float) -> None:
    assert edge_hit_rate(predicted, gold) == pytest.approx(rate)


def test_exact_match_compares_canonical_text() -> None:
    assert exact_match("SELECT ?v1 WHERE { ?v1 <p> <o> . }", "SELECT ?v1 WHERE { ?v1 <p> <o> . }")
    assert not exact_match("SELECT ?v1 WHERE { ?v1 <p> <o> . }", "SELECT ?v1 WHERE { ?v1 <q> <o> . }")


@cache
def _webqsp_test() -> list[dict[str, object]]:
    return json.loads(data_file("webqsp/WebQSP.test.part-A.json").read_text(encoding="utf-8"))["Questions"]


def _answers(parse: dict[str, object]) -> list[str]:
    return [answer["AnswerArgument"] for answer in parse["Answers"]]  # type: ignore[index, union-attr]


def test_gold_answers_score_perfectly_on_webqsp() -> None:
    questions = _webqsp_test()
    assert len(questions) == 630
    pairs = [(_answers(q["Parses"][0]), _answers(q["Parses"][0])) for q in questions]  # type: ignore[index]
    assert macro_f1(pairs) == 1.0
    answered = [answers for answers, _gold in pairs if answers]
    assert all(hits_at_1(answers, set(answers)) == 1.0 for answers in answered)
    assert 0 < len(answered) < len(pairs)  # the test split has questions without answers


def test_dropping_answers_lowers_f1_by_the_expected_amount_on_webqsp() -> None:
    """Keep only the first gold answer: recall 1/|gold|, so F1 = 2 / (1 + |gold|) per question."""
    scored = 0
    for question in _webqsp_test():
        gold = list(dict.fromkeys(_answers(question["Parses"][0])))  # type: ignore[index]
        if not gold:
            continue
        assert f1(gold[:1], gold) == pytest.approx(2 / (1 + len(gold)))
        assert hits_at_1(gold[:1], set(gold)) == 1.0
        assert hits_at_1(["m.not-an-answer", *gold], set(gold)) == 0.0
        scored += 1
    assert scored > 500


def test_best_of_parses_on_webqsp_questions_with_two_parses() -> None:
    multi = [q for q in _webqsp_test() if len(q["Parses"]) > 1]  # type: ignore[arg-type]
    assert multi
    for question in multi:
        golds = [_answers(parse) for parse in question["Parses"]]  # type: ignore[union-attr]
        for gold in golds:
            assert best_f1(gold, golds) == 1.0


def _select(*rows: dict[str, str]) -> dict:
    """A SPARQL JSON SELECT result whose head lists every variable the rows use."""
    names = sorted({name for row in rows for name in row})
    bindings = [{name: {"type": "literal", "value": value} for name, value in row.items()} for row in rows]
    return {"head": {"vars": names}, "results": {"bindings": bindings}}


def test_result_values_pool_every_projected_variable() -> None:
    # TEXT2SPARQL client: all values of all projected variables, one set, strings only.
    result = _select({"a": "x", "n": "1"}, {"a": "y", "n": "1"}, {"a": "x"})
    assert result_values(result) == {"x", "y", "1"}
    # A variable bound in a row but not projected in the head does not count.
    result["head"]["vars"] = ["a"]
    assert result_values(result) == {"x", "y"}
    assert result_values({"boolean": True}) == {"true"}
    assert result_values({"boolean": False}) == {"false"}
    assert result_values(None) == set()
    assert result_values(_select()) == set()


@pytest.mark.parametrize(
    ("predicted", "gold", "score"),
    [
        (_select({"x": "a"}, {"x": "b"}), _select({"y": "a"}, {"y": "b"}), 1.0),  # names do not matter
        (_select({"x": "a"}, {"x": "c"}, {"x": "d"}, {"x": "e"}), _select({"x": "a"}, {"x": "b"}), 1 / 3),
        (_select({"x": "a", "n": "5"}), _select({"x": "a"}), 2 / 3),  # an extra column costs precision
        (_select({"x": "4.0"}), _select({"x": "4"}), 0.0),  # plain strings, as in the client
        (_select(), _select({"x": "a"}), 0.0),  # nothing predicted
        (None, _select({"x": "a"}), 0.0),  # no query or a failed one
        (_select({"x": "a"}), _select(), 0.0),  # empty gold: trec_eval's F is 0
        (_select(), _select(), 0.0),  # both empty: 0, unlike precision_recall_f1
        ({"boolean": True}, {"boolean": True}, 1.0),
        ({"boolean": False}, {"boolean": False}, 1.0),  # the client would give 0 here
        ({"boolean": False}, {"boolean": True}, 0.0),  # ... and 1 here
        (_select({"x": "true"}), {"boolean": True}, 1.0),  # a boolean is the value "true"
    ],
)
def test_set_f1_as_the_text2sparql_client(predicted: dict | None, gold: dict | None, score: float) -> None:
    assert set_f1(predicted, gold) == pytest.approx(score)
