"""The ``openai:URL#MODEL`` planner: plans from an OpenAI-compatible chat-completions server.

vLLM, Ollama, llama.cpp's server and hosted APIs all speak ``POST <URL>/chat/completions``.
A few-shot system prompt (:data:`SYSTEM_PROMPT`) teaches the plan language; an answer that
does not parse is sent back with the parse error and the model is asked again, at most
``plan_tries`` times. Transport failures (connection refused, 5xx, 429, a timeout) are
retried ``http_retries`` times with a growing pause; anything else (401, 404, a malformed
reply) stops at once with a :class:`~nl2sparql.planner.errors.PlannerError` saying what
the server said. The API key, when the server needs one, comes from
``NL2SPARQL_OPENAI_KEY``. Plain :mod:`urllib`: no client library to install.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import Plan, PlanError
from nl2sparql.planner.backends.base import Planner, PlanRequest
from nl2sparql.planner.errors import PlannerError
from nl2sparql.planner.input_format import format_input

API_KEY_VARIABLE = "NL2SPARQL_OPENAI_KEY"

#: (input, plan) pairs shown to the model; every plan here parses (a test checks).
EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        format_input("what is the gender of justin bieber's siblings?", {"m.06w2sn5": "Justin Bieber"}),
        "Type: composition\nFind the siblings of Justin Bieber, assign it to ?x.\n"
        "Find the gender of ?x, assign it to ?g.\nMake sure ?g is Male.\nThe answer is ?x.",
    ),
    (
        format_input("what was the last championship the dallas cowboys won?", {"m.02896": "Dallas Cowboys"}),
        "Type: superlative\nFind the championships won by the sports team Dallas Cowboys, assign it to ?x.\n"
        "Find the end date of ?x, assign it to ?d.\nRank ?x by ?d in descending order and keep the first.\n"
        "The answer is ?x.",
    ),
    (
        format_input("who was the governor of arizona in 2009?", {"m.0vmt": "Arizona"}),
        "Type: composition\nFind the governors of Arizona, assign it to ?x.\n"
        "Make sure ?x holds during 2009.\nThe answer is ?x.",
    ),
    (
        format_input("which films starring tom hanks were released after 2000?", {"m.0bxtg": "Tom Hanks"}),
        "Type: comparative\nFind the films starring Tom Hanks, assign it to ?x.\n"
        "Find the release date of ?x, assign it to ?d.\nMake sure ?d is after 2000.\nThe answer is ?x.",
    ),
    (
        format_input("how many children does barack obama have?", {"m.02mjmr": "Barack Obama"}),
        "Type: composition\nFind the children of Barack Obama, assign it to ?x.\n"
        "Count ?x, assign it to ?n.\nThe answer is ?n.",
    ),
)

_LANGUAGE = """You turn a question over a knowledge graph into a plan: short sentences, one per line.
The first line is "Type: <type>" with type composition, conjunction, comparative or superlative.
Then the steps, each ending with a full stop:
- Find <description> of <entity or ?var> [and <entity or ?var>], assign it to ?v.
- Make sure ?v is [not] <value>.   Comparisons: is greater than, is less than, is at least, is at most,
  is before, is after. A time window: Make sure ?v holds during <year>.
- Rank ?v by ?k in descending|ascending order and keep the first [N].
- Count ?v, assign it to ?n.
- Combine ?a and ?b, assign it to ?c.   (the union of two results)
- The answer is ?v.   (always the last line)
Two Find steps that assign the same variable intersect. Write entity names exactly as the input gives
them; write a name that contains " of " or " and " in braces, like {Trinidad and Tobago}.
Answer with the plan only: no explanation, no code fences."""


def system_prompt() -> str:
    """The description of the plan language and the worked examples."""
    shots = "\n\n".join(f"Input: {source}\nPlan:\n{plan}" for source, plan in EXAMPLES)
    return f"{_LANGUAGE}\n\nExamples:\n\n{shots}"


_FENCE = re.compile(r"^```[A-Za-z]*\s*$")
_TYPE_LINE = re.compile(r"^\s*type\s*:", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^\s*(finally,?\s+)?the answer is\b", re.IGNORECASE)


def extract_plan(answer: str) -> str:
    """The plan lines of a chat answer: code fences, a preamble and chatter after the answer line dropped."""
    lines = [line.rstrip() for line in answer.replace("\r\n", "\n").split("\n") if not _FENCE.match(line.strip())]
    start = next((i for i, line in enumerate(lines) if _TYPE_LINE.match(line)), 0)
    lines = lines[start:]
    end = next((i for i, line in enumerate(lines) if _ANSWER_LINE.match(line)), len(lines) - 1)
    plan = [line.strip() for line in lines[: end + 1] if line.strip()]
    return "\n".join(plan) + "\n" if plan else ""


class OpenAIPlanner(Planner):
    """A chat-completions client that asks for plans and checks them with the plan parser."""

    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        http_retries: int = 3,
        plan_tries: int = 3,
        backoff: float = 1.0,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int = 0,
    ) -> None:
        if not re.match(r"^https?://", url):
            raise PlannerError(f"openai:{url}#{model}: the URL must start with http:// or https://")
        if http_retries < 1 or plan_tries < 1:
            raise PlannerError("http_retries and plan_tries must be at least 1")
        url = url.rstrip("/")
        self.endpoint = url if url.endswith("/chat/completions") else url + "/chat/completions"
        self.model_name = model
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_VARIABLE)
        self.timeout = timeout
        self.http_retries = http_retries
        self.plan_tries = plan_tries
        self.backoff = backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.name = f"openai:{url}#{model}"

    def _post(self, messages: list[dict[str, str]], question: str) -> str:
        body = json.dumps(
            {
                "model": self.model_name,
                "messages": messages,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "seed": self.seed,
            }
        ).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        problem = ""
        for attempt in range(self.http_retries):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = response.read()
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:300].decode("utf-8", "replace").strip()
                problem = f"HTTP {exc.code} from {self.endpoint}: {detail or exc.reason}"
                if exc.code == 429 or exc.code >= 500:
                    continue
                hint = f" (set {API_KEY_VARIABLE})" if exc.code in (401, 403) else ""
                raise PlannerError(problem + hint, question) from None
            except TimeoutError:
                problem = f"no answer from {self.endpoint} within {self.timeout:g} s"
                continue
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    problem = f"no answer from {self.endpoint} within {self.timeout:g} s"
                else:
                    problem = f"cannot reach {self.endpoint}: {exc.reason}"
                continue
            except OSError as exc:  # connection reset while reading
                problem = f"connection to {self.endpoint} failed: {exc}"
                continue
            return self._content(payload, question)
        raise PlannerError(f"{problem} (tried {self.http_retries} times)", question)

    def _content(self, payload: bytes, question: str) -> str:
        try:
            content = json.loads(payload)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            excerpt = payload[:200].decode("utf-8", "replace")
            message = f"{self.endpoint} did not answer in the chat-completions format: {excerpt!r}"
            raise PlannerError(message, question) from None
        if not isinstance(content, str):
            raise PlannerError(f"{self.endpoint} answered without text content", question)
        return content

    def _plan_one(self, request: PlanRequest) -> tuple[str, Plan, int] | PlannerError:
        messages = [
            {"role": "system", "content": system_prompt()},
            {"role": "user", "content": f"Input: {format_input(request.question, request.entities)}\nPlan:"},
        ]
        error: PlanError | None = None
        for attempt in range(1, self.plan_tries + 1):
            try:
                answer = self._post(messages, request.question)
            except PlannerError as exc:
                return PlannerError(exc.reason, request.question, attempt)
            text = extract_plan(answer)
            try:
                return text, parse_plan(text), attempt
            except PlanError as exc:
                error = exc
            messages += [
                {"role": "assistant", "content": answer},
                {
                    "role": "user",
                    "content": f"That plan does not parse ({error}). Write the whole plan again.",
                },
            ]
        return PlannerError(
            f"no readable plan after {self.plan_tries} answers; last error: {error}",
            request.question,
            self.plan_tries,
        )

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[tuple[str, Plan, int] | PlannerError]:
        return [self._plan_one(request) for request in requests]

    def info(self) -> dict[str, Any]:
        return {
            "planner": self.name,
            "endpoint": self.endpoint,
            "model": self.model_name,
            "api_key": f"from {API_KEY_VARIABLE}" if self.api_key else None,
            "timeout_s": self.timeout,
            "http_retries": self.http_retries,
            "plan_tries": self.plan_tries,
        }


def open_openai(argument: str, **options: Any) -> OpenAIPlanner:
    """``openai:URL#MODEL``, e.g. ``openai:http://127.0.0.1:8000/v1#Qwen2.5-7B-Instruct``."""
    url, _, model = argument.partition("#")
    if not url or not model:
        raise PlannerError(f"openai:{argument}: write openai:URL#MODEL (e.g. openai:http://127.0.0.1:8000/v1#qwen)")
    try:
        return OpenAIPlanner(url, model, **options)
    except TypeError as exc:
        raise PlannerError(f"openai:{argument}: {exc}") from None
