"""``nl2sparql kg``: build a store from files, query it or a remote endpoint, show its size.

The commands are thin: each parses its options, calls the library and prints. Errors are
:class:`~nl2sparql.errors.Nl2SparqlError` subclasses, which the top-level CLI prints as
one line with a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from nl2sparql.errors import Nl2SparqlError

FORMATTER = argparse.RawDescriptionHelpFormatter

KG_EPILOG = """examples:
  nl2sparql kg import-fb15k237 --out fb15k237.nt.gz
  nl2sparql kg load fb15k237.nt.gz --store ./store
  nl2sparql kg query --store ./store 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'
  nl2sparql kg stats --store ./store
  nl2sparql kg link --store ./store "who are the members of the beatles"
  nl2sparql kg ground --store ./store "how many bands were formed in 1991"
"""

LINK_EPILOG = """Entities are found by their labels (rdfs:label, skos:prefLabel/altLabel, schema:name,
foaf:name, Freebase names) and, for entities with none, by words of their IRI's local
name (JohnLennonP -> "John Lennon P", also matched as "John Lennon"). The first line
says how many entities each source named. The index is cached in the store folder.

examples:
  nl2sparql kg link --store ./store "which band was john lennon a member of"
  nl2sparql kg link --store ./store "paul mccartney" --top 3 --json
"""

GROUND_EPILOG = """Grounds the question in the graph: the entities it names (as 'kg link' finds them),
the classes (labels and IRI local names, singular or plural: "bands" -> Band) and the
literal values it writes (strings, numbers and dates that occur as objects, with their
predicates). Each is printed with its score, best first. The classes and values are read
once (literals up to 60 characters, the 50,000 most frequent (value, predicate) pairs) and
cached in the store folder beside the label index.

examples:
  nl2sparql kg ground --store ./store "which albums were released in 1975"
  nl2sparql kg ground --store ./store "companies based in Leipzig" --top 3 --json
"""

IMPORT_EPILOG = """FB15k-237 collapses Freebase CVT nodes into relations such as
/film/actor/film./film/performance/film; the import puts them back
(h film.actor.film c . c film.performance.film t) and adds English names.

examples:
  nl2sparql kg import-fb15k237 --out fb15k237.nt.gz
  nl2sparql kg import-fb15k237 --src /data/fb15k-237 --out fb15k237.nt --json
"""

LOAD_EPILOG = """The load is all or nothing: if any file fails (missing, bad syntax, truncated
gzip, Ctrl-C) the store keeps exactly its previous content.

examples:
  nl2sparql kg load fb15k237.nt.gz --store ./store
  nl2sparql kg load schema.ttl extra.rdf.gz --store ./store
  nl2sparql kg load dump.data --format nt --store ./store
"""

QUERY_EPILOG = """Prints SPARQL 1.1 JSON results (ASK: {"head": {}, "boolean": ...}). Only SELECT
and ASK run; updates and SERVICE calls are refused. The query may be given as text,
as @FILE, or as - to read it from standard input. The endpoint password or token may
also come from NL2SPARQL_ENDPOINT_PASSWORD / NL2SPARQL_ENDPOINT_TOKEN.

examples:
  nl2sparql kg query --store ./store 'SELECT ?name WHERE {
    <http://rdf.freebase.com/ns/m.016z2j> <http://rdf.freebase.com/ns/type.object.name> ?name }'
  nl2sparql kg query --store ./store @question.rq --timeout 5
  nl2sparql kg query --endpoint http://localhost:8890/sparql 'ASK { ?s ?p ?o }'
  nl2sparql kg query --endpoint https://kg.example.org/sparql --token "$TOKEN" @q.rq
"""

STATS_EPILOG = """examples:
  nl2sparql kg stats --store ./store
  nl2sparql kg stats --store ./store --json
  nl2sparql kg stats --endpoint http://localhost:8890/sparql --default-graph http://example.org/g
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``kg`` command group."""
    kg = subparsers.add_parser(
        "kg",
        help="knowledge-graph stores: import, load, query, stats",
        description="Build and query the knowledge graph the answers come from.",
        epilog=KG_EPILOG,
        formatter_class=FORMATTER,
    )
    kg.set_defaults(func=lambda args: _help(kg))
    commands = kg.add_subparsers(dest="kg_command", metavar="COMMAND")

    imp = commands.add_parser(
        "import-fb15k237",
        help="convert FB15k-237 into CVT-expanded Freebase N-Triples",
        epilog=IMPORT_EPILOG,
        formatter_class=FORMATTER,
    )
    imp.add_argument("--src", type=Path, help="FB15k-237 folder (default: the data folder's fb15k-237)")
    imp.add_argument("--out", type=Path, required=True, help="output file, .nt or .nt.gz")
    imp.add_argument("--json", action="store_true", help="print the report as JSON")
    imp.set_defaults(func=_import_fb15k237)

    load = commands.add_parser(
        "load",
        help="load RDF files into an Oxigraph store folder",
        epilog=LOAD_EPILOG,
        formatter_class=FORMATTER,
    )
    load.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help=".nt, .ttl, .rdf/.owl/.xml, optionally .gz"
    )
    load.add_argument("--store", type=Path, required=True, help="store folder (created when missing)")
    load.add_argument("--format", help="nt, ttl or rdfxml (default: from each file's extension)")
    load.add_argument("--no-progress", action="store_true", help="no progress bar")
    load.add_argument("--json", action="store_true", help="print the report as JSON")
    load.set_defaults(func=_load)

    query = commands.add_parser(
        "query", help="run a SELECT or ASK query", epilog=QUERY_EPILOG, formatter_class=FORMATTER
    )
    _target_options(query)
    query.add_argument("--timeout", type=float, help="seconds before the query is stopped")
    query.add_argument("--json", action="store_true", help="accepted for symmetry: output is always JSON")
    query.add_argument("query", help="SPARQL text, @FILE, or - for standard input")
    query.set_defaults(func=_query)

    stats = commands.add_parser(
        "stats", help="triple count and triples per predicate", epilog=STATS_EPILOG, formatter_class=FORMATTER
    )
    _target_options(stats)
    stats.add_argument("--top", type=int, default=20, help="predicates to list (default 20)")
    stats.add_argument("--json", action="store_true", help="print all counts as JSON")
    stats.set_defaults(func=_stats)

    link = commands.add_parser(
        "link",
        help="the entities a question names (and what the index holds)",
        epilog=LINK_EPILOG,
        formatter_class=FORMATTER,
    )
    _target_options(link)
    link.add_argument("question", help="the question text")
    link.add_argument("--top", type=int, default=5, help="candidates to list (default 5)")
    link.add_argument("--json", action="store_true", help="print the index report and candidates as JSON")
    link.set_defaults(func=_link)

    ground = commands.add_parser(
        "ground",
        help="the entities, classes and literal values a question names, with scores",
        epilog=GROUND_EPILOG,
        formatter_class=FORMATTER,
    )
    _target_options(ground)
    ground.add_argument("question", help="the question text")
    ground.add_argument("--top", type=int, default=5, help="groundings of each kind to list (default 5)")
    ground.add_argument("--json", action="store_true", help="print the index report and groundings as JSON")
    ground.set_defaults(func=_ground)


def _target_options(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--store", type=Path, help="Oxigraph store folder")
    target.add_argument("--endpoint", metavar="URL", help="SPARQL 1.1 endpoint URL")
    parser.add_argument("--user", help="endpoint user (basic auth)")
    parser.add_argument("--password", help="endpoint password (or NL2SPARQL_ENDPOINT_PASSWORD)")
    parser.add_argument("--token", help="endpoint bearer token (or NL2SPARQL_ENDPOINT_TOKEN)")
    parser.add_argument("--default-graph", metavar="IRI", help="endpoint default graph (default-graph-uri)")


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _open(args: argparse.Namespace) -> Any:
    from nl2sparql.kg.store import open_store

    if args.store is not None:
        if not args.store.is_dir():
            raise Nl2SparqlError(
                f"store folder {args.store} does not exist (create it with 'nl2sparql kg load')"
            )
        return open_store("oxigraph", path=args.store)
    password = args.password or os.environ.get("NL2SPARQL_ENDPOINT_PASSWORD")
    token = args.token or os.environ.get("NL2SPARQL_ENDPOINT_TOKEN")
    options: dict[str, Any] = {"url": args.endpoint, "default_graph": args.default_graph}
    if args.user is not None:
        options.update(user=args.user, password=password)
    elif token:
        options["token"] = token
    return open_store("endpoint", **options)


def _import_fb15k237(args: argparse.Namespace) -> int:
    from nl2sparql.config import data_dir
    from nl2sparql.kg.fb15k237 import import_fb15k237

    src = args.src or data_dir() / "fb15k-237"  # type: ignore[operator]
    report = import_fb15k237(src, args.out)
    if args.json:
        print(json.dumps({**_report_dict(report), "path": str(report.path)}, indent=2))
    else:
        print(
            f"wrote {report.triples:,} triples ({report.cvt_nodes:,} CVT nodes, "
            f"{report.entities:,} entities, {report.relations} relations) to {report.path}"
        )
    return 0


def _load(args: argparse.Namespace) -> int:
    from nl2sparql.kg.oxigraph_store import OxigraphStore
    from nl2sparql.kg.rdf_files import check_file

    for file in args.files:  # every file is checked before the store folder is created
        check_file(file, args.format)
    store = OxigraphStore(args.store)
    try:
        report = store.load(args.files, args.format, progress=not args.no_progress)
    finally:
        store.close()
    if args.json:
        out = {
            "store": str(args.store),
            "files": [str(f) for f in report.files],
            "triples_before": report.triples_before,
            "triples_after": report.triples_after,
            "added": report.added,
            "seconds": round(report.seconds, 3),
        }
        print(json.dumps(out, indent=2))
    else:
        rate = report.added / report.seconds if report.seconds else 0.0
        print(
            f"loaded {len(report.files)} file(s) into {args.store}: {report.added:,} triples added, "
            f"{report.triples_after:,} in total ({report.seconds:.1f} s, {rate:,.0f} triples/s)"
        )
    return 0


def _read_query(text: str) -> str:
    if text == "-":
        return sys.stdin.read()
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise Nl2SparqlError(f"cannot read the query file {path}: {exc.strerror or exc}") from exc
    return text


def _query(args: argparse.Namespace) -> int:
    from nl2sparql.kg.terms import SelectResult, ask_json

    text = _read_query(args.query)
    with _open(args) as store:
        result = store.query(text, timeout=args.timeout)
    out = result.to_json() if isinstance(result, SelectResult) else ask_json(result)
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


def _stats(args: argparse.Namespace) -> int:
    with _open(args) as store:
        stats = store.stats()
    if args.json:
        print(json.dumps(stats.to_json(), indent=2))
        return 0
    print(f"triples: {stats.triples:,}")
    print(f"predicates: {len(stats.predicates):,}")
    ranked = sorted(stats.predicates.items(), key=lambda kv: (-kv[1], kv[0]))
    for predicate, count in ranked[: max(args.top, 0)]:
        print(f"  {count:>10,}  {predicate}")
    return 0


def _link(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from nl2sparql.kg.label_index import source_name
    from nl2sparql.kg.linker import EntityLinker

    with _open(args) as store:
        linker = EntityLinker.from_store(store)
    report = linker.report
    candidates = linker.link(args.question, k=max(args.top, 0))
    if args.json:
        indexed = {"entities": report.entities, "sources": {source_name(k): v for k, v in report.sources.items()}}
        print(json.dumps({"index": indexed, "candidates": [asdict(c) for c in candidates]}, indent=2))
        return 0
    print(report.describe())
    for c in candidates:
        print(f"  {c.score:6.3f}  {c.entity_id}  {c.name!r}  ({c.match} match of {c.mention!r})")
    return 0


def _ground(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from nl2sparql.kg.grounding import Grounder
    from nl2sparql.question import check_question

    question = check_question(args.question)  # before the store is opened
    with _open(args) as store:
        grounder = Grounder.from_store(store)
    grounding = grounder.ground(question, k=max(args.top, 0))
    report, labels = grounder.report, grounder.linker.report if grounder.linker else None
    if args.json:
        index = {**asdict(report), "cache_path": str(report.cache_path)} if report else {}
        print(json.dumps({"index": index, **grounding.to_json()}, indent=2, ensure_ascii=False))
        return 0
    print("; ".join(r.describe() for r in (report, labels) if r is not None))
    for line in _grounding_lines(grounding):
        print(line)
    return 0


def _grounding_lines(grounding: Any) -> list[str]:
    """Each grounding as one line under its kind: score, what it is, how it matched which words."""
    lines = ["entities:"]
    for e in grounding.entities:
        lines.append(f"  {e.score:6.3f}  {e.entity_id}  {e.name!r}  ({e.match} match of {e.mention!r})")
    lines.append("classes:")
    for c in grounding.classes:
        lines.append(f"  {c.score:6.3f}  {c.iri}  {c.name!r}  ({c.match} match of {c.mention!r})")
    lines.append("values:")
    for v in grounding.values:
        predicates = ", ".join(v.predicates[:3]) + (f" (+{len(v.predicates) - 3})" if len(v.predicates) > 3 else "")
        lines.append(f"  {v.score:6.3f}  {v.term().n3()}  of {predicates}  ({v.match} match of {v.mention!r})")
    return lines


def _report_dict(report: Any) -> dict[str, Any]:
    return {
        "triples": report.triples,
        "cvt_nodes": report.cvt_nodes,
        "entities": report.entities,
        "names": report.names,
        "relations": report.relations,
        "source_triples": report.source_triples,
    }
