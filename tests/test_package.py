"""The package installs as one import package and its face (CLI, config) behaves."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nl2sparql import cli, config
from nl2sparql.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("nl2sparql-*.whl")
    return built


def test_wheel_puts_everything_under_one_import_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"nl2sparql", next(t for t in top if t.endswith(".dist-info"))}
    folders = ("plan", "compiler", "compiler/optimizer", "kg", "memory_bank", "planner", "training", "server")
    for folder in (*folders, "evaluation"):
        assert f"nl2sparql/{folder}/__init__.py" in names, folder
    assert "nl2sparql/py.typed" in names
    lark_files = [n for n in names if n.endswith(".lark")]
    assert sorted(lark_files) == ["nl2sparql/compiler/sparql.lark", "nl2sparql/plan/plan.lark"]


def test_console_script_is_declared(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        entry = next(n for n in zf.namelist() if n.endswith("entry_points.txt"))
        text = zf.read(entry).decode()
    assert "nl2sparql = nl2sparql.cli:main" in text


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "nl2sparql", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "usage: nl2sparql" in done.stdout


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["no-such-command"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_data_dir_follows_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NL2SPARQL_DATA", str(tmp_path))
    assert config.data_dir() == tmp_path
    with pytest.raises(ConfigError) as exc:
        config.data_file("webqsp/WebQSP.train.json")
    message = str(exc.value)
    assert str(tmp_path / "webqsp" / "WebQSP.train.json") in message
    assert "WebQuestionsSP" in message


def test_missing_data_dir_says_what_is_needed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NL2SPARQL_DATA", str(tmp_path / "absent"))
    with pytest.raises(ConfigError) as exc:
        config.data_dir()
    message = str(exc.value)
    assert "absent" in message and "fb15k-237/train.txt" in message and "GrailQA" in message


def test_home_dir_defaults_under_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NL2SPARQL_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert config.home_dir() == tmp_path / "nl2sparql"
    monkeypatch.setenv("NL2SPARQL_HOME", str(tmp_path / "h"))
    assert config.home_dir() == tmp_path / "h"
