"""``nl2sparql bank ...``: build, inspect, search, move and measure memory banks.

A bank is how the product moves to a new KG: build one from gold queries
(``--from-queries``) or from the KG alone (``--from-store``), merge them, carry the
``.nl2sq`` file to another machine and import it there. Every command that prints
results takes ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nl2sparql.memory_bank.errors import MemoryBankError

EPILOG = """examples:
  nl2sparql bank build --from-queries webqsp-train --out webqsp.nl2sq
  nl2sparql bank build --from-queries my_questions.json --format cwq --out mine.nl2sq
  nl2sparql bank build --from-store ~/.cache/nl2sparql/store --check-fb15k --out fb15k.nl2sq
  nl2sparql bank build --from-store ./mystore --out mine.nl2sq   (any RDF graph, labels or not)
  nl2sparql bank build --from-endpoint http://localhost:8890/sparql --default-graph http://my/g --out mine.nl2sq
  nl2sparql bank info webqsp.nl2sq --json
  nl2sparql bank recall webqsp.nl2sq "the sibling of Justin Bieber" --top 5
  nl2sparql bank merge webqsp.nl2sq fb15k.nl2sq --out both.nl2sq
  nl2sparql bank coverage webqsp.nl2sq fb15k.nl2sq --dataset webqsp-test --dataset cwq-test
  nl2sparql bank import both.nl2sq --into ./bank      (unpack, every checksum checked)
  nl2sparql bank export ./bank --out again.nl2sq
  nl2sparql bank decompose 'SELECT ?x WHERE { ns:m.06w2sn5 ns:people.person.sibling_s ?y . ?y
      ns:people.sibling_relationship.sibling ?x }' --topic m.06w2sn5
  nl2sparql bank tune                                  (gamma1 / gamma2 on the WebQSP dev split)
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    bank = subparsers.add_parser(
        "bank",
        help="memory banks of CVT-aware query statements",
        description="Build, inspect, search, merge, export and import memory banks (.nl2sq).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = bank.add_subparsers(dest="bank_command", metavar="COMMAND")
    bank.set_defaults(func=lambda args: _help(bank))

    build = commands.add_parser(
        "build",
        help="build a bank from gold queries or from a KG store",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = build.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--from-queries",
        metavar="SRC",
        help="webqsp-train, webqsp-test, cwq-test, cwq-train (CWQ part A less its dev split), or a dataset "
        "file (WebQSP/CWQ/GrailQA/QALD JSON); several joined by commas",
    )
    source.add_argument("--from-store", metavar="DIR", help="an Oxigraph store folder (or a SPARQL endpoint URL)")
    source.add_argument(
        "--from-schema",
        metavar="DIR",
        nargs="?",
        const="",
        help="the Freebase ontology folder (fb_roles, fb_types; default: <data>/freebase-ontology): "
        "every statement its relations and CVT types allow",
    )
    source.add_argument("--from-endpoint", metavar="URL", help="a SPARQL 1.1 endpoint (read in pages)")
    build.add_argument("--format", help="dataset format of a --from-queries file (webqsp, cwq, grailqa, qald)")
    build.add_argument("--out", required=True, type=Path, help="the .nl2sq file to write")
    build.add_argument(
        "--observed-only",
        action="store_true",
        help="keep only statements seen in the queries (no other readings of them)",
    )
    build.add_argument(
        "--with-schema",
        action="store_true",
        help="--from-queries: add every statement the Freebase schema allows (support 0)",
    )
    build.add_argument("--index", choices=("auto", "flat", "hnsw"), default="auto", help="FAISS index kind")
    build.add_argument("--limit", type=int, help="--from-store/--from-endpoint: read at most this many triples")
    build.add_argument("--default-graph", metavar="IRI", help="--from-endpoint: the endpoint's default graph")
    build.add_argument("--user", help="--from-endpoint: user (basic auth; password from NL2SPARQL_ENDPOINT_PASSWORD)")
    build.add_argument("--token", help="--from-endpoint: bearer token (or NL2SPARQL_ENDPOINT_TOKEN)")
    build.add_argument(
        "--check-fb15k",
        action="store_true",
        help="--from-store: report how many FB15k-237 two-hop CVT relations were found",
    )
    _common(build)
    build.set_defaults(func=_build)

    info = commands.add_parser("info", help="what a bank holds")
    info.add_argument("bank", type=Path)
    _common(info)
    info.set_defaults(func=_info)

    recall = commands.add_parser("recall", help="statements for a plan sentence (adaptive recall)")
    recall.add_argument("bank", type=Path)
    recall.add_argument("sentence", nargs="+", help="one or more sentences (batched)")
    recall.add_argument("--top", type=int, default=5, help="candidates to show (default 5)")
    recall.add_argument("--section", choices=("graph", "constraint"), default="graph")
    recall.add_argument("--gamma1", type=float, help="take only the best when its score reaches this")
    recall.add_argument("--gamma2", type=float, help="otherwise take all scoring at least this")
    _common(recall)
    recall.set_defaults(func=_recall)

    export = commands.add_parser("export", help="pack a bank folder into one .nl2sq file")
    export.add_argument("folder", type=Path)
    export.add_argument("--out", required=True, type=Path)
    _common(export)
    export.set_defaults(func=_export)

    imp = commands.add_parser("import", help="check a .nl2sq file and unpack it into a folder")
    imp.add_argument("bank", type=Path)
    imp.add_argument("--into", required=True, type=Path, help="target folder (created; a bank folder is replaced)")
    _common(imp)
    imp.set_defaults(func=_import)

    merge = commands.add_parser("merge", help="one bank with the statements of two")
    merge.add_argument("a", type=Path)
    merge.add_argument("b", type=Path)
    merge.add_argument("--out", required=True, type=Path)
    _common(merge)
    merge.set_defaults(func=_merge)

    cov = commands.add_parser("coverage", help="share of gold queries whose every statement is in the bank(s)")
    cov.add_argument("banks", nargs="+", type=Path, help="one or more banks (their union is measured)")
    cov.add_argument(
        "--dataset",
        action="append",
        help="webqsp-test, cwq-test, cwq-dev, cwq-train, webqsp-train, webqsp-dev or a dataset file "
        "(repeatable; default: both tests)",
    )
    _common(cov)
    cov.set_defaults(func=_coverage)

    dec = commands.add_parser("decompose", help="the statements of one SPARQL query")
    dec.add_argument("query", help="SPARQL text, or @FILE")
    dec.add_argument("--topic", action="append", default=[], help="a topic entity id (m.06w2sn5); repeatable")
    dec.add_argument("--dialect", default="virtuoso", choices=("virtuoso", "sparql11"))
    _common(dec)
    dec.set_defaults(func=_decompose)

    tune = commands.add_parser(
        "tune", help="measure recall@k and pick gamma1/gamma2 on the dev splits, with a bank built as the default is"
    )
    tune.add_argument(
        "--webqsp-only",
        action="store_true",
        help="a bank of WebQSP train alone, no CWQ and no schema statements (the earlier default)",
    )
    _common(tune)
    tune.set_defaults(func=_tune)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _print(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    print(json.dumps(payload, indent=2, ensure_ascii=False) if args.json else text)


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and not args.json and sys.stderr.isatty()


# -- handlers -----------------------------------------------------------------------------------


def _build(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.bank_file import save_bank
    from nl2sparql.memory_bank.index import IndexSettings

    settings = IndexSettings(kind=args.index)
    progress = _progress(args)
    extra: dict[str, Any] = {}
    if args.from_queries:
        from nl2sparql.memory_bank.build_queries import build_bank_from_queries, load_examples

        examples = load_examples(args.from_queries, args.format)
        bank, report = build_bank_from_queries(
            examples,
            index_settings=settings,
            source=args.from_queries,
            progress=progress,
            every_reading=not args.observed_only,
            with_schema=args.with_schema,
        )
        extra["decomposition"] = report.to_json()
    elif args.from_schema is not None:
        from nl2sparql.kg.freebase_schema import load_schema
        from nl2sparql.memory_bank.bank import MemoryBank
        from nl2sparql.memory_bank.describe import TemplateDescriber
        from nl2sparql.memory_bank.schema_statements import schema_statements

        schema = load_schema(args.from_schema or None)
        bank = MemoryBank.build(
            schema_statements(schema),
            describer=TemplateDescriber(schema),
            index_settings=settings,
            sources=("freebase-schema",),
            progress=progress,
        )
    else:
        from nl2sparql.memory_bank.build_store import (
            build_bank_from_store,
            cvt_relations_found,
            fb15k_cvt_relations,
        )

        location = args.from_endpoint or args.from_store
        store = _open_store(location, args)
        try:
            bank, scan = build_bank_from_store(
                store,
                index_settings=settings,
                source=f"{'endpoint' if _is_url(location) else 'store'}:{location}",
                limit=args.limit,
                progress=progress,
            )
        finally:
            store.close()
        extra["scan"] = {
            "triples": scan.triples,
            "named_entities": scan.named,
            "cvt_nodes": scan.cvt_nodes,
            "plain_predicates": len(scan.plain),
            "cvt_signatures": len(scan.signatures),
            "schema_triples": scan.schema_triples,
        }
        extra["kg"] = {"namespace": bank.meta.namespace, "prefixes": bank.meta.prefixes}
        if args.check_fb15k:
            found = cvt_relations_found(bank.statements, fb15k_cvt_relations())
            extra["fb15k_cvt_relations"] = {
                "found": sum(found.values()),
                "total": len(found),
                "missing": sorted(k for k, v in found.items() if not v),
            }
    path = save_bank(bank, args.out)
    payload = {
        "bank": str(path),
        "counts": bank.counts(),
        "statements": len(bank.statements),
        "constraints": len(bank.constraints),
        **extra,
    }
    lines = [
        f"wrote {path}: {len(bank.statements)} statements, {len(bank.constraints)} constraints",
        "by structure: " + ", ".join(f"{k}: {v}" for k, v in bank.counts()["structure"].items()),
        "constraints: " + (", ".join(f"{k}: {v}" for k, v in bank.counts()["constraint"].items()) or "none"),
    ]
    if "decomposition" in extra:
        rep = extra["decomposition"]
        lines.append(f"queries: {rep['queries']}, decomposed: {rep['decomposed']}, complete: {rep['complete']}")
    if "kg" in extra:
        lines.append("prefixes: " + ", ".join(f"{k}: <{v}>" for k, v in bank.meta.prefixes.items()))
    if "fb15k_cvt_relations" in extra:
        fb = extra["fb15k_cvt_relations"]
        lines.append(f"FB15k-237 two-hop CVT relations rediscovered: {fb['found']}/{fb['total']}")
    _print(args, payload, "\n".join(lines))
    return 0


def _is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def _open_store(location: str, args: argparse.Namespace | None = None) -> Any:
    """A store folder, or an endpoint (a URL given to --from-endpoint or, as before, --from-store)."""
    import os

    from nl2sparql.kg.store import open_store

    if _is_url(location):
        options: dict[str, Any] = {"url": location}
        if args is not None and args.default_graph:
            options["default_graph"] = args.default_graph
        token = (args.token if args is not None else None) or os.environ.get("NL2SPARQL_ENDPOINT_TOKEN")
        if args is not None and args.user:
            options.update(user=args.user, password=os.environ.get("NL2SPARQL_ENDPOINT_PASSWORD"))
        elif token:
            options["token"] = token
        return open_store("endpoint", **options)
    if args is not None and args.from_endpoint:
        raise MemoryBankError(f"--from-endpoint {location}: not an http(s) URL (a store folder goes to --from-store)")
    if not Path(location).exists():
        raise MemoryBankError(f"--from-store {location}: no such store folder")
    return open_store("oxigraph", path=location)


def _load(path: Path) -> Any:
    from nl2sparql.memory_bank.bank_file import load_bank

    return load_bank(path)


def _info(args: argparse.Namespace) -> int:
    bank = _load(args.bank)
    payload = {
        "bank": str(args.bank),
        "embedder": {"name": bank.meta.embedder, "dimension": bank.meta.dimension},
        "namespace": bank.meta.namespace,
        "prefixes": bank.meta.prefixes,
        "describer": bank.meta.describer,
        "sources": list(bank.meta.sources),
        "statements": len(bank.statements),
        "constraints": len(bank.constraints),
        "counts": bank.counts(),
        "index": {s: {"kind": bank.index(s).kind, "size": len(bank.index(s))} for s in ("graph", "constraint")},
        "most_supported": [s.to_json() for s in sorted(bank.statements, key=lambda s: -s.support)[:5]],
    }
    text = "\n".join(
        [
            f"{args.bank}: {len(bank.statements)} statements, {len(bank.constraints)} constraints",
            f"embedder: {bank.meta.embedder} ({bank.meta.dimension})",
            "prefixes: " + ", ".join(f"{k}: <{v}>" for k, v in bank.meta.prefixes.items()),
            f"sources: {', '.join(bank.meta.sources)}",
            "by structure: " + ", ".join(f"{k}: {v}" for k, v in bank.counts()["structure"].items()),
            "constraints: " + (", ".join(f"{k}: {v}" for k, v in bank.counts()["constraint"].items()) or "none"),
            "most supported:",
            *(f"  {s.support:5d}  {s.description}" for s in sorted(bank.statements, key=lambda s: -s.support)[:5]),
        ]
    )
    _print(args, payload, text)
    return 0


def _recall(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from nl2sparql.memory_bank.recall import RecallSettings

    bank = _load(args.bank)
    settings = RecallSettings(candidates=max(args.top, 1))
    if args.gamma1 is not None:
        settings = replace(settings, gamma1=args.gamma1)
    if args.gamma2 is not None:
        settings = replace(settings, gamma2=args.gamma2)
    results = bank.recall_batch(args.sentence, args.section, settings)
    lines = []
    for r in results:
        lines.append(f"{r.sentence}  [{r.rule}: {len(r.selected)} selected]")
        for c in r.candidates[: args.top]:
            mark = "*" if c in r.selected else " "
            lines.append(f" {mark}{c.rank:2d}  {c.score:.3f}  {c.entry.description}")
            lines.append(f"            {c.entry.sparql}")
    _print(args, {"recalls": [r.to_json() for r in results]}, "\n".join(lines))
    return 0


def _export(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.bank_file import export_bank

    path = export_bank(args.folder, args.out)
    _print(args, {"bank": str(path), "from": str(args.folder)}, f"wrote {path}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.bank_file import import_bank

    bank = import_bank(args.bank, args.into)
    payload = {
        "folder": str(args.into),
        "statements": len(bank.statements),
        "constraints": len(bank.constraints),
    }
    _print(
        args,
        payload,
        f"imported {args.bank} into {args.into}: {len(bank.statements)} statements, "
        f"{len(bank.constraints)} constraints (all checksums verified)",
    )
    return 0


def _merge(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.bank import merge
    from nl2sparql.memory_bank.bank_file import save_bank

    merged = merge(_load(args.a), _load(args.b))
    path = save_bank(merged, args.out)
    payload = {
        "bank": str(path),
        "statements": len(merged.statements),
        "constraints": len(merged.constraints),
        "counts": merged.counts(),
    }
    _print(
        args,
        payload,
        f"wrote {path}: {len(merged.statements)} statements, {len(merged.constraints)} constraints",
    )
    return 0


def _coverage(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.bank_file import read_archive
    from nl2sparql.memory_bank.build_queries import QueryDecomposer, load_examples
    from nl2sparql.memory_bank.coverage import coverage

    keys: set[str] = set()
    for path in args.banks:
        keys |= _keys(path, read_archive)
    decomposer = QueryDecomposer()
    reports = [coverage(keys, load_examples(ds), ds, decomposer) for ds in args.dataset or ["webqsp-test", "cwq-test"]]
    payload = {
        "banks": [str(p) for p in args.banks],
        "statements": len(keys),
        "coverage": [r.to_json() for r in reports],
    }
    _print(args, payload, "\n".join(r.line() for r in reports))
    return 0


def _keys(path: Path, read_archive: Any) -> set[str]:
    """Statement keys of a bank, read without loading its index or the embedder."""
    from nl2sparql.memory_bank.bank_file import STATEMENTS, check_members, read_folder
    from nl2sparql.memory_bank.statement import entry_from_json

    members = read_folder(path) if path.is_dir() else read_archive(path)
    check_members(members, str(path), None)
    keys = set()
    for number, line in enumerate(members[STATEMENTS].decode("utf-8").splitlines(), 1):
        if line.strip():
            keys.add(entry_from_json(json.loads(line), f"{path}: {STATEMENTS} line {number}").key)
    return keys


def _decompose(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.build_queries import QueryDecomposer

    text = args.query
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise MemoryBankError(f"cannot read {text[1:]}: {exc.strerror}") from exc
    if "PREFIX ns:" not in text and "ns:" in text:
        text = "PREFIX ns: <http://rdf.freebase.com/ns/>\n" + text
    decomposer = QueryDecomposer(dialect=args.dialect)
    result = decomposer.decompose(text, [t if t.startswith("ns:") else f"ns:{t}" for t in args.topic])
    payload = {
        "statements": [{**o.entry.to_json(), "bindings": dict(o.bindings)} for o in result.statements],
        "constraints": [{**o.entry.to_json(), "bindings": dict(o.bindings)} for o in result.constraints],
        "cvts": sorted(result.cvts),
        "problems": list(result.problems),
    }
    lines = []
    for o in (*result.statements, *result.constraints):
        tag = f"structure {o.entry.structure}" if hasattr(o.entry, "structure") else o.entry.kind
        binds = ", ".join(f"{k}={v}" for k, v in o.bindings)
        lines += [f"[{tag}] {o.entry.description}", f"    {o.entry.sparql}", f"    {binds}"]
    lines += [f"problem: {p}" for p in result.problems]
    _print(args, payload, "\n".join(lines))
    return 0


def _tune(args: argparse.Namespace) -> int:
    from nl2sparql.memory_bank.build_queries import load_examples
    from nl2sparql.memory_bank.tune import tune

    cwq = load_examples("cwq-test")
    if args.webqsp_only:
        report = tune(load_examples("webqsp-train"), cwq=cwq, store_cwq=False)
    else:
        report = tune(load_examples("webqsp-train"), cwq=cwq, with_schema=True)
    lines = [
        f"dev: {report.dev_questions} questions, {report.dev_statements} gold statements, "
        f"{report.in_bank} in the {report.bank_statements}-statement bank"
    ]
    for name, figures in report.recall_at.items():
        lines.append(f"  {name:32s} " + "  ".join(f"R@{k}={v:.3f}" for k, v in figures.items()))
    chosen = report.chosen
    lines.append(
        f"gamma1={report.gamma1} gamma2={report.gamma2} max_n={report.max_n}: hit rate "
        f"{chosen['hit_rate']:.3f}, {chosen['mean_selected']:.2f} selected on average, top-1 taken "
        f"for {chosen['top1_share']:.1%} (precision {chosen['top1_precision']:.3f})"
    )
    _print(args, report.to_json(), "\n".join(lines))
    return 0
