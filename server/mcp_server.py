"""The MCP face: tools an LLM agent calls to ask questions of a knowledge graph.

Built on the official SDK (``mcp``, its ``MCPServer``), over the same :class:`Face` as the
HTTP API, so the bound on questions at once, the deadline and the error messages are the
same. Four tools, as sparql-llm offers agents (examples and schema, then SPARQL it can
run): ``ask`` (question to SPARQL, answers and plan), ``translate`` (no execution),
``describe_graph`` (the bank's properties and paths with their descriptions, the store's
classes) and ``run_sparql`` (read-only, bounded: the store's guard refuses anything but
SELECT and ASK). A failure is a tool error whose text says what went wrong, for the model
to read; never a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from nl2sparql import __version__
from nl2sparql.server.face import Face, FaceError
from nl2sparql.server.http_input import ask_input
from nl2sparql.server.http_routes import describe_dataset, dialects, final_result
from nl2sparql.server.http_text2sparql import MAX_QUERY_CHARS, run_query

MAX_TOOL_ROWS = 1_000
MAX_DESCRIBED = 500

INSTRUCTIONS = """nl2sparql compiles English questions into SPARQL over a knowledge graph and runs them.
Start with `ask` (it links the entities, plans, writes the SPARQL and runs it); use `describe_graph`
to learn the graph's properties when you want to write or fix SPARQL yourself, then `run_sparql`
(SELECT or ASK only). `translate` gives the SPARQL without running it."""

Question = Annotated[
    str,
    Field(
        description="the question, in English, e.g. 'Who is the sibling of Cy Quill?'", min_length=1, max_length=2000
    ),
]
DatasetArg = Annotated[str | None, Field(description="the dataset's IRI or name; the server's default when omitted")]
Entities = Annotated[
    dict[str, str] | None,
    Field(description="optional topic entities, {entity id: name}; omitted, they are linked from the question"),
]
Limit = Annotated[int | None, Field(description="at most this many answers", ge=1, le=MAX_TOOL_ROWS)]
Dialect = Annotated[
    Literal["full-iri", "sparql11", "virtuoso"],
    Field(
        description="how the SPARQL is written: full-iri (default; every engine parses it, run_sparql included), "
        "sparql11 (with PREFIX declarations) or virtuoso"
    ),
]


def build_mcp(face: Face) -> MCPServer:
    """An MCP server whose tools answer over ``face``'s datasets."""
    server = MCPServer(name="nl2sparql", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(
        description="Answer a question over the knowledge graph: returns the SPARQL query, the answers "
        "(ids and names), the plan in readable sentences and the linked entities."
    )
    async def ask(
        question: Question,
        dataset: DatasetArg = None,
        entities: Entities = None,
        limit: Limit = None,
        dialect: Dialect = "full-iri",
    ) -> dict[str, Any]:
        result = await _answer(face, question, dataset, entities, limit or 100, dialect, execute=True)
        return {k: result[k] for k in ("question", "entities", "type", "plan", "sparql", "answers", "error")}

    @server.tool(
        description="Write the SPARQL query for a question without running it: returns the query, "
        "the plan and the linked entities."
    )
    async def translate(
        question: Question, dataset: DatasetArg = None, entities: Entities = None, dialect: Dialect = "full-iri"
    ) -> dict[str, Any]:
        result = await _answer(face, question, dataset, entities, None, dialect, execute=False)
        return {k: result[k] for k in ("question", "entities", "type", "plan", "sparql", "error")}

    @server.tool(
        description="Describe a dataset's graph: its properties and multi-hop paths with their "
        "descriptions in words (from the memory bank), its prefixes and its classes."
    )
    async def describe_graph(dataset: DatasetArg = None) -> dict[str, Any]:
        chosen = _dataset(face, dataset)
        return await _guarded(face.call(lambda: graph_description(chosen), face.deadline(None), slot=False))

    @server.tool(
        description="Run a read-only SPARQL query (SELECT or ASK only; updates, CONSTRUCT, DESCRIBE "
        "and SERVICE are refused) on a dataset's store; returns SPARQL JSON results, "
        "at most `limit` rows."
    )
    async def run_sparql(
        query: Annotated[
            str, Field(description="a SPARQL SELECT or ASK query", min_length=1, max_length=MAX_QUERY_CHARS)
        ],
        dataset: DatasetArg = None,
        limit: Annotated[int, Field(description="at most this many rows", ge=1, le=MAX_TOOL_ROWS)] = 100,
    ) -> dict[str, Any]:
        chosen = _dataset(face, dataset)
        store = getattr(chosen.pipeline, "store", None)
        if store is None:
            raise ToolError(f"dataset {chosen.iri} has no store to query")
        results = await _guarded(face.call(lambda: run_query(store, query, face.default_deadline), face.deadline(None)))
        bindings = results.get("results", {}).get("bindings")
        if bindings is not None and len(bindings) > limit:
            results["results"]["bindings"] = bindings[:limit]
            results["results"]["truncated"] = True
        return results

    return server


async def _answer(
    face: Face,
    question: str,
    dataset: str | None,
    entities: dict[str, str] | None,
    limit: int | None,
    dialect: str,
    *,
    execute: bool,
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "question": question,
        "dataset": dataset,
        "entities": entities,
        "limit": limit,
        "dialect": dialect,
    }
    try:
        given = ask_input({k: v for k, v in fields.items() if v is not None}, dialects())
    except FaceError as exc:
        raise ToolError(exc.message) from None
    chosen = _dataset(face, dataset)
    deadline = face.deadline(None)
    result = await _guarded(face.call(lambda: final_result(chosen, given, deadline, execute), deadline))
    return result.to_json()


def _dataset(face: Face, key: str | None) -> Any:
    try:
        return face.datasets.get(key)
    except Exception as exc:
        raise ToolError(str(exc)) from None


async def _guarded(work: Any) -> Any:
    try:
        return await work
    except FaceError as exc:
        raise ToolError(exc.message) from None


def graph_description(dataset: Any) -> dict[str, Any]:
    """Properties (one-triple statements) and paths (through a CVT) with descriptions, from the
    bank; prefixes and counts from :func:`describe_dataset`; classes from the store, when it types nodes."""
    pipeline = dataset.pipeline
    bank = getattr(pipeline, "bank", None)
    properties: dict[str, dict[str, Any]] = {}
    paths: list[dict[str, Any]] = []
    if bank is not None:
        for entry in bank.entries("graph"):
            described = {"description": entry.description, "sparql": entry.sparql, "support": entry.support}
            if entry.structure == 1 and len(entry.predicates) == 1:
                properties.setdefault(entry.predicates[0], {"property": entry.predicates[0], **described})
            elif len(paths) < MAX_DESCRIBED:
                paths.append({"properties": list(entry.predicates), **described})
    summary = describe_dataset(dataset)
    return {
        "dataset": summary["dataset"],
        "prefixes": summary.get("bank", {}).get("prefixes", {}),
        "properties": list(properties.values())[:MAX_DESCRIBED],
        "paths": paths,
        "classes": _classes(getattr(pipeline, "store", None)),
        "counts": summary.get("bank", {}).get("counts", {}),
    }


def _classes(store: Any) -> list[dict[str, Any]]:
    if store is None:
        return []
    query = (
        "SELECT ?class (COUNT(?s) AS ?n) WHERE { ?s a ?class } GROUP BY ?class ORDER BY DESC(?n) "
        f"LIMIT {MAX_DESCRIBED}"
    )
    try:
        rows = store.select(query, timeout=10).rows
    except Exception:  # a store that cannot count is described without its classes
        return []
    classes = [{"class": row["class"].value, "instances": int(row["n"].value)} for row in rows if "class" in row]
    names = store.labels([c["class"] for c in classes]) if classes else {}
    for c in classes:
        if c["class"] in names:
            c["label"] = names[c["class"]]
    return classes
