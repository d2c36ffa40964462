"""How fast the compiler handles real queries, next to rdflib's own parser.

Over the WebQSP gold queries (train + test part A, every parse), times per query:
parse (Virtuoso reader) + validate + optimise + generate (full IRIs), and each stage
alone; then rdflib's ``prepareQuery`` (parse + algebra) on the same queries' full-IRI
text (rdflib cannot read the Virtuoso dialect), and the ratio. With ``--mutants N`` it
also times N mutated queries (characters and tokens deleted, inserted, swapped,
truncated) to show that no input makes the LALR reader slow.

    python benchmarks/bench_compiler.py [--limit N] [--rdflib-limit N] [--mutants N] [--stats STORE]
                                        [--clock wall|cpu]

``--clock cpu`` times with the process's CPU clock: on a machine shared with other work
it leaves out the time the process waited for a core, so the figures are the code's own.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from rdflib.plugins.sparql import prepareQuery

from nl2sparql.compiler import SparqlSyntaxError, generate, optimize, parse
from nl2sparql.compiler.parser import sparql_parser
from nl2sparql.compiler.validate import check
from nl2sparql.config import data_file
from nl2sparql.kg.datasets import load_dataset


def webqsp_queries() -> list[str]:
    out = []
    for name in ("webqsp/WebQSP.train.json", "webqsp/WebQSP.test.part-A.json"):
        for example in load_dataset(data_file(name), "webqsp"):
            out += [p.sparql for p in example.extra["parses"]]
    return out


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter


def timed(fn: Callable[[], object]) -> float:
    start = clock()
    fn()
    return clock() - start


def summary(name: str, seconds: Sequence[float]) -> str:
    ordered = sorted(seconds)
    p50 = ordered[len(ordered) // 2] * 1000
    p95 = ordered[int(len(ordered) * 0.95)] * 1000
    rate = len(ordered) / sum(ordered)
    worst = ordered[-1] * 1000
    spread = f"p50 {p50:7.3f} ms  p95 {p95:7.3f} ms  max {worst:7.2f} ms"
    return f"{name:<38} n={len(ordered):>5}  {spread}  {rate:6.0f} q/s"


def mutate(text: str, rng: random.Random) -> str:
    pieces = list("{}()[].;,?!^|/*+-=<>\"'#") + ["FILTER", " OR ", "SELECT", "?x", "\n"]
    for _ in range(rng.randint(1, 3)):
        if not text:
            break
        at = rng.randrange(len(text))
        kind = rng.choice(["delete", "insert", "swap", "truncate"])
        if kind == "delete":
            text = text[:at] + text[at + 1 :]
        elif kind == "insert":
            text = text[:at] + rng.choice(pieces) + text[at:]
        elif kind == "swap" and at + 1 < len(text):
            text = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
        else:
            text = text[:at]
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N queries (0: all)")
    parser.add_argument("--rdflib-limit", type=int, default=0, help="run rdflib on the first N only (0: all)")
    parser.add_argument("--mutants", type=int, default=0, help="also time N mutated queries")
    parser.add_argument("--stats", help="an Oxigraph store folder whose predicate counts guide optimisation")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall time or process CPU time")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    logging.getLogger("rdflib").setLevel(logging.ERROR)

    queries = webqsp_queries()
    if args.limit:
        queries = queries[: args.limit]
    stats = None
    if args.stats:
        from nl2sparql.kg.oxigraph_store import OxigraphStore

        store = OxigraphStore(args.stats)
        stats = store.stats().predicates
        store.close()
    build = timed(sparql_parser)
    print(f"WebQSP gold queries: {len(queries)} (mean {statistics.mean(map(len, queries)):.0f} characters)")
    print(f"parser build (first use, lark cache on disk): {build * 1000:.0f} ms")
    for text in queries[:50]:  # warm caches
        generate(optimize(parse(text, "virtuoso")), "full-iri")

    stages: dict[str, list[float]] = {
        "parse": [],
        "validate": [],
        "optimize": [],
        "generate": [],
        "pipeline": [],
    }
    outputs = []
    for text in queries:
        t0 = clock()
        query = parse(text, "virtuoso")
        t1 = clock()
        check(query, run=True)
        t2 = clock()
        optimized = optimize(query, stats=stats)
        t3 = clock()
        out = generate(optimized, "full-iri")
        t4 = clock()
        outputs.append(out)
        for name, seconds in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0), strict=True):
            stages[name].append(seconds)
    print()
    for name, seconds in stages.items():
        label = "parse+validate+optimise+generate" if name == "pipeline" else f"  {name}"
        print(summary(label, seconds))

    sample = outputs[: args.rdflib_limit] if args.rdflib_limit else outputs
    ours_parse = [timed(lambda t=text: parse(t, "sparql11")) for text in sample]
    rdflib = [timed(lambda t=text: prepareQuery(t)) for text in sample]
    print()
    print(summary("nl2sparql parse (same full-IRI text)", ours_parse))
    print(summary("rdflib prepareQuery (full-IRI text)", rdflib))
    pipeline = stages["pipeline"][: len(sample)]
    slower_parse = statistics.median(rdflib) / statistics.median(ours_parse)
    slower_pipeline = statistics.median(rdflib) / statistics.median(pipeline)
    print(
        f"\nrdflib prepareQuery is {slower_parse:.1f}x slower than our parse of the same text and "
        f"{slower_pipeline:.1f}x slower than our whole pipeline (p50)"
    )

    if args.mutants:
        rng = random.Random(0)
        times, refused = [], 0
        for _ in range(args.mutants):
            text = mutate(rng.choice(queries), rng)
            start = clock()
            try:
                parse(text, "virtuoso")
            except SparqlSyntaxError:
                refused += 1
            times.append(clock() - start)
        print()
        print(summary(f"mutants ({refused} refused)", times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
