"""Plan-language benchmark: parse and format throughput, and GoldGED time per WebQSP query pair.

    python benchmarks/bench_plan.py [--repeat 3]

Plans are built from WebQSP train (topic entity, inferential chain, constraints) so the
entity names are real; the GED part compares each WebQSP test gold query with itself
minus its last triple. Prints microseconds per plan, plans per second, the ratio of
format to parse time, and GED latency percentiles.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import time

from nl2sparql.config import data_file
from nl2sparql.evaluation.aggregate import summarise_latencies
from nl2sparql.evaluation.query_graph import graph_edit_distance_bound, query_graph
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import PlanError
from nl2sparql.plan.writer import format_plan

_WORDS = re.compile(r"[a-z]+")
_TRIPLE = re.compile(r"^(\S+)\s+(\S+)\s+(\S+)\s*\.$")


def webqsp_plans() -> list[str]:
    questions = json.loads(data_file("webqsp/WebQSP.train.json").read_text(encoding="utf-8"))["Questions"]
    plans = []
    for question in questions:
        parse = question["Parses"][0]
        chain, name = parse.get("InferentialChain") or [], parse.get("TopicEntityName")
        if not chain or not name or re.search(r'[?{}"]', name):
            continue
        lines = ["Type: composition"]
        source = name
        for i, predicate in enumerate(chain):
            words = " ".join(_WORDS.findall(predicate.rsplit(".", 1)[-1].replace("_", " "))) or "value"
            lines.append(f"Find the {words} of {source}, assign it to ?v{i}.")
            source = f"?v{i}"
        for constraint in parse.get("Constraints") or []:
            entity = constraint.get("EntityName")
            if entity and not re.search(r'[?{}"]', entity):
                lines.append(f"Make sure {source} is {entity}.")
        lines.append(f"The answer is {source}.")
        plans.append("\n".join(lines))
    return plans


def gold_triples(sparql: str) -> list[tuple[str, ...]]:
    body = re.sub(r"#[^\n]*", "", sparql[sparql.index("WHERE") :])
    parts = (line.strip() for line in re.split(r"[{}\n]", body))
    found = [m.groups() for part in parts if not part.startswith("FILTER") and (m := _TRIPLE.match(part))]
    return list(dict.fromkeys(found))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    texts = webqsp_plans()
    parsed = []
    for text in texts:
        with contextlib.suppress(PlanError):
            parsed.append(parse_plan(text))
    best_parse = best_format = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        for text in texts:
            with contextlib.suppress(PlanError):
                parse_plan(text)
        best_parse = min(best_parse, time.perf_counter() - start)
        start = time.perf_counter()
        for plan in parsed:
            format_plan(plan)
        best_format = min(best_format, time.perf_counter() - start)
    lines = sum(text.count("\n") + 1 for text in texts)
    print(f"plans: {len(texts)} ({len(parsed)} valid), {lines} lines")
    print(f"parse:  {best_parse / len(texts) * 1e6:8.1f} us/plan  {len(texts) / best_parse:8.0f} plans/s")
    print(f"format: {best_format / len(parsed) * 1e6:8.1f} us/plan  {len(parsed) / best_format:8.0f} plans/s")
    print(f"format/parse time ratio: {best_format / len(parsed) / (best_parse / len(texts)):.2f}")

    questions = json.loads(data_file("webqsp/WebQSP.test.part-A.json").read_text(encoding="utf-8"))[
        "Questions"
    ]
    times, inexact = [], 0
    for question in questions:
        triples = gold_triples(question["Parses"][0]["Sparql"])
        if len(triples) < 2:
            continue
        start = time.perf_counter()
        result = graph_edit_distance_bound(query_graph(triples[:-1]), query_graph(triples), timeout=10)
        times.append((time.perf_counter() - start) * 1000)
        inexact += not result.exact
    latency = summarise_latencies(times)
    print(
        f"GoldGED on {latency.n} WebQSP test pairs (one triple dropped): p50 {latency.p50:.1f} ms, "
        f"p95 {latency.p95:.1f} ms, p99 {latency.p99:.1f} ms, max {latency.max:.1f} ms, "
        f"{inexact} hit the time limit"
    )


if __name__ == "__main__":
    main()
