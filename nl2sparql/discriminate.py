"""Grounded discrimination in the pipeline: ground the question, let the agent build valid
candidates over the graph, let the scorer choose, run the best one that answers.

This is the stage that answers on graphs the planner never saw: the agent
(:mod:`nl2sparql.candidates`) writes only plans in the graph's own words and the scorer
(:mod:`nl2sparql.ranker`) only compares them with the question. The pipeline asks it first
where it applies (:func:`applies`) and falls back to the generator's plans when no
candidate answers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nl2sparql.candidates.agent import Agent, AgentLimits, Scorer
from nl2sparql.candidates.candidate import Candidate
from nl2sparql.compiler import generate
from nl2sparql.compiler.ast import AskQuery
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.store import NS as FREEBASE_NS
from nl2sparql.ranker.scorer import EmbeddingScorer

#: candidate sources: "auto" grounds on a graph other than Freebase, "graph" always, "off" never
CANDIDATE_MODES: tuple[str, ...] = ("auto", "graph", "off")
#: how many of the best candidates are run, at most, before the generator is asked instead
RUN_AT_MOST = 8
#: how many candidates the result's trace shows
SHOWN = 5


def applies(mode: str, bank: Any, store: Any | None, planner: str = "") -> bool:
    """Whether the question is answered by candidates over the graph first: they need a store
    to be built over (a translation looks at it too, and returns no answers), and never with
    the ``oracle`` planner, whose gold plans measure the rest of the pipeline."""
    if mode == "off" or store is None or planner == "oracle":
        return False
    return mode == "graph" or bank.meta.namespace != FREEBASE_NS


@dataclass(frozen=True, slots=True)
class Chosen:
    """The candidates of one question, best first, and the one adopted (with its answers)."""

    candidates: tuple[Candidate, ...]
    adopted: Candidate | None = None
    sparql: str | None = None
    answers: tuple[str, ...] = ()
    tried: int = 0
    #: milliseconds spent running candidates' queries on the store
    run_ms: float = 0.0


class Discriminator:
    """Grounder, agent and scorer over one store and bank; thread-safe, built on first use."""

    def __init__(self, bank: Any, store: Any, linker: Any, scorer: Scorer | None = None, ranker: str = "auto") -> None:
        self.bank = bank
        self.store = store
        self._linker = linker
        self._scorer = scorer
        self._chooser: Scorer | None = None
        self.ranker = ranker
        self._grounder: Any = None
        self._agent: Agent | None = None
        self._lock = threading.Lock()

    def parts(self) -> tuple[Any, Agent, Scorer]:
        """The grounder, the agent and the scorer that steers it, built on first use (the
        trained ranker, when one is set, is built beside them as ``_chooser``)."""
        with self._lock:
            if self._grounder is None:
                from nl2sparql.kg.grounding import Grounder

                self._grounder = Grounder.from_store(self.store, linker=self._linker)
                limits = AgentLimits(timeout=min(self.store_timeout, 5.0), seconds=min(self.store_timeout, 10.0))
                self._agent = Agent(self.bank, self.store, limits)
                self._scorer = self._scorer or EmbeddingScorer(self.bank.embedder)
                self._chooser = self._chooser or open_chooser(self.ranker, self.bank)
        assert self._agent is not None and self._scorer is not None
        return self._grounder, self._agent, self._scorer

    @property
    def store_timeout(self) -> float:
        return float(getattr(self.store, "timeout", None) or 30.0)

    def candidates(
        self, question: str, entities: Mapping[str, str] | None, chooser: Scorer | None = None
    ) -> tuple[Any, tuple[Candidate, ...]]:
        """The question's grounding (with the entities a caller gave) and the agent's
        candidates over it, best first (``chooser``, a trained ranker, orders them when given)."""
        grounder, agent, scorer = self.parts()
        grounding = grounder.ground(question)
        if entities:
            grounding = with_given(grounding, entities)
        return grounding, tuple(agent.candidates(question, grounding, scorer, chooser))

    def choose(
        self,
        question: str,
        entities: Mapping[str, str] | None,
        *,
        dialect: str = "sparql11",
        deadline: float | None = None,
        timeout: float = 30.0,
    ) -> Chosen:
        """The scored candidates of ``question`` and the best one whose query answers."""
        agent = self.parts()[1]
        found = self.candidates(question, entities, self._chooser)[1]
        began = time.perf_counter()
        for tried, candidate in enumerate(found[:RUN_AT_MOST], 1):
            if deadline is not None and time.monotonic() >= deadline:
                break
            try:
                query = candidate.query(agent.prefixes)
                answers = answer_values(self.store, query, timeout)
            except Nl2SparqlError:
                continue
            if answers:
                spent = (time.perf_counter() - began) * 1000
                return Chosen(found, candidate, generate(query, dialect), answers, tried, spent)
        return Chosen(found, tried=min(len(found), RUN_AT_MOST), run_ms=(time.perf_counter() - began) * 1000)


def open_chooser(ranker: str, bank: Any) -> Scorer | None:
    """The trained ranker a ``ranker`` setting names (``auto``: the shipped one, when one
    ships; a ranker file), or ``None`` for the zero-shot scorer (``zero-shot``). The
    zero-shot scorer steers the agent's search either way: the trained one was trained on
    the complete candidates of that search, and only orders them."""
    from pathlib import Path

    from nl2sparql.ranker.cross import SHIPPED

    if ranker == "zero-shot" or (ranker == "auto" and not SHIPPED.is_file()):
        return None
    return load_ranker(SHIPPED if ranker == "auto" else Path(ranker).expanduser(), bank.embedder)


def load_ranker(path: Any, embedder: Any = None) -> Any:
    """A :class:`~nl2sparql.ranker.cross.CrossEncoderScorer` from a ranker file: the file's
    layers over the embedder's MiniLM weights (from the installed package), on the numpy
    BERT runtime."""
    from nl2sparql.memory_bank.bert_numpy import Encoder
    from nl2sparql.memory_bank.embedder import bundled_model_dir, default_embedder
    from nl2sparql.memory_bank.minilm import read_bert
    from nl2sparql.ranker.cross import MAX_TOKENS, CrossEncoderScorer, read_ranker

    tensors, meta = read_ranker(path)
    config, weights, tokenizer = read_bert(bundled_model_dir(), MAX_TOKENS)
    weights.update({n: a for n, a in tensors.items() if not n.startswith(("head.", "features."))})
    encoder = Encoder.read(weights, "", config)
    return CrossEncoderScorer(tensors, meta, encoder, tokenizer, embedder or default_embedder())


def answer_values(store: Any, query: Any, timeout: float) -> tuple[str, ...]:
    """The values a query answers: every projected column of every row, in order; an ``ASK``
    answers ``true`` or ``false``. A count of nothing answers nothing."""
    text = generate(query, "full-iri")
    if isinstance(query, AskQuery):
        return ("true" if store.ask(text, timeout=timeout) else "false",)
    result = store.select(text, timeout=timeout)
    values = [term.value for row in result.rows for term in row.values() if term is not None]
    if values in (["0"],):
        return ()
    return tuple(dict.fromkeys(values))


def with_given(grounding: Any, entities: Mapping[str, str]) -> Any:
    """The grounding with the caller's entities in place of the linked ones (scored as sure)."""
    from dataclasses import replace

    from nl2sparql.kg.linker import Candidate as Linked

    given = tuple(
        Linked(entity_id, name or entity_id, 2.0, name or entity_id, (0, 0), name or "", "given", 0)
        for entity_id, name in entities.items()
    )
    return replace(grounding, entities=given)


def trace(chosen: Chosen, limit: int = SHOWN) -> tuple[Mapping[str, Any], ...]:
    """The best candidates as the result shows them: plan, shape, score, source."""
    return tuple(candidate.to_json() for candidate in chosen.candidates[:limit])
