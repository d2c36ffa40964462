"""``nl2sparql serve``: run the gRPC service over the pipeline the settings name.

Everything that can be wrong with the command line (a public address without a token,
half a TLS pair, an unreadable file) is refused before the pipeline loads, which can take
a while; the bound port is printed once the server listens (``--port 0`` picks one).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Any

from nl2sparql.server.defaults import DEFAULT_GRACE, DEFAULT_HOST, DEFAULT_MAX_CONCURRENCY, DEFAULT_PORT
from nl2sparql.server.options import TOKEN_ENV, load_pipeline, start_grpc
from nl2sparql.server.options import port as _port
from nl2sparql.server.options import positive_int as _positive_int
from nl2sparql.server.options import seconds as _seconds
from nl2sparql.settings import add_choice_flags

__all__ = ["TOKEN_ENV", "load_pipeline", "register", "run"]


EPILOG = f"""examples:
  nl2sparql serve                        # 127.0.0.1:{DEFAULT_PORT}, the home store, bank and planner
  nl2sparql serve --store ~/kg/store --bank bank.nl2sq --port 0 --json
  NL2SPARQL_TOKEN=s3cret nl2sparql serve --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem
  nl2sparql serve --http 8080 --store S --bank B --dataset https://example.org/kg/   # HTTP + TEXT2SPARQL
  grpcurl -plaintext 127.0.0.1:{DEFAULT_PORT} list
  grpcurl -plaintext -d '{{"question": "who are the siblings of Justin Bieber"}}' \\
      127.0.0.1:{DEFAULT_PORT} nl2sparql.v1.Nl2Sparql/Ask

The health service (grpc.health.v1.Health) answers without a token; every other RPC,
reflection included, needs the metadata 'authorization: Bearer <token>' when a token is set.
Prefer {TOKEN_ENV} to --token: a command line is visible to every user of the machine.
SIGTERM or Ctrl-C stops the server: new calls are refused, calls in flight get --grace seconds.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the gRPC service (Translate, Ask, AskStream, Describe)",
        description="Serve nl2sparql over gRPC, with health checking and server reflection.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)")
    parser.add_argument(
        "--http",
        type=_port,
        metavar="PORT",
        help="serve the HTTP/JSON API, the TEXT2SPARQL API and /sparql on PORT (0: any free); docs/faces.md",
    )
    parser.add_argument(
        "--grpc", action="store_true", help="with --http: serve gRPC on --port too, over the default dataset"
    )
    parser.add_argument(
        "--dataset",
        metavar="IRI",
        help="the dataset IRI the --store/--endpoint and --bank pair is served as (HTTP; TEXT2SPARQL's dataset)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="settings file; its [datasets.NAME] tables are served too (HTTP; default: as every command)",
    )
    parser.add_argument(
        "--deadline",
        type=_seconds,
        default=None,
        metavar="S",
        help="HTTP: seconds a question gets unless the request asks for less (default 60)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--store", metavar="DIR", help="an Oxigraph store folder (default: the home store)")
    source.add_argument("--endpoint", metavar="URL", help="a SPARQL 1.1 endpoint instead of a local store")
    parser.add_argument("--bank", metavar="FILE", help="a memory bank (.nl2sq; default: the home bank)")
    parser.add_argument("--planner", metavar="SPEC", help="the planner to use (default: the home planner)")
    add_choice_flags(parser)
    parser.add_argument(
        "--max-concurrency",
        type=_positive_int,
        default=DEFAULT_MAX_CONCURRENCY,
        metavar="N",
        help=f"questions answered at once; more get RESOURCE_EXHAUSTED (default {DEFAULT_MAX_CONCURRENCY})",
    )
    parser.add_argument("--token", metavar="T", help=f"require 'authorization: Bearer T' (or set {TOKEN_ENV})")
    parser.add_argument("--tls-cert", metavar="PEM", help="serve TLS with this certificate chain")
    parser.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="allow a non-loopback --host without a token (anyone can call it)",
    )
    parser.add_argument(
        "--grace",
        type=_seconds,
        default=DEFAULT_GRACE,
        metavar="S",
        help=f"seconds calls in flight get to finish at shutdown (default {DEFAULT_GRACE:g})",
    )
    parser.add_argument("--json", action="store_true", help="print the listening address as one JSON line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.http is not None:
        from nl2sparql.server.http_cli import run_http

        return run_http(args)
    from nl2sparql.server.serve import TlsFiles, check_bind, run_until_signal

    logging.basicConfig(level=logging.INFO, format="nl2sparql serve: %(message)s")
    token = args.token or os.environ.get(TOKEN_ENV) or None
    check_bind(args.host, token, args.insecure)
    tls = TlsFiles.read(args.tls_cert, args.tls_key)
    pipeline = load_pipeline(args)
    service = start_grpc(args, pipeline, token, tls)
    info = {
        "address": service.address,
        "port": service.port,
        "tls": service.tls,
        "auth": bool(token),
        "max_concurrency": args.max_concurrency,
    }
    if args.json:
        print(json.dumps(info), flush=True)
    else:
        print(
            f"nl2sparql serve: listening on {service.address} (TLS {'on' if tls else 'off'}, "
            f"token {'required' if token else 'not required'}, {args.max_concurrency} questions at once); "
            "stop with Ctrl-C or SIGTERM",
            flush=True,
        )
    run_until_signal(service, args.grace)
    print("nl2sparql serve: stopped", file=sys.stderr, flush=True)
    return 0
