"""The protos compile at build time into modules whose import path is the proto package."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "protos" / "nl2sparql" / "v1" / "nl2sparql.proto"
GENERATED = (
    "nl2sparql/v1/nl2sparql_pb2.py",
    "nl2sparql/v1/nl2sparql_pb2_grpc.py",
    "nl2sparql/v1/nl2sparql_pb2.pyi",
)


def test_the_proto_folder_is_its_package() -> None:
    package = re.search(r"^package ([\w.]+);", PROTO.read_text(), re.MULTILINE)
    assert package is not None
    assert PROTO.parent.relative_to(ROOT / "protos").as_posix() == package.group(1).replace(".", "/")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("nl2sparql-*.whl")
    return built


def test_the_wheel_carries_the_generated_modules(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(GENERATED) <= names
    assert not any(name.startswith("protos/") or name.endswith(".proto") for name in names)


def test_the_generated_modules_import_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path)
    probe = (
        "import nl2sparql.v1.nl2sparql_pb2_grpc as g, nl2sparql.v1.nl2sparql_pb2 as p;"
        "from nl2sparql.server.generated import SERVICE_NAME;"
        "print(p.__file__, p.DESCRIPTOR.package, SERVICE_NAME, hasattr(g, 'Nl2SparqlStub'))"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", probe],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    where, package, service, has_stub = done.stdout.split()
    assert Path(where).is_relative_to(tmp_path)
    assert (package, service, has_stub) == ("nl2sparql.v1", "nl2sparql.v1.Nl2Sparql", "True")
