"""What the tests of the HTTP, TEXT2SPARQL and MCP faces share: a copy of the fixture KG and a
real ``nl2sparql serve --http 0`` process on loopback over it.

The planner is ``plans:tests/fixtures/faces/plans.jsonl`` (recorded plans, in the fixture
bank's words): the faces are what is tested, not the model. Everything else is real: the
Oxigraph store of ``conftest.fixture_graph_nt``, the bank built from it, the entity linker,
the compiler, uvicorn on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FACES = Path(__file__).parent / "fixtures" / "faces"
PLANS = FACES / "plans.jsonl"
QUESTIONS = FACES / "questions.yml"
DATASET_IRI = "https://example.org/nl2sparql/fixture/"
REPO = Path(__file__).resolve().parents[1]


def offline_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", NL2SPARQL_CONFIG="", **extra)
    env.pop("NL2SPARQL_TOKEN", None)
    return env


def copy_kg(store: Path, bank: Path, folder: Path) -> tuple[Path, Path]:
    """A private copy of the fixture store (Oxigraph locks its folder) and its bank."""
    shutil.copytree(store, folder / "store")
    shutil.copy(bank, folder / "fixture.nl2sq")
    return folder / "store", folder / "fixture.nl2sq"


@dataclass(frozen=True, slots=True)
class Served:
    url: str
    info: dict[str, object]
    process: subprocess.Popen[str]


def serve_args(store: Path, bank: Path, *extra: str) -> list[str]:
    return ["--store", str(store), "--bank", str(bank), "--planner", f"plans:{PLANS}", "--dataset", DATASET_IRI, *extra]


@contextmanager
def http_server(args: Sequence[str], *, env: dict[str, str] | None = None, timeout: float = 90) -> Iterator[Served]:
    """``nl2sparql serve --http 0 --json ARGS`` started, its URL read, stopped with SIGTERM at the end."""
    command = [sys.executable, "-m", "nl2sparql", "serve", "--http", "0", "--json", *args]
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - a pipe nobody reads could fill and stall the server
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=log, text=True, env=env or offline_env(), cwd=REPO
    )
    try:
        began = time.monotonic()
        line = process.stdout.readline() if process.stdout else ""
        if not line:
            process.wait(timeout=timeout)
            log.seek(0)
            raise AssertionError(f"the server did not start ({time.monotonic() - began:.1f} s): {log.read()[-2000:]}")
        info = json.loads(line)
        yield Served(str(info["url"]), info, process)
    finally:
        log.close()
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def serving(face: Any, token: str | None = None) -> Iterator[str]:
    """The HTTP face ``face`` on a free loopback port in this process; yields its base URL."""
    from nl2sparql.server.http_app import build_app
    from nl2sparql.server.http_serve import http_service

    service = http_service(build_app(face, token=token), host="127.0.0.1", port=0)
    service.start()
    try:
        yield f"http://127.0.0.1:{service.port}"
    finally:
        service.stop()
        face.executor.shutdown(wait=False, cancel_futures=True)
