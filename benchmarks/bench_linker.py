"""Entity-linking cost on the FB15k-237 store: building the label index, loading it, linking.

    python benchmarks/bench_linker.py [--store DIR] [--repeat 3]

Prints the index build time (a fresh build from the store's SELECTs), its cache file size
and reload time, and per-question latency (p50 / p95 / mean, milliseconds) of ``link(q,
k=5)`` over every WebQSP test part-A question, with and without a mention prior, after a
warm-up pass. Without ``--store`` the FB15k-237 store is built once under the nl2sparql
home folder (see ``nl2sparql.evaluation.linking_report``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from nl2sparql.config import data_file
from nl2sparql.evaluation.linking_report import TRAIN, open_fb15k_store
from nl2sparql.kg.datasets import load_dataset
from nl2sparql.kg.label_index import LabelIndex, load_or_build
from nl2sparql.kg.linker import EntityLinker
from nl2sparql.kg.mention_prior import MentionPrior


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def latencies(linker: EntityLinker, questions: list[str], repeat: int) -> list[float]:
    for question in questions:  # warm-up
        linker.link(question, k=5)
    out = []
    for _ in range(repeat):
        for question in questions:
            start = time.perf_counter()
            linker.link(question, k=5)
            out.append(1000 * (time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="Oxigraph store folder (default: FB15k-237, built once)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes over the questions (default 3)")
    args = parser.parse_args()

    store = open_fb15k_store(args.store)
    triples = store.stats().triples
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "label-index.json.gz"
        index, built = load_or_build(store, cache, rebuild=True)
        start = time.perf_counter()
        LabelIndex.load(cache)
        load_s = time.perf_counter() - start
    print(f"store: {triples:,} triples, {len(index):,} named entities, {len(index.vocabulary):,} label keys")
    print(f"index build (SELECT labels + degree count + index): {built.seconds * 1000:8.1f} ms")
    print(f"index load from cache:                              {load_s * 1000:8.1f} ms")
    print(f"cache file:                                         {built.cache_bytes / 1024:8.1f} KiB")
    print(f"build / load:                                       {built.seconds / load_s:8.1f}x")

    questions = [e.question for e in load_dataset(data_file("webqsp/WebQSP.test.part-A.json"), "webqsp")]
    plain = EntityLinker(index)
    start = time.perf_counter()
    train = [(e.question, tuple(e.entities)) for e in load_dataset(data_file(TRAIN), "webqsp") if e.entities]
    prior = MentionPrior.learn(train, plain.ngram_candidates)
    learn_s = time.perf_counter() - start
    print(f"mention prior learned on {len(train):,} train questions:   {learn_s:8.1f} s")

    print(f"\nlink(question, k=5) over {len(questions)} WebQSP test part-A questions x {args.repeat}:")
    print(f"  {'setting':<24} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'q/s':>8}")
    for name, linker in (
        ("linker", plain),
        ("linker + mention prior", EntityLinker(index, mention_prior=prior)),
    ):
        times = latencies(linker, questions, args.repeat)
        mean = statistics.fmean(times)
        p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
        print(f"  {name:<24} {p50:8.2f} {p95:8.2f} {mean:8.2f} {1000 / mean:8.0f}")
    print(f"  index build / one question (p50): {built.seconds * 1000 / p50:,.0f}x")


if __name__ == "__main__":
    main()
