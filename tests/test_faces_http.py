"""The HTTP/JSON face: real uvicorn on 127.0.0.1, real pipelines, httpx as the client.

The answering tests run the real :class:`~nl2sparql.pipeline.Pipeline` on an Oxigraph copy of
the fixture graph with its bank and recorded plans (``faces_support``); the bound, the
deadline and auth run over ``GraphPipeline`` (test_server_pipeline.py), which can be held
or slowed and made deaf to its deadline. The subprocess path (``nl2sparql serve --http``)
is exercised by test_faces_text2sparql.py.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from conftest import FixtureKG
from faces_support import DATASET_IRI, PLANS, copy_kg, serving
from test_server_pipeline import GraphPipeline

from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.memory_bank.bank_file import load_bank
from nl2sparql.pipeline import Pipeline
from nl2sparql.results import STAGES
from nl2sparql.server.datasets import Datasets
from nl2sparql.server.face import Face
from nl2sparql.server.http_input import MAX_BODY_BYTES
from nl2sparql.settings import Settings

TOKEN = "faces-test-token"


@contextmanager
def running(
    pipeline: Any, *, max_concurrency: int = 4, token: str | None = None, deadline: float = 30, iri: str = DATASET_IRI
) -> Iterator[str]:
    """The HTTP face over ``pipeline`` on a free loopback port; yields its base URL."""
    with serving(Face.create(Datasets.single(pipeline, iri), max_concurrency, deadline), token) as url:
        yield url


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory, fixture_kg: FixtureKG) -> Iterator[Pipeline]:
    store, bank = copy_kg(fixture_kg.store, fixture_kg.bank, tmp_path_factory.mktemp("faces-http"))
    from nl2sparql.planner.backends import open_planner

    opened = Pipeline(
        bank=load_bank(bank), planner=open_planner(f"plans:{PLANS}"), store=OxigraphStore(store), settings=Settings()
    )
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def url(pipeline: Pipeline) -> Iterator[str]:
    with running(pipeline) as base:
        yield base


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, fixture_nt: Any) -> Iterator[OxigraphStore]:
    """The fixture graph in Oxigraph (rdflib's SPARQL parser is not thread-safe: concurrent
    questions over an RdflibStore fail now and then with pyparsing errors)."""
    store = OxigraphStore(tmp_path_factory.mktemp("faces-graph") / "store")
    store.load(fixture_nt, progress=False)
    yield store
    store.close()


def without_timings(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "timings_ms"}


# -- answering ----------------------------------------------------------------------------------


def test_ask_returns_what_ask_json_prints(url: str, pipeline: Pipeline) -> None:
    reply = httpx.post(f"{url}/v1/ask", json={"question": "Who is the sibling of Cy Quill?"}, timeout=60)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["answers"] == [{"id": "m.0p_dee", "name": "Dee Quill"}]
    direct = json.loads(json.dumps(pipeline.ask("Who is the sibling of Cy Quill?").to_json()))
    assert without_timings(body) == without_timings(direct)
    assert set(body["timings_ms"]) >= {"linked", "planned", "recalled", "compiled", "executed"}


def test_translate_writes_sparql_and_runs_nothing(url: str) -> None:
    body = httpx.post(
        f"{url}/v1/translate",
        json={"question": "Where was Ada Quill born?", "dialect": "full-iri", "entities": {"m.0p_ada": "Ada Quill"}},
        timeout=60,
    ).json()
    assert body["answers"] == [] and "executed" not in body["timings_ms"]
    assert "<http://rdf.freebase.com/ns/people.person.place_of_birth>" in body["sparql"]


def test_the_stream_sends_one_event_per_stage(url: str) -> None:
    events: list[tuple[str, dict[str, Any]]] = []
    with httpx.stream(
        "GET", f"{url}/v1/ask/stream", params={"question": "Which films did Cy Quill act in?"}, timeout=60
    ) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in reply.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
    assert [name for name, _ in events] == list(STAGES)
    final = events[-1][1]["result"]
    assert sorted(a["name"] for a in final["answers"]) == ["Ember Road", "Glass Harbor", "Tidewater"]


def test_datasets_describe_health_and_openapi(url: str) -> None:
    listed = httpx.get(f"{url}/v1/datasets").json()["datasets"]
    assert listed == [{"iri": DATASET_IRI, "name": "default", "description": "", "default": True}]
    described = httpx.get(f"{url}/v1/describe", params={"dataset": DATASET_IRI}, timeout=30).json()
    assert described["store"]["triples"] == 138
    assert described["bank"]["prefixes"]["ns"] == "http://rdf.freebase.com/ns/"
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{url}/readyz").json()["status"] == "ready"
    document = httpx.get(f"{url}/openapi.json").json()
    assert document["openapi"].startswith("3.")
    from nl2sparql.server.http_app import build_app as build

    app = build(Face.create(Datasets.single(object()), 1))  # type: ignore[arg-type]
    assert {route.path for route in app.routes} <= set(document["paths"])  # type: ignore[attr-defined]


# -- bad input: a clear 4xx, never a 5xx -------------------------------------------------------


BAD_BODIES = [
    (b'{"question": "Who is the sibling of Cy Quill?"', "application/json", 400, "not JSON"),
    (b"[1, 2]", "application/json", 400, "must be a JSON object, got an array"),
    (b'{"question": 3}', "application/json", 400, "question must be a string, got a number"),
    (b'{"question": "x", "limit": "5"}', "application/json", 400, "limit must be a whole number"),
    (b'{"question": "x", "limit": true}', "application/json", 400, "limit must be a whole number"),
    (b'{"question": "x", "limit": 0}', "application/json", 400, "limit must be 1 to"),
    (b'{"question": "x", "entities": "m.0p_cy"}', "application/json", 400, "entities must be an object"),
    (b'{"question": "x", "entities": {"m 0": "A"}}', "application/json", 400, "contains a space"),
    (b'{"question": "x", "dialect": "sql"}', "application/json", 400, "unknown dialect 'sql'"),
    (b'{"question": "x", "timeout": -1}', "application/json", 400, "timeout must be more than 0"),
    (b'{"question": "x", "timeout": NaN}', "application/json", 400, "not JSON"),
    (b'{"question": "x", "dataset": "https://nope/"}', "application/json", 404, "unknown dataset"),
    (b'{"question": "x", "colour": "red"}', "application/json", 400, "unknown field(s) 'colour'"),
    (b'{"question": "\\ud800"}', "application/json", 400, "not valid UTF-8"),
    (b'{"question": "   "}', "application/json", 400, "question: the question is empty"),
    (b'{"entities": {}}', "application/json", 400, "question is missing"),
    (json.dumps({"question": "why " * 600}).encode(), "application/json", 400, "at most 2,000 are read"),
    (b"", "application/json", 400, "the body is empty"),
    (b"\xff\xfe", "application/json", 400, "not UTF-8"),
    (b"[" * 100_000, "application/json", 400, "not JSON"),
    (b"x" * (MAX_BODY_BYTES + 1), "application/json", 413, "larger than 256 KiB"),
    (b'{"question": "x"}', "application/xml", 415, "application/json"),
]


@pytest.mark.parametrize(("body", "kind", "status", "words"), BAD_BODIES)
def test_every_bad_body_gets_a_clear_4xx(url: str, body: bytes, kind: str, status: int, words: str) -> None:
    for route in ("/v1/ask", "/v1/translate"):
        reply = httpx.post(f"{url}{route}", content=body, headers={"Content-Type": kind}, timeout=30)
        assert reply.status_code == status, reply.text
        error = reply.json()["error"]
        assert words in error["message"] and error["status"] == status
        assert "Traceback" not in reply.text


def test_unknown_routes_and_methods_are_json_errors(url: str) -> None:
    missing = httpx.get(f"{url}/v2/ask")
    assert missing.status_code == 404 and "GET /openapi.json" in missing.json()["error"]["message"]
    wrong = httpx.get(f"{url}/v1/ask")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"
    stream = httpx.get(f"{url}/v1/ask/stream", params={"question": "x", "limit": "many"})
    assert stream.status_code == 400 and "limit must be a number" in stream.json()["error"]["message"]


# -- auth, the bound, deadlines -------------------------------------------------------------------


def test_the_token_guards_everything_but_the_probes(graph: Any) -> None:
    with running(GraphPipeline(graph), token=TOKEN) as base:
        for method, path in (
            ("POST", "/v1/ask"),
            ("GET", "/v1/datasets"),
            ("GET", "/openapi.json"),
            ("GET", "/text2sparql"),
            ("GET", "/sparql"),
            ("GET", "/nowhere"),
        ):
            refused = httpx.request(method, f"{base}{path}", json={"question": "x"})
            assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
            wrong = httpx.request(method, f"{base}{path}", headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401 and wrong.json()["error"]["message"] == "invalid bearer token"
        assert httpx.get(f"{base}/healthz").status_code == 200
        assert httpx.get(f"{base}/readyz").status_code == 200
        allowed = httpx.post(
            f"{base}/v1/ask",
            json={"question": "who is the sibling of Cy Quill?"},
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=30,
        )
        assert allowed.status_code == 200 and allowed.json()["answers"][0]["name"] == "Dee Quill"


def test_a_full_server_answers_429_with_retry_after(graph: Any) -> None:
    hold = threading.Event()
    with running(GraphPipeline(graph, hold=hold), max_concurrency=2) as base, httpx.Client(timeout=30) as http:
        results: list[httpx.Response] = []
        workers = [
            threading.Thread(
                target=lambda: results.append(
                    http.post(f"{base}/v1/ask", json={"question": "who is the sibling of Cy Quill?"})
                )
            )
            for _ in range(2)
        ]
        for worker in workers:
            worker.start()
        began = time.monotonic()
        while time.monotonic() - began < 20:  # hang guard: both are in flight
            if httpx.get(f"{base}/readyz").json()["in_flight"] == 2:
                break
            time.sleep(0.02)
        try:
            refused = http.post(f"{base}/v1/ask", json={"question": "who is the sibling of Gus Orr?"})
        finally:
            hold.set()
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "1"
        assert "2 questions in flight" in refused.json()["error"]["message"]
        for worker in workers:
            worker.join(30)
        assert [r.status_code for r in results] == [200, 200], [r.text for r in results]
        assert http.get(f"{base}/readyz").json()["in_flight"] == 0


def test_a_pipeline_deaf_to_its_deadline_is_answered_504_on_time(graph: Any) -> None:
    slow = GraphPipeline(graph, stage_seconds=1.5, heeds_deadline=False)
    with running(slow, max_concurrency=1) as base:
        began = time.monotonic()
        reply = httpx.post(
            f"{base}/v1/ask", json={"question": "who is the sibling of Cy Quill?", "timeout": 0.5}, timeout=30
        )
        took = time.monotonic() - began
        assert reply.status_code == 504 and reply.json()["error"]["code"] == "deadline_exceeded"
        assert took < 1.5, took  # answered at the deadline, not when the stages were done
        busy = httpx.post(f"{base}/v1/ask", json={"question": "x"}, timeout=30)
        assert busy.status_code == 429  # the abandoned question keeps its slot until it returns
        assert httpx.get(f"{base}/healthz").status_code == 200  # and the service stays up


def test_a_pipeline_that_heeds_its_deadline_is_a_504_too(graph: Any) -> None:
    with running(GraphPipeline(graph, stage_seconds=1.0), max_concurrency=1) as base:
        reply = httpx.post(
            f"{base}/v1/ask", json={"question": "who is the sibling of Cy Quill?", "timeout": 0.3}, timeout=30
        )
        assert reply.status_code == 504 and "deadline" in reply.json()["error"]["message"]


def test_sixteen_concurrent_clients_get_answers_or_429_and_nothing_else(url: str) -> None:
    """The issue's load bound: 16 clients at once on a face that serves 4 at once (``url``'s
    server): every reply is an answer or a 429 with Retry-After; none is an error."""
    from concurrent.futures import ThreadPoolExecutor

    questions = [
        "Who is the sibling of Cy Quill?",
        "Where was Ada Quill born?",
        "Which country contains Porta?",
        "Who was Eli Marsh married to?",
    ]

    def client(n: int) -> list[tuple[int, str | None]]:
        with httpx.Client(base_url=url, timeout=60) as http:
            replies = [http.post("/v1/ask", json={"question": questions[(n + i) % 4]}) for i in range(3)]
        return [(r.status_code, r.headers.get("retry-after")) for r in replies]

    with ThreadPoolExecutor(16) as pool:
        seen = [outcome for outcomes in pool.map(client, range(16)) for outcome in outcomes]
    assert len(seen) == 48
    assert {status for status, _ in seen} <= {200, 429}, seen
    assert all(retry == "1" for status, retry in seen if status == 429)
    assert any(status == 200 for status, _ in seen)


def test_a_stream_left_mid_way_frees_its_slot_and_closes_the_pipeline(graph: Any) -> None:
    slow = GraphPipeline(graph, stage_seconds=0.3)
    with running(slow, max_concurrency=1) as base:
        with httpx.stream(
            "GET", f"{base}/v1/ask/stream", params={"question": "who is the sibling of Cy Quill?"}, timeout=30
        ) as reply:
            first = next(line for line in reply.iter_lines() if line.startswith("event: "))
        assert first == "event: linked"
        began = time.monotonic()
        while time.monotonic() - began < 20:  # hang guard
            if httpx.get(f"{base}/readyz").json()["in_flight"] == 0 and slow.closed_early == 1:
                break
            time.sleep(0.05)
        assert httpx.get(f"{base}/readyz").json()["in_flight"] == 0
        assert (slow.closed_early, slow.finished) == (1, 0)
        assert (
            httpx.post(f"{base}/v1/ask", json={"question": "who is the sibling of Cy Quill?"}, timeout=30).status_code
            == 200
        )
