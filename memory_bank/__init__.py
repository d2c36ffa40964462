"""The memory of CVT-aware query statements: decomposition, descriptions, embeddings, recall, bank files.

The facade (names load lazily, so ``import nl2sparql.memory_bank`` pulls in neither FAISS
nor a model)::

    bank, report = build_bank_from_queries(load_examples("webqsp-train"))
    save_bank(bank, "webqsp.nl2sq")
    bank = load_bank("webqsp.nl2sq")                 # every checksum verified
    recall = bank.recall("the sibling of Justin Bieber")
    recall.selected, recall.candidates               # adaptive pick, scored candidates
    QueryDecomposer().decompose(gold_sparql, topics=["ns:m.06w2sn5"])
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "MemoryBank": "bank",
    "merge": "bank",
    "Statement": "statement",
    "Constraint": "statement",
    "Recall": "recall",
    "RecallSettings": "recall",
    "Candidate": "recall",
    "Embedder": "embedder",
    "default_embedder": "embedder",
    "load_bank": "bank_file",
    "save_bank": "bank_file",
    "import_bank": "bank_file",
    "export_bank": "bank_file",
    "QueryDecomposer": "build_queries",
    "build_bank_from_queries": "build_queries",
    "load_examples": "build_queries",
    "build_bank_from_store": "build_store",
    "decompose": "decompose",
    "Decomposition": "decompose",
    "Occurrence": "decompose",
    "get_describer": "describe",
    "register_describer": "describe",
    "MemoryBankError": "errors",
    "BankFormatError": "errors",
    "BankDimensionError": "errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nl2sparql.memory_bank' has no attribute {name!r}")
    return getattr(importlib.import_module(f"nl2sparql.memory_bank.{module}"), name)
