"""``nl2sparql ask`` with a running service configured: the question goes over gRPC, nothing
loads in the CLI's process, and a flag that names a pipeline of its own answers locally.

The service is a real loopback server over the tests' :class:`GraphPipeline`.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator

import pytest
from test_server_pipeline import GraphPipeline, graph_store

from nl2sparql import cli
from nl2sparql.server.serve import Service, serve

QUESTION = "Who are the siblings of Gus Orr?"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    started = serve(GraphPipeline(graph_store(tmp_path_factory.mktemp("graph"))), host="127.0.0.1", port=0)
    yield started
    started.stop(0)


def run(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    return cli.main(argv), out.getvalue(), err.getvalue()


def test_ask_uses_the_configured_service(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    from nl2sparql.pipeline import Pipeline

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("ask loaded a pipeline although a service is configured")

    monkeypatch.setattr(Pipeline, "from_settings", refuse)
    monkeypatch.setenv("NL2SPARQL_SERVICE", service.address)
    code, out, err = run(["ask", QUESTION, "--json"], monkeypatch)
    assert code == 0, err
    assert [a["name"] for a in json.loads(out)["answers"]] == ["Hal Orr"]


def test_the_flag_wins_and_an_empty_one_answers_locally(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SPARQL_SERVICE", "127.0.0.1:1")  # nothing listens there
    code, out, err = run(["ask", QUESTION, "--service", service.address], monkeypatch)
    assert code == 0 and "Hal Orr" in out, err
    monkeypatch.setenv("NL2SPARQL_HOME", "/nonexistent-nl2sparql-home")
    code, _, err = run(["ask", QUESTION, "--service", ""], monkeypatch)  # local: no home store here
    assert code == 1 and "no store at" in err and "Traceback" not in err


def test_an_unreachable_service_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(["ask", QUESTION, "--service", "127.0.0.1:1"], monkeypatch)
    assert code == 1 and err.startswith("nl2sparql: error: UNAVAILABLE") and "Traceback" not in err
