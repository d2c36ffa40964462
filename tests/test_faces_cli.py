"""``nl2sparql serve --http`` and ``nl2sparql mcp`` on the command line: refusals before anything
loads, dataset tables of the config file checked, and TLS on the HTTP face."""

from __future__ import annotations

import argparse
import shutil
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest
from test_faces_http import pipeline  # noqa: F401 - the module-scoped pipeline fixture

from nl2sparql.errors import ConfigError
from nl2sparql.server import cli, mcp_cli
from nl2sparql.server.datasets import Datasets, specs_from_table
from nl2sparql.server.face import Face
from nl2sparql.server.http_app import build_app
from nl2sparql.server.http_cli import dataset_flags, dataset_specs
from nl2sparql.server.http_serve import http_service


def parse(*argv: str) -> argparse.Namespace:
    root = argparse.ArgumentParser(prog="nl2sparql")
    subparsers = root.add_subparsers(dest="command")
    cli.register(subparsers)
    mcp_cli.register(subparsers)
    return root.parse_args(list(argv))


def test_every_grpc_flag_still_parses_beside_http() -> None:
    args = parse(
        "serve",
        "--http",
        "0",
        "--port",
        "0",
        "--grpc",
        "--max-concurrency",
        "3",
        "--grace",
        "1",
        "--deadline",
        "5",
        "--dataset",
        "https://example.org/kg/",
    )
    assert (args.http, args.port, args.grpc, args.max_concurrency, args.deadline) == (0, 0, True, 3, 5.0)
    assert parse("serve").http is None  # without --http: the gRPC service alone, as before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--host", "0.0.0.0"], "refusing to serve on 0.0.0.0 without a token"),
        (["--tls-cert", "/nonexistent.pem"], "TLS needs both --tls-cert and --tls-key"),
        (["--dataset", "not an iri"], "is not an absolute IRI"),
    ],
)
def test_http_refuses_before_loading(argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cli.TOKEN_ENV, raising=False)
    monkeypatch.setenv("NL2SPARQL_CONFIG", "")
    args = parse("serve", "--http", "0", "--store", "/nonexistent", *argv)
    with pytest.raises(ConfigError, match=message):
        args.func(args)


def test_mcp_over_http_refuses_a_public_host() -> None:
    args = parse("mcp", "--transport", "http", "--host", "0.0.0.0", "--store", "/nonexistent")
    with pytest.raises(ConfigError, match="refusing to serve on 0.0.0.0"):
        args.func(args)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"kg": {"iri": "https://x/", "store": "/s", "endpoint": "http://e/", "bank": "/b"}}, "exactly one of"),
        ({"kg": {"store": "/s", "bank": "/b"}}, "needs iri"),
        ({"kg": {"iri": "https://x/", "endpoint": "http://e/"}}, "needs bank"),
        ({"kg": {"iri": "https://x/", "endpoint": "http://e/", "bank": "/absent.nl2sq"}}, "does not exist"),
        ({"kg": {"iri": "x y", "endpoint": "http://e/", "bank": "/absent"}}, "not an absolute IRI"),
        ({"kg": {"iri": "https://x/", "endpoint": "http://e/", "bank": "/b", "colour": "red"}}, "unknown key"),
        ({"kg": {"iri": "https://x/", "endpoint": 3, "bank": "/b"}}, "must be a non-empty string"),
        ({"bad name!": {}}, "a dataset name is"),
        ({"kg": "https://x/"}, "must be a table"),
    ],
)
def test_dataset_tables_are_checked(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        specs_from_table(table, "nl2sparql.toml")


def test_config_datasets_are_served_with_the_command_line_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bank = tmp_path / "b.nl2sq"
    bank.write_bytes(b"")
    config = tmp_path / "nl2sparql.toml"
    config.write_text(
        f'planner = "oracle"\n[datasets.music]\niri = "https://example.org/music/"\n'
        f'endpoint = "http://127.0.0.1:9/sparql"\nbank = "{bank}"\n'
    )
    alone = dataset_specs(parse("serve", "--http", "0", "--config", str(config)))
    assert [(s.name, s.iri) for s in alone] == [("music", "https://example.org/music/")]
    both = dataset_specs(
        parse("serve", "--http", "0", "--config", str(config), "--store", "/s", "--dataset", "https://example.org/kg/")
    )
    assert [s.iri for s in both] == ["https://example.org/kg/", "https://example.org/music/"]
    monkeypatch.setenv("NL2SPARQL_CONFIG", str(config))  # the file other commands read is accepted too
    from nl2sparql.settings import load_settings

    assert load_settings().planner == "oracle"


def test_config_datasets_take_the_command_lines_planner_and_ranker(tmp_path: Path) -> None:
    bank, config = tmp_path / "b.nl2sq", tmp_path / "nl2sparql.toml"
    bank.write_bytes(b"")
    config.write_text(
        f'[datasets.music]\niri = "https://example.org/music/"\nstore = "{tmp_path}"\nbank = "{bank}"\n'
        f'[datasets.films]\niri = "https://example.org/films/"\nstore = "{tmp_path}"\nbank = "{bank}"\n'
        'ranker = "/r.safetensors"\n'
    )
    args = parse("serve", "--http", "0", "--config", str(config), "--ranker", "zero-shot", "--candidates", "graph")
    music, films = dataset_specs(args)
    assert dataset_flags(music, args) == {
        "candidates": "graph",
        "ranker": "zero-shot",
        "store": str(tmp_path),
        "bank": str(bank),
    }
    assert dataset_flags(films, args)["ranker"] == "/r.safetensors"  # the table's own setting wins
    assert "ranker" not in dataset_flags(music, parse("serve", "--http", "0", "--config", str(config)))


def test_tls_serves_https(pipeline: object, tmp_path: Path) -> None:  # noqa: F811
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    face = Face.create(Datasets.single(pipeline, "https://example.org/kg/"), 2)  # type: ignore[arg-type]
    service = http_service(build_app(face, token="t"), host="127.0.0.1", port=0, tls_cert=str(cert), tls_key=str(key))
    service.start()
    try:
        base = f"https://127.0.0.1:{service.port}"
        trusted = ssl.create_default_context(cafile=str(cert))
        assert httpx.get(f"{base}/healthz", verify=trusted).json() == {"status": "ok"}
        reply = httpx.get(f"{base}/v1/datasets", verify=trusted, headers={"Authorization": "Bearer t"})
        assert reply.json()["datasets"][0]["iri"] == "https://example.org/kg/"
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{base}/healthz")  # an untrusted certificate is refused by the client
    finally:
        service.stop()


def test_the_listening_socket_says_tcp_so_replies_are_not_held_by_nagle() -> None:
    """asyncio turns on TCP_NODELAY for an accepted socket only when its proto is IPPROTO_TCP; a
    socket made with proto 0 left a keep-alive client waiting 40 ms for every reply (Nagle's
    algorithm against delayed ACKs: /healthz took 44 ms instead of 0.3)."""
    import socket

    from nl2sparql.server.http_serve import bind

    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        sock.close()
