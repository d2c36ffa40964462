"""Optimiser passes, one per module; the pipeline is a plain tuple of them (``RULES``)."""

from nl2sparql.compiler.optimizer.optimizer import RULES, optimize

__all__ = ["RULES", "optimize"]
