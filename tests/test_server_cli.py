"""``nl2sparql serve``: its options, its refusals before anything loads, and a graceful SIGTERM."""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import grpc
import pytest
from test_server import SIBLINGS

from nl2sparql.errors import ConfigError
from nl2sparql.server import cli
from nl2sparql.server.generated import pb, pb_grpc

TESTS = Path(__file__).resolve().parent


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="nl2sparql")
    cli.register(root.add_subparsers(dest="command"))
    return root


def test_help_shows_examples_and_the_token_advice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(["serve", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "grpcurl -plaintext 127.0.0.1:50051 list" in out and "NL2SPARQL_TOKEN" in out
    assert "--max-concurrency N" in out and "--grace S" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "port must be 0 to 65535"),
        (["--port", "http"], "port must be a whole number"),
        (["--max-concurrency", "0"], "must be at least 1"),
        (["--grace", "nan"], "must be a finite number of seconds"),
        (["--grace", "-1"], "must be a finite number of seconds"),
        (["--store", "s", "--endpoint", "http://x/sparql"], "not allowed with argument"),
    ],
)
def test_bad_options_are_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(["serve", *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_defaults_are_loopback_and_bounded() -> None:
    args = parser().parse_args(["serve"])
    assert (args.host, args.port, args.max_concurrency, args.grace, args.insecure) == (
        "127.0.0.1",
        50051,
        8,
        10.0,
        False,
    )


def test_public_bind_without_token_is_refused_before_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cli.TOKEN_ENV, raising=False)
    args = parser().parse_args(["serve", "--host", "0.0.0.0", "--store", "/nonexistent"])
    with pytest.raises(ConfigError, match="refusing to serve on 0.0.0.0 without a token"):
        args.func(args)


@pytest.mark.parametrize("how", ["env", "flag", "insecure"])
def test_a_token_or_insecure_lets_a_public_bind_past_the_check(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cli.TOKEN_ENV, raising=False)
    argv = ["serve", "--host", "0.0.0.0", "--tls-cert", "cert.pem"]  # half a TLS pair: the next refusal
    if how == "env":
        monkeypatch.setenv(cli.TOKEN_ENV, "t0k3n")
    else:
        argv += ["--token", "t0k3n"] if how == "flag" else ["--insecure"]
    args = parser().parse_args(argv)
    with pytest.raises(ConfigError, match="TLS needs both --tls-cert and --tls-key"):
        args.func(args)


SERVE_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    sys.path.insert(0, sys.argv[1])
    from test_server_pipeline import GraphPipeline, graph_store
    from nl2sparql.server import cli

    store = graph_store(Path(sys.argv[2]))
    cli.load_pipeline = lambda args: GraphPipeline(store, stage_seconds=0.5)
    root = cli.argparse.ArgumentParser()
    cli.register(root.add_subparsers())
    args = root.parse_args(["serve", "--port", "0", "--json", "--grace", "60"])
    sys.exit(args.func(args))
    """
)


def test_sigterm_lets_the_call_in_flight_finish(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_SCRIPT, str(TESTS), str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        listening = json.loads(process.stdout.readline())
        assert listening["auth"] is False and listening["tls"] is False
        with grpc.insecure_channel(listening["address"]) as channel:
            stream = pb_grpc.Nl2SparqlStub(channel).AskStream(pb.AskRequest(question=SIBLINGS), timeout=120)
            assert pb.Stage.Name(next(stream).stage) == "STAGE_LINKED"
            process.send_signal(signal.SIGTERM)
            rest = list(stream)
        assert pb.Stage.Name(rest[-1].stage) == "STAGE_RESULT"
        assert [a.name for a in rest[-1].result.answers] == ["Hal Orr"]
        assert process.wait(timeout=120) == 0
        err = process.stderr.read() if process.stderr else ""
        assert "stopping: 1 question(s) in flight" in err and "stopped" in err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
