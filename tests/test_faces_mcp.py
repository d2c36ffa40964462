"""The MCP face through the official SDK's own client, over stdio.

``nl2sparql mcp`` is started by the SDK's ``stdio_client`` as an agent would start it, over
an Oxigraph copy of the fixture graph with its bank and recorded plans (the face is tested,
not the model). The client lists the tools, calls ``ask`` and gets SPARQL and answers,
and calls ``run_sparql`` with an update and gets a refusal, the store unchanged.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import FixtureKG
from faces_support import DATASET_IRI, REPO, copy_kg, offline_env, serve_args

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOOLS = {"ask", "translate", "describe_graph", "run_sparql"}


def payload(result: Any) -> Any:
    """A tool result's structured content, else its text parsed as JSON, else the text."""
    if getattr(result, "structured_content", None) is not None:
        return result.structured_content
    if getattr(result, "structuredContent", None) is not None:
        return result.structuredContent
    text = "".join(getattr(block, "text", "") for block in result.content)
    try:
        return json.loads(text)
    except ValueError:
        return text


def is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def session_run(store: Path, bank: Path, log: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "nl2sparql", "mcp", *serve_args(store, bank)],
        env=offline_env(),
        cwd=str(REPO),
    )
    seen: dict[str, Any] = {}
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            seen["tools"] = {tool.name: tool for tool in listed.tools}
            seen["ask"] = await session.call_tool("ask", {"question": "Who is the sibling of Gus Orr?"})
            seen["unknown"] = await session.call_tool(
                "ask", {"question": "Where was Ada Quill born?", "dataset": "https://example.org/other/"}
            )
            seen["update"] = await session.call_tool("run_sparql", {"query": "DELETE WHERE { ?s ?p ?o }"})
            seen["count"] = await session.call_tool(
                "run_sparql", {"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "dataset": DATASET_IRI}
            )
            seen["describe"] = await session.call_tool("describe_graph", {})
            sparql = payload(seen["ask"]).get("sparql") or ""
            seen["rerun"] = await session.call_tool("run_sparql", {"query": sparql, "limit": 5})
    return seen


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, fixture_kg: FixtureKG) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("faces-mcp")
    store, bank = copy_kg(fixture_kg.store, fixture_kg.bank, folder)

    async def guarded() -> dict[str, Any]:
        with anyio.fail_after(120):  # hang guard
            return await session_run(store, bank, folder / "server.log")

    try:
        return anyio.run(guarded)
    except BaseException:
        print((folder / "server.log").read_text()[-3000:])
        raise


def test_the_tools_are_listed_with_descriptions_and_schemas(seen: dict[str, Any]) -> None:
    tools = seen["tools"]
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description) > 40
    schema = tools["ask"].input_schema if hasattr(tools["ask"], "input_schema") else tools["ask"].inputSchema
    assert schema["required"] == ["question"]
    assert "description" in schema["properties"]["question"]


def test_ask_gets_sparql_and_answers(seen: dict[str, Any]) -> None:
    assert not is_error(seen["ask"])
    answer = payload(seen["ask"])
    assert "<http://rdf.freebase.com/ns/people.sibling_relationship.sibling>" in answer["sparql"]
    assert answer["answers"] == [{"id": "m.0p_hal", "name": "Hal Orr"}]
    assert answer["plan"][0] == "Type: simple"


def test_the_query_ask_wrote_runs_through_run_sparql(seen: dict[str, Any]) -> None:
    assert not is_error(seen["rerun"]), payload(seen["rerun"])
    rows = payload(seen["rerun"])["results"]["bindings"]
    assert [row["x"]["value"] for row in rows] == ["http://rdf.freebase.com/ns/m.0p_hal"]


def test_an_unknown_dataset_is_a_tool_error_in_words(seen: dict[str, Any]) -> None:
    assert is_error(seen["unknown"])
    assert "unknown dataset 'https://example.org/other/'" in payload(seen["unknown"])


def test_run_sparql_refuses_an_update_and_the_store_is_unchanged(seen: dict[str, Any]) -> None:
    assert is_error(seen["update"])
    assert "read-only" in payload(seen["update"])
    assert payload(seen["count"])["results"]["bindings"][0]["n"]["value"] == "138"


def test_describe_graph_gives_properties_in_words(seen: dict[str, Any]) -> None:
    described = payload(seen["describe"])
    by_property = {p["property"]: p["description"] for p in described["properties"]}
    assert by_property["people.person.place_of_birth"] == "?e2 is the place of birth of the person ?e1"
    assert described["prefixes"]["ns"] == "http://rdf.freebase.com/ns/"
    assert any("people.marriage.spouse" in path["properties"] for path in described["paths"])


def test_streamable_http_serves_the_same_tools(tmp_path: Path, fixture_kg: FixtureKG) -> None:
    """``nl2sparql mcp --transport http``: the SDK's streamable-HTTP client lists the tools and asks."""
    import socket
    import subprocess
    import time

    from mcp.client.streamable_http import streamable_http_client

    store, bank = copy_kg(fixture_kg.store, fixture_kg.bank, tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "nl2sparql",
        "mcp",
        "--transport",
        "http",
        "--port",
        str(port),
        *serve_args(store, bank),
    ]
    with (tmp_path / "server.log").open("w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log, env=offline_env(), cwd=REPO)
    try:
        began = time.monotonic()
        while time.monotonic() - began < 60:  # hang guard: wait until it listens
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
            time.sleep(0.1)

        async def talk() -> tuple[set[str], Any]:
            with anyio.fail_after(60):
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                    read, write = streams[0], streams[1]
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        tools = {tool.name for tool in (await session.list_tools()).tools}
                        answer = await session.call_tool("ask", {"question": "Where was Ada Quill born?"})
                        return tools, answer

        tools, answer = anyio.run(talk)
    finally:
        process.terminate()
        process.wait(30)
    assert tools == TOOLS
    assert payload(answer)["answers"] == [{"id": "m.0t_port", "name": "Porta"}]
