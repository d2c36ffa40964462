"""How long reconstruction takes per question, by stage: synthesis, recall, lowering to SPARQL.

    python benchmarks/bench_reconstruct.py --bank webqsp-train.nl2sq [--dataset webqsp-test] [--limit 200]

Oracle plans (synthesised from the gold queries) are recalled once in a batch per question
(the embedder's share), then reconstructed repeatedly without a store (the compiler's
share: resolve, bind, lower, validate, optimise, generate). Prints medians, 90th
percentiles and the compiler / recall ratio; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", required=True)
    parser.add_argument("--dataset", default="webqsp-test")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from nl2sparql.compiler.reconstruct import reconstruct
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.memory_bank.bank_file import load_bank
    from nl2sparql.memory_bank.build_queries import load_examples
    from nl2sparql.reconstruction import PlanCompiler, to_recalled
    from nl2sparql.training.synthesise import PlanSynthesiser

    examples = load_examples(args.dataset)[: args.limit]
    compiler = PlanCompiler(load_bank(args.bank))
    synthesiser = PlanSynthesiser()
    compiler.bank.embedder.encode(["warm up"])
    synth, recall, lowering = [], [], []
    for example in examples:
        started = time.perf_counter()
        try:
            plan = synthesiser.synthesise_example(example).plan
        except Nl2SparqlError:
            continue
        synth.append(time.perf_counter() - started)
        resolved = compiler.resolve(plan, example.entities)
        started = time.perf_counter()
        recalls = compiler.recall(resolved)
        recall.append(time.perf_counter() - started)
        recalled = {i: tuple(to_recalled(c) for c in r.candidates) for i, r in recalls.items()}
        runs = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            try:
                reconstruct(resolved, recalled, options=compiler.options)
            except Nl2SparqlError:
                break
            runs.append(time.perf_counter() - started)
        if runs:
            lowering.append(min(runs))
    if not lowering:
        print("no question could be reconstructed", file=sys.stderr)
        return 1
    for name, values in (("synthesis", synth), ("recall", recall), ("reconstruct", lowering)):
        print(
            f"{name:>12}: {len(values)} questions, median {statistics.median(values) * 1e3:.2f} ms, "
            f"p90 {_percentile(values, 0.9) * 1e3:.2f} ms"
        )
    ratio = statistics.median(lowering) / statistics.median(recall)
    print(f"reconstruct / recall (medians): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
