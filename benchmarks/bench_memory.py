"""Memory bank speed: build throughput against the raw embedder, index size, recall latency.

    python benchmarks/bench_memory.py [--queries 200] [--batch 32] [--repeat 3]

Builds the bank of WebQSP train (decomposition, descriptions, embedding, FAISS) and, in the
same run, embeds the very same sentences with the bare embedder, so the ratio says what
the bank adds on top of the model. Then recall latency (embedding the sentence included)
for single sentences and for batches, and FAISS search alone for the exact and the HNSW
index. Sentences are plan-like: gold statements of WebQSP train questions with their
entity names filled in.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from nl2sparql.memory_bank.bank import MemoryBank, embedding_text  # noqa: E402
from nl2sparql.memory_bank.bank_file import bank_members  # noqa: E402
from nl2sparql.memory_bank.build_queries import (  # noqa: E402
    QueryDecomposer,
    collect_from_examples,
    literal_predicate,
    load_examples,
    reverse_of,
)
from nl2sparql.memory_bank.build_store import all_readings  # noqa: E402
from nl2sparql.memory_bank.embedder import default_embedder  # noqa: E402
from nl2sparql.memory_bank.index import IndexSettings, VectorIndex  # noqa: E402
from nl2sparql.memory_bank.tune import ground  # noqa: E402


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"p50 {p50:7.2f} ms   p95 {p95:7.2f} ms   (n={len(ms)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="sentences for the latency runs")
    parser.add_argument("--batch", type=int, default=32, help="batch size for batched recall")
    parser.add_argument("--repeat", type=int, default=3, help="build / embed repetitions (best is kept)")
    args = parser.parse_args()

    embedder = default_embedder()
    embedder.encode(["warm up the model"])  # load once, outside every timing

    examples = load_examples("webqsp-train")
    decomposer = QueryDecomposer()
    t_decompose = time.perf_counter()
    entries, report = collect_from_examples(examples, decomposer)
    entries = all_readings(entries, literal_predicate(decomposer.schema), reverse_of(decomposer.schema))
    t_decompose = time.perf_counter() - t_decompose
    print(
        f"decompose {report.queries} queries -> {len(entries)} entries: {t_decompose:.2f} s "
        f"({report.queries / t_decompose:,.0f} queries/s)"
    )

    # Build and bare embedding alternate, so a busy machine slows both alike.
    built: list[MemoryBank] = []
    texts: list[str] = []
    build_times, raw_times = [], []
    for _ in range(args.repeat):
        build_times.append(
            timed(lambda: built.append(MemoryBank.build(entries, embedder=embedder, describer=decomposer.describer)))
        )
        texts = [embedding_text(e) for e in (*built[-1].statements, *built[-1].constraints)]
        raw_times.append(timed(lambda t=texts: embedder.encode(t)))
    bank = built[-1]
    n = len(texts)
    build_rate, raw_rate = n / min(build_times), n / min(raw_times)
    print(f"bank build:  {n} statements in {min(build_times):.2f} s = {build_rate:8,.1f} statements/s")
    print(f"raw embed:   {n} sentences  in {min(raw_times):.2f} s = {raw_rate:8,.1f} sentences/s")
    print(f"ratio build / raw embedder throughput: {build_rate / raw_rate:.3f}")

    members = bank_members(bank)
    graph, cons = bank.index("graph"), bank.index("constraint")
    print(
        f"index: graph {len(graph)} x {bank.meta.dimension} ({graph.kind}) "
        f"{len(members['index.graph.faiss']) / 1e6:.2f} MB; constraint {len(cons)} "
        f"{len(members['index.constraint.faiss']) / 1e6:.2f} MB; "
        f"bank file {sum(map(len, members.values())) / 1e6:.2f} MB"
    )

    sentences: list[str] = []
    for example in examples:
        if len(sentences) >= args.queries:
            break
        labels = {f"ns:{k}": v for k, v in (example.entities or {}).items() if v}
        for occ in decomposer.decompose_example(example).statements:
            sentences.append(ground(occ.entry.description, dict(occ.bindings), labels, occ.entry.output))
    sentences = sentences[: args.queries]

    single, embed_one = [], []
    for sentence in sentences:  # interleaved, so both see the same machine load
        embed_one.append(timed(lambda s=sentence: embedder.encode([s])))
        single.append(timed(lambda s=sentence: bank.recall(s)))
    print(f"embed one sentence (no search): {percentiles(embed_one)}")
    print(f"recall, one sentence:           {percentiles(single)}")
    ratio = statistics.median(single) / statistics.median(embed_one)
    print(f"recall / bare embedding, p50:   {ratio:.3f}")
    batches = [sentences[i : i + args.batch] for i in range(0, len(sentences), args.batch)]
    batch_times = [timed(lambda b=b: bank.recall_batch(b)) for b in batches for _ in range(3)]
    per_query = [t / args.batch for t in batch_times]
    print(f"recall, batch of {args.batch:3d}:           {percentiles(batch_times)}")
    print(f"recall, batch, per sentence:    {percentiles(per_query)}")

    vectors = embedder.encode(sentences)
    stored = bank.index("graph").vectors()
    big = np.vstack([stored] * max(1, 50_000 // len(stored)))
    for kind in ("flat", "hnsw"):
        for base, label in ((stored, f"{len(stored)}"), (big, f"{len(big)}")):
            index = VectorIndex.build(base, IndexSettings(kind=kind))
            search = [timed(lambda v=v, ix=index: ix.search(v.reshape(1, -1), 40)) for v in vectors]
            print(f"FAISS {kind:4s} search over {label:>6s} vectors:  {percentiles(search)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
