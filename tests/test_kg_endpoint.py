"""The endpoint store against a live Virtuoso: retries, errors, timeouts and authentication.

Retries are counted in Virtuoso's own HTTP access log: a division by zero makes Virtuoso
answer HTTP 500 (retried), a syntax error HTTP 400 (not retried).
"""

from __future__ import annotations

import time
import urllib.request
import uuid

import pytest
from conftest import FIXTURE_GRAPH, VirtuosoEndpoint, free_port

from nl2sparql.kg.endpoint_store import EndpointStore
from nl2sparql.kg.errors import EndpointError, QueryError, QueryTimeout, StoreError
from nl2sparql.kg.store import open_store

ADA = "<http://rdf.freebase.com/ns/m.0p_ada>"
NAME = "<http://rdf.freebase.com/ns/type.object.name>"


def requests_since(virtuoso: VirtuosoEndpoint, seen: int, status: int, expected: int) -> int:
    """Requests of the store answered with ``status`` since log line ``seen``.

    Virtuoso writes a log line after it has answered, so a marker request is sent and
    awaited first. Under load its lines can still land out of order (a CI run on two busy
    cores saw the marker before the third 500), so it also waits, up to 10 s, for
    ``expected`` lines; the caller's comparison still fails on fewer or more.
    """
    marker = f"marker-{uuid.uuid4().hex}"
    with urllib.request.urlopen(f"{virtuoso.url}?query=ASK%7B%7D&{marker}=1", timeout=30):
        pass
    count, marked = 0, False
    for _ in range(200):
        lines = virtuoso.http_log()[seen:]
        marked = marked or any(marker in line for line in lines)
        count = sum(1 for line in lines if f'" {status} ' in line and "nl2sparql/" in line)
        if marked and count >= expected:
            return count
        time.sleep(0.05)
    if not marked:
        raise AssertionError("the marker request never reached Virtuoso's HTTP log")
    return count


def test_unreachable_endpoint_names_the_url_and_the_attempts() -> None:
    url = f"http://127.0.0.1:{free_port()}/sparql"
    store = open_store("endpoint", url=url, retries=2, backoff=0.01)
    with pytest.raises(EndpointError, match=rf"{url} is unreachable after 3 attempt\(s\).*refused"):
        store.select("SELECT * WHERE { ?s ?p ?o }")
    # Within the cooldown the next query is not retried: it fails at once, saying why.
    with pytest.raises(EndpointError, match=rf"{url} is unreachable \(it failed .* s ago: .*refused.*not retried"):
        store.ask("ASK { ?s ?p ?o }")


def test_an_endpoint_is_tried_again_after_the_cooldown() -> None:
    url = f"http://127.0.0.1:{free_port()}/sparql"
    store = open_store("endpoint", url=url, retries=0, backoff=0.01, cooldown=0.0)
    for _ in range(2):
        with pytest.raises(EndpointError, match=r"unreachable after 1 attempt\(s\)"):
            store.select("SELECT * WHERE { ?s ?p ?o }")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": "localhost:8890/sparql"}, "must start with http"),
        ({"url": "http://x/sparql", "user": "u", "password": "p", "token": "t"}, "not both"),
        ({"url": "http://x/sparql", "user": "u"}, "needs both a user and a password"),
        ({"url": "http://x/sparql", "retries": -1}, "must not be negative"),
        ({"url": "http://x/sparql", "method": "PUT"}, "GET or POST"),
    ],
)
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        open_store("endpoint", **options)


def test_bearer_token_goes_into_the_authorization_header() -> None:
    store = EndpointStore("http://127.0.0.1:9/sparql", token="abc123")
    wrapper = store._wrapper("ASK {}", 5.0)
    assert wrapper.customHttpHeaders["Authorization"] == "Bearer abc123"
    assert wrapper.timeout == 5.0  # not truncated to whole seconds


@pytest.mark.virtuoso
def test_select_ask_and_labels_on_virtuoso(virtuoso: VirtuosoEndpoint) -> None:
    store = open_store("endpoint", url=virtuoso.url, default_graph=FIXTURE_GRAPH)
    result = store.select(f"SELECT ?n WHERE {{ {ADA} {NAME} ?n }}")
    assert [(t.value, t.lang) for t in result.column("n") if t] == [("Ada Quill", "en")]
    assert store.ask(f"ASK {{ {ADA} {NAME} ?n }}") is True
    assert store.ask(f"ASK {{ {ADA} {NAME} 'nobody' }}") is False
    assert store.labels(["m.0p_ada", "m.0t_vale"]) == {"m.0p_ada": "Ada Quill", "m.0t_vale": "Vale"}


@pytest.mark.virtuoso
def test_http_500_is_retried_with_backoff_then_reported(virtuoso: VirtuosoEndpoint) -> None:
    store = open_store("endpoint", url=virtuoso.url, retries=2, backoff=0.05)
    seen = len(virtuoso.http_log())
    with pytest.raises(EndpointError, match=r"HTTP 500.*Division by 0") as caught:
        store.select("SELECT (1/0 AS ?x) WHERE { }")
    assert "after 3 attempt(s)" in str(caught.value)
    assert requests_since(virtuoso, seen, 500, 3) == 3


@pytest.mark.virtuoso
def test_http_400_is_not_retried(virtuoso: VirtuosoEndpoint) -> None:
    store = open_store("endpoint", url=virtuoso.url, retries=3, backoff=0.05)
    seen = len(virtuoso.http_log())
    with pytest.raises(QueryError, match=r"rejected the query \(HTTP 400\).*syntax error"):
        store.select("SELECT * WHERE { ?s ?p }")
    assert requests_since(virtuoso, seen, 400, 1) == 1


@pytest.mark.virtuoso
def test_missing_endpoint_path_is_a_404(virtuoso: VirtuosoEndpoint) -> None:
    url = virtuoso.url.replace("/sparql", "/no-such-endpoint")
    with pytest.raises(EndpointError, match=rf"no SPARQL endpoint at {url} \(HTTP 404\)"):
        open_store("endpoint", url=url).ask("ASK { }")


@pytest.mark.virtuoso
def test_basic_auth(virtuoso: VirtuosoEndpoint) -> None:
    good = open_store(
        "endpoint",
        url=virtuoso.basic_url,
        user=virtuoso.user,
        password=virtuoso.password,
        default_graph=FIXTURE_GRAPH,
    )
    assert good.ask(f"ASK {{ {ADA} {NAME} ?n }}") is True
    seen = len(virtuoso.http_log())
    for store in (
        open_store("endpoint", url=virtuoso.basic_url, user=virtuoso.user, password="wrong"),
        open_store("endpoint", url=virtuoso.basic_url),
    ):
        with pytest.raises(EndpointError, match=r"refused the credentials \(HTTP 401\)"):
            store.ask("ASK { }")
    assert requests_since(virtuoso, seen, 401, 2) == 2  # 4xx: no retries


@pytest.mark.virtuoso
def test_timeout_stops_waiting_for_a_slow_query(virtuoso: VirtuosoEndpoint) -> None:
    store = open_store("endpoint", url=virtuoso.url, default_graph=FIXTURE_GRAPH)
    cross_join = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    with pytest.raises(QueryTimeout, match=rf"{virtuoso.url} ran past its timeout of 0.5 s"):
        store.select(cross_join, timeout=0.5)
