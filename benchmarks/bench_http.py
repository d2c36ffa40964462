"""What the HTTP face costs next to gRPC: requests/s, p50, p95, 429s and errors at 1, 4 and 16 clients.

    python benchmarks/bench_http.py [--store DIR --bank FILE --planner SPEC --questions FILE]
                                    [--clients 1,4,16] [--requests 200] [--seconds 15]
                                    [--max-concurrency 8] [--json]

One ``nl2sparql serve --http 0 --grpc --port 0`` child serves both faces over the same
pipeline, as in production (the clients do not share its interpreter lock). For each
level, that many client threads ask questions in turn through ``POST /v1/ask`` (httpx, one
connection per thread), then through gRPC's ``Ask`` (``nl2sparql.server.client.Client``),
until ``--requests`` are done or ``--seconds`` have passed. A 429 (HTTP) or
RESOURCE_EXHAUSTED (gRPC) is the bound at work, counted apart from errors; the latency
percentiles are of the answered requests (nearest rank, milliseconds). Figures only.

By default the pipeline is the tests' fixture graph (138 triples, tests/conftest.py) in
Oxigraph, its bank built from the store, and the recorded plans of
tests/fixtures/faces/plans.jsonl: the faces' own overhead on a cheap pipeline (about 10 ms a
question), an upper bound on their share of a real one. ``--store/--bank/--planner`` and a
``--questions`` file (one question a line) measure another.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLANS = ROOT / "tests" / "fixtures" / "faces" / "plans.jsonl"


def fixture_kg(folder: Path) -> tuple[Path, Path]:
    """The tests' fixture graph in Oxigraph and its bank, built into ``folder``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import fixture_graph_nt

    from nl2sparql.kg.oxigraph_store import OxigraphStore
    from nl2sparql.memory_bank.bank_file import save_bank
    from nl2sparql.memory_bank.build_store import build_bank_from_store
    from nl2sparql.memory_bank.embedder import default_embedder

    (folder / "fixture.nt").write_text(fixture_graph_nt(), encoding="utf-8")
    store = OxigraphStore(folder / "store")
    try:
        store.load(folder / "fixture.nt", progress=False)
        bank, _ = build_bank_from_store(store, embedder=default_embedder(), source="fixture")
    finally:
        store.close()
    return folder / "store", save_bank(bank, folder / "fixture.nl2sq")


def percentile(values: list[float], q: int) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-q * len(ordered) // 100) - 1))]


def drive(clients: int, call: Any, questions: list[str], requests: int, seconds: float) -> dict[str, Any]:
    """``clients`` threads calling ``call(session, question)`` -> 'ok' | 'busy' | 'error'."""
    lock = threading.Lock()
    latencies: list[float] = []
    counts = {"ok": 0, "busy": 0, "error": 0}
    issued = [0]
    stop = time.monotonic() + seconds
    errors: list[str] = []

    def worker(session: Any) -> None:
        while time.monotonic() < stop:
            with lock:
                if issued[0] >= requests:
                    return
                n = issued[0]
                issued[0] += 1
            began = time.perf_counter()
            try:
                outcome = call(session, questions[n % len(questions)])
            except Exception as exc:
                outcome = "error"
                errors.append(repr(exc)[:200])
            took = (time.perf_counter() - began) * 1000
            with lock:
                counts[outcome] += 1
                if outcome == "ok":
                    latencies.append(took)

    began = time.monotonic()
    threads = [threading.Thread(target=worker, args=(call.session(),)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - began
    return {"clients": clients, "requests": sum(counts.values()), **counts,
            "rps": round(counts["ok"] / wall, 1), "p50_ms": round(percentile(latencies, 50), 1),
            "p95_ms": round(percentile(latencies, 95), 1), "first_errors": errors[:3]}


class HttpCall:
    def __init__(self, url: str) -> None:
        self.url = url

    def session(self) -> Any:
        import httpx

        return httpx.Client(base_url=self.url, timeout=120)

    def __call__(self, session: Any, question: str) -> str:
        reply = session.post("/v1/ask", json={"question": question})
        if reply.status_code == 429:
            return "busy"
        return "ok" if reply.status_code == 200 else "error"


class GrpcCall:
    def __init__(self, address: str) -> None:
        self.address = address

    def session(self) -> Any:
        from nl2sparql.server.client import Client

        return Client(self.address, timeout=120)

    def __call__(self, session: Any, question: str) -> str:
        from nl2sparql.server.client import ServiceError

        try:
            session.ask(question)
        except ServiceError as exc:
            return "busy" if "RESOURCE_EXHAUSTED" in str(exc) or "busy" in str(exc) else "error"
        return "ok"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store")
    parser.add_argument("--bank")
    parser.add_argument("--planner")
    parser.add_argument("--questions", help="a file of questions, one a line (default: the fixture's)")
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--max-concurrency", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="bench-http-") as folder:
        if args.store and args.bank:
            store, bank, planner = args.store, args.bank, args.planner
        else:
            store, bank = fixture_kg(Path(folder))
            planner = f"plans:{PLANS}"
        if args.questions:
            questions = [q.strip() for q in Path(args.questions).read_text().splitlines() if q.strip()]
        else:
            questions = [json.loads(line)["question"] for line in PLANS.read_text().splitlines() if line.strip()]
        command = [sys.executable, "-m", "nl2sparql", "serve", "--http", "0", "--grpc", "--port", "0", "--json",
                   "--store", str(store), "--bank", str(bank), "--max-concurrency", str(args.max_concurrency)]
        if planner:
            command += ["--planner", planner]
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            info = json.loads(child.stdout.readline())  # type: ignore[union-attr]
            rows = []
            for clients in (int(c) for c in args.clients.split(",")):
                for face, call in (("http", HttpCall(info["url"])), ("grpc", GrpcCall(info["grpc"]))):
                    drive(clients, call, questions, 4, 30)  # warm the connections and the pipeline
                    row = {"face": face, **drive(clients, call, questions, args.requests, args.seconds)}
                    rows.append(row)
                    if not args.json:
                        print(f"{face:5} clients={clients:<3} req/s={row['rps']:<7} p50={row['p50_ms']:<7} "
                              f"p95={row['p95_ms']:<7} ok={row['ok']} 429={row['busy']} errors={row['error']}",
                              flush=True)
            if args.json:
                print(json.dumps({"max_concurrency": args.max_concurrency, "rows": rows}, indent=2))
        finally:
            child.terminate()
            child.wait(30)
    return 1 if any(row["error"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
