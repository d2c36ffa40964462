"""The face's own commands: ``setup``, ``ask`` and ``translate``, thin over the pipeline."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from nl2sparql.errors import InvalidQuestion
from nl2sparql.settings import add_choice_flags

ASK_EPILOG = """examples:
  nl2sparql ask "what films did Jeremy Irons act in?"
  nl2sparql ask "where was Barack Obama born?" --entities '{"m.02mjmr": "Barack Obama"}' --json
  nl2sparql ask "who directed Jurassic Park?" --endpoint http://127.0.0.1:8890/sparql --bank my.nl2sq
  NL2SPARQL_SERVICE=127.0.0.1:50051 nl2sparql ask "what county is san diego in?"   # a running 'nl2sparql serve'
"""
TRANSLATE_EPILOG = """examples:
  nl2sparql translate questions.jsonl --out results.jsonl
  nl2sparql translate questions.jsonl --out results.jsonl --planner oracle --no-execute --dialect virtuoso
  cat questions.jsonl | nl2sparql translate - --out -
"""
SETUP_EPILOG = """examples:
  nl2sparql setup                      # build the default store, bank and planner into the home folder
  nl2sparql setup --home /data/nl2sparql --force
"""


def add_pipeline_flags(parser: argparse.ArgumentParser) -> None:
    """Flags that choose the KG, bank and planner; unset flags fall back to config, env, then home."""
    group = parser.add_argument_group("pipeline (flags win over NL2SPARQL_* variables and the config file)")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--store", help="Oxigraph store folder (default: <home>/store)")
    where.add_argument("--endpoint", help="SPARQL 1.1 endpoint URL instead of a store")
    group.add_argument("--endpoint-user", help="basic-auth user for --endpoint")
    group.add_argument("--endpoint-password", help="basic-auth password for --endpoint")
    group.add_argument("--endpoint-token", help="bearer token for --endpoint")
    group.add_argument("--bank", help="memory bank file (.nl2sq; default: <home>/bank.nl2sq)")
    group.add_argument("--planner", help="default | plain | oracle | hf:PATH[+ADAPTER] | openai:URL#MODEL")
    group.add_argument("--dialect", help="output SPARQL dialect: sparql11 | full-iri | virtuoso")
    group.add_argument("--timeout", type=float, help="query timeout in seconds (default 30)")
    group.add_argument("--limit", type=int, help="at most this many answers per question")
    group.add_argument(
        "--decoding", choices=("greedy-first", "beams"), help="local planner: greedy first (default) or beam 4 always"
    )
    group.add_argument(
        "--plan-batch", type=int, metavar="N", help="decode up to N concurrent plans at once (1: off; default 16)"
    )
    group.add_argument(
        "--exemplars", metavar="DIR", help="local planner: read this exemplar memory ('nl2sparql planner exemplars')"
    )
    add_choice_flags(group)
    group.add_argument("--config", help="TOML settings file (default: ./nl2sparql.toml)")


def pipeline_from_args(args: argparse.Namespace, **overrides: Any) -> Any:
    """The pipeline the flags (then config, environment and home folder) describe."""
    from nl2sparql.pipeline import Pipeline
    from nl2sparql.settings import load_settings

    keys = ("store", "endpoint", "endpoint_user", "endpoint_password", "endpoint_token", "bank", "planner", "exemplars")
    more = ("dialect", "timeout", "limit", "decoding", "plan_batch", "candidates", "ranker")
    flags = {key: getattr(args, key, None) for key in (*keys, *more)}
    if getattr(args, "no_execute", False):
        flags["execute"] = False
    flags.update(overrides)
    return Pipeline.from_settings(load_settings(flags, getattr(args, "config", None)))


def parse_entities(text: str | None) -> dict[str, str] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidQuestion(f"--entities is not JSON ({exc.msg} at column {exc.colno})") from None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return dict.fromkeys(value, "")
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return value
    raise InvalidQuestion('--entities must be a JSON object {"id": "name"} or a list of ids')


def print_result(result: Any, explain: bool = False) -> None:
    print(f"question: {result.question}")
    if result.entities:
        print("entities: " + ", ".join(f"{name} ({eid})" for eid, name in result.entities.items()))
    if result.plan:
        print("plan:")
        for line in result.plan:
            print(f"  {line}")
    if result.sparql:
        print("sparql:")
        for line in result.sparql.splitlines():
            print(f"  {line}")
    if result.answers:
        print("answers:")
        for answer in result.answers:
            print(f"  {answer.name} ({answer.id})" if answer.name else f"  {answer.id}")
    if result.error:
        print(f"error: {result.error}")
    if explain and result.candidates:
        print("candidates (best first):")
        for rank, candidate in enumerate(result.candidates, 1):
            print(f"  {rank}. {candidate.score:.3f} {candidate.shape} ({candidate.source})")
            for line in candidate.plan:
                print(f"       {line}")
    timing = ", ".join(f"{k} {v:.1f} ms" for k, v in result.timings_ms.items())
    print(f"timings: {timing}")


#: flags that name a KG, bank or planner of their own: with one of them, ``ask`` answers locally
LOCAL_FLAGS = ("store", "endpoint", "bank", "planner", "decoding", "plan_batch", "exemplars", "candidates", "ranker")


def service_address(args: argparse.Namespace) -> str | None:
    """The running service ``ask`` sends its question to: ``--service``, else the ``service``
    setting (``NL2SPARQL_SERVICE``, the config file), unless a flag names a pipeline of its own."""
    if any(getattr(args, key, None) is not None for key in LOCAL_FLAGS):
        return None
    if args.service is not None:
        return args.service.strip() or None
    from nl2sparql.settings import load_settings

    return load_settings({}, getattr(args, "config", None)).service


def ask_service(address: str, args: argparse.Namespace) -> Any:
    """The answer from a running ``nl2sparql serve``: no model, store or bank loads in this process."""
    import os

    from nl2sparql.server.client import Client

    with Client(address, token=os.environ.get("NL2SPARQL_TOKEN") or None) as client:
        call = client.translate if args.no_execute else client.ask
        return call(args.question, parse_entities(args.entities), dialect=args.dialect, limit=args.limit)


def run_ask(args: argparse.Namespace) -> int:
    from nl2sparql.question import check_question

    question = check_question(args.question)  # before the bank, store and planner are opened
    entities = parse_entities(args.entities)
    address = service_address(args)
    if address is not None:
        args.question = question
        result = ask_service(address, args)
    else:
        with pipeline_from_args(args, plan_batch=1) as pipeline:  # one question: nothing to batch
            result = pipeline.ask(question, entities, execute=not args.no_execute, dialect=args.dialect)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        print_result(result, explain=getattr(args, "explain", False))
    return 0 if result.error is None else 1


def run_translate(args: argparse.Namespace) -> int:
    from nl2sparql.batch import translate_file

    with pipeline_from_args(args) as pipeline:
        report = translate_file(
            pipeline,
            args.input,
            args.out,
            execute=not args.no_execute,
            dialect=args.dialect,
            progress=not args.quiet,
            workers=pipeline.settings.plan_batch,
        )
    summary = {
        "lines": report.total,
        "written": report.written,
        "skipped": report.skipped,
        "failed": report.failed,
    }
    print(json.dumps(summary) if args.json else " ".join(f"{k}={v}" for k, v in summary.items()), file=sys.stderr)
    return 0 if report.failed == 0 else 1


def run_setup(args: argparse.Namespace) -> int:
    from nl2sparql.home import setup_home

    report = setup_home(home=args.home, force=args.force, progress=not args.quiet)
    print(json.dumps(report, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items()))
    return 0


def register(subparsers: Any) -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    setup = subparsers.add_parser(
        "setup", help="build the embedded default (store, bank, planner)", epilog=SETUP_EPILOG, formatter_class=fmt
    )
    setup.add_argument("--home", help="where to build it (default: $NL2SPARQL_HOME or ~/.cache/nl2sparql)")
    setup.add_argument("--force", action="store_true", help="rebuild what exists")
    setup.add_argument("--quiet", action="store_true", help="no progress bars")
    setup.add_argument("--json", action="store_true", help="print the report as JSON")
    setup.set_defaults(func=run_setup)

    ask = subparsers.add_parser("ask", help="answer one question", epilog=ASK_EPILOG, formatter_class=fmt)
    ask.add_argument("question")
    ask.add_argument("--entities", help='entity ids (skip linking): \'{"m.0x": "Name"}\' or \'["m.0x"]\'')
    ask.add_argument("--no-execute", action="store_true", help="compile only; do not run the query")
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--explain", action="store_true", help="also print the best candidates with their scores")
    ask.add_argument(
        "--service",
        metavar="HOST:PORT",
        help="ask a running 'nl2sparql serve' instead of loading the pipeline here (default: $NL2SPARQL_SERVICE; "
        "'' loads it here); pipeline flags such as --store load it here too",
    )
    add_pipeline_flags(ask)
    ask.set_defaults(func=run_ask)

    translate = subparsers.add_parser(
        "translate", help="translate a JSON Lines file of questions", epilog=TRANSLATE_EPILOG, formatter_class=fmt
    )
    translate.add_argument("input", help="JSON Lines input ('-' for stdin)")
    translate.add_argument("--out", required=True, help="JSON Lines output, appended and resumable ('-' for stdout)")
    translate.add_argument("--no-execute", action="store_true", help="compile only; do not run the queries")
    translate.add_argument("--quiet", action="store_true", help="no progress bar")
    translate.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_pipeline_flags(translate)
    translate.set_defaults(func=run_translate)
