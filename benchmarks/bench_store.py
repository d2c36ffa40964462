"""Store benchmark: Oxigraph load throughput on FB15k-237, and CVT query latency Oxigraph vs rdflib.

    python benchmarks/bench_store.py [--nt FILE.nt.gz] [--repeat 20] [--skip-rdflib]

Without ``--nt`` the CVT-expanded FB15k-237 graph is imported from the data folder into
a temporary folder first. Prints load time and triples/s, then p50/p95 latency per query
on each store and the rdflib/Oxigraph ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nl2sparql.config import data_dir
from nl2sparql.kg.fb15k237 import import_fb15k237
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.kg.rdflib_store import RdflibStore
from nl2sparql.kg.store import Store


def ns(local: str) -> str:
    return f"<http://rdf.freebase.com/ns/{local}>"


NAME = ns("type.object.name")

QUERIES = {
    "athlete -> roster CVT -> team": f"""
        SELECT DISTINCT ?x WHERE {{ {ns("m.02cg2v")} {ns("sports.pro_athlete.teams")} ?y .
                                    ?y {ns("sports.sports_team_roster.team")} ?x . }}""",
    "places lived, time window": f"""
        PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
        SELECT DISTINCT ?x WHERE {{
          {ns("m.01sg7_")} {ns("people.person.places_lived")} ?y . ?y {ns("people.place_lived.location")} ?x .
          FILTER (NOT EXISTS {{ ?y {ns("people.place_lived.end_date")} ?e }} ||
                  EXISTS {{ ?y {ns("people.place_lived.end_date")} ?e2 .
                           FILTER (xsd:dateTime(?e2) >= "2015-08-10"^^xsd:dateTime) }}) }}""",
    "actor's films with names": f"""
        SELECT ?film ?name WHERE {{ {ns("m.016z2j")} {ns("film.actor.film")} ?p .
                                    ?p {ns("film.performance.film")} ?film . ?film {NAME} ?name . }}""",
    "team <- roster CVT <- players (reverse)": f"""
        SELECT ?player ?name WHERE {{
          ?r {ns("sports.sports_team_roster.team")} {ns("m.0jm3v")} .
          ?player {ns("sports.pro_athlete.teams")} ?r . ?player {NAME} ?name . }}""",
    "count award nominations through CVT": f"""
        SELECT (COUNT(DISTINCT ?award) AS ?n) WHERE {{
          {ns("m.016z2j")} {ns("award.award_nominee.award_nominations")} ?c .
          ?c {ns("award.award_nomination.award")} ?award . }}""",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def spread(times: list[float]) -> str:
    return f"{percentile(times, 0.5):8.2f} / {percentile(times, 0.95):7.2f}"


def throughput(triples: int, seconds: float) -> str:
    return f"{triples:,} triples in {seconds:.2f} s = {triples / seconds:,.0f} triples/s"


def latencies(store: Store, repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, query in QUERIES.items():
        store.select(query)  # warm-up
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            rows = store.select(query).rows
            times.append((time.perf_counter() - started) * 1000)
        out[name] = times
        if not rows:
            print(f"warning: {name!r} returned no rows", file=sys.stderr)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nt", type=Path, help="CVT-expanded FB15k-237 N-Triples (default: import it now)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--skip-rdflib", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="nl2sparql-bench-") as tmp:
        nt = args.nt
        if nt is None:
            started = time.perf_counter()
            report = import_fb15k237(data_dir() / "fb15k-237", Path(tmp) / "fb15k237.nt.gz")  # type: ignore[operator]
            nt = report.path
            print(
                f"import-fb15k237: {report.triples:,} triples, {report.cvt_nodes:,} CVT nodes "
                f"in {time.perf_counter() - started:.1f} s"
            )
        oxigraph = OxigraphStore(Path(tmp) / "store")
        load = oxigraph.load(nt, progress=False)
        print(f"oxigraph load: {throughput(load.added, load.seconds)}")
        stores: dict[str, Store] = {"oxigraph": oxigraph}
        if not args.skip_rdflib:
            started = time.perf_counter()
            stores["rdflib"] = RdflibStore(nt)
            print(f"rdflib load: {throughput(load.added, time.perf_counter() - started)}")
        results = {name: latencies(store, args.repeat) for name, store in stores.items()}
        print(f"\nlatency in ms over {args.repeat} runs (p50 / p95)")
        print(
            f"{'query':42} {'oxigraph':>18}"
            + (f" {'rdflib':>18} {'ratio p50':>10}" if len(stores) > 1 else "")
        )
        every = {name: [t for times in r.values() for t in times] for name, r in results.items()}
        rows = [(name, {store: r[name] for store, r in results.items()}) for name in QUERIES]
        for name, times in [*rows, ("all queries", every)]:
            line = f"{name:42} {spread(times['oxigraph'])}"
            if "rdflib" in times:
                ratio = statistics.median(times["rdflib"]) / max(statistics.median(times["oxigraph"]), 1e-9)
                line += f" {spread(times['rdflib'])} {ratio:9.1f}x"
            print(line)
        oxigraph.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
