"""The house's layers hold: imports run down, and nothing imports in a circle.

Read from the source with :mod:`ast` (every import, those inside functions too), so a
lazy import cannot hide an upward dependency. The layers, bottom up (docs/ARCHITECTURE.md):

    errors, config, question, results, settings   the face package's plain modules
    plan                                          the plan language
    compiler, kg, memory_bank                     SPARQL, stores and linking, the memory
    candidates, ranker                            the agent that builds plans over the graph, the
                                                  model that scores them
    planner                                       models that write plans
    reconstruction, pipeline, server              answering a question
    training                                      making the models
    evaluation                                    judging them
    the commands (``nl2sparql/cli.py``, ``nl2sparql/commands.py`` and each area's ``cli.py``)

An area's ``cli.py`` is its face on the command line, so it stands with the commands on the
top floor: ``nl2sparql planner eval`` (in ``training/cli.py``) may call the evaluation.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: repository folders that install as ``nl2sparql.<folder>`` (``nl2sparql/`` is the face)
SUBPACKAGES = (
    "plan", "compiler", "kg", "memory_bank", "candidates", "ranker", "planner", "training", "server", "evaluation",
)  # fmt: skip
#: modules of the face package that any layer may import: they import nothing above them
BASE = frozenset(f"nl2sparql.{name}" for name in ("errors", "config", "question", "results", "settings"))
#: what each package must never import (its own modules aside)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "compiler": ("planner", "training", "memory_bank", "kg", "server", "evaluation"),
    "kg": ("planner", "training", "memory_bank", "compiler", "server", "evaluation"),
    "memory_bank": ("planner", "training", "server", "evaluation", "candidates", "ranker"),
    "candidates": ("planner", "training", "server", "evaluation", "ranker"),
    "ranker": ("planner", "training", "server", "evaluation", "kg", "memory_bank"),
    "planner": ("training", "server", "evaluation"),
    "server": ("training", "evaluation"),
}
#: modules that answer questions: none of them may reach the training code
INFERENCE = ("nl2sparql.pipeline", "nl2sparql.reconstruction", "nl2sparql.batch", "nl2sparql.server.serve")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "nl2sparql":
        parts.insert(0, "nl2sparql")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> dict[str, Path]:
    files = {}
    for folder in ("nl2sparql", *SUBPACKAGES):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
                files[module_name(path)] = path
    return files


def imports(path: Path, modules: set[str], *, module_scope_only: bool = False) -> Iterator[str]:
    """The project's modules ``path`` imports (a package's ``__init__`` for a name it holds)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if module_scope_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                if child in modules:
                    yield child
                elif node.module in modules:
                    yield node.module


def import_graph(*, module_scope_only: bool = False) -> nx.DiGraph:
    files = source_files()
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        for target in imports(path, set(files), module_scope_only=module_scope_only):
            if target != name and not name.startswith(target + "."):  # a parent package runs first anyway
                graph.add_edge(name, target)
    return graph


def package_of(module: str) -> str:
    """``plan``, ``compiler``, ..., ``cli`` for a command module, or a face module's own name."""
    parts = module.split(".")
    if parts[-1] == "cli" or module in ("nl2sparql.commands", "nl2sparql.home", "nl2sparql.compile_cmd"):
        return "cli"
    return parts[1] if len(parts) > 1 and parts[1] in SUBPACKAGES else module


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return import_graph()


def upward(graph: nx.DiGraph, package: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, b in graph.edges if package_of(a) == package and package_of(b) in forbidden)


def test_the_plan_package_imports_nothing_above_it(graph: nx.DiGraph) -> None:
    wrong = sorted(
        f"{a} -> {b}"
        for a, b in graph.edges
        if package_of(a) == "plan" and package_of(b) != "plan" and b != "nl2sparql.errors"
    )
    assert wrong == []


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_lower_layers_never_import_higher_ones(graph: nx.DiGraph, package: str) -> None:
    assert upward(graph, package, FORBIDDEN[package]) == []


def test_the_base_modules_import_only_each_other(graph: nx.DiGraph) -> None:
    wrong = sorted(f"{a} -> {b}" for a, b in graph.edges if a in BASE and b not in BASE)
    assert wrong == []


def test_answering_a_question_never_reaches_the_training_code(graph: nx.DiGraph) -> None:
    reach = set()
    for module in INFERENCE:
        reach |= nx.descendants(graph, module)
    assert sorted(m for m in reach if package_of(m) == "training") == []


def test_no_two_packages_import_each_other(graph: nx.DiGraph) -> None:
    packages = nx.DiGraph()
    packages.add_edges_from((package_of(a), package_of(b)) for a, b in graph.edges if package_of(a) != package_of(b))
    assert [sorted(c) for c in nx.strongly_connected_components(packages) if len(c) > 1] == []


def test_no_module_imports_itself_through_others_when_it_loads() -> None:
    loading = import_graph(module_scope_only=True)
    assert [sorted(c) for c in nx.strongly_connected_components(loading) if len(c) > 1] == []


def test_the_checks_see_an_upward_import(tmp_path: Path) -> None:
    """The graph is read from source: a planner import written into the plan package shows."""
    fake = tmp_path / "steps.py"
    fake.write_text("def f():\n    from nl2sparql.planner.pairs import x\n", encoding="utf-8")
    found = list(imports(fake, {"nl2sparql.planner.pairs"}))
    assert found == ["nl2sparql.planner.pairs"]
    assert list(imports(fake, {"nl2sparql.planner.pairs"}, module_scope_only=True)) == []
