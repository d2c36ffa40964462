"""Every example in the package's docstrings runs, and every optimiser pass and candidate
ordering has one.

pytest's ``--doctest-modules`` would import the repository's folders under their folder
names (``compiler.ast``), not as the installed ``nl2sparql.compiler.ast`` that the code
imports, so each module is imported by its package name and run with :mod:`doctest`.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nl2sparql

AREAS = ("plan", "compiler", "kg", "memory_bank", "candidates", "ranker", "planner", "training", "server", "evaluation")


def _modules() -> list[str]:
    """Every module of the package: an editable install maps each area's folder on its own."""
    names = {f"nl2sparql.{info.name}" for info in pkgutil.iter_modules(nl2sparql.__path__)}
    for area in AREAS:
        package = importlib.import_module(f"nl2sparql.{area}")
        names.add(package.__name__)
        names.update(name for _, name, _ in pkgutil.walk_packages(package.__path__, f"{package.__name__}."))
    return sorted(n for n in names if not n.endswith(("_pb2", "_pb2_grpc", ".__main__")))


MODULES = _modules()
OPTIMISER_PASSES = [
    m for m in MODULES if m.startswith("nl2sparql.compiler.optimizer.") and not m.endswith((".helpers", ".optimizer"))
]
ORDERINGS = [m for m in MODULES if m.startswith("nl2sparql.compiler.orderings")]


def test_every_area_is_walked() -> None:
    for area in AREAS:
        assert any(m.startswith(f"nl2sparql.{area}.") for m in MODULES), area


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", OPTIMISER_PASSES)
def test_every_pass_has_an_example(name: str) -> None:
    assert doctest.testmod(importlib.import_module(name)).attempted > 0


@pytest.mark.parametrize("name", ORDERINGS)
def test_every_ordering_has_an_example(name: str) -> None:
    assert doctest.testmod(importlib.import_module(name)).attempted > 0
