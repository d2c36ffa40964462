"""The TEXT2SPARQL API end to end with the challenge's official client, ``text2sparql-client``.

``nl2sparql serve --http 0`` runs on loopback over the fixture graph and its bank (recorded
plans: the face is tested, not the model). The client, installed by scripts/install.sh into
its own venv (``.venv-t2s``: it pins numpy<2; ``pytrec-eval-terrier`` stands in for
``pytrec-eval``, whose source build downloads at build time), then

1. ``text2sparql ask questions.yml URL/text2sparql``: one GET per question;
2. ``text2sparql query`` twice against the server's read-only ``/sparql`` route: the gold
   queries, and the queries the server answered;
3. ``text2sparql evaluate``: pytrec_eval's set precision, recall and F1.

Measured (2026-11-26): the client's average set_F = 0.857 (6 of the 7 questions answered
exactly; the 7th has no recorded plan, the server answers 422 and the client scores it 0).
The test asserts set_F >= 0.80, and that question 7 is the one missed.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from conftest import FixtureKG
from faces_support import DATASET_IRI, QUESTIONS, REPO, Served, copy_kg, http_server, serve_args

T2S_VENV = Path(os.environ.get("NL2SPARQL_T2S_VENV") or REPO / ".venv-t2s")
CLIENT = T2S_VENV / "bin" / "text2sparql"
F1_FLOOR = 0.80


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, fixture_kg: FixtureKG) -> Iterator[Served]:
    store, bank = copy_kg(fixture_kg.store, fixture_kg.bank, tmp_path_factory.mktemp("faces-t2s"))
    with http_server(serve_args(store, bank)) as served:
        yield served


def client(*args: str, cwd: Path) -> str:
    if not CLIENT.exists():
        pytest.fail(f"no {CLIENT}: run scripts/install.sh, which installs text2sparql-client into {T2S_VENV}")
    done = subprocess.run([str(CLIENT), *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"text2sparql {args[0]} failed: {done.stderr[-3000:]}"
    return done.stdout


def test_the_official_client_asks_queries_and_scores(served: Served, tmp_path: Path) -> None:
    client(
        "ask",
        str(QUESTIONS),
        f"{served.url}/text2sparql",
        "-o",
        "answers.json",
        "--retries",
        "0",
        "--timeout",
        "60",
        cwd=tmp_path,
    )
    answers = json.loads((tmp_path / "answers.json").read_text())
    assert {a["qname"] for a in answers} == {f"fixture:{n}-en" for n in range(1, 7)}
    assert all(a["dataset"] == DATASET_IRI and "<http://rdf.freebase.com/ns/" in a["query"] for a in answers)

    endpoint = f"{served.url}/sparql"
    client("query", str(QUESTIONS), "-e", endpoint, "-o", "gold.json", cwd=tmp_path)
    client("query", str(QUESTIONS), "-e", endpoint, "-a", "answers.json", "-o", "predicted.json", cwd=tmp_path)
    gold = json.loads((tmp_path / "gold.json").read_text())
    assert gold["fixture:4-en"] == {
        f"http://rdf.freebase.com/ns/{m}": 1 for m in ("m.0f_tide", "m.0f_ember", "m.0f_glass")
    }
    client("evaluate", "nl2sparql", "gold.json", "predicted.json", "-o", "scores.json", cwd=tmp_path)
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["average"]["set_F"] >= F1_FLOOR, scores["average"]
    assert scores["fixture:7-en"]["set_F"] == 0.0
    assert all(scores[f"fixture:{n}-en"]["set_F"] == 1.0 for n in range(1, 7)), scores


def test_the_api_answers_exactly_three_keys(served: Served) -> None:
    reply = requests.get(
        f"{served.url}/text2sparql",
        params={"question": "Where was Ada Quill born?", "dataset": DATASET_IRI},
        timeout=60,
    )
    assert reply.status_code == 200
    body = reply.json()
    assert sorted(body) == ["dataset", "query", "question"]
    assert (body["dataset"], body["question"]) == (DATASET_IRI, "Where was Ada Quill born?")
    assert "people.person.place_of_birth" in body["query"]


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"question": "Where was Ada Quill born?", "dataset": "https://example.org/other/"}, 404, "unknown dataset"),
        ({"question": "Where was Ada Quill born?"}, 400, "dataset is missing"),
        ({"dataset": DATASET_IRI}, 400, "question"),
        ({"question": "x" * 2001, "dataset": DATASET_IRI}, 400, "at most 2,000"),
        ({"question": "Who held the office of Mayor in Vale?", "dataset": DATASET_IRI}, 422, "no SPARQL query"),
    ],
)
def test_bad_requests_get_a_clear_4xx(served: Served, params: dict[str, str], status: int, words: str) -> None:
    reply = requests.get(f"{served.url}/text2sparql", params=params, timeout=60)
    assert reply.status_code == status
    assert words in reply.json()["error"]["message"]


@pytest.mark.parametrize(
    "query",
    [
        "DELETE WHERE { ?s ?p ?o }",
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
    ],
)
def test_the_sparql_route_refuses_anything_but_select_and_ask(served: Served, query: str) -> None:
    for reply in (
        requests.get(f"{served.url}/sparql", params={"query": query}, timeout=30),
        requests.post(f"{served.url}/sparql", data={"query": query}, timeout=30),
        requests.post(f"{served.url}/sparql", data={"update": query}, timeout=30),
    ):
        assert reply.status_code in (400, 403), reply.text
        assert reply.json()["error"]["code"] in ("read_only", "unsupported_query")
    count = requests.get(
        f"{served.url}/sparql", params={"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"}, timeout=30
    ).json()
    assert count["results"]["bindings"][0]["n"]["value"] == "138"  # nothing was changed
    asked = requests.post(
        f"{served.url}/sparql",
        data="ASK { ?s ?p ?o }",
        headers={"Content-Type": "application/sparql-query"},
        timeout=30,
    )
    assert asked.json() == {"head": {}, "boolean": True}
