"""The datasets one process serves: each a dataset IRI mapped to its own pipeline.

The TEXT2SPARQL API names the graph a question is about by an IRI
(``https://text2sparql.aksw.org/2025/dbpedia/``), so the HTTP face keeps one pipeline
(store or endpoint, bank, planner) per IRI. They come from the command line (one pair,
``--dataset IRI``) and from ``[datasets.NAME]`` tables of the config file::

    [datasets.music]
    iri = "https://example.org/music/"
    store = "/data/music-store"          # or: endpoint = "http://127.0.0.1:8890/sparql"
    bank = "/data/music.nl2sq"
    planner = "default"                  # optional; the file's top-level settings otherwise

Every table is checked (keys, types, IRIs, one of store/endpoint) before any pipeline loads,
so a typo is one clear line, not a half-started server.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nl2sparql.errors import ConfigError, Nl2SparqlError
from nl2sparql.server.options import PIPELINE_KEYS
from nl2sparql.server.protocol import AnsweringPipeline

#: what the command line's single pair is called when ``--dataset`` gives no IRI
DEFAULT_DATASET_IRI = "urn:nl2sparql:default"
DATASET_KEYS = frozenset({"iri", "description", *PIPELINE_KEYS})
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|^`\\]+$")
MAX_IRI_CHARS = 512


class UnknownDataset(Nl2SparqlError):
    """A request names a dataset this process does not serve."""


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """A dataset as configured: its short name, its IRI and the settings of its pipeline."""

    name: str
    iri: str
    flags: Mapping[str, Any]
    description: str = ""


@dataclass(slots=True)
class Dataset:
    """A served dataset: its spec and its loaded pipeline."""

    spec: DatasetSpec
    pipeline: AnsweringPipeline

    @property
    def iri(self) -> str:
        return self.spec.iri

    @property
    def name(self) -> str:
        return self.spec.name


class Datasets:
    """The served datasets, by IRI and by name, in the order given; the first is the default."""

    def __init__(self, datasets: list[Dataset]) -> None:
        if not datasets:
            raise ConfigError("no dataset to serve")
        self._by_iri: dict[str, Dataset] = {}
        self._by_name: dict[str, Dataset] = {}
        for dataset in datasets:
            if dataset.iri in self._by_iri:
                raise ConfigError(f"dataset IRI {dataset.iri} is configured twice")
            if dataset.name in self._by_name:
                raise ConfigError(f"dataset name {dataset.name!r} is configured twice")
            self._by_iri[dataset.iri] = dataset
            self._by_name[dataset.name] = dataset
        self.default = datasets[0]

    @classmethod
    def single(cls, pipeline: AnsweringPipeline, iri: str = DEFAULT_DATASET_IRI, name: str = "default") -> Datasets:
        return cls([Dataset(DatasetSpec(name, check_iri(iri, "--dataset"), {}), pipeline)])

    def __iter__(self) -> Iterator[Dataset]:
        return iter(self._by_iri.values())

    def __len__(self) -> int:
        return len(self._by_iri)

    def get(self, key: str | None) -> Dataset:
        """The dataset an IRI (or short name) names; the default one for ``None`` or ``""``."""
        if not key:
            return self.default
        found = self._by_iri.get(key) or self._by_name.get(key)
        if found is None:
            known = ", ".join(sorted(self._by_iri))
            shown = key if len(key) <= 120 else key[:120] + "..."
            raise UnknownDataset(f"unknown dataset {shown!r}; this server serves: {known}")
        return found

    def close(self) -> None:
        for dataset in self:
            close = getattr(dataset.pipeline, "close", None)
            if close is not None:
                close()


def check_iri(iri: str, where: str) -> str:
    if not isinstance(iri, str) or not _IRI.match(iri) or len(iri) > MAX_IRI_CHARS:
        raise ConfigError(f"{where}: {iri!r} is not an absolute IRI (like https://example.org/my-graph/)")
    return iri


def specs_from_table(table: Any, source: str) -> list[DatasetSpec]:
    """The ``[datasets.NAME]`` tables of a config file, checked."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: 'datasets' must be a table of tables ([datasets.NAME])")
    specs = []
    for name, entry in table.items():
        where = f"{source}: [datasets.{name}]"
        if not _NAME.match(name):
            raise ConfigError(f"{where}: a dataset name is 1-64 letters, digits, '_', '.' or '-'")
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where} must be a table with iri, store or endpoint, and bank")
        unknown = sorted(set(entry) - DATASET_KEYS)
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(DATASET_KEYS))}")
        for key, value in entry.items():
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}: {key} must be a non-empty string")
        if "iri" not in entry:
            raise ConfigError(f'{where}: needs iri = "https://..."')
        iri = check_iri(entry["iri"], f"{where} iri")
        if ("store" in entry) == ("endpoint" in entry):
            raise ConfigError(f"{where}: give exactly one of store or endpoint")
        if "bank" not in entry:
            raise ConfigError(f'{where}: needs bank = "FILE.nl2sq"')
        for key in ("store", "bank"):
            if key in entry and not Path(entry[key]).expanduser().exists():
                raise ConfigError(f"{where}: {key} {entry[key]} does not exist")
        flags = {k: entry[k] for k in PIPELINE_KEYS if k in entry}
        specs.append(DatasetSpec(name, iri, flags, entry.get("description", "")))
    return specs


def config_specs(config: str | None) -> list[DatasetSpec]:
    """The datasets of the config file ``load_settings`` reads (``--config``, ``$NL2SPARQL_CONFIG``, ...)."""
    from nl2sparql.settings import config_file

    path = config_file(config)
    if path is None:
        return []
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return specs_from_table(data["datasets"], str(path)) if "datasets" in data else []


def load(specs: list[DatasetSpec], open_pipeline: Callable[[DatasetSpec], AnsweringPipeline]) -> Datasets:
    """Every spec's pipeline, opened in order; those opened are closed again when one fails."""
    opened: list[Dataset] = []
    try:
        for spec in specs:
            opened.append(Dataset(spec, open_pipeline(spec)))
        return Datasets(opened)
    except BaseException:
        Datasets.close(opened)  # type: ignore[arg-type]
        raise
