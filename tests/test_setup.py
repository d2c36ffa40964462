"""``nl2sparql setup`` on a small data folder the test cuts from the real one.

The real setup reads FB15k-237 and WebQSP train from the data folder; here the data
folder holds the first triples of FB15k-237 and the first WebQSP train questions, so the
whole setup (import, store load, bank build, exemplar memory, planner check) runs in seconds and is checked
for what it builds, what it keeps on a second run, and what it says about the planner.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.config import data_file
from nl2sparql.home import setup_home
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.memory_bank.bank_file import load_bank
from nl2sparql.planner.backends.local import SHIPPED_PLANNER
from nl2sparql.planner.exemplars import ExemplarMemory

TRIPLES = 3000
QUESTIONS = 25
SCHEMA_DOMAINS = ("people.marriage", "people.person.spouse_s")


@pytest.fixture(scope="module")
def small_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data")
    fb = folder / "fb15k-237"
    fb.mkdir()
    source = data_file("fb15k-237/train.txt").parent
    lines = (source / "train.txt").read_text(encoding="utf-8").splitlines()[:TRIPLES]
    (fb / "train.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name in ("valid.txt", "test.txt"):
        (fb / name).write_text("", encoding="utf-8")
    shutil.copy(source / "FB15k_mid2name.txt", fb / "FB15k_mid2name.txt")
    webqsp = folder / "webqsp"
    webqsp.mkdir()
    record = json.loads(data_file("webqsp/WebQSP.train.json").read_text(encoding="utf-8"))
    record["Questions"] = record["Questions"][:QUESTIONS]
    (webqsp / "WebQSP.train.json").write_text(json.dumps(record), encoding="utf-8")
    _cut_ontology(folder / "freebase-ontology", json.dumps(record), SCHEMA_DOMAINS)
    return folder


def _cut_ontology(target: Path, queries: str, domains: tuple[str, ...]) -> None:
    """The real ontology with only the relations the questions use and those of ``domains``
    (the whole schema's 61k statements take minutes to embed)."""
    source = data_file("freebase-ontology/fb_roles").parent
    target.mkdir()
    for name in ("fb_types", "reverse_properties"):
        shutil.copy(source / name, target / name)
    kept = [
        line
        for line in (source / "fb_roles").read_text(encoding="utf-8").splitlines()
        if len(line.split()) == 3 and (line.split()[1] in queries or line.split()[1].startswith(domains))
    ]
    (target / "fb_roles").write_text("\n".join(kept) + "\n", encoding="utf-8")


def test_setup_builds_the_default_then_keeps_it(
    small_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NL2SPARQL_DATA", str(small_data))
    home = tmp_path / "home"
    report = setup_home(home, progress=False)
    assert "CVT nodes" in report["graph"] and "triples loaded" in report["store"]
    assert (home / "fb15k237.nt.gz").is_file() and not (home / ".store.partial").exists()
    store = OxigraphStore(home / "store")
    try:
        assert store.stats().triples > TRIPLES  # the source triples, their CVT halves and the names
    finally:
        store.close()
    bank = load_bank(home / "bank.nl2sq")
    assert sum(bank.counts()["structure"].values()) > 0 and f"seen in {QUESTIONS} queries" in report["bank"]
    # The schema's statements are there beside the query log's (support 0), the marriage CVT's among them.
    schema_only = [s for s in bank.statements if s.support == 0 and "people.marriage.from" in s.sparql]
    assert schema_only and bank.meta.sources == ("webqsp-train,freebase-schema",)
    memory = ExemplarMemory.load(home / "exemplars")  # the small folder has no CWQ: WebQSP train only
    assert 0 < len(memory.ids) <= QUESTIONS and all(i.startswith("WebQTrn-") for i in memory.ids)
    assert report["exemplars"].startswith(f"{len(memory.ids)} plans of training questions")
    if (SHIPPED_PLANNER / "planner.json").is_file():
        assert report["planner"].startswith(f"shipped with the package: {SHIPPED_PLANNER} (lora on minilm-ed")
    else:
        assert report["planner"].startswith(f"none in {home / 'planner'}")

    again = setup_home(home, progress=False)
    assert again["graph"] == f"kept {home / 'fb15k237.nt.gz'}" and again["store"] == f"kept {home / 'store'}"
    assert again["bank"] == f"kept {home / 'bank.nl2sq'}" and again["exemplars"] == f"kept {home / 'exemplars'}"


def test_a_planner_trained_into_home_wins_and_setup_says_so(
    small_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not (SHIPPED_PLANNER / "planner.json").is_file():
        pytest.skip("no planner shipped in this checkout")
    monkeypatch.setenv("NL2SPARQL_DATA", str(small_data))
    home = tmp_path / "home"
    shutil.copytree(SHIPPED_PLANNER, home / "planner")
    assert main(["setup", "--home", str(home), "--quiet", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["planner"].startswith(f"trained here: {home / 'planner'}")


def test_setup_without_data_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NL2SPARQL_DATA", str(tmp_path / "absent"))
    assert main(["setup", "--home", str(tmp_path / "home"), "--quiet"]) != 0
