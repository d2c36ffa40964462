"""What serving costs: requests/s and latency through gRPC against the same pipeline in-process.

    python benchmarks/bench_server.py [--store DIR | --endpoint URL] [--bank FILE] [--planner SPEC]
                                      [--clients 1,4,16] [--requests 200] [--seconds 20] [--json]
                                      [--modes old,new] [--served-only] [--answerable]

Each mode is a server of its own, one after the other, in the same run: ``old`` is the
service as it was before 0.2: beam 4 for every question, one question per decode
(``decoding = "beams"``, ``plan_batch = 1``) and the planner on torch
(``NL2SPARQL_PLANNER_RUNTIME=torch``); ``beams`` is that decoding on the numpy runtime
(what the runtime alone gives); ``new`` runs the settings' defaults (greedy first, planner
calls of concurrent questions decoded together). The last lines compare each mode's served
throughput with the first mode's at each level.

For 1, 4 and 16 concurrent clients it prints requests/s, p50/p95/p99 latency and errors
(which must be 0: the script exits 1 otherwise), first calling ``pipeline.ask`` from as
many threads in-process, then through a real loopback server, and the overhead ratios
(served p50 / in-process p50, in-process req/s / served req/s).

The server runs in a child process, as it would in production, so the client threads do
not share its interpreter lock; that child also takes the in-process figures, so the
pipeline loads once. Every level is bounded by ``--requests`` and ``--seconds``.

The pipeline: ``Pipeline.from_settings`` with the options given, else the home pipeline
when ``nl2sparql setup`` has made one, asked WebQSP test questions with their topic
entities. Until the real pipeline exists (or with ``--fallback``), it serves the tests'
``GraphPipeline`` (tests/test_server_pipeline.py: real linking, recall and SPARQL on the
138-triple fixture graph of tests/conftest.py, in rdflib) with questions about that graph:
then the figures measure the service's own overhead on a cheap pipeline (tens of ms), an
upper bound on its share of a real pipeline's latency.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FALLBACK_QUESTIONS: tuple[tuple[str, dict[str, str] | None], ...] = (
    ("Who are the siblings of Gus Orr?", None),
    ("Where was Ada Quill born?", None),
    ("what films did Cy Quill play in", None),
    ("which country contains Porta", None),
    ("what is the gender of Eli Marsh", None),
    ("who is the spouse of Eli Marsh", None),
    ("Cy Quill married which spouse, or else which sibling?", None),
)

Question = tuple[str, "dict[str, str] | None"]
CALL_TIMEOUT = 120.0


#: each mode's settings and the environment its server process runs in
MODES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "old": ({"decoding": "beams", "plan_batch": 1}, {"NL2SPARQL_PLANNER_RUNTIME": "torch"}),
    "beams": ({"decoding": "beams", "plan_batch": 1}, {}),
    "new": ({}, {}),
}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child(args)
    results = {}
    for mode in args.modes.split(","):
        measured = measure(mode, args)
        if measured is None:
            return 1
        results[mode] = measured
    errors = 0
    for mode, (ready, served) in results.items():
        report(f"{ready['pipeline']} [mode {mode}: {ready['settings']}]", ready["baseline"], served, args.json)
        errors += sum(r["errors"] for r in served.values()) + sum(r["errors"] for r in ready["baseline"].values())
    first, *others = results
    for mode in others:
        compare(first, mode, results[first][1], results[mode][1], args.json)
    return 1 if errors else 0


def measure(mode: str, args: argparse.Namespace) -> tuple[dict[str, Any], dict[int, Any]] | None:
    """One server in a child process for ``mode``, driven at every level."""
    levels = [int(c) for c in args.clients.split(",")]
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", "--modes", mode, *forwarded(args)],
        env={**os.environ, **MODES[mode][1]},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready = json.loads(process.stdout.readline() or "{}")
        if "port" not in ready:
            print(f"bench_server: the server process ({mode}) did not start", file=sys.stderr)
            return None
        served = {c: drive_served(f"127.0.0.1:{ready['port']}", ready["questions"], c, args) for c in levels}
    finally:
        process.terminate()
        process.wait(timeout=60)
    return ready, served


def compare(base: str, mode: str, old: dict[int, Any], new: dict[int, Any], as_json: bool) -> None:
    ratios = {c: new[c]["rps"] / old[c]["rps"] if old[c]["rps"] else float("nan") for c in old if c in new}
    if as_json:
        print(json.dumps({f"served_throughput_{mode}_over_{base}": ratios}))
        return
    print(f"served throughput, {mode} / {base} (same run):")
    for clients, ratio in ratios.items():
        print(f"  {clients:>2} clients: {old[clients]['rps']:.2f} -> {new[clients]['rps']:.2f} req/s, x{ratio:.2f}")


# -- the child: pipeline, in-process figures, then the server -------------------------------------


def child(args: argparse.Namespace) -> int:
    from nl2sparql.server.serve import run_until_signal, serve

    pipeline, questions, what = load(args)
    levels = [int(c) for c in args.clients.split(",")]
    settings = getattr(pipeline, "settings", None)
    chosen = {k: getattr(settings, k) for k in ("decoding", "plan_batch", "plan_batch_ms")} if settings else {}
    for question, entities in questions[:3]:  # warm caches and lazy loads before timing
        pipeline.ask(question, entities)

    def ask(question: Question) -> Any:  # with the deadline the served calls carry: the same work
        return pipeline.ask(question[0], question[1], deadline=time.monotonic() + CALL_TIMEOUT)

    baseline = {} if args.served_only else {c: drive(ask, questions, c, args.requests, args.seconds) for c in levels}
    service = serve(pipeline, host="127.0.0.1", port=0, max_concurrency=max(levels))
    print(
        json.dumps(
            {"port": service.port, "questions": questions, "pipeline": what, "baseline": baseline, "settings": chosen}
        ),
        flush=True,
    )
    run_until_signal(service, grace=5)
    return 0


def load(args: argparse.Namespace) -> tuple[Any, list[Question], str]:
    settings = {"store": args.store, "endpoint": args.endpoint, "bank": args.bank, "planner": args.planner}
    mode = MODES[args.modes][0] if args.modes in MODES else {}
    if not args.fallback:
        try:
            from nl2sparql.pipeline import Pipeline
        except ModuleNotFoundError as exc:
            if exc.name != "nl2sparql.pipeline":
                raise
            if any(settings.values()):
                raise SystemExit(
                    "bench_server: no nl2sparql.pipeline module to load those settings with"
                ) from exc
        else:
            from nl2sparql.errors import Nl2SparqlError

            try:
                pipeline = Pipeline.from_settings(**settings, **mode)
            except Nl2SparqlError as exc:
                if any(settings.values()):
                    raise SystemExit(f"bench_server: {exc}") from exc
                print(f"bench_server: no home pipeline ({exc}); using the fallback", file=sys.stderr)
            else:
                questions = webqsp_questions(args.questions, pipeline.store, args.answerable)
                return pipeline, questions, "Pipeline.from_settings"
    sys.path.insert(0, str(ROOT / "tests"))
    from test_server_pipeline import GraphPipeline, graph_store

    store = graph_store(Path(tempfile.mkdtemp(prefix="bench-server-")))
    what = f"fallback: tests' GraphPipeline over the fixture graph ({store.stats().triples} triples, rdflib)"
    return GraphPipeline(store), list(FALLBACK_QUESTIONS), what


def webqsp_questions(count: int, store: Any = None, answerable: bool = False) -> list[Question]:
    """The first ``count`` WebQSP test questions whose topic entity the store holds (a question
    about an entity it lacks is refused as INVALID_ARGUMENT, which is right but not load);
    ``answerable``: only those whose gold query answers on the store (on FB15k-237 most do
    not, and a plan that answers nothing makes the pipeline decode the planner's other beams)."""
    from nl2sparql.config import data_file
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.kg.linker import validate_entity_ids

    records = json.loads(data_file("webqsp/WebQSP.test.part-A.json").read_text())["Questions"]
    questions: list[Question] = []
    for record in records:
        parse = record["Parses"][0]
        entity = {parse["TopicEntityMid"]: parse["TopicEntityName"]} if parse.get("TopicEntityMid") else None
        if entity and store is not None:
            try:
                validate_entity_ids(store, entity)
            except Nl2SparqlError:
                continue
        if answerable and not _answers(store, parse.get("Sparql")):
            continue
        questions.append((record["RawQuestion"], entity))
        if len(questions) == count:
            break
    return questions


def _answers(store: Any, sparql: str | None) -> bool:
    """Whether a gold query (Virtuoso's dialect) answers on ``store``, as evaluation runs it."""
    from nl2sparql.compiler import parse
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.evaluation.reconstruction_report import answer_set

    if store is None or not sparql:
        return False
    try:
        return bool(answer_set(store, parse(sparql, "virtuoso"), CALL_TIMEOUT))
    except Nl2SparqlError:  # a gold query the reader refuses
        return False


# -- load generation ------------------------------------------------------------------------------


def drive_served(
    address: str, questions: list[Question], clients: int, args: argparse.Namespace
) -> dict[str, Any]:
    from nl2sparql.server.client import Client

    pool = [Client(address, timeout=CALL_TIMEOUT) for _ in range(clients)]
    try:
        for client in pool:  # connect every channel before timing
            client.health()
        local = threading.local()
        counter = itertools.count()

        def call(question: Question) -> Any:
            if not hasattr(local, "client"):
                local.client = pool[next(counter) % clients]
            return local.client.ask(question[0], question[1])

        return drive(call, questions, clients, args.requests, args.seconds)
    finally:
        for client in pool:
            client.close()


def drive(
    call: Callable[[Question], Any], questions: list[Question], clients: int, requests: int, seconds: float
) -> dict[str, Any]:
    """``requests`` calls (or as many as fit in ``seconds``) from ``clients`` threads."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    taken = itertools.count()
    stop_at = time.perf_counter() + seconds

    def worker() -> None:
        while time.perf_counter() < stop_at:
            index = next(taken)
            if index >= requests:
                return
            started = time.perf_counter()
            try:
                call(questions[index % len(questions)])
            except Exception as exc:  # counted and shown, never fatal to the run
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
                continue
            with lock:
                latencies.append((time.perf_counter() - started) * 1000)

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    return {
        "requests": len(latencies) + len(errors),
        "rps": len(latencies) / elapsed if elapsed else 0.0,
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "p99": percentile(latencies, 99),
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
    }


def percentile(values: list[float], q: int) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


# -- output ---------------------------------------------------------------------------------------


def report(what: str, baseline: Mapping[str, Any], served: Mapping[int, Any], as_json: bool) -> None:
    rows = []
    for clients, result in served.items():
        local = baseline.get(str(clients))
        row: dict[str, Any] = {"clients": clients, "served": result}
        if local is not None:
            row["in_process"] = local
            row["latency_overhead"] = result["p50"] / local["p50"] if local["p50"] else float("nan")
            row["throughput_overhead"] = local["rps"] / result["rps"] if result["rps"] else float("nan")
        rows.append(row)
    if as_json:
        print(json.dumps({"pipeline": what, "levels": rows}, indent=2))
        return
    print(f"pipeline: {what}")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    header = ("requests", "req/s", "p50 ms", "p95 ms", "p99 ms")
    print(f"{'clients':>7} {'mode':<10} " + " ".join(f"{h:>8}" for h in header) + " errors")
    for row in rows:
        for mode in ("in_process", "served"):
            if mode not in row:
                continue
            r = row[mode]
            print(
                f"{row['clients']:>7} {mode.replace('_', '-'):<10} {r['requests']:>8} {r['rps']:>8.1f} "
                f"{r['p50']:>8.2f} {r['p95']:>8.2f} {r['p99']:>8.2f} {r['errors']:>6}"
            )
            if r["first_error"]:
                print(f"{'':>18}first error: {r['first_error']}")
    if all("in_process" in row for row in rows):
        print("overhead of serving (served / in-process):")
        for row in rows:
            print(
                f"  {row['clients']:>2} clients: p50 latency x{row['latency_overhead']:.2f}, "
                f"throughput x{1 / row['throughput_overhead']:.2f} of in-process"
            )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--store", metavar="DIR")
    source.add_argument("--endpoint", metavar="URL")
    parser.add_argument("--bank", metavar="FILE")
    parser.add_argument("--planner", metavar="SPEC")
    parser.add_argument("--fallback", action="store_true", help="serve the tests' GraphPipeline")
    parser.add_argument("--clients", default="1,4,16", help="concurrency levels (default 1,4,16)")
    parser.add_argument("--requests", type=int, default=200, help="requests per level and mode (default 200)")
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="time cap per level and mode (default 20)"
    )
    parser.add_argument(
        "--questions", type=int, default=50, help="WebQSP questions to cycle through (default 50)"
    )
    parser.add_argument(
        "--answerable", action="store_true", help="only questions whose gold query answers on the store"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--modes", default="old,new", help="servers to compare, in order (default old,new)")
    parser.add_argument("--served-only", action="store_true", help="skip the in-process figures")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    levels = args.clients.split(",")
    if not set(args.modes.split(",")) <= set(MODES):
        parser.error(f"--modes takes {', '.join(MODES)} (comma-separated)")
    if not all(c.isdigit() and int(c) > 0 for c in levels) or args.requests < 1 or args.seconds <= 0:
        parser.error(
            "--clients takes positive whole numbers (1,4,16); --requests and --seconds must be positive"
        )
    return args


def forwarded(args: argparse.Namespace) -> list[str]:
    out = ["--clients", args.clients, "--requests", str(args.requests), "--seconds", str(args.seconds)]
    out += ["--questions", str(args.questions)] + (["--served-only"] if args.served_only else [])
    out += ["--answerable"] if args.answerable else []
    for name in ("store", "endpoint", "bank", "planner"):
        if getattr(args, name):
            out += [f"--{name}", getattr(args, name)]
    return out + (["--fallback"] if args.fallback else [])


if __name__ == "__main__":
    sys.exit(main())
