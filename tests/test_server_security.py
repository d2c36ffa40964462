"""Who may call the service: bearer tokens, the open health check, refusing public binds, TLS."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from test_server import SIBLINGS, running
from test_server_pipeline import GraphPipeline, graph_store

from nl2sparql.errors import ConfigError
from nl2sparql.kg.rdflib_store import RdflibStore
from nl2sparql.server.client import Client, ServiceError
from nl2sparql.server.generated import SERVICE_NAME, pb, pb_grpc
from nl2sparql.server.serve import Service, TlsFiles, check_bind, is_loopback, serve

TOKEN = "correct horse battery staple"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RdflibStore:
    return graph_store(tmp_path_factory.mktemp("security-graph"))


@pytest.fixture(scope="module")
def guarded(store: RdflibStore) -> Iterator[Service]:
    with running(GraphPipeline(store), token=TOKEN) as service:
        yield service


def _calls(channel: grpc.Channel) -> dict[str, Any]:
    stub = pb_grpc.Nl2SparqlStub(channel)
    return {
        "Ask": lambda md: stub.Ask(pb.AskRequest(question=SIBLINGS), timeout=60, metadata=md),
        "Translate": lambda md: stub.Translate(pb.TranslateRequest(question=SIBLINGS), timeout=60, metadata=md),
        "AskStream": lambda md: list(stub.AskStream(pb.AskRequest(question=SIBLINGS), timeout=60, metadata=md)),
        "Describe": lambda md: stub.Describe(pb.DescribeRequest(), timeout=60, metadata=md),
    }


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ((), "missing credentials"),
        ((("authorization", "Bearer wrong"),), "invalid bearer token"),
        ((("authorization", TOKEN),), "invalid bearer token"),  # no "Bearer " scheme
        ((("authorization", f"Bearer {TOKEN} "),), "invalid bearer token"),
    ],
)
def test_every_rpc_needs_the_token(guarded: Service, metadata: tuple[tuple[str, str], ...], message: str) -> None:
    started = guarded.servicer.pipeline.started
    with grpc.insecure_channel(guarded.address) as channel:
        for name, call in _calls(channel).items():
            with pytest.raises(grpc.RpcError) as exc:
                call(metadata)
            assert exc.value.code() is grpc.StatusCode.UNAUTHENTICATED, name
            assert message in exc.value.details(), name
    assert guarded.servicer.pipeline.started == started


def test_the_right_token_is_let_through(guarded: Service) -> None:
    with grpc.insecure_channel(guarded.address) as channel:
        for name, call in _calls(channel).items():
            assert call((("authorization", f"Bearer {TOKEN}"),)), name
    with Client(guarded.address, token=TOKEN) as client:
        assert [a.name for a in client.ask(SIBLINGS).answers] == ["Hal Orr"]
        assert client.describe()["server"]["auth"] is True


def test_health_stays_open_without_a_token(guarded: Service) -> None:
    with grpc.insecure_channel(guarded.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        response = health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=60)
    assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_needs_the_token(guarded: Service) -> None:
    with grpc.insecure_channel(guarded.address) as channel:
        with pytest.raises(grpc.RpcError) as exc:
            ProtoReflectionDescriptorDatabase(channel).get_services()
        assert exc.value.code() is grpc.StatusCode.UNAUTHENTICATED
    with grpc.secure_channel(
        guarded.address,
        grpc.composite_channel_credentials(grpc.local_channel_credentials(), grpc.access_token_call_credentials(TOKEN)),
    ) as channel:
        assert SERVICE_NAME in ProtoReflectionDescriptorDatabase(channel).get_services()


def test_client_helper_reports_the_refusal(guarded: Service) -> None:
    with Client(guarded.address, token="nope") as client:
        with pytest.raises(ServiceError) as exc:
            client.ask(SIBLINGS)
        assert exc.value.code is grpc.StatusCode.UNAUTHENTICATED
        assert client.health() == "SERVING"


# -- where the server may listen ---------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)
    check_bind(host, None, False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.org", "10.0.0.1"])
def test_public_bind_without_a_token_is_refused(host: str, store: RdflibStore) -> None:
    assert not is_loopback(host)
    with pytest.raises(ConfigError, match=f"refusing to serve on {host} without a token"):
        check_bind(host, None, False)
    with pytest.raises(ConfigError, match="--insecure"):
        serve(GraphPipeline(store), host=host, port=0)
    check_bind(host, TOKEN, False)
    check_bind(host, None, True)


# -- TLS --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def test_tls_serves_clients_that_trust_the_certificate(certificate: tuple[Path, Path], store: RdflibStore) -> None:
    cert, key = certificate
    with running(GraphPipeline(store), tls=TlsFiles.read(cert, key), token=TOKEN) as service:
        assert service.tls
        with Client(f"localhost:{service.port}", token=TOKEN, tls_root_cert=cert) as client:
            assert [a.name for a in client.ask(SIBLINGS).answers] == ["Hal Orr"]
            assert client.describe()["server"]["tls"] is True
        with (
            Client(f"localhost:{service.port}", token=TOKEN) as plaintext,
            pytest.raises(ServiceError) as exc,
        ):
            plaintext.ask(SIBLINGS, timeout=10)
        assert exc.value.code is grpc.StatusCode.UNAVAILABLE


def test_tls_files_are_checked(certificate: tuple[Path, Path], tmp_path: Path) -> None:
    cert, key = certificate
    assert TlsFiles.read(None, None) is None
    with pytest.raises(ConfigError, match="both --tls-cert and --tls-key"):
        TlsFiles.read(cert, None)
    with pytest.raises(ConfigError, match="cannot read the TLS private key .*absent.pem"):
        TlsFiles.read(cert, tmp_path / "absent.pem")
    (tmp_path / "plain.txt").write_text("not a certificate")
    with pytest.raises(ConfigError, match="plain.txt is not a PEM file"):
        TlsFiles.read(tmp_path / "plain.txt", key)
    assert "PRIVATE" not in repr(TlsFiles.read(cert, key))


def test_a_port_in_use_is_a_clear_error(guarded: Service, store: RdflibStore) -> None:
    with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{guarded.port}"):
        serve(GraphPipeline(store), host="127.0.0.1", port=guarded.port, token=TOKEN)
