"""``nl2sparql setup``: build the embedded default into the home folder from the data folder.

The default is a small but real Freebase: the FB15k-237 triples with their CVT nodes
restored, in an on-disk Oxigraph store; a memory bank decomposed from the gold queries of
WebQSP train and of CWQ part A without its dev split, with every statement the Freebase
schema allows beside them; the exemplar memory of the planner; and the planner. Each step writes into
a temporary name and renames it into place, and a step whose output exists is skipped
(``--force`` rebuilds), so an interrupted setup resumes where it stopped and never leaves
a half-built default.

Layout of ``<home>``::

    fb15k237.nt.gz   the CVT-expanded graph (input of the store)
    store/           the Oxigraph store (and its label index cache)
    bank.nl2sq       the memory bank
    exemplars/       the plans of the training questions, which the default planner reads
                     beside each question (planner/exemplars.py)
    planner/         a planner trained here (optional: without it, the one shipped
                     with the package in nl2sparql/planner/default is the default)
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from nl2sparql.config import data_dir, home_dir


def _step(name: str, target: Path, force: bool, report: dict[str, Any]) -> bool:
    """Whether step ``name`` must run; removes the old output when forced."""
    if target.exists() and not force:
        report[name] = f"kept {target}"
        return False
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    return True


def build_store(home: Path, force: bool, progress: bool, report: dict[str, Any]) -> Path:
    from nl2sparql.kg.fb15k237 import import_fb15k237
    from nl2sparql.kg.oxigraph_store import OxigraphStore

    graph = home / "fb15k237.nt.gz"
    if _step("graph", graph, force, report):
        began = time.perf_counter()
        imported = import_fb15k237(data_dir() / "fb15k-237", graph)  # type: ignore[operator]
        report["graph"] = (
            f"{imported.triples:,} triples, {imported.cvt_nodes:,} CVT nodes in {time.perf_counter() - began:.1f} s"
        )
    store_dir = home / "store"
    if _step("store", store_dir, force, report):
        began = time.perf_counter()
        staging = home / ".store.partial"
        shutil.rmtree(staging, ignore_errors=True)
        store = OxigraphStore(staging)
        try:
            loaded = store.load(graph, progress=progress)
        finally:
            store.close()
        staging.rename(store_dir)
        report["store"] = f"{loaded.triples_after:,} triples loaded in {time.perf_counter() - began:.1f} s"
    return store_dir


def build_bank(home: Path, force: bool, progress: bool, report: dict[str, Any]) -> Path:
    from nl2sparql.memory_bank.bank_file import save_bank
    from nl2sparql.memory_bank.build_queries import DEFAULT_SOURCES, build_bank_from_queries, load_examples
    from nl2sparql.memory_bank.index import IndexSettings

    bank_path = home / "bank.nl2sq"
    if _step("bank", bank_path, force, report):
        began = time.perf_counter()
        sources = ",".join(s for s in DEFAULT_SOURCES if _has_source(s))
        # Exact search: an approximate (HNSW) index of 77k statements missed gold statements that tie.
        bank, built = build_bank_from_queries(
            load_examples(sources),
            source=f"{sources},freebase-schema",
            progress=progress,
            with_schema=True,
            index_settings=IndexSettings(kind="flat"),
        )
        save_bank(bank, bank_path)
        observed = sum(s.support > 0 for s in bank.statements)
        report["bank"] = (
            f"{len(bank.statements):,} statements ({observed:,} seen in {built.queries:,} queries of {sources}, "
            f"the rest other readings and the Freebase schema's), {len(bank.constraints)} constraints "
            f"in {time.perf_counter() - began:.1f} s"
        )
    return bank_path


def _has_source(name: str) -> bool:
    """Whether the data folder holds a default bank source (a small data folder may lack CWQ)."""
    from nl2sparql.memory_bank.build_queries import DATASETS, SPLITS

    data = data_dir()
    return data is not None and (data / DATASETS[SPLITS.get(name, (name, False))[0]]).is_file()


def build_exemplars(home: Path, force: bool, report: dict[str, Any]) -> Path:
    """The exemplar memory (plans of the training questions) that the default planner reads."""
    from nl2sparql.planner.pairs import EXEMPLARS_DIR
    from nl2sparql.training.data import build_exemplar_memory

    folder = home / EXEMPLARS_DIR
    if _step("exemplars", folder, force, report):
        began = time.perf_counter()
        staging = home / ".exemplars.partial"
        shutil.rmtree(staging, ignore_errors=True)
        count = build_exemplar_memory(staging)
        staging.rename(folder)
        report["exemplars"] = f"{count:,} plans of training questions in {time.perf_counter() - began:.1f} s"
    return folder


def check_planner(home: Path, report: dict[str, Any]) -> Path | None:
    """Load nothing, but say which default planner ``ask`` will use (and whether there is one)."""
    from nl2sparql.planner import gguf_base
    from nl2sparql.planner.backends.local import SHIPPED_PLANNER, default_planner_dir
    from nl2sparql.planner.model_meta import META_FILE, read_meta

    folder = default_planner_dir(home)
    if not (folder / META_FILE).is_file():
        report["planner"] = f"none in {folder}: train one with 'nl2sparql planner train --out {folder}'"
        return None
    meta = read_meta(folder)
    origin = "shipped with the package" if folder == SHIPPED_PLANNER else "trained here"
    report["planner"] = f"{origin}: {folder} ({meta['method']} on {meta['base']}, {meta.get('epochs')} epochs)"
    if meta["method"] == "lora" and gguf_base.is_gguf_base(meta["base"]):  # its base comes from a package
        problem = gguf_base.check(meta["base"])
        if problem:
            report["planner"] += f"; its base will not load: {problem}"
    return folder


def setup_home(home: str | Path | None = None, force: bool = False, progress: bool = True) -> dict[str, Any]:
    """Build (or keep) every part of the embedded default; returns what each step did."""
    target = Path(home).expanduser() if home else home_dir()
    target.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"home": str(target)}
    build_store(target, force, progress, report)
    build_bank(target, force, progress, report)
    build_exemplars(target, force, report)
    folder = check_planner(target, report)
    if folder is not None:
        build_planner_runtime(folder, report)
    return report


def build_planner_runtime(folder: Path, report: dict[str, Any]) -> None:
    """Build what the planner's numpy runtime reads, the merged LoRA weights, once, with torch
    (planner/merged_cache.py), so that the first ``ask`` starts as fast as the others."""
    from nl2sparql.planner import merged_cache
    from nl2sparql.planner.backends.local import load_model
    from nl2sparql.planner.errors import PlannerModelError
    from nl2sparql.planner.model_meta import read_meta
    from nl2sparql.planner.numpy_model import NumpyPlanner, open_numpy

    if not merged_cache.enabled():
        report["planner runtime"] = "torch (NL2SPARQL_PLANNER_CACHE=0 keeps no merged weights)"
        return
    meta = read_meta(folder)
    try:
        model = load_model(folder, meta)
    except PlannerModelError as exc:
        report["planner runtime"] = f"the planner does not load: {exc}"
        return
    # torch loaded it when its merged weights were not there yet; it has written them now
    fast = model if isinstance(model, NumpyPlanner) else open_numpy(folder, meta)
    report["planner runtime"] = "numpy" if fast is not None else "torch (not a BERT encoder-decoder)"
