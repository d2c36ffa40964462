"""Descriptions taken from a bank: a query's statements in the words recall will search.

A gold plan (``training/synthesise.py``) says each step in its statement's description,
and reconstruction finds the statement by that description. Over a graph other than
Freebase the descriptions were written when the bank was built, from the graph's own
labels, domains and ranges (``describe_graph.py``); a statement cut from a query must
read exactly as the bank's entry with the same key, so it is described by that entry.
Statements the bank lacks fall back on another describer (words of local names).
"""

from __future__ import annotations

from typing import Any

from nl2sparql.memory_bank.describe import Describer
from nl2sparql.memory_bank.statement import Entry


class BankDescriber:
    """The description of the bank's entry with the same key, else ``fallback``'s."""

    name = "bank"

    def __init__(self, bank: Any, fallback: Describer) -> None:
        self.bank = bank
        self.fallback = fallback

    def describe(self, entry: Entry) -> str:
        known = self.bank.get(entry.key)
        if known is not None and known.description:
            return str(known.description)
        return self.fallback.describe(entry)
