"""``nl2sparql mcp``: the MCP server for agents, over stdio (default) or streamable HTTP.

Over stdio, stdout carries the protocol and nothing else: everything the pipeline prints
while it loads goes to stderr. Over HTTP the bind rules of ``serve`` apply (loopback unless
``--insecure``: the MCP endpoint has no token of its own).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from typing import Any

EPILOG = """examples:
  nl2sparql mcp --store ~/kg/store --bank bank.nl2sq          # stdio, for an agent that starts it
  nl2sparql mcp --transport http --port 8765                     # streamable HTTP on 127.0.0.1:8765/mcp

An agent's configuration (Claude Desktop, and most MCP clients):
  {"mcpServers": {"nl2sparql": {"command": "nl2sparql", "args": ["mcp", "--store", "/kg/store",
                                                                 "--bank", "/kg/bank.nl2sq"]}}}
"""


def register(subparsers: Any) -> None:
    from nl2sparql.server.options import port, positive_int, seconds
    from nl2sparql.settings import add_choice_flags

    parser = subparsers.add_parser(
        "mcp",
        help="run the MCP server for agents (ask, translate, describe_graph, run_sparql)",
        description="Serve nl2sparql to LLM agents over the Model Context Protocol.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or streamable HTTP at /mcp"
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8765, help="HTTP: port (default 8765)")
    parser.add_argument("--insecure", action="store_true", help="HTTP: allow a non-loopback --host")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--store", metavar="DIR", help="an Oxigraph store folder (default: the home store)")
    source.add_argument("--endpoint", metavar="URL", help="a SPARQL 1.1 endpoint instead of a local store")
    parser.add_argument("--bank", metavar="FILE", help="a memory bank (.nl2sq; default: the home bank)")
    parser.add_argument("--planner", metavar="SPEC", help="the planner to use (default: the home planner)")
    add_choice_flags(parser)
    parser.add_argument("--dataset", metavar="IRI", help="the IRI the store and bank are served as")
    parser.add_argument("--config", metavar="FILE", help="settings file; its [datasets.NAME] tables are served too")
    parser.add_argument(
        "--max-concurrency", type=positive_int, default=4, metavar="N", help="questions answered at once (default 4)"
    )
    parser.add_argument(
        "--deadline", type=seconds, default=None, metavar="S", help="seconds a question or query gets (default 60)"
    )
    parser.set_defaults(func=run, token=None)


def run(args: argparse.Namespace) -> int:
    from nl2sparql.server.datasets import load
    from nl2sparql.server.face import DEFAULT_DEADLINE, Face
    from nl2sparql.server.http_cli import _open, dataset_specs
    from nl2sparql.server.serve import check_bind

    try:
        from nl2sparql.server.mcp_server import build_mcp
    except ModuleNotFoundError as exc:
        if exc.name != "mcp" and not (exc.name or "").startswith("mcp."):
            raise
        from nl2sparql.errors import ConfigError

        raise ConfigError("the MCP server needs the mcp SDK: pip install 'nl2sparql[mcp]'") from None

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="nl2sparql mcp: %(message)s")
    if args.transport == "http":
        check_bind(args.host, None, args.insecure)
    with contextlib.redirect_stdout(sys.stderr):  # stdio: stdout is the protocol's
        datasets = load(dataset_specs(args), lambda spec: _open(spec, args))
    face = Face.create(datasets, args.max_concurrency, args.deadline or DEFAULT_DEADLINE)
    server = build_mcp(face)
    try:
        if args.transport == "stdio":
            server.run("stdio")
        else:
            print(f"nl2sparql mcp: streamable HTTP on http://{args.host}:{args.port}/mcp", file=sys.stderr, flush=True)
            server.run("streamable-http", host=args.host, port=args.port)
    finally:
        face.close()
    return 0
