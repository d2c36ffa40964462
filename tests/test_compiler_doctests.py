"""The examples in the compiler's docstrings (one per optimiser pass, the facade's) run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nl2sparql.compiler

MODULES = sorted(name for _, name, _ in pkgutil.walk_packages(nl2sparql.compiler.__path__, "nl2sparql.compiler."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize(
    "name",
    [
        m
        for m in MODULES
        if m.startswith("nl2sparql.compiler.optimizer.")
        and "optimizer.helpers" not in m
        and not m.endswith(".optimizer")
    ],
)
def test_every_pass_has_an_example(name: str) -> None:
    assert doctest.testmod(importlib.import_module(name)).attempted > 0
