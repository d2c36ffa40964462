"""Settings come from a TOML file, then the environment, then flags; bad values are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sparql.errors import ConfigError
from nl2sparql.settings import load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("STORE", "ENDPOINT", "BANK", "PLANNER", "DIALECT", "TIMEOUT", "LIMIT", "CONFIG", "EXECUTE"):
        monkeypatch.delenv(f"NL2SPARQL_{key}", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))


def test_defaults() -> None:
    s = load_settings()
    assert (s.store, s.endpoint, s.planner, s.dialect, s.timeout) == (None, None, "default", "sparql11", 30.0)


def test_flags_win_over_environment_over_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "nl2sparql.toml").write_text('bank = "from-file.nl2sq"\ntimeout = 5\nplanner = "oracle"\n')
    monkeypatch.setenv("NL2SPARQL_TIMEOUT", "7.5")
    monkeypatch.setenv("NL2SPARQL_PLANNER", "hf:/models/x")
    s = load_settings({"planner": "default", "dialect": None})
    assert s.bank == "from-file.nl2sq"
    assert s.timeout == 7.5
    assert s.planner == "default"
    assert s.dialect == "sparql11"


def test_store_flag_replaces_endpoint_from_file(tmp_path: Path) -> None:
    (tmp_path / "nl2sparql.toml").write_text('endpoint = "http://127.0.0.1:8890/sparql"\n')
    s = load_settings({"store": "/tmp/store"})
    assert (s.store, s.endpoint) == ("/tmp/store", None)


def test_unknown_key_and_bad_values_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("stroe = 1\n")
    with pytest.raises(ConfigError, match="unknown setting.*stroe"):
        load_settings(config=str(cfg))
    cfg.write_text("timeout = [\n")
    with pytest.raises(ConfigError, match="c.toml"):
        load_settings(config=str(cfg))
    monkeypatch.setenv("NL2SPARQL_LIMIT", "many")
    with pytest.raises(ConfigError, match="NL2SPARQL_LIMIT.*many"):
        load_settings()


def test_invalid_combinations() -> None:
    with pytest.raises(ConfigError, match="dialect"):
        load_settings({"dialect": "sql"})
    with pytest.raises(ConfigError, match="not both"):
        load_settings({"store": "a", "endpoint": "http://x"})
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(config="/nonexistent/config.toml")
