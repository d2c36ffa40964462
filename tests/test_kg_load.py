"""Loading RDF files: formats, clear errors, and a store left exactly as it was when a load fails.

A failed load is checked against a snapshot of every triple in the store; interrupted
loads are real ones: a ``nl2sparql kg load`` process loading FB15k-237 is sent SIGINT or
SIGKILL while it writes.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph
import pytest
from conftest import fixture_graph_nt

from nl2sparql.kg.errors import LoadError, QueryError, QueryTimeout, StoreError
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.kg.rdflib_store import RdflibStore
from nl2sparql.kg.store import Store, open_store

ALL = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
FIXTURE_TRIPLES = len([line for line in fixture_graph_nt().splitlines() if line.strip()])


def snapshot(store: Store) -> list[tuple[str, ...]]:
    rows = store.select(ALL).rows
    return sorted(tuple(repr(row[v]) for v in ("s", "p", "o")) for row in rows)


@pytest.fixture()
def loaded(tmp_path: Path, fixture_nt: Path) -> OxigraphStore:
    store = OxigraphStore(tmp_path / "store")
    report = store.load(fixture_nt, progress=False)
    assert (report.triples_before, report.added) == (0, FIXTURE_TRIPLES)
    return store


def _bad_line_file(folder: Path, name: str, line_no: int, bad: str) -> Path:
    lines = fixture_graph_nt().splitlines()
    lines.insert(line_no - 1, bad)
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def bad_inputs(folder: Path) -> dict[str, tuple[Path, str | None, str]]:
    """name: (file, explicit format, regex the error must match)."""
    folder.mkdir(exist_ok=True)
    good_gz = folder / "good.nt.gz"
    good_gz.write_bytes(gzip.compress(fixture_graph_nt().encode() * 3))
    truncated = folder / "truncated.nt.gz"
    truncated.write_bytes(good_gz.read_bytes()[: good_gz.stat().st_size // 2])
    not_gzip = folder / "fake.nt.gz"
    not_gzip.write_bytes(b"<urn:a> <urn:b> <urn:c> .\n")
    ttl = folder / "bad.ttl"
    ttl.write_text(
        "@prefix ex: <http://example.org/> .\n\nex:a ex:b ex:c .\nex:a ex:b [ ex:c ex:d ] .\nex:a ex:b ex:c ex:d .\n",
        encoding="utf-8",
    )
    xml = folder / "bad.rdf"
    xml.write_text(
        '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"\n'
        '  xmlns:ex="http://example.org/">\n  <rdf:Description rdf:about="http://example.org/a">\n'
        "    <ex:b>one</ex:b>\n    <ex:c>two</ex:d>\n  </rdf:Description>\n</rdf:RDF>\n",
        encoding="utf-8",
    )
    unknown = folder / "data.csv"
    unknown.write_text("a,b,c\n", encoding="utf-8")
    return {
        "missing file": (folder / "nope.nt", None, r"nope\.nt: no such file"),
        "a folder": (folder, None, "not a file"),
        "unknown extension": (unknown, None, r"data\.csv: unknown RDF format \(extension '\.csv'\)"),
        "unknown explicit format": (unknown, "json-ld", "unknown RDF format 'json-ld'"),
        "truncated gzip": (truncated, None, r"truncated\.nt\.gz: truncated or corrupt gzip"),
        "not gzip at all": (not_gzip, None, r"fake\.nt\.gz: truncated or corrupt gzip"),
        "N-Triples syntax error": (
            _bad_line_file(folder, "bad.nt", 57, "<http://example.org/a> <http://example.org/b> oops ."),
            None,
            r"bad\.nt:57:\d+: syntax error \(nt\)",
        ),
        "N-Triples error read as ntriples by --format": (
            _bad_line_file(folder, "bad.data", 12, "<http://example.org/a> <http://example.org/b> ."),
            "ntriples",
            r"bad\.data:12:\d+: syntax error \(nt\)",
        ),
        "Turtle syntax error": (ttl, None, r"bad\.ttl:5(:\d+)?: syntax error \(ttl\)"),
        "RDF/XML syntax error": (xml, None, r"bad\.rdf:6(:\d+)?: syntax error \(rdfxml\)"),
    }


def test_every_bad_input_gets_a_clear_error_and_the_store_is_unchanged(loaded: OxigraphStore, tmp_path: Path) -> None:
    before = snapshot(loaded)
    stats = loaded.stats()
    for name, (path, fmt, message) in bad_inputs(tmp_path / "inputs").items():
        with pytest.raises(LoadError, match=message):
            loaded.load(path, fmt, progress=False)
        assert snapshot(loaded) == before, name
        assert loaded.stats() == stats, name
        leftovers = sorted(p.name for p in loaded.path.iterdir() if p.name.startswith(".") and p.name != ".lock")
        assert leftovers == [], name


@pytest.mark.parametrize(
    "case",
    [
        "N-Triples syntax error",
        "Turtle syntax error",
        "RDF/XML syntax error",
        "truncated gzip",
        "missing file",
        "unknown extension",
    ],
)
def test_rdflib_store_reports_the_same_errors(tmp_path: Path, case: str) -> None:
    path, fmt, message = bad_inputs(tmp_path / "inputs")[case]
    with pytest.raises(LoadError, match=message):
        RdflibStore([path], format=fmt)


def test_a_bad_file_among_good_ones_loads_nothing(loaded: OxigraphStore, tmp_path: Path) -> None:
    before = snapshot(loaded)
    extra = tmp_path / "extra.nt"
    extra.write_text("<urn:x:new> <urn:x:p> <urn:x:o> .\n", encoding="utf-8")
    bad = _bad_line_file(tmp_path, "bad.nt", 3, "not a triple")
    with pytest.raises(LoadError, match=r"bad\.nt:3"):
        loaded.load([extra, bad], progress=False)
    assert snapshot(loaded) == before
    assert loaded.load([extra], progress=False).added == 1


def test_formats_gzip_and_repeated_loads(tmp_path: Path, fixture_nt: Path) -> None:
    store = OxigraphStore(tmp_path / "store")
    ttl = tmp_path / "more.ttl.gz"
    ttl.write_bytes(
        gzip.compress(
            b'@prefix ex: <http://example.org/> .\nex:a ex:p 1, 2 ; ex:q "x"@en .\nex:b ex:p [ ex:q ex:a ] .\n'
        )
    )
    xml = tmp_path / "more.owl"
    xml.write_text(
        '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        'xmlns:ex="http://example.org/">\n<rdf:Description rdf:about="http://example.org/c">'
        "<ex:p>3</ex:p></rdf:Description>\n</rdf:RDF>\n",
        encoding="utf-8",
    )
    report = store.load([fixture_nt, ttl, xml], progress=False)
    assert report.added == FIXTURE_TRIPLES + 5 + 1
    assert store.load(fixture_nt, progress=False).added == 0  # a set of triples: nothing new
    assert store.ask('ASK { <http://example.org/c> <http://example.org/p> "3" }') is True
    assert store.stats().triples == FIXTURE_TRIPLES + 6


def test_stats_are_cached_per_generation_and_invalidated_by_a_load(loaded: OxigraphStore, tmp_path: Path) -> None:
    first = loaded.stats()
    caches = sorted(p.name for p in loaded.path.glob("*.stats.json"))
    assert len(caches) == 1
    assert first.predicates["http://rdf.freebase.com/ns/people.marriage.spouse"] == 8
    extra = tmp_path / "extra.nt"
    extra.write_text("<urn:x:m> <http://rdf.freebase.com/ns/people.marriage.spouse> <urn:x:a> .\n", encoding="utf-8")
    loaded.load(extra, progress=False)
    second = loaded.stats()
    assert second.triples == first.triples + 1
    assert second.predicates["http://rdf.freebase.com/ns/people.marriage.spouse"] == 9
    assert sorted(p.name for p in loaded.path.glob("*.stats.json")) != caches
    reopened = OxigraphStore(loaded.path)
    assert reopened.stats() == second


def test_another_handle_sees_a_load_made_elsewhere(loaded: OxigraphStore, tmp_path: Path) -> None:
    other = open_store("oxigraph", path=loaded.path)
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    assert other.select(count).rows[0]["n"].value == str(FIXTURE_TRIPLES)
    extra = tmp_path / "extra.nt"
    extra.write_text("<urn:x:a> <urn:x:b> <urn:x:c> .\n", encoding="utf-8")
    loaded.load(extra, progress=False)
    assert other.select(count).rows[0]["n"].value == str(FIXTURE_TRIPLES + 1)
    generations = [p.name for p in loaded.path.iterdir() if p.name.startswith("gen-") and p.is_dir()]
    assert len(generations) == 1  # the old generation was removed


def test_store_folder_checks(tmp_path: Path, fixture_nt: Path) -> None:
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(StoreError, match="neither an nl2sparql Oxigraph store nor an empty folder"):
        OxigraphStore(junk)
    half = tmp_path / "half"  # what an initialisation killed before writing `active` leaves
    (half / "gen-000000").mkdir(parents=True)
    (half / ".lock").touch()
    assert OxigraphStore(half).stats().triples == 0 and (half / "active").is_file()
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(StoreError, match="is a file"):
        OxigraphStore(a_file)
    # A plain pyoxigraph database folder can be queried, not loaded into.
    plain = pyoxigraph.Store(str(tmp_path / "plain"))
    plain.bulk_load(path=str(fixture_nt), format=pyoxigraph.RdfFormat.N_TRIPLES)
    plain.flush()
    del plain
    store = OxigraphStore(tmp_path / "plain")
    assert store.stats().triples == FIXTURE_TRIPLES
    with pytest.raises(LoadError, match="plain pyoxigraph database"):
        store.load(fixture_nt, progress=False)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.select("SELECT * WHERE { ?s ?p ?o }")


def test_query_errors_name_the_line(loaded: OxigraphStore) -> None:
    with pytest.raises(QueryError, match="SPARQL syntax error at line 3, column 9: expected"):
        loaded.select("SELECT ?s\nWHERE {\n ?s ?p }")
    with pytest.raises(QueryError, match="SPARQL syntax error at line 3, column"):
        RdflibStore().select("SELECT ?s\nWHERE {\n ?s ?p }")


def test_timeouts_stop_slow_queries_and_the_store_keeps_working(loaded: OxigraphStore, fixture_nt: Path) -> None:
    cross_join = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    with pytest.raises(QueryTimeout, match="ran past its timeout of 0.5 s"):
        loaded.select(cross_join, timeout=0.5)
    assert loaded.ask("ASK { ?s ?p ?o }") is True
    rdflib_store = open_store("rdflib", paths=[fixture_nt], timeout=0.5)
    with pytest.raises(QueryTimeout, match="rdflib store ran past its timeout of 0.5 s"):
        rdflib_store.select("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }")
    assert rdflib_store.ask("ASK { ?s ?p ?o }", timeout=30) is True


# -- real interruptions ------------------------------------------------------------------------


def _start_load(nt: Path, store: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "nl2sparql", "kg", "load", str(nt), "--store", str(store), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A shell that runs the tests in the background ignores SIGINT, the child inherits that
        # and Python then installs no handler: the load would shrug the interrupt off.
        preexec_fn=_interruptible,
    )


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_writing(process: subprocess.Popen[bytes], store: Path) -> None:
    """Until the loader is writing into its staging copy (a new table file appears there)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "the load finished before it could be interrupted"
        for staging in store.glob(".staging-*"):
            with contextlib.suppress(FileNotFoundError):
                if any(p.suffix == ".sst" for p in staging.iterdir()) or any(
                    p.stat().st_size > 1 << 20 for p in staging.iterdir()
                ):
                    return
        time.sleep(0.02)
    raise AssertionError("the loader never started writing")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_an_interrupted_load_leaves_the_store_as_it_was(
    loaded: OxigraphStore, fb15k_nt: Path, sig: signal.Signals
) -> None:
    before = snapshot(loaded)
    process = _start_load(fb15k_nt, loaded.path)
    try:
        _wait_for_writing(process, loaded.path)
        # Paused while the lock is checked, so that a busy machine cannot let the load finish
        # before the signal comes (the interrupt then arrives with SIGCONT, mid-load).
        os.kill(process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(StoreError, match="another process is loading"):
                loaded.load(fb15k_nt, progress=False)
        finally:
            os.kill(process.pid, sig)
            os.kill(process.pid, signal.SIGCONT)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if sig == signal.SIGINT:
        assert process.returncode == 130
        assert stderr.decode().strip().splitlines()[-1] == "nl2sparql: interrupted"
        assert not list(loaded.path.glob(".staging-*"))  # cleaned up on the way out
    else:
        assert process.returncode == -signal.SIGKILL
    assert snapshot(loaded) == before
    assert OxigraphStore(loaded.path).stats().triples == FIXTURE_TRIPLES
    extra = loaded.path.parent / "extra.nt"
    extra.write_text("<urn:x:a> <urn:x:b> <urn:x:c> .\n", encoding="utf-8")
    assert loaded.load(extra, progress=False).added == 1
    assert not list(loaded.path.glob(".staging-*"))  # a later load removes what a killed one left
