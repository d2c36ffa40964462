"""Answer and query metrics, each defined once with the definition and source it follows.

KBQA papers report Hits@1 and F1 over answer sets and, for query generation (MemQ),
the share of gold predicates recovered and the graph edit distance between the
predicted and the gold query. Small differences in how empty sets, repeated answers
or repeated predicates are counted change reported numbers by points, so every
choice is written down here and pinned by a test. The query-graph metrics live in
:mod:`nl2sparql.evaluation.query_graph` and the planner metrics in
:mod:`nl2sparql.evaluation.plan_metrics`; both are re-exported here.

This module takes plain strings (answer ids, predicate IRIs, canonical query text):
callers extract them, so nothing here imports the compiler or a store.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from nl2sparql.evaluation.plan_metrics import ParseFailures, count_parse_failures, plan_type_accuracy, step_f1
from nl2sparql.evaluation.query_graph import (
    EditDistance,
    graph_edit_distance,
    graph_edit_distance_bound,
    query_graph,
)

__all__ = [
    "EditDistance",
    "ParseFailures",
    "PRF",
    "best_f1",
    "count_parse_failures",
    "edge_hit_rate",
    "exact_match",
    "f1",
    "graph_edit_distance",
    "graph_edit_distance_bound",
    "hits_at_1",
    "macro_f1",
    "normalise_answer",
    "plan_type_accuracy",
    "precision_recall_f1",
    "query_graph",
    "result_values",
    "set_f1",
    "step_f1",
]


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F1 of one question."""

    precision: float
    recall: float
    f1: float


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def normalise_answer(value: str) -> str:
    """One spelling for each literal answer, so that a gold file and a store that write the
    same value differently agree: numbers by value, yes/no in lower case; anything else
    (ids, IRIs, strings) as it is.

    >>> [normalise_answer(v) for v in ("4", "4.0", "43.260", "1E+1", "True", "m.0abc")]
    ['4', '4', '43.26', '10', 'true', 'm.0abc']
    """
    text = value.strip()
    if text.lower() in ("true", "false"):
        return text.lower()
    if _NUMBER.fullmatch(text):
        try:
            return format(Decimal(text).normalize(), "f")
        except InvalidOperation:
            return value
    return value


def hits_at_1(predicted: Sequence[str], gold: Collection[str]) -> float:
    """1.0 when the FIRST predicted answer is a gold answer, else 0.0.

    Hits@1 as reported for WebQSP/CWQ since GRAFT-Net (Sun et al., 2018) and by MemQ
    (Xu et al., 2025). Only ``predicted[0]`` counts: an answer list that holds a gold
    answer further down scores 0 (counting "any predicted answer is gold" is a known
    mistake that inflates Hits@1 towards recall). No prediction, or no gold answer, is 0.0.
    """
    return 1.0 if predicted and predicted[0] in gold else 0.0


def precision_recall_f1(predicted: Iterable[str], gold: Iterable[str]) -> PRF:
    """Set precision, recall and F1 of one question's answers.

    As in the official WebQSP evaluation script (Yih et al., 2016, ``eval.py``),
    duplicates are ignored (sets) and the empty cases are:

    - no gold and no prediction: P = R = F1 = 1 (nothing to find, nothing claimed);
    - no gold, some prediction: P = 0, R = 1, F1 = 0;
    - gold, no prediction: P = 1, R = 0, F1 = 0.

    Otherwise P = |pred ∩ gold| / |pred|, R = |pred ∩ gold| / |gold| and
    F1 = 2PR / (P + R) (0 when P + R = 0).
    """
    pred_set, gold_set = set(predicted), set(gold)
    if not gold_set:
        return PRF(1.0, 1.0, 1.0) if not pred_set else PRF(0.0, 1.0, 0.0)
    if not pred_set:
        return PRF(1.0, 0.0, 0.0)
    hits = len(pred_set & gold_set)
    precision, recall = hits / len(pred_set), hits / len(gold_set)
    score = 2 * precision * recall / (precision + recall) if hits else 0.0
    return PRF(precision, recall, score)


def f1(predicted: Iterable[str], gold: Iterable[str]) -> float:
    """The F1 of :func:`precision_recall_f1` (both empty: 1.0; exactly one empty: 0.0)."""
    return precision_recall_f1(predicted, gold).f1


def best_f1(predicted: Iterable[str], golds: Iterable[Iterable[str]]) -> float:
    """The highest :func:`f1` against any of several gold answer sets.

    WebQSP questions with more than one parse are scored against the parse that
    suits the prediction best, as the official script does. Raises ``ValueError``
    when ``golds`` is empty.
    """
    pred_set = set(predicted)
    scores = [f1(pred_set, gold) for gold in golds]
    if not scores:
        raise ValueError("best_f1 needs at least one gold answer set")
    return max(scores)


def macro_f1(pairs: Iterable[tuple[Iterable[str], Iterable[str]]]) -> float:
    """The mean of :func:`f1` over ``(predicted, gold)`` pairs, one per question.

    Macro-averaged (each question weighs the same), the "F1" of WebQSP/CWQ tables.
    Raises ``ValueError`` when there are no pairs.
    """
    scores = [f1(predicted, gold) for predicted, gold in pairs]
    if not scores:
        raise ValueError("macro_f1 needs at least one (predicted, gold) pair")
    return sum(scores) / len(scores)


def edge_hit_rate(predicted_predicates: Iterable[str], gold_predicates: Iterable[str]) -> float:
    """The share of the gold query's triple-pattern predicates found in the predicted query.

    MemQ's edge hit rate (Xu et al., 2025): how many of the gold query's edges the
    reconstructed query recovered. Predicates are a multiset: a predicate that occurs
    k times in the gold query counts k times and is matched at most as many times as
    it occurs in the prediction, so ``gold = [p, p]``, ``predicted = [p]`` is 0.5.
    Extra predicted predicates do not lower the score (it is a recall). A gold query
    without predicates scores 1.0 (there is nothing to miss).
    """
    gold = Counter(gold_predicates)
    total = sum(gold.values())
    if total == 0:
        return 1.0
    found = gold & Counter(predicted_predicates)
    return sum(found.values()) / total


def exact_match(canonical_a: str, canonical_b: str) -> bool:
    """Whether two queries are the same once both are in canonical form.

    The caller canonicalises (``nl2sparql.compiler.canonical``: variable names,
    prefixes, pattern order); on canonical text, equality is the whole metric
    (query exact match, as in text-to-SQL evaluation, Yu et al., 2018).
    """
    return canonical_a == canonical_b


def result_values(result: Mapping[str, Any] | None) -> set[str]:
    """The answer of one SPARQL query as the TEXT2SPARQL client sees it: a set of strings.

    ``result`` is a SPARQL 1.1 JSON result (``{"head": {"vars": [...]}, "results":
    {"bindings": [...]}}`` or ``{"boolean": b}``). As in the client's
    ``DBpediaDict2PytrecDict.tranform`` (``text2sparql_client/utils/evaluation_metrics.py``,
    text2sparql-client 2.1.0): every value of every projected variable of every row goes
    into one set, by its ``value`` string alone (a variable's name, the row it came from,
    the term's type, datatype and language tag are dropped; an unbound variable adds
    nothing). A yes/no answer is the one-value set ``{"true"}`` or ``{"false"}``. ``None``
    (no query, or a query that failed) is the empty set, as the client scores a question
    it got no answer for with an empty result.

    >>> sorted(result_values({"head": {"vars": ["a", "n"]}, "results": {"bindings": [
    ...     {"a": {"type": "uri", "value": "http://x/A"}, "n": {"type": "literal", "value": "2"}},
    ...     {"a": {"type": "uri", "value": "http://x/B"}}]}}))
    ['2', 'http://x/A', 'http://x/B']
    >>> result_values({"boolean": False}), result_values(None)
    ({'false'}, set())
    """
    if not result:
        return set()
    if "boolean" in result:
        return {"true" if result["boolean"] else "false"}
    names = result.get("head", {}).get("vars", [])
    rows = result.get("results", {}).get("bindings", [])
    return {row[name]["value"] for row in rows for name in names if name in row}


def set_f1(predicted: Mapping[str, Any] | None, gold: Mapping[str, Any] | None) -> float:
    """Set F1 of one question as the TEXT2SPARQL challenge scores it.

    The challenge's client (text2sparql-client 2.1.0, ``Evaluation.evaluate``) hands the
    two value sets of :func:`result_values` to pytrec_eval's ``set_F`` (trec_eval's
    F-measure with beta 1): P = |pred ∩ gold| / |pred|, R = |pred ∩ gold| / |gold|,
    F1 = 2PR / (P + R), and the challenge's figure is the mean over the questions
    (macro). Values are compared as plain strings, so ``"4"`` and ``"4.0"`` differ, as
    they do there. Empty cases, as trec_eval counts them: whenever no predicted value is
    a gold value the score is 0, which includes an empty prediction, an empty gold
    answer and both empty (unlike :func:`precision_recall_f1`, which gives 1 there).

    One deliberate difference: the client writes a yes/no answer as the document
    ``"true"`` with relevance 1 or 0, so under trec_eval any predicted boolean matches a
    gold ``true`` and a gold ``false`` can never be matched. Issue 40 asks for the
    answer to count as true or false, so here ``{"false"}`` matches only ``{"false"}``.

    >>> gold = {"head": {"vars": ["x"]}, "results": {"bindings": [
    ...     {"x": {"type": "uri", "value": "a"}}, {"x": {"type": "uri", "value": "b"}}]}}
    >>> pred = {"head": {"vars": ["y"]}, "results": {"bindings": [{"y": {"type": "literal", "value": "a"}}]}}
    >>> round(set_f1(pred, gold), 3), set_f1(gold, gold), set_f1(None, gold)
    (0.667, 1.0, 0.0)
    >>> set_f1({"boolean": False}, {"boolean": False}), set_f1({"boolean": True}, {"boolean": False})
    (1.0, 0.0)
    """
    pred_set, gold_set = result_values(predicted), result_values(gold)
    hits = len(pred_set & gold_set)
    if not hits:
        return 0.0
    precision, recall = hits / len(pred_set), hits / len(gold_set)
    return 2 * precision * recall / (precision + recall)
