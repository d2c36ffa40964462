"""The ``openai:`` planner against a chat-completions stand-in served on 127.0.0.1 by the test.

The stand-in answers from a script (one entry per request: a plan, an HTTP status, a
delay, or raw bytes) and records every request, so each test checks both what the planner
returned and what it sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from nl2sparql.plan.reader import parse_plan
from nl2sparql.planner.backends import open_planner
from nl2sparql.planner.backends.openai_chat import EXAMPLES, extract_plan, system_prompt
from nl2sparql.planner.errors import PlannerError

GOOD = "Type: composition\nFind the siblings of Justin Bieber, assign it to ?x.\nThe answer is ?x."
QUESTION = "who is justin bieber's brother?"
ENTITIES = {"m.06w2sn5": "Justin Bieber"}


class ChatServer:
    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                step = server.script.pop(0) if server.script else {"content": GOOD}
                time.sleep(step.get("delay", 0))
                if "raw" in step:
                    payload = step["raw"]
                else:
                    message = {"role": "assistant", "content": step.get("content", "")}
                    payload = json.dumps({"choices": [{"index": 0, "message": message}]}).encode()
                try:
                    self.send_response(step.get("status", 200))
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer()
    yield chat
    chat.close()


def planner(server: ChatServer, **options: Any):  # type: ignore[no-untyped-def]
    return open_planner(f"openai:{server.url}#test-model", backoff=0.0, **options)


def test_a_valid_plan_is_returned_and_the_request_is_chat_completions(server: ChatServer) -> None:
    output = planner(server).plan(QUESTION, ENTITIES)
    assert output.plan == parse_plan(GOOD) and output.attempts == 1 and output.latency_ms > 0
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["model"] == "test-model" and body["temperature"] == 0.0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"] == system_prompt()
    assert "question: who is justin bieber's brother? entities: Justin Bieber" in body["messages"][1]["content"]


def test_an_unreadable_answer_is_sent_back_with_its_error(server: ChatServer) -> None:
    server.script = [
        {"content": "Sure! The plan: find his brother."},
        {"content": f"```\n{GOOD}\n```\nHope it helps."},
    ]
    output = planner(server).plan(QUESTION, ENTITIES)
    assert output.attempts == 2 and output.plan == parse_plan(GOOD)
    retry = server.requests[1]["body"]["messages"]
    assert retry[2] == {"role": "assistant", "content": "Sure! The plan: find his brother."}
    assert retry[3]["role"] == "user" and "does not parse (line 1, column 1: expected" in retry[3]["content"]


def test_answers_that_never_parse_end_in_a_planner_error(server: ChatServer) -> None:
    server.script = [{"content": "no idea"}] * 3
    with pytest.raises(PlannerError) as caught:
        planner(server, plan_tries=3).plan(QUESTION, ENTITIES)
    assert QUESTION in str(caught.value) and "after 3 answers" in str(caught.value)
    assert len(server.requests) == 3


def test_a_server_error_is_retried(server: ChatServer) -> None:
    server.script = [{"status": 500, "raw": b'{"error": "overloaded"}'}, {"content": GOOD}]
    output = planner(server).plan(QUESTION, ENTITIES)
    assert output.plan == parse_plan(GOOD) and len(server.requests) == 2


def test_persistent_server_errors_stop_after_the_retries(server: ChatServer) -> None:
    server.script = [{"status": 503, "raw": b"busy"}] * 5
    with pytest.raises(PlannerError, match=r"HTTP 503 .*busy \(tried 2 times\)"):
        planner(server, http_retries=2).plan(QUESTION, ENTITIES)
    assert len(server.requests) == 2


def test_a_timeout_is_a_clear_error(server: ChatServer) -> None:
    server.script = [{"delay": 1.0, "content": GOOD}] * 2
    with pytest.raises(PlannerError, match=r"no answer from http://127\.0\.0\.1:\d+/v1/chat/completions within 0\.2 s"):
        planner(server, timeout=0.2, http_retries=2).plan(QUESTION, ENTITIES)


def test_an_auth_failure_is_not_retried_and_says_where_the_key_comes_from(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NL2SPARQL_OPENAI_KEY", "sk-test")
    server.script = [{"status": 401, "raw": b'{"error": "bad key"}'}]
    with pytest.raises(PlannerError, match="HTTP 401.*bad key.*NL2SPARQL_OPENAI_KEY"):
        planner(server).plan(QUESTION, ENTITIES)
    assert [r["auth"] for r in server.requests] == ["Bearer sk-test"]


def test_a_reply_in_another_format_is_reported(server: ChatServer) -> None:
    server.script = [{"raw": b'{"output": "hello"}'}]
    with pytest.raises(PlannerError, match="did not answer in the chat-completions format"):
        planner(server).plan(QUESTION, ENTITIES)


def test_an_unreachable_server_is_named() -> None:
    chat = ChatServer()
    url = chat.url
    chat.close()
    with pytest.raises(PlannerError, match="cannot reach"):
        open_planner(f"openai:{url}#m", backoff=0.0, http_retries=1).plan(QUESTION, ENTITIES)


def test_batch_with_returned_errors_keeps_going(server: ChatServer) -> None:
    server.script = [{"content": GOOD}, {"status": 400, "raw": b"bad request"}, {"content": GOOD}]
    results = planner(server).plan_batch([QUESTION, "second?", "third?"], errors="return")
    assert [type(r).__name__ for r in results] == ["PlannerOutput", "PlannerError", "PlannerOutput"]
    assert "second?" in str(results[1]) and "HTTP 400" in str(results[1])


def test_specs_are_checked() -> None:
    with pytest.raises(PlannerError, match="openai:URL#MODEL"):
        open_planner("openai:http://127.0.0.1:1/v1")
    with pytest.raises(PlannerError, match="http:// or https://"):
        open_planner("openai:ftp://x#m")
    with pytest.raises(PlannerError, match="unexpected keyword"):
        open_planner("openai:http://127.0.0.1:1/v1#m", colour="red")


def test_the_prompt_examples_parse_and_chatter_is_dropped() -> None:
    for source, plan in EXAMPLES:
        assert source.startswith("question: ")
        assert parse_plan(plan).steps
    plan = "Type: composition\nFind the a of B, assign it to ?x.\nThe answer is ?x.\n"
    assert extract_plan(f"Here you go:\n```text\n{plan}```\nBye") == plan


def test_a_remote_plan_passes_through_the_repairs(server: ChatServer) -> None:
    """A chat server's plan gets the same repairs as the local model's (planner/repairs):
    a value the model miscopied from the question is copied again."""
    slipped = (
        "Type: conjunction\n"
        "Find the country that the language Portuguese is spoken in, assign it to ?x.\n"
        "Find the child labor percentage of the country ?x, assign it to ?v1.\n"
        'Make sure ?v1 is "1.9".\n'
        "The answer is ?x."
    )
    server.script.append({"content": slipped})
    with open_planner(f"openai:{server.url}#plan-model") as planner:
        output = planner.plan(
            "what portuguese speaking country has a child labor percent of 1.8?", {"m.05zjd": "Portuguese"}
        )
    assert 'Make sure ?v1 is "1.8".' in output.text and output.raw.count('"1.9"') == 1
