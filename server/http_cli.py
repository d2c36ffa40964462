"""``nl2sparql serve --http PORT``: the HTTP face over one or several datasets (and gRPC with ``--grpc``).

As for gRPC, whatever is wrong with the command line (a public address without a token,
half a TLS pair, a bad dataset table) is refused before any pipeline loads. The bound
address is printed once the socket listens (``--http 0`` picks a free port).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Any

from nl2sparql.server.datasets import DEFAULT_DATASET_IRI, DatasetSpec, check_iri, config_specs, load
from nl2sparql.server.options import CHOICE_KEYS, TOKEN_ENV, load_pipeline, start_grpc


def dataset_specs(args: argparse.Namespace) -> list[DatasetSpec]:
    """The command line's pair (when it names one, or nothing else is configured), then the config's."""
    configured = config_specs(args.config)
    named = any(getattr(args, k) for k in ("store", "endpoint", "bank", "dataset"))
    specs = []
    if named or not configured:
        iri = check_iri(args.dataset, "--dataset") if args.dataset else DEFAULT_DATASET_IRI
        specs.append(DatasetSpec("default", iri, {"cli": True}))
    return specs + configured


def run_http(args: argparse.Namespace) -> int:
    from nl2sparql.server.face import DEFAULT_DEADLINE, Face
    from nl2sparql.server.http_app import build_app
    from nl2sparql.server.http_serve import http_service
    from nl2sparql.server.serve import TlsFiles, check_bind

    logging.basicConfig(level=logging.INFO, format="nl2sparql serve: %(message)s")
    token = args.token or os.environ.get(TOKEN_ENV) or None
    check_bind(args.host, token, args.insecure)
    tls = TlsFiles.read(args.tls_cert, args.tls_key)  # checks both files before anything loads
    specs = dataset_specs(args)
    datasets = load(specs, lambda spec: _open(spec, args))
    face = Face.create(datasets, args.max_concurrency, args.deadline or DEFAULT_DEADLINE)
    service = http_service(
        build_app(face, token=token),
        host=args.host,
        port=args.http,
        tls_cert=args.tls_cert if tls else None,
        tls_key=args.tls_key if tls else None,
        grace=args.grace,
    )
    grpc_service = start_grpc(args, face.datasets.default.pipeline, token, tls) if args.grpc else None
    scheme = "https" if tls else "http"
    host = f"[{args.host}]" if ":" in args.host else args.host
    info: dict[str, Any] = {
        "url": f"{scheme}://{host}:{service.port}",
        "port": service.port,
        "tls": tls is not None,
        "auth": bool(token),
        "max_concurrency": args.max_concurrency,
        "datasets": [d.iri for d in datasets],
    }
    if grpc_service is not None:
        info["grpc"] = grpc_service.address
    if args.json:
        print(json.dumps(info), flush=True)
    else:
        print(
            f"nl2sparql serve: HTTP on {info['url']} (datasets: {', '.join(info['datasets'])}; "
            f"token {'required' if token else 'not required'}); stop with Ctrl-C or SIGTERM",
            flush=True,
        )
    try:
        service.run()
    finally:
        face.ready = False
        if grpc_service is not None:
            grpc_service.stop(args.grace)
        face.close()
    print("nl2sparql serve: stopped", file=sys.stderr, flush=True)
    return 0


def _open(spec: DatasetSpec, args: argparse.Namespace) -> Any:
    if spec.flags.get("cli"):
        return load_pipeline(args)
    from nl2sparql.pipeline import Pipeline
    from nl2sparql.settings import load_settings

    return Pipeline.from_settings(load_settings(dataset_flags(spec, args), args.config))


def dataset_flags(spec: DatasetSpec, args: argparse.Namespace) -> dict[str, Any]:
    """A configured dataset's settings: the command line's planner, ``--candidates`` and
    ``--ranker`` hold for each dataset whose table sets none."""
    given = {key: getattr(args, key, None) for key in CHOICE_KEYS}
    return {key: value for key, value in given.items() if value is not None} | spec.flags
