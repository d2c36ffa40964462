"""The ``nl2sparql`` command: a thin argparse face over the library.

Each area registers its own sub-commands (``register(subparsers)`` in a ``cli`` module
of its package), so this file only wires them together and turns the product's
errors into one clear line on stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from nl2sparql import __version__
from nl2sparql.errors import Nl2SparqlError

# Where each command is registered (``register(subparsers)`` in that module), in the order
# the commands are listed. A command line that names one imports only its module, so that
# ``ask`` with a running service configured never loads the compiler or gRPC's server side.
COMMANDS: dict[str, str] = {
    "setup": "nl2sparql.commands",
    "ask": "nl2sparql.commands",
    "translate": "nl2sparql.commands",
    "compile": "nl2sparql.compile_cmd",
    "sparql": "nl2sparql.compiler.cli",
    "bank": "nl2sparql.memory_bank.cli",
    "planner": "nl2sparql.training.cli",
    "ranker": "nl2sparql.training.ranker_cli",
    "kg": "nl2sparql.kg.cli",
    "eval": "nl2sparql.evaluation.cli",
    "serve": "nl2sparql.server.cli",
    "mcp": "nl2sparql.server.mcp_cli",
}
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))

EPILOG = """examples:
  nl2sparql setup && nl2sparql ask "what films did Jeremy Irons act in?"
  nl2sparql translate questions.jsonl --out answers.jsonl
  nl2sparql serve --port 50051
  nl2sparql serve --http 8080 --store S --bank B --dataset https://example.org/kg/
  nl2sparql mcp --store S --bank B
  nl2sparql kg import-fb15k237 --out fb15k237.nt.gz
  nl2sparql kg load fb15k237.nt.gz --store ~/.cache/nl2sparql/store
  nl2sparql kg query --store ~/.cache/nl2sparql/store 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'
"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or for ``command``'s module alone when it names one."""
    parser = argparse.ArgumentParser(
        prog="nl2sparql",
        description="Compile natural-language questions into executable SPARQL over knowledge graphs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"nl2sparql {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except Nl2SparqlError as exc:
        print(f"nl2sparql: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("nl2sparql: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
