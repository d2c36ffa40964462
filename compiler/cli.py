"""``nl2sparql sparql``: read, check, optimise and rewrite one SPARQL query from the shell.

Errors come out as one line in the compiler's form (``file:line:column: message;
expected ...``), never as a traceback, with exit code 1; warnings go to stderr and do
not fail the command unless ``--strict``.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from nl2sparql.compiler.dialects import GENERATOR_NAMES, READERS
from nl2sparql.compiler.errors import SparqlSyntaxError
from nl2sparql.errors import Nl2SparqlError

EPILOG = """examples:
  nl2sparql sparql gold.rq --from virtuoso --to full-iri        # Virtuoso dialect -> Oxigraph
  echo 'SELECT ?x { ?x a ?t }' | nl2sparql sparql - --validate --json
  nl2sparql sparql q.rq --from virtuoso --optimize --stats stats.json --to sparql11
  nl2sparql sparql q.rq --canonical                             # same text for renamed variants
  nl2sparql sparql q.rq --validate --catalog predicates.txt --run   # as the service checks it

--stats: a JSON object {predicate IRI: triple count} (e.g. from 'nl2sparql kg stats --json').
--catalog: predicate IRIs, one per line ('#' starts a comment).
"""


def register(subparsers: Any) -> None:
    """Add ``sparql`` to the ``nl2sparql`` command."""
    parser = subparsers.add_parser(
        "sparql",
        help="parse, validate, optimise and rewrite a SPARQL query between dialects",
        description="Read a SPARQL query, check it, optimise it and write it in another dialect.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", default="-", help="query file, or - for standard input (default)")
    parser.add_argument("--from", dest="reader", choices=sorted(READERS), default="sparql11", help="input dialect")
    parser.add_argument("--to", dest="writer", choices=GENERATOR_NAMES, default="sparql11", help="output dialect")
    parser.add_argument("--optimize", action="store_true", help="run the optimiser passes")
    parser.add_argument("--stats", type=Path, help="predicate counts (JSON) to order triples by selectivity")
    parser.add_argument("--validate", action="store_true", help="check the query; exit 1 on errors")
    parser.add_argument("--strict", action="store_true", help="with --validate: warnings are errors too")
    parser.add_argument("--run", action="store_true", help="with --validate: only read-only SELECT/ASK pass")
    parser.add_argument("--catalog", type=Path, help="with --validate: the predicate IRIs the graph has")
    parser.add_argument("--canonical", action="store_true", help="print the canonical form instead")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.set_defaults(func=run)


def _read(args: argparse.Namespace) -> tuple[str, str]:
    if args.file == "-":
        return "<stdin>", sys.stdin.read()
    path = Path(args.file)
    try:
        return str(path), path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Nl2SparqlError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise Nl2SparqlError(f"{path} is not UTF-8 text: {exc}") from None


def _stats(path: Path | None) -> dict[str, int] | None:
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise Nl2SparqlError(f"cannot read stats from {path}: {exc}") from None
    counts = data.get("predicates", data) if isinstance(data, dict) else None
    if not isinstance(counts, dict) or not all(isinstance(v, int) for v in counts.values()):
        raise Nl2SparqlError(f"{path}: expected a JSON object of predicate IRI -> integer count")
    return counts


def _catalog(path: Path | None) -> set[str] | None:
    if path is None:
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise Nl2SparqlError(f"cannot read catalog {path}: {exc.strerror or exc}") from None
    return {line.split("#", 1)[0].strip().strip("<>") for line in lines if line.split("#", 1)[0].strip()}


def run(args: argparse.Namespace) -> int:
    from nl2sparql.compiler.canonical import canonical
    from nl2sparql.compiler.generator import generate
    from nl2sparql.compiler.optimizer import optimize
    from nl2sparql.compiler.parser import parse
    from nl2sparql.compiler.validate import check

    source, text = _read(args)
    out: dict[str, Any] = {"source": source, "from": args.reader}
    try:
        query = parse(text, args.reader)
    except SparqlSyntaxError as exc:
        return _fail(
            args,
            out,
            exc.describe(source),
            {"line": exc.line, "column": exc.column, "expected": exc.expected},
        )
    status = 0
    if args.validate:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            problems = check(query, _catalog(args.catalog), run=args.run)
        out["problems"] = [{"level": p.level, "code": p.code, "message": p.message} for p in problems]
        for problem in problems:
            failing = problem.level == "error" or args.strict
            status = 1 if failing else status
            if not args.json:
                print(f"{source}: {'error' if failing else 'warning'}: {problem.message}", file=sys.stderr)
    if args.optimize:
        query = optimize(query, stats=_stats(args.stats))
    out["to"] = args.writer
    out["sparql"] = generate(query, args.writer)
    if args.canonical:
        out["canonical"] = canonical(query)
    out["ok"] = status == 0
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(out["canonical"] if args.canonical else out["sparql"])
    return status


def _fail(args: argparse.Namespace, out: dict[str, Any], message: str, detail: dict[str, Any]) -> int:
    if args.json:
        out.update(ok=False, error=message, **detail)
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(message, file=sys.stderr)
    return 1
