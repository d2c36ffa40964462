"""What ``nl2sparql ask`` costs beyond its stages: wall time of the CLI run as a subprocess
against the sum of the stage timings it prints, from a fresh process and with a running
service configured (``NL2SPARQL_SERVICE``), both in the same run.

    python benchmarks/bench_cli.py [--question TEXT] [--runs 3] [--json]

The fresh runs load the home default (store, bank, planner, linker) in the CLI's own
process; the service runs send the question to ``nl2sparql serve`` started here on a free
loopback port (its start-up is not counted: it is paid once, not per question). The
targets of issue 17 are wall / stages <= 2.5 fresh and <= 1.3 with the service. Figures
only: the machine is shared, compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

QUESTION = "what county is san diego in?"
SERVE_TIMEOUT = 600.0


def ask(question: str, env: dict[str, str]) -> dict[str, float]:
    """One ``nl2sparql ask --json`` subprocess: its wall time and the sum of its stage timings, in ms."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "nl2sparql", "ask", question, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=SERVE_TIMEOUT,
    )
    wall = (time.perf_counter() - began) * 1000
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise SystemExit(f"bench_cli: ask failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    result = json.loads(done.stdout)
    stages = sum(float(v) for v in (result.get("timings_ms") or {}).values())
    return {"wall_ms": wall, "stages_ms": stages, "ratio": wall / stages if stages else float("nan")}


def start_service(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """``nl2sparql serve --port 0 --json`` and the address it listens on, once it does."""
    process = subprocess.Popen(
        [sys.executable, "-m", "nl2sparql", "serve", "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.strip():
        process.kill()
        raise SystemExit("bench_cli: the service did not start")
    return process, f"127.0.0.1:{json.loads(line)['port']}"


def measure(question: str, runs: int, env: dict[str, str]) -> dict[str, Any]:
    ask(question, env)  # warm the file cache (and the service's lazy loads) before timing
    samples = [ask(question, env) for _ in range(runs)]
    return {key: statistics.median(s[key] for s in samples) for key in ("wall_ms", "stages_ms", "ratio")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per mode (median; default 3)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.runs <= 50:
        parser.error("--runs must be 1 to 50")
    env = {k: v for k, v in os.environ.items() if k != "NL2SPARQL_SERVICE"}
    figures = {"fresh": measure(args.question, args.runs, env)}
    process, address = start_service(env)
    try:
        figures["service"] = measure(args.question, args.runs, {**env, "NL2SPARQL_SERVICE": address})
    finally:
        process.terminate()
        process.wait(timeout=60)
    if args.json:
        print(json.dumps({"question": args.question, **figures}))
        return 0
    load = os.getloadavg()[0]
    print(f"nl2sparql ask {args.question!r}, median of {args.runs} runs, {os.cpu_count()} CPUs, load {load:.1f}")
    targets = {"fresh": 2.5, "service": 1.3}
    for mode, f in figures.items():
        print(
            f"  {mode:<8} wall {f['wall_ms']:8.0f} ms   stages {f['stages_ms']:8.0f} ms   "
            f"wall/stages x{f['ratio']:.2f} (target <= {targets[mode]})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
