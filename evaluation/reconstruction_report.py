"""The oracle reconstruction report: do gold plans come back as the gold queries through the memory?

For each question: synthesise the plan from the gold query (the ``oracle`` planner),
compile it through recall on a memory bank, and compare the reconstructed query with the
gold one by canonical form (equal up to variable names, triple and filter order). The
failures are sorted by cause, first that applies:

* ``synthesis``: the gold query has a construct no plan step writes (GROUP BY, ...);
* ``not in bank``: a graph statement of the gold query is missing from the bank, so no
  recall can rebuild it (the bank's coverage ceiling);
* ``recall``: every statement is in the bank, but another was chosen for some step;
* ``lowering``: the right statements were chosen and the query still differs;
* ``error``: compiling raised (the message is kept).

Beside exact match, a query that equals the gold one once every predicate with a Freebase
reverse (``film.actor.film`` / ``film.performance.actor``) is written in one direction
counts as a match "up to reverse predicates": the same query on a graph that, like
Freebase, holds both directions.

With ``--store``, the gold query and the reconstructed one (with execution-guided
repair) both run, and answer sets are compared on the questions whose gold query
returns answers there.

    python -m nl2sparql.evaluation.reconstruction_report --dataset webqsp-test \\
        --bank webqsp-train.nl2sq --style webqsp --out report.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from nl2sparql.compiler import canonical, generate, parse
from nl2sparql.compiler.ast import IRI, AskQuery, Filter, Literal, TriplePattern
from nl2sparql.compiler.lowering import language_filter
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.evaluation.metrics import edge_hit_rate, normalise_answer
from nl2sparql.memory_bank.statement import Statement

FREEBASE = "http://rdf.freebase.com/ns/"
CAUSES = ("synthesis", "not in bank", "recall", "lowering", "error")


@dataclass(slots=True)
class QuestionResult:
    """One question's outcome."""

    id: str
    category: str | None
    plan_type: str | None
    status: str  # "match" or one of CAUSES
    covered: bool | None
    edge_hit: float
    recall_ranks: list[int | None]
    detail: str | None = None
    equivalent: bool = False  # equal once predicates are written in one direction of each reverse pair
    gold_answers: int | None = None
    same_answers: bool | None = None
    plan: str | None = None
    sparql: str | None = None


def predicates(query: Any) -> list[str]:
    """IRIs in predicate position of every triple pattern of ``query`` (a multiset)."""
    return [t.predicate.value for t in query.find_all(TriplePattern) if isinstance(t.predicate, IRI)]


def one_direction(query: Any, reverse: Callable[[str], str | None]) -> Any:
    """``query`` with every triple whose predicate has a Freebase reverse written with the
    smaller of the two (``?c film.performance.actor ?a`` -> ``?a film.actor.film ?c``):
    the same query on a graph that holds both directions, as Freebase does."""

    def swap(node: Any) -> Any:
        if isinstance(node, TriplePattern) and isinstance(node.predicate, IRI) and not isinstance(node.object, Literal):
            local = node.predicate.value.removeprefix(FREEBASE)
            other = reverse(local)
            if other and other < local:
                return TriplePattern(node.object, IRI(FREEBASE + other), node.subject)
        return node

    return query.transform(swap)


def answer_set(store: Any, query: Any, timeout: float) -> set[str] | None:
    """The values of the first projected variable when ``query`` runs on ``store`` (``None``: it
    failed); an ``ASK``'s ``true`` or ``false``. Literal values are normalised (``4.0`` is ``4``)."""
    try:
        if isinstance(query, AskQuery):
            return {"true" if store.ask(generate(query, "full-iri"), timeout=timeout) else "false"}
        result = store.select(generate(query, "full-iri"), timeout=timeout)
    except Nl2SparqlError:
        return None
    var = result.variables[0] if result.variables else None
    return {normalise_answer(row[var].value) for row in result.rows if var in row}


_answer_set = answer_set  # the name evaluation.runner imports


def covered_by(bank: Any, example: Any, decomposer: Any) -> bool | None:
    """Whether every graph statement of the gold query is in ``bank`` (``None``: no decomposition)."""
    try:
        decomposition = decomposer.decompose_example(example)
    except Nl2SparqlError:
        return None
    keys = [o.entry.key for o in decomposition.statements if isinstance(o.entry, Statement)]
    return bool(keys) and all(key in bank for key in keys)


def evaluate_one(
    example: Any, synthesiser: Any, compiler: Any, store: Any = None, timeout: float = 10.0
) -> QuestionResult:
    """Synthesise, reconstruct and compare one question."""
    gold = parse(example.gold_sparql, "virtuoso")
    gold_predicates = predicates(gold)
    covered = covered_by(compiler.bank, example, synthesiser.decomposer)
    base = QuestionResult(example.id, example.category, None, "error", covered, 0.0, [])
    gold_answers = answer_set(store, gold, timeout) if store is not None else None
    if gold_answers is not None:
        base.gold_answers = len(gold_answers)
    try:
        synthesis = synthesiser.synthesise_example(example)
    except Nl2SparqlError as exc:
        base.status, base.detail = "synthesis", str(exc)
        return base
    base.plan, base.plan_type = synthesis.text, synthesis.plan.type
    expected = {i: e for i, e in synthesis.entries.items() if isinstance(e, Statement)}
    try:
        result = compiler.compile(synthesis.plan, example.entities, store=store, timeout=timeout)
    except Nl2SparqlError as exc:
        base.status = "not in bank" if not base.covered else "error"
        base.detail = str(exc)
        return base
    for index, entry in expected.items():
        recall = result.recalls.get(index)
        keys = [c.entry.key for c in recall.candidates] if recall else []
        base.recall_ranks.append(keys.index(entry.key) + 1 if entry.key in keys else None)
    query = result.query
    base.sparql = result.sparql
    if query is None:
        base.status = "not in bank" if not base.covered else "error"
        base.detail = result.reconstruction.error
        return base
    base.edge_hit = edge_hit_rate(predicates(query), gold_predicates)
    if store is not None and gold_answers:
        answers = answer_set(store, result.reconstruction.optimized, timeout)
        base.same_answers = answers == gold_answers
    if canonical(query) == canonical(gold):
        base.status, base.equivalent = "match", True
        return base
    reverse = getattr(synthesiser.decomposer.schema, "reverse", None)
    if reverse is not None:
        base.equivalent = canonical(one_direction(query, reverse)) == canonical(one_direction(gold, reverse))
    chosen = result.reconstruction.choices
    wrong = [i for i, e in expected.items() if i in chosen and chosen[i].sparql != e.sparql]
    if not base.covered:
        base.status = "not in bank"
    elif wrong:
        base.status = "recall"
        base.detail = "; ".join(f"step {i + 1}: {chosen[i].id} for {expected[i].id}" for i in wrong)
    else:
        base.status = "lowering"
        base.detail = result.reconstruction.error or _difference(query, gold, synthesis)
    return base


def _difference(query: Any, gold: Any, synthesis: Any) -> str | None:
    """A known reason for a lowering gap: the gold query (hand-written) has no answer language filter."""
    if synthesis.language_filter:
        return None
    answer = synthesis.plan.answer.name
    elements = tuple(
        p for p in query.where.patterns if not (isinstance(p, Filter) and p == language_filter(answer, "en"))
    )
    if canonical(query.replace(where=query.where.replace(patterns=elements))) == canonical(gold):
        return "the gold query has no answer language filter"
    return "the gold query has no answer language filter (and differs otherwise)"


def evaluate(
    examples: Sequence[Any], synthesiser: Any, compiler: Any, store: Any = None, progress: bool = False
) -> list[QuestionResult]:
    results = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(examples), desc="reconstruct", unit="q")
    for example in examples:
        results.append(evaluate_one(example, synthesiser, compiler, store))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return results


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def summarise(results: Iterable[QuestionResult]) -> dict[str, Any]:
    """Exact match over all and over covered questions, edge hit rate, causes, by category."""
    results = list(results)
    covered = [r for r in results if r.covered]
    matched = [r for r in results if r.status == "match"]
    ranks = [rank for r in results for rank in r.recall_ranks]
    compared = [r for r in results if r.same_answers is not None]
    by_category: dict[str, list[QuestionResult]] = defaultdict(list)
    for r in results:
        by_category[r.category or "chain"].append(r)
    summary: dict[str, Any] = {
        "questions": len(results),
        "exact_match": _rate(len(matched), len(results)),
        "exact_match_count": len(matched),
        "covered": len(covered),
        "exact_match_covered": _rate(sum(r.status == "match" for r in covered), len(covered)),
        "match_up_to_reverse": _rate(sum(r.equivalent for r in results), len(results)),
        "match_up_to_reverse_covered": _rate(sum(r.equivalent for r in covered), len(covered)),
        "edge_hit_rate": round(sum(r.edge_hit for r in results) / len(results), 4) if results else 0.0,
        "recall_at_1": _rate(sum(rank == 1 for rank in ranks), len(ranks)),
        "recall_at_10": _rate(sum(rank is not None for rank in ranks), len(ranks)),
        "failures": dict(Counter(r.status for r in results if r.status != "match").most_common()),
        "by_category": {
            name: {
                "questions": len(rs),
                "exact_match": _rate(sum(r.status == "match" for r in rs), len(rs)),
                "covered": sum(bool(r.covered) for r in rs),
                "exact_match_covered": _rate(
                    sum(r.status == "match" for r in rs if r.covered), sum(bool(r.covered) for r in rs)
                ),
                "match_up_to_reverse": _rate(sum(r.equivalent for r in rs), len(rs)),
                "edge_hit_rate": round(sum(r.edge_hit for r in rs) / len(rs), 4),
                "failures": dict(Counter(r.status for r in rs if r.status != "match").most_common()),
            }
            for name, rs in sorted(by_category.items())
        },
    }
    if compared:
        summary["answers"] = {
            "gold_with_answers": len(compared),
            "same_answers": sum(bool(r.same_answers) for r in compared),
            "same_answers_rate": _rate(sum(bool(r.same_answers) for r in compared), len(compared)),
        }
    return summary


def _print(summary: dict[str, Any], results: Sequence[QuestionResult], failures: int) -> None:
    print(
        f"{summary['questions']} questions: exact match {summary['exact_match']:.1%} "
        f"({summary['exact_match_count']}); covered {summary['covered']}: "
        f"exact match {summary['exact_match_covered']:.1%}; edge hit rate {summary['edge_hit_rate']:.3f}; "
        f"gold statement recall@1 {summary['recall_at_1']:.1%}, @10 {summary['recall_at_10']:.1%}"
    )
    print(
        f"up to Freebase reverse predicates: {summary['match_up_to_reverse']:.1%} of all, "
        f"{summary['match_up_to_reverse_covered']:.1%} of covered"
    )
    print("failures: " + ", ".join(f"{k} {v}" for k, v in summary["failures"].items()))
    for name, figures in summary["by_category"].items():
        print(
            f"  {name:>12}: {figures['questions']:4d} questions, exact match {figures['exact_match']:.1%}, "
            f"covered {figures['covered']} -> {figures['exact_match_covered']:.1%}; "
            f"up to reverse predicates {figures['match_up_to_reverse']:.1%}; edge hit rate "
            f"{figures['edge_hit_rate']:.3f}; failures "
            + (", ".join(f"{k} {v}" for k, v in figures["failures"].items()) or "none")
        )
    if "answers" in summary:
        a = summary["answers"]
        print(
            f"answers: {a['same_answers']}/{a['gold_with_answers']} questions whose gold query answers "
            f"get the same answers ({a['same_answers_rate']:.1%})"
        )
    shown = [r for r in results if r.status != "match"][:failures]
    for r in shown:
        print(f"- {r.id} [{r.status}] {r.detail or ''}"[:300])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m nl2sparql.evaluation.reconstruction_report",
        description="Oracle plans (synthesised from gold SPARQL) reconstructed through a memory bank.",
        epilog="example: --dataset webqsp-test --bank webqsp-train.nl2sq --style webqsp --out report.json",
    )
    parser.add_argument(
        "--dataset", required=True, help="webqsp-train, webqsp-test, cwq-test, cwq-dev, webqsp-dev or a dataset file"
    )
    parser.add_argument("--bank", required=True, help="memory bank (.nl2sq archive or bank folder)")
    parser.add_argument("--style", default="webqsp", help="lowering style: webqsp, cwq or plain")
    parser.add_argument("--store", help="Oxigraph store folder: compare answers with the gold query's")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument(
        "--support-weight",
        type=float,
        default=None,
        help="weight of the recall's support prior (default: the compiler's, see nl2sparql.reconstruction)",
    )
    parser.add_argument("--failures", type=int, default=20, help="failures to list (default 20)")
    parser.add_argument("--out", help="write the summary and every question's result as JSON here")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from nl2sparql.memory_bank.bank_file import load_bank
        from nl2sparql.memory_bank.build_queries import load_examples
        from nl2sparql.reconstruction import RECALL, PlanCompiler, freebase_options
        from nl2sparql.training.synthesise import PlanSynthesiser

        examples = load_examples(args.dataset)[: args.limit]
        bank = load_bank(args.bank)
        options = freebase_options(args.style)
        settings = RECALL if args.support_weight is None else replace(RECALL, support_weight=args.support_weight)
        compiler = PlanCompiler(bank, options=options, settings=settings)
        store = None
        if args.store:
            from nl2sparql.kg import open_store

            store = open_store("oxigraph", path=args.store)
        results = evaluate(examples, PlanSynthesiser(), compiler, store, progress=sys.stderr.isatty())
    except Nl2SparqlError as exc:
        print(f"reconstruction_report: error: {exc}", file=sys.stderr)
        return 1
    summary = summarise(results)
    if args.out:
        _write_json(Path(args.out), {"summary": summary, "questions": [asdict(r) for r in results]})
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print(summary, results, args.failures)
    return 0


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, ensure_ascii=False)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


if __name__ == "__main__":
    sys.exit(main())
