"""What ``nl2sparql serve`` and ``nl2sparql mcp`` share: option parsers, the token variable, the pipeline.

Its own module, below both commands, so that the HTTP and MCP faces (package ``server``)
never import the command module ``server/cli.py`` (which starts them): imports run one way.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from nl2sparql.errors import ConfigError

TOKEN_ENV = "NL2SPARQL_TOKEN"
#: the settings that choose a pipeline's answers: planner, candidates and ranker
CHOICE_KEYS = ("planner", "candidates", "ranker")
#: the settings a served pipeline takes from the command line or a [datasets.NAME] table
PIPELINE_KEYS = ("store", "endpoint", "bank", *CHOICE_KEYS)


def load_pipeline(args: argparse.Namespace) -> Any:
    """The pipeline the arguments name, through ``Pipeline.from_settings``."""
    try:
        from nl2sparql.pipeline import Pipeline
    except ModuleNotFoundError as exc:
        if exc.name != "nl2sparql.pipeline":
            raise
        raise ConfigError("this installation of nl2sparql has no pipeline module (nl2sparql.pipeline)") from exc
    from nl2sparql.settings import load_settings

    flags = {key: getattr(args, key, None) for key in PIPELINE_KEYS}
    return Pipeline.from_settings(load_settings(flags, getattr(args, "config", None)))


def start_grpc(args: argparse.Namespace, pipeline: Any, token: str | None, tls: Any) -> Any:
    """The gRPC service over ``pipeline`` as ``serve``'s flags describe it (``serve``, and
    ``serve --http --grpc`` beside the HTTP face)."""
    from nl2sparql.server.serve import serve

    return serve(
        pipeline,
        host=args.host,
        port=args.port,
        max_concurrency=args.max_concurrency,
        token=token,
        tls=tls,
        insecure=args.insecure,
    )


def port(text: str) -> int:
    value = whole(text, "port")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0 to 65535, got {value}")
    return value


def positive_int(text: str) -> int:
    value = whole(text, "value")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, 0 or more, got {text}")
    return value


def whole(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text!r}") from None
