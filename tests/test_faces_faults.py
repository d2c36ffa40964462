"""Faults behind the HTTP face: a SPARQL endpoint that is slow, killed mid-query, or answers garbage.

The endpoint is a real process on loopback (``ENDPOINT`` below, run with this interpreter)
that the test can SIGKILL while a query is inside it; the pipeline reaches it through the
real :class:`~nl2sparql.kg.endpoint_store.EndpointStore`. Each fault must be answered
within the request's deadline with a JSON error in words, and the service must stay up:
its health probe and a question on a healthy dataset still answer afterwards.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from conftest import FixtureKG, free_port
from faces_support import DATASET_IRI, PLANS, copy_kg, serving

from nl2sparql.kg.endpoint_store import EndpointStore
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.memory_bank.bank_file import load_bank
from nl2sparql.pipeline import Pipeline
from nl2sparql.planner.backends import open_planner
from nl2sparql.server.datasets import Dataset, Datasets, DatasetSpec
from nl2sparql.server.face import Face
from nl2sparql.settings import Settings

BROKEN_IRI = "https://example.org/broken/"

ENDPOINT = r"""
import sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
mode, port, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def answer(self):
        open(marker, "a").write("query\n")
        if mode in ("slow", "killed"):
            time.sleep(60)
        body = b"<html>this is not SPARQL JSON" if mode == "garbage" else b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = answer

ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


@contextmanager
def endpoint(mode: str, folder: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    port = free_port()
    marker = folder / f"{mode}.queries"
    process = subprocess.Popen([sys.executable, "-c", ENDPOINT, mode, str(port), str(marker)])
    try:
        began = time.monotonic()
        while time.monotonic() - began < 20:  # hang guard: until it listens (a connection, no query)
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/sparql", process, marker
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory, fixture_kg: FixtureKG) -> Iterator[tuple[object, object]]:
    folder = tmp_path_factory.mktemp("faces-faults")
    store, bank = copy_kg(fixture_kg.store, fixture_kg.bank, folder)
    healthy = Pipeline(
        bank=load_bank(bank), planner=open_planner(f"plans:{PLANS}"), store=OxigraphStore(store), settings=Settings()
    )
    yield healthy, load_bank(bank)
    healthy.close()


@contextmanager
def served(parts: tuple[object, object], url: str, deadline: float = 30) -> Iterator[str]:
    healthy, bank = parts
    broken = Pipeline(
        bank=bank,
        planner=open_planner(f"plans:{PLANS}"),
        store=EndpointStore(url, timeout=30, retries=1, backoff=0.05),
        settings=Settings(timeout=30),
    )
    datasets = Datasets(
        [
            Dataset(DatasetSpec("healthy", DATASET_IRI, {}), healthy),  # type: ignore[arg-type]
            Dataset(DatasetSpec("broken", BROKEN_IRI, {}), broken),
        ]
    )
    with serving(Face.create(datasets, max_concurrency=4, deadline=deadline)) as base:
        yield base


def ask_broken(base: str, timeout: float) -> tuple[httpx.Response, float]:
    began = time.monotonic()
    reply = httpx.post(
        f"{base}/v1/ask",
        json={
            "question": "Who is the sibling of Cy Quill?",
            "dataset": BROKEN_IRI,
            "entities": {"m.0p_cy": "Cy Quill"},
            "timeout": timeout,
        },
        timeout=60,
    )
    return reply, time.monotonic() - began


def still_up(base: str) -> None:
    assert httpx.get(f"{base}/healthz").status_code == 200
    good = httpx.post(f"{base}/v1/ask", json={"question": "Who is the sibling of Cy Quill?"}, timeout=60)
    assert good.status_code == 200 and good.json()["answers"][0]["name"] == "Dee Quill"


def test_a_slow_endpoint_is_a_504_at_the_deadline(parts: tuple[object, object], tmp_path: Path) -> None:
    with endpoint("slow", tmp_path) as (url, _, marker), served(parts, url) as base:
        reply, took = ask_broken(base, 1.0)
        assert reply.status_code == 504, reply.text
        assert "deadline" in reply.json()["error"]["message"]
        assert took < 2.5, took
        assert marker.exists()  # the query did reach the endpoint
        still_up(base)


def test_the_text2sparql_api_and_mcp_meet_a_slow_endpoint_at_the_deadline(
    parts: tuple[object, object], tmp_path: Path
) -> None:
    """The TEXT2SPARQL route and the MCP tools take the server's --deadline (here 1 s)."""
    with endpoint("slow", tmp_path) as (url, _, _marker), served(parts, url, deadline=1.0) as base:
        began = time.monotonic()
        reply = httpx.get(
            f"{base}/text2sparql",
            params={"question": "Who is the sibling of Cy Quill?", "dataset": BROKEN_IRI},
            timeout=60,
        )
        assert reply.status_code == 504 and time.monotonic() - began < 2.5, reply.text
        assert sorted(reply.json()) == ["error"]
        still_up(base)


def test_an_mcp_tool_on_a_garbage_endpoint_is_a_tool_error_in_words(
    parts: tuple[object, object], tmp_path: Path
) -> None:
    import anyio
    from mcp.client.client import Client

    from nl2sparql.server.mcp_server import build_mcp

    healthy, bank = parts
    with endpoint("garbage", tmp_path) as (url, _, _marker):
        broken = Pipeline(
            bank=bank,
            planner=open_planner(f"plans:{PLANS}"),
            store=EndpointStore(url, timeout=30, retries=1, backoff=0.05),
            settings=Settings(),
        )
        face = Face.create(Datasets([Dataset(DatasetSpec("broken", BROKEN_IRI, {}), broken)]), 2, 5)  # type: ignore[arg-type]

        async def call() -> tuple[object, object]:
            async with Client(build_mcp(face)) as client:
                asked = await client.call_tool(
                    "ask", {"question": "Who is the sibling of Cy Quill?", "entities": {"m.0p_cy": "Cy Quill"}}
                )
                queried = await client.call_tool("run_sparql", {"query": "ASK { ?s ?p ?o }"})
                return asked, queried

        asked, queried = anyio.run(call)
        face.executor.shutdown(wait=False)
    for result in (asked, queried):
        text = "".join(getattr(block, "text", "") for block in result.content)  # type: ignore[attr-defined]
        assert result.is_error and "did not return SPARQL JSON" in text, text  # type: ignore[attr-defined]


def test_an_endpoint_killed_mid_query_is_a_clear_error_in_time(parts: tuple[object, object], tmp_path: Path) -> None:
    with endpoint("killed", tmp_path) as (url, process, marker), served(parts, url) as base:
        import threading

        def kill_when_queried() -> None:
            began = time.monotonic()
            while not marker.exists() and time.monotonic() - began < 20:
                time.sleep(0.02)
            os.kill(process.pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_when_queried)
        killer.start()
        reply, took = ask_broken(base, 5.0)
        killer.join()
        assert reply.status_code == 502, reply.text
        message = reply.json()["error"]["message"]
        assert BROKEN_IRI not in message and ("127.0.0.1" in message or "deadline" in message), message
        assert took < 6.5, took
        still_up(base)


def test_an_endpoint_answering_garbage_is_a_502_in_words(parts: tuple[object, object], tmp_path: Path) -> None:
    with endpoint("garbage", tmp_path) as (url, _, _marker), served(parts, url) as base:
        reply, took = ask_broken(base, 5.0)
        assert reply.status_code == 502, reply.text
        assert "did not return SPARQL JSON" in reply.json()["error"]["message"]
        sparql = httpx.get(f"{base}/sparql", params={"query": "ASK { ?s ?p ?o }", "dataset": "broken"}, timeout=30)
        assert sparql.status_code == 502 and "not return SPARQL JSON" in sparql.json()["error"]["message"]
        still_up(base)
