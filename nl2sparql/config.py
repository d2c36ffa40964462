"""Where the project finds its inputs (the data folder) and keeps what it builds (the home folder).

Data: ``$NL2SPARQL_DATA``, else ``../shared/data`` beside the checkout (or beside the
current directory). Home: ``$NL2SPARQL_HOME``, else ``$XDG_CACHE_HOME/nl2sparql``
(``~/.cache/nl2sparql``).
"""

from __future__ import annotations

import os
from pathlib import Path

from nl2sparql.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[1]

DATA_FILES = {
    "webqsp/WebQSP.train.json": "WebQuestionsSP 1.0 (https://www.microsoft.com/en-us/download/details.aspx?id=52763)",
    "webqsp/WebQSP.test.part-A.json": "WebQuestionsSP 1.0, test split",
    "cwq/cwq.test.part-A.json": "ComplexWebQuestions 1.1 (https://www.tau-nlp.sites.tau.ac.il/compwebq)",
    "fb15k-237/train.txt": "FB15k-237 (https://www.microsoft.com/en-us/download/details.aspx?id=52312)",
    "fb15k-237/FB15k_mid2name.txt": "FB15k entity names (mid2name)",
    "freebase-ontology/fb_roles": "GrailQA release ontology (https://dki-lab.github.io/GrailQA/)",
    "grailqa/grailqa.sample-1000.json": "GrailQA (https://dki-lab.github.io/GrailQA/)",
}


def _candidates() -> list[Path]:
    return [Path.cwd().parent / "shared" / "data", REPO_ROOT.parent / "shared" / "data"]


def data_dir(required: bool = True) -> Path | None:
    """The data folder, or a :class:`ConfigError` that says what is needed and where to get it."""
    env = os.environ.get("NL2SPARQL_DATA")
    if env:
        path = Path(env).expanduser()
        if path.is_dir():
            return path
        if required:
            raise ConfigError(f"NL2SPARQL_DATA={env} is not a folder. {_needed()}")
        return None
    for path in _candidates():
        if path.is_dir():
            return path
    if required:
        tried = ", ".join(str(p) for p in _candidates())
        raise ConfigError(f"no data folder: NL2SPARQL_DATA is unset and none of {tried} exists. {_needed()}")
    return None


def data_file(relative: str) -> Path:
    """A file inside the data folder; the error names the file and its public source."""
    path = data_dir() / relative  # type: ignore[operator]
    if not path.is_file():
        source = DATA_FILES.get(relative, "see ../shared/data/README.md")
        raise ConfigError(f"missing data file {path} (public release: {source})")
    return path


def _needed() -> str:
    lines = "; ".join(f"{name} from {src}" for name, src in DATA_FILES.items())
    return f"Set NL2SPARQL_DATA to a folder holding: {lines}."


def home_dir() -> Path:
    """The folder where ``nl2sparql setup`` puts the default store, bank and planner."""
    env = os.environ.get("NL2SPARQL_HOME")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "nl2sparql"
