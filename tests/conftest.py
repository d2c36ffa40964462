"""Shared fixtures: the FB15k-237 graph and store, a live Virtuoso, and the ``slow`` switch.

Built artefacts are cached under ``$NL2SPARQL_TEST_CACHE`` (default
``/tmp/nl2sparql-test-cache``), keyed by a hash of the code and data that make them, so a
changed importer rebuilds them. Each is built under a file lock into a temporary name and
renamed into place, so concurrent or aborted runs never see a half-built cache entry.

``virtuoso`` starts ``virtuoso-t`` on free loopback ports in a throwaway folder, loads
:func:`fixture_graph_nt` into the graph ``FIXTURE_GRAPH`` with ``isql-vt``, adds a copy
of the endpoint behind HTTP basic auth (``/sparql-basic``, user ``nl2sparql``), logs
every HTTP request (so tests can count retries), and grants SPARQL Update to the
endpoint's anonymous user, so that a store that failed to refuse an
update *would* change the server: the read-only tests prove the guard, not Virtuoso's
permissions, stopped it. The project's stores themselves never write.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import nl2sparql.kg.fb15k237 as fb15k237
import nl2sparql.kg.oxigraph_store as oxigraph_store
from nl2sparql.config import data_dir
from nl2sparql.kg.oxigraph_store import OxigraphStore

FIXTURE_GRAPH = "http://nl2sparql.test/fixture"
NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"


# Tests never write merged planner weights into the user's home (<home>/cache); the cache's
# own test turns it on with a temporary home.
os.environ.setdefault("NL2SPARQL_PLANNER_CACHE", "0")


# -- slow tests ----------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")
    parser.addoption(
        "--model-floors",
        action="store_true",
        default=False,
        help="list the tests marked model with the floor each asserts and the figure measured, run nothing",
    )


def model_floor(item: pytest.Item) -> tuple[str, str]:
    """The ``floor`` a ``model`` test asserts and the figure ``measured`` when it was written:
    a trained model's quality is asserted below what it reached, by an honest margin, so a
    better model never fails it and a worse one does."""
    mark = item.get_closest_marker("model")
    assert mark is not None
    floor, measured = mark.kwargs.get("floor"), mark.kwargs.get("measured")
    if not floor or not measured:
        raise pytest.UsageError(f"{item.nodeid}: a model test says its floor= and the figure measured=")
    return str(floor), str(measured)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    floors = {item.nodeid: model_floor(item) for item in items if item.get_closest_marker("model")}
    if config.getoption("--model-floors"):
        for nodeid, (floor, measured) in floors.items():
            print(f"{nodeid}\n    floor: {floor}\n    measured: {measured}")
        config.hook.pytest_deselected(items=list(items))
        items.clear()
        return
    if config.getoption("--runslow") or os.environ.get("NL2SPARQL_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow test: run with --runslow or NL2SPARQL_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# -- cache ---------------------------------------------------------------------------------


def cache_dir() -> Path:
    path = Path(os.environ.get("NL2SPARQL_TEST_CACHE", "/tmp/nl2sparql-test-cache"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _key(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _source_stamp(folder: Path) -> str:
    files = [*fb15k237.SPLITS, fb15k237.NAMES_FILE]
    return ";".join(f"{name}:{(folder / name).stat().st_size}" for name in files)


def _prune(pattern: str, keep: Path) -> None:
    """Remove cache entries built by older versions of the code (they are never used again)."""
    for stale in cache_dir().glob(pattern):
        if stale != keep:
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)


def fb15k_source() -> Path:
    return data_dir() / "fb15k-237"  # type: ignore[operator]


@pytest.fixture(scope="session")
def fb15k_nt() -> Path:
    """The CVT-expanded FB15k-237 N-Triples file (gzip), built once per importer version."""
    src = fb15k_source()
    importer = Path(fb15k237.__file__).read_bytes()
    key = _key(str(fb15k237.FORMAT_VERSION), importer, _source_stamp(src))
    target = cache_dir() / f"fb15k237-{key}.nt.gz"
    with _locked(cache_dir() / f".fb15k237-{key}.lock"):
        if not target.is_file():
            fb15k237.import_fb15k237(src, target)  # writes a temp file and renames it
            _prune("fb15k237-*.nt.gz", keep=target)
    return target


@pytest.fixture(scope="session")
def fb15k_store(fb15k_nt: Path) -> Iterator[OxigraphStore]:
    """A read-only Oxigraph store over :func:`fb15k_nt`, loaded once per importer/store version."""
    import pyoxigraph

    key = _key(fb15k_nt.name, Path(oxigraph_store.__file__).read_bytes(), pyoxigraph.__version__)
    target = cache_dir() / f"fb15k237-store-{key}"
    with _locked(cache_dir() / f".fb15k237-store-{key}.lock"):
        if not target.is_dir():
            staging = cache_dir() / f".building-{key}-{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            try:
                builder = OxigraphStore(staging)
                builder.load(fb15k_nt, progress=False)
                builder.close()
                os.rename(staging, target)  # the finished store appears at once or not at all
                _prune("fb15k237-store-*", keep=target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    store = OxigraphStore(target)
    yield store
    store.close()


@functools.cache
def gold_plan_pairs(source: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(train, dev) gold-plan pairs of ``source`` (``webqsp`` or ``cwq``), as
    :func:`nl2sparql.training.data.gold_pairs` synthesises them; made once per test session."""
    from nl2sparql.training.data import gold_pairs

    train, dev, _ = gold_pairs((source,))
    return tuple(train), tuple(dev)


@functools.cache
def parsed_gold_plans() -> tuple[tuple[Any, Any], ...]:
    """Every gold-plan pair of WebQSP train and CWQ part A (train and dev) with its parsed
    plan, for the tests that check a plan repair leaves gold plans alone; parsed once."""
    from nl2sparql.plan.reader import parse_plan

    pairs = [pair for source in ("webqsp", "cwq") for split in gold_plan_pairs(source) for pair in split]
    return tuple((pair, parse_plan(pair.output)) for pair in pairs)


def store_of(folder: Path, ntriples: str) -> OxigraphStore:
    """An Oxigraph store in ``folder`` holding the graph ``ntriples`` (a test's own small graph)."""
    data = folder / "graph.nt"
    data.write_text(ntriples, encoding="utf-8")
    built = OxigraphStore(folder / "store")
    built.load(data, progress=False)
    return built


def rebuild_compiler(builder: Any, extensions: Iterable[Any], distractors: Iterable[Any]) -> Any:
    """The compiler a synthetic pair must rebuild its query through, over a real bank (the
    embedder, recall, the compiler) of the ``extensions``' statements and of the
    ``distractors``' (other WebQSP train sources), so that recall has to choose."""
    from nl2sparql.kg.freebase_schema import load_schema
    from nl2sparql.memory_bank.bank import MemoryBank
    from nl2sparql.memory_bank.build_queries import stored_entries
    from nl2sparql.memory_bank.embedder import default_embedder
    from nl2sparql.reconstruction import PlanCompiler, freebase_options

    decomposer = builder.synthesiser.decomposer
    queries = [(e.sparql, e.topics, e.entities) for e in extensions]
    queries += [(s.sparql, (s.topic,), {}) for s in distractors]
    entries = []
    for sparql, topics, names in queries:
        found = decomposer.decompose(sparql, [f"ns:{t}" for t in topics], {f"ns:{k}": v for k, v in names.items()})
        entries += [o.entry for o in (*found.statements, *found.constraints)]
    unique = list({e.key: e for e in entries}.values())
    stored = stored_entries(unique, decomposer.schema, every_reading=True, with_schema=False)
    bank = MemoryBank.build(stored, embedder=default_embedder(), describer=decomposer.describer)
    return PlanCompiler(bank, options=freebase_options("cwq", load_schema()))


# -- the Freebase-like fixture graph ---------------------------------------------------------


def _iri(local: str) -> str:
    return f"<{NS}{local}>"


def _typed(value: str, datatype: str) -> str:
    return f'"{value}"^^<{XSD}{datatype}>'


def fixture_graph_nt() -> str:
    """A small invented Freebase-shaped graph: named entities, CVTs, numbers and dates.

    People with genders, birth dates, heights and birthplaces; marriages, sibling
    relationships, film performances and government positions as CVT nodes (no name)
    with dates; cities with populations inside countries; films with release dates.
    """
    name = _iri("type.object.name")
    lines: list[str] = []

    def add(s: str, p: str, o: str) -> None:
        lines.append(f"{_iri(s)} {_iri(p)} {o} .")

    def named(mid: str, label: str, lang: str = "en") -> None:
        lines.append(f'{_iri(mid)} {name} "{label}"@{lang} .')

    named("m.0g_male", "Male")
    named("m.0g_female", "Female")
    countries = {"m.0c_ar": ("Arcadia", 5_300_000), "m.0c_bo": ("Borealia", 870_000)}
    for mid, (label, population) in countries.items():
        named(mid, label)
        add(mid, "location.statistical_region.population", _typed(str(population), "integer"))
    cities = {
        "m.0t_port": ("Porta", 1_250_000, "m.0c_ar"),
        "m.0t_lumen": ("Lumen", 96_000, "m.0c_ar"),
        "m.0t_nord": ("Nordhavn", 410_500, "m.0c_bo"),
        "m.0t_vale": ("Vale", 2_040_000, "m.0c_bo"),
    }
    for mid, (label, population, country) in cities.items():
        named(mid, label)
        add(mid, "location.statistical_region.population", _typed(str(population), "integer"))
        add(mid, "location.location.containedby", _iri(country))
    named("m.0t_vale", "Val", "fr")
    people = {
        # mid: (name, gender, birth date, height in metres or None, birthplace or None)
        "m.0p_ada": ("Ada Quill", "female", "1961-04-12", "1.68", "m.0t_port"),
        "m.0p_ben": ("Ben Quill", "male", "1958-11-02", "1.83", "m.0t_port"),
        "m.0p_cy": ("Cy Quill", "male", "1987-01-30", "1.79", "m.0t_lumen"),
        "m.0p_dee": ("Dee Quill", "female", "1990-07-19", None, "m.0t_lumen"),
        "m.0p_eli": ("Eli Marsh", "male", "1972-03-05", "1.91", "m.0t_nord"),
        "m.0p_fay": ("Fay Marsh", "female", "1975-09-23", "1.62", None),
        "m.0p_gus": ("Gus Orr", "male", "1949-12-31", "1.75", "m.0t_vale"),
        "m.0p_hal": ("Hal Orr", "male", "1980-06-15", "1.88", "m.0t_vale"),
    }
    for mid, (label, gender, born, height, place) in people.items():
        named(mid, label)
        add(mid, "people.person.gender", _iri(f"m.0g_{gender}"))
        add(mid, "people.person.date_of_birth", _typed(born, "date"))
        if height:
            add(mid, "people.person.height_meters", _typed(height, "float"))
        if place:
            add(mid, "people.person.place_of_birth", _iri(place))
    marriages = [
        # cvt, spouse, spouse, from, to
        ("cvt.m1", "m.0p_ada", "m.0p_ben", "1984-06-01", None),
        ("cvt.m2", "m.0p_eli", "m.0p_dee", "1996-05-11", "2001-02-20"),
        ("cvt.m3", "m.0p_eli", "m.0p_fay", "2003-08-30", None),
        ("cvt.m4", "m.0p_gus", "m.0p_fay", "1994-01-15", "1999-10-01"),
    ]
    for cvt, a, b, start, end in marriages:
        for person in (a, b):
            add(person, "people.person.spouse_s", _iri(cvt))
            add(cvt, "people.marriage.spouse", _iri(person))
        add(cvt, "people.marriage.from", _typed(start, "date"))
        if end:
            add(cvt, "people.marriage.to", _typed(end, "date"))
    siblings = [("cvt.s1", "m.0p_cy", "m.0p_dee"), ("cvt.s2", "m.0p_gus", "m.0p_hal")]
    for cvt, a, b in siblings:
        add(a, "people.person.sibling_s", _iri(cvt))
        add(cvt, "people.sibling_relationship.sibling", _iri(b))
        add(b, "people.person.sibling_s", _iri(cvt))
        add(cvt, "people.sibling_relationship.sibling", _iri(a))
    films = {
        "m.0f_tide": ("Tidewater", "1999-03-26"),
        "m.0f_ember": ("Ember Road", "2004-11-05"),
        "m.0f_glass": ("Glass Harbor", "2011-07-08"),
    }
    for mid, (label, released) in films.items():
        named(mid, label)
        add(mid, "film.film.initial_release_date", _typed(released, "date"))
    performances = [
        ("cvt.f1", "m.0p_cy", "m.0f_tide", "Young Fisher"),
        ("cvt.f2", "m.0p_cy", "m.0f_ember", "Driver"),
        ("cvt.f3", "m.0p_cy", "m.0f_glass", "Captain Rowe"),
        ("cvt.f4", "m.0p_dee", "m.0f_glass", "Signal Officer"),
        ("cvt.f5", "m.0p_hal", "m.0f_ember", "Mechanic"),
    ]
    for cvt, actor, film, character in performances:
        add(actor, "film.actor.film", _iri(cvt))
        add(cvt, "film.performance.actor", _iri(actor))
        add(cvt, "film.performance.film", _iri(film))
        add(cvt, "film.performance.character_note", f'"{character}"')
    named("m.0o_gov", "Governor")
    named("m.0o_may", "Mayor")
    positions = [
        ("cvt.g1", "m.0p_gus", "m.0o_may", "m.0t_vale", "1988-01-01", "1996-12-31"),
        ("cvt.g2", "m.0p_gus", "m.0o_gov", "m.0c_bo", "1997-01-01", "2008-12-31"),
        ("cvt.g3", "m.0p_ben", "m.0o_may", "m.0t_port", "2002-01-01", None),
        ("cvt.g4", "m.0p_eli", "m.0o_gov", "m.0c_bo", "2009-01-01", "2016-12-31"),
    ]
    for cvt, holder, title, place, start, end in positions:
        add(holder, "government.politician.government_positions_held", _iri(cvt))
        add(cvt, "government.government_position_held.office_holder", _iri(holder))
        add(cvt, "government.government_position_held.basic_title", _iri(title))
        add(cvt, "government.government_position_held.jurisdiction_of_office", _iri(place))
        add(cvt, "government.government_position_held.from", _typed(start, "date"))
        if end:
            add(cvt, "government.government_position_held.to", _typed(end, "date"))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def fixture_nt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`fixture_graph_nt` written to an N-Triples file."""
    path = tmp_path_factory.mktemp("fixture-graph") / "fixture.nt"
    path.write_text(fixture_graph_nt(), encoding="utf-8")
    return path


@dataclass(frozen=True, slots=True)
class FixtureKG:
    """An Oxigraph store of the fixture graph (closed, reopen it) and a bank built from it."""

    store: Path
    bank: Path


@pytest.fixture(scope="session")
def fixture_kg(tmp_path_factory: pytest.TempPathFactory, fixture_nt: Path) -> FixtureKG:
    """The fixture graph loaded into Oxigraph, and a memory bank built from that store with
    the bundled MiniLM: a whole small KG for pipeline tests that need no home folder."""
    from nl2sparql.memory_bank.bank_file import save_bank
    from nl2sparql.memory_bank.build_store import build_bank_from_store
    from nl2sparql.memory_bank.embedder import default_embedder

    folder = tmp_path_factory.mktemp("fixture-kg")
    store = OxigraphStore(folder / "store")
    try:
        store.load(fixture_nt, progress=False)
        bank, _ = build_bank_from_store(store, embedder=default_embedder(), source="fixture")
    finally:
        store.close()
    return FixtureKG(folder / "store", save_bank(bank, folder / "fixture.nl2sq"))


# -- Virtuoso ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VirtuosoEndpoint:
    """A running test Virtuoso: its SPARQL URL and the graph holding the fixture data."""

    url: str
    graph: str
    sql_port: int
    pid: int
    folder: Path
    basic_url: str  # the same endpoint behind HTTP basic auth
    user: str
    password: str

    def __str__(self) -> str:
        return self.url

    def http_log(self) -> list[str]:
        """Lines of the server's HTTP access log (one per request, with status and user agent)."""
        return [line for path in sorted(self.folder.glob("http*.log")) for line in path.read_text().splitlines()]

    def isql(self, sql: str) -> str:
        """Run SQL (and ``SPARQL ...`` statements) as dba; setup only."""
        done = subprocess.run(
            ["isql-vt", f"127.0.0.1:{self.sql_port}", "dba", "dba", f"exec={sql}"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0 or "*** Error" in done.stdout + done.stderr:
            raise RuntimeError(f"isql-vt failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
        return done.stdout


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


VIRTUOSO_INI = """[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
ServerThreads = 10
CheckpointInterval = 0
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
DirsAllowed = ., {dir}

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {dir}
ServerThreads = 4
MaxKeepAlives = 10
KeepAliveTimeout = 10
HTTPLogFile = {dir}/http.log

[SPARQL]
ResultSetMaxRows = 100000
MaxQueryExecutionTime = 20
MaxQueryCostEstimationTime = 400
"""


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: Virtuoso tests must run in CI)")
    pytest.skip(reason)


def _answers(url: str) -> bool:
    query = urllib.parse.urlencode({"query": "ASK { }"})
    try:
        with urllib.request.urlopen(f"{url}?{query}", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoEndpoint]:
    """A Virtuoso on 127.0.0.1 holding :func:`fixture_graph_nt` in ``FIXTURE_GRAPH``."""
    binary = shutil.which("virtuoso-t")
    if binary is None or shutil.which("isql-vt") is None:
        _unavailable("virtuoso-t/isql-vt not found: apt-get install virtuoso-opensource-7-bin")
    folder = tmp_path_factory.mktemp("virtuoso")
    sql_port, http_port = free_port(), free_port()
    ini = folder / "virtuoso.ini"
    ini.write_text(VIRTUOSO_INI.format(dir=folder, sql_port=sql_port, http_port=http_port), encoding="utf-8")
    log = open(folder / "stdout.log", "wb")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen(
        [binary, "+foreground", "+configfile", str(ini)], cwd=folder, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{http_port}/sparql"
    try:
        deadline = time.monotonic() + 120
        while not _answers(url):
            if process.poll() is not None:
                tail = (folder / "stdout.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"virtuoso-t exited with {process.returncode}: {tail}")
            if time.monotonic() > deadline:
                pytest.fail("virtuoso-t did not answer on its SPARQL port within 120 s")
            time.sleep(0.25)
        basic_url = f"http://127.0.0.1:{http_port}/sparql-basic"
        server = VirtuosoEndpoint(
            url, FIXTURE_GRAPH, sql_port, process.pid, folder, basic_url, "nl2sparql", "test-secret"
        )
        data = folder / "fixture.nt"
        data.write_text(fixture_graph_nt(), encoding="utf-8")
        server.isql(
            f"DB.DBA.TTLP(file_to_string_output('{data}'), '', '{FIXTURE_GRAPH}', 0); "
            'grant SPARQL_UPDATE to "SPARQL"; '
            f"DB.DBA.USER_CREATE('{server.user}', '{server.password}'); "
            f'grant SPARQL_SELECT to "{server.user}"; '
            "DB.DBA.VHOST_DEFINE(lhost=>'*ini*', vhost=>'*ini*', lpath=>'/sparql-basic', ppath=>'/!sparql/', "
            "is_dav=>1, vsp_user=>'dba', opts=>vector('noinherit', 1), "
            "auth_fn=>'DB.DBA.HP_AUTH_SPARQL_USER', realm=>'SPARQL', sec=>'basic'); checkpoint;"
        )
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        log.close()
