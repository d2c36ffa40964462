"""``nl2sparql compile``: a plan (MemQ's sentences) -> the SPARQL query, through a memory bank.

The command a person uses to see what a plan becomes: it reads the plan, matches its
mentions against the question's entities, recalls statements from the bank, lowers
them into one query and prints it in the requested dialect; with ``--store`` it also
runs the query (trying the next recalled statements when one returns nothing) and
prints the answers. Bad plans, unknown entity names and unusable banks are reported as
one line naming the problem (and, for a plan, its line and column), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from nl2sparql.errors import ConfigError, Nl2SparqlError

EPILOG = """examples:
  nl2sparql compile --plan plan.txt --entities '{"m.06w2sn5": "Justin Bieber"}' --bank webqsp.nl2sq
  echo 'Find the sibling of Justin Bieber, assign it to ?x.
  The answer is ?x.' | nl2sparql compile --plan - --entities entities.json --bank webqsp.nl2sq --to full-iri
  nl2sparql compile --plan plan.txt --entities ents.json --bank webqsp.nl2sq --store ./store --json
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compile",
        help="compile a plan into SPARQL through a memory bank",
        description="Compile a plan (one MemQ sentence per line) into a SPARQL query.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--plan", required=True, help="plan file, or - to read standard input")
    parser.add_argument(
        "--entities", required=True, help='the question\'s entities: JSON {"id": "name"} or a JSON file'
    )
    parser.add_argument("--bank", required=True, help="memory bank (.nl2sq archive or bank folder)")
    parser.add_argument("--to", default="sparql11", choices=("sparql11", "full-iri", "virtuoso"), help="output dialect")
    parser.add_argument("--store", help="Oxigraph store folder: run the query and print the answers")
    parser.add_argument("--timeout", type=float, default=30.0, help="query timeout in seconds (with --store)")
    parser.add_argument("--style", default="webqsp", help="how constraints are written: webqsp, cwq or plain")
    parser.add_argument("--keep-ties", action="store_true", help="a ranking keeps every answer tied for first")
    parser.add_argument("--no-language-filter", action="store_true", help="leave out the answer's language filter")
    parser.add_argument("--json", action="store_true", help="print the query, answers and trace as JSON")
    parser.set_defaults(func=run)


def read_plan_text(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the plan {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the plan {source} is not UTF-8 text ({exc.reason})") from None


def read_entities(value: str) -> dict[str, str]:
    """``{"m.0x": "Name"}`` from JSON text or from a JSON file."""
    text = value
    if not value.lstrip().startswith("{"):
        try:
            text = Path(value).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"--entities: {value!r} is neither a JSON object nor a readable file ({exc.strerror or exc})"
            ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--entities: not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError('--entities: expected a JSON object of id -> name, e.g. {"m.06w2sn5": "Justin Bieber"}')
    return data


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from nl2sparql.memory_bank.bank_file import load_bank
    from nl2sparql.plan.reader import check_plan_size
    from nl2sparql.reconstruction import PlanCompiler, freebase_options

    plan = read_plan_text(args.plan)
    check_plan_size(plan)  # before the bank is loaded: an oversized plan is refused at once
    entities = read_entities(args.entities)
    options = freebase_options(args.style, language=None if args.no_language_filter else "en", keep_ties=args.keep_ties)
    compiler = PlanCompiler(load_bank(args.bank), options=options, dialect=args.to)
    compiler.resolve(plan, entities)  # plan and entity errors before any model is loaded
    store = None
    if args.store:
        from nl2sparql.kg import open_store

        if not Path(args.store).is_dir():
            raise ConfigError(f"--store: no store folder at {args.store}")
        store = open_store("oxigraph", path=args.store)
    try:
        result = compiler.compile(plan, entities, store=store, timeout=args.timeout)
    finally:
        if store is not None:
            store.close()
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return 0 if result.sparql and (result.reconstruction.error is None or store is not None) else 1
    if result.sparql is None:
        raise Nl2SparqlError(result.reconstruction.error or "no query could be built from the plan")
    print(result.sparql.rstrip())
    if store is not None:
        if result.reconstruction.error:
            print(f"# {result.reconstruction.error}", file=sys.stderr)
        print(f"# {len(result.answers or ())} answer(s)")
        for answer in result.answers or ():
            print(answer)
    elif result.reconstruction.error:
        print(f"# {result.reconstruction.error}", file=sys.stderr)
    return 0
