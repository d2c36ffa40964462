"""Run settings shared by the CLI, the batch translator and the service.

Three sources, the later winning: a TOML file (``--config``, else ``$NL2SPARQL_CONFIG``,
else ``./nl2sparql.toml``, else ``~/.config/nl2sparql/config.toml``), environment
variables (``NL2SPARQL_<KEY>``, e.g. ``NL2SPARQL_STORE``), and command-line flags.
Keys that nothing sets fall back to the embedded default in the home folder.

Example ``nl2sparql.toml``::

    store = "/data/freebase-store"      # or: endpoint = "http://127.0.0.1:8890/sparql"
    bank = "/data/webqsp.nl2sq"
    planner = "default"
    dialect = "sparql11"
    timeout = 30
    decoding = "greedy-first"            # or "beams": beam search for every question
    plan_batch = 16                      # planner calls decoded together (1: off)
    plan_batch_ms = 10                   # gathering window for a batch
    service = "127.0.0.1:50051"          # `ask` sends its question to this running service
    exemplars = "/data/my-exemplars"     # the local planner's exemplars: `nl2sparql planner exemplars`
    candidates = "auto"                  # plans built over the graph and ranked: auto | graph | off
    ranker = "auto"                      # the shipped trained ranker | zero-shot | a ranker file
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from nl2sparql.config import home_dir
from nl2sparql.errors import ConfigError

DIALECTS = ("sparql11", "full-iri", "virtuoso")
DECODINGS = ("greedy-first", "beams")
CANDIDATES = ("auto", "graph", "off")


@dataclass(frozen=True, slots=True)
class Settings:
    store: str | None = None
    endpoint: str | None = None
    endpoint_user: str | None = None
    endpoint_password: str | None = None
    endpoint_token: str | None = None
    bank: str | None = None
    planner: str = "default"
    dialect: str = "sparql11"
    timeout: float = 30.0
    limit: int | None = None
    execute: bool = True
    #: when a plan's query returns nothing, how many of the planner's other plans to try (KELGoP's retry)
    plan_retries: int = 2
    #: how a local planner decodes: "greedy-first" (beams only when a plan needs an alternative)
    #: or "beams" (beam search for every question, the decoding before 0.2)
    decoding: str = "greedy-first"
    #: planner calls of concurrent questions decoded together: at most this many (1: no batching)
    plan_batch: int = 16
    #: how long the first waiting question waits for others to join its batch, in milliseconds
    plan_batch_ms: float = 10.0
    #: a running ``nl2sparql serve`` (host:port) that ``ask`` sends its question to
    service: str | None = None
    #: an exemplar memory (``nl2sparql planner exemplars``) the local planner reads instead of the
    #: one it was trained with: plans of your own graph's example questions
    exemplars: str | None = None
    #: candidate plans built over the graph and chosen by the ranker, tried before the planner's:
    #: "auto" on a graph other than Freebase, "graph" on any, "off" never
    candidates: str = "auto"
    #: which scorer chooses among them: "auto" (the shipped trained ranker, else zero-shot),
    #: "zero-shot" (embedding cosine and fixed feature weights) or a ranker file's path
    ranker: str = "auto"

    def __post_init__(self) -> None:
        if self.store and self.endpoint:
            raise ConfigError("give either a store folder or an endpoint URL, not both")
        if self.dialect not in DIALECTS:
            raise ConfigError(f"unknown dialect {self.dialect!r}: choose one of {', '.join(DIALECTS)}")
        if self.timeout <= 0:
            raise ConfigError(f"timeout must be positive, got {self.timeout}")
        if self.plan_retries < 0:
            raise ConfigError(f"plan_retries must be zero or positive, got {self.plan_retries}")
        if self.decoding not in DECODINGS:
            raise ConfigError(f"unknown decoding {self.decoding!r}: choose one of {', '.join(DECODINGS)}")
        if self.candidates not in CANDIDATES:
            raise ConfigError(f"unknown candidates {self.candidates!r}: choose one of {', '.join(CANDIDATES)}")
        if not self.ranker or len(self.ranker) > 4096:
            raise ConfigError("ranker must be auto, zero-shot or a ranker file's path")
        if not 1 <= self.plan_batch <= 64:
            raise ConfigError(f"plan_batch must be 1 to 64, got {self.plan_batch}")
        if not 0 <= self.plan_batch_ms <= 1000:
            raise ConfigError(f"plan_batch_ms must be 0 to 1000, got {self.plan_batch_ms}")
        if self.limit is not None and self.limit < 0:
            raise ConfigError(f"limit must be zero or positive, got {self.limit}")

    @property
    def default_store(self) -> Path:
        return home_dir() / "store"

    @property
    def default_bank(self) -> Path:
        return home_dir() / "bank.nl2sq"


def add_choice_flags(group: Any) -> None:
    """``--candidates`` and ``--ranker``, the flags of the two settings of those names: every
    command that builds a pipeline takes them, ``serve`` and ``mcp`` too."""
    group.add_argument(
        "--candidates",
        choices=CANDIDATES,
        help="plans built over the graph and ranked, tried first: auto (graphs other than Freebase), graph, off",
    )
    group.add_argument(
        "--ranker", metavar="auto|zero-shot|FILE", help="the scorer that chooses among candidates (default auto)"
    )


_TYPES = {f.name: f.type for f in fields(Settings)}


def _coerce(key: str, value: Any, source: str) -> Any:
    kind = str(_TYPES[key])
    if value is None:
        return None
    try:
        if "bool" in kind:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off"}:
                return False
            raise ValueError(value)
        if "float" in kind:
            return float(value)
        if "int" in kind:
            return int(value)
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: {key} = {value!r} is not a valid {kind.split(' ')[0]}") from None


def config_file(explicit: str | None = None) -> Path | None:
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        return path
    env = os.environ.get("NL2SPARQL_CONFIG")
    if env:
        path = Path(env).expanduser()
        if not path.is_file():
            raise ConfigError(f"NL2SPARQL_CONFIG={env} is not a file")
        return path
    for path in (Path("nl2sparql.toml"), Path.home() / ".config" / "nl2sparql" / "config.toml"):
        if path.is_file():
            return path
    return None


def read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only where there is a file to read: 4 ms of every start-up

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    data.pop("datasets", None)  # the served datasets' tables, read by nl2sparql.server.datasets
    unknown = sorted(set(data) - set(_TYPES))
    if unknown:
        known = ", ".join(sorted(_TYPES))
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}; known: {known}")
    return {k: _coerce(k, v, str(path)) for k, v in data.items()}


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    environ = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for key in _TYPES:
        name = f"NL2SPARQL_{key.upper()}"
        if environ.get(name):
            out[key] = _coerce(key, environ[name], name)
    return out


def _overlay(base: dict[str, Any], top: Mapping[str, Any]) -> None:
    """Put ``top`` over ``base``; a store and an endpoint exclude each other, so one replaces the other."""
    if "endpoint" in top:
        base.pop("store", None)
    if "store" in top:
        base.pop("endpoint", None)
    base.update(top)


def load_settings(flags: Mapping[str, Any] | None = None, config: str | None = None) -> Settings:
    """Settings from the config file, then the environment, then flags (``None`` flags are unset)."""
    merged: dict[str, Any] = {}
    path = config_file(config)
    if path is not None:
        _overlay(merged, read_toml(path))
    _overlay(merged, from_environment())
    _overlay(merged, {k: v for k, v in (flags or {}).items() if v is not None and k in _TYPES})
    return replace(Settings(), **merged)
