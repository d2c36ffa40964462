"""One pipeline from a question to answers: link -> plan -> recall -> compile -> execute.

The CLI, the batch translator and the gRPC servicer are thin faces over :class:`Pipeline`
(the rdflib habit: a facade that joins the stages). :meth:`Pipeline.ask_stream` yields a
:class:`~nl2sparql.results.StageEvent` as each stage finishes, so the service can stream
them; :meth:`Pipeline.ask` is the last event of that stream. Bad input raises a
:class:`~nl2sparql.errors.Nl2SparqlError`; a question that the system fails to answer (no
plan, no query, no answers) is a result whose ``error`` says why, with every attempt in
its trace.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sparql.errors import ConfigError, DeadlineExceeded, InvalidQuestion, Nl2SparqlError
from nl2sparql.kg.store import NS as FREEBASE_NS
from nl2sparql.question import check_question
from nl2sparql.results import Answer, AskResult, Attempt, Candidate, Ranked, Recalled, Stage, StageEvent
from nl2sparql.settings import DIALECTS, Settings, load_settings

if TYPE_CHECKING:  # the compiler loads when a pipeline first compiles
    from nl2sparql.reconstruction import RecallMemo


def _recalled(resolved: Any, recalls: Mapping[int, Any]) -> tuple[Recalled, ...]:
    """The recall trace of a resolved plan: each step's sentence and its scored candidates."""
    from nl2sparql.plan.writer import format_step

    return tuple(
        Recalled(
            step=format_step(resolved.plan.steps[i]),
            candidates=tuple(
                Candidate(c.entry.id, c.entry.description, c.entry.sparql, round(float(c.score), 4))
                for c in recall.candidates
            ),
        )
        for i, recall in sorted(recalls.items())
    )


def _adopted(tried: list[tuple[Any, Any]], execute: bool) -> tuple[Any, Any] | None:
    """The tried plan whose result stands: the first that answers (with execution), else the
    first that compiled to a query, else the first tried at all."""
    if execute:
        answering = next(((p, c) for p, c in tried if c.answers), None)
        if answering is not None:
            return answering
    compiling = next(((p, c) for p, c in tried if c.reconstruction.query is not None), None)
    return compiling or (tried[0] if tried else None)


def _check_deadline(deadline: float | None, stage: str) -> float | None:
    """Seconds left before ``deadline`` (``None`` for no deadline); raises when none are left."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineExceeded(f"deadline exceeded before the {stage} stage")
    return left


def _open_planner(settings: Settings, bank: Any | None = None) -> Any:
    """The planner the settings name, decoded as ``decoding`` says, behind a batcher unless
    ``plan_batch`` is 1 (concurrent questions share one decode; see planner/batcher.py).
    The plain ``oracle`` writes its gold plans in ``bank``'s words (any graph's)."""
    import os

    from nl2sparql.planner.backends import LOCAL_PLANNER_NAMES, LOCAL_PLANNERS, open_planner
    from nl2sparql.planner.batcher import BatchingPlanner

    local = settings.planner.split(":", 1)[0] in LOCAL_PLANNERS
    options: dict[str, Any] = {"lazy_beams": settings.decoding == "greedy-first"} if local else {}
    if local and bank is not None:
        options["bank"] = bank  # a planner trained on relation hints reads them from the graph's bank
    if settings.exemplars:
        if not local:
            raise ConfigError(
                f"exemplars are read by a local planner ({LOCAL_PLANNER_NAMES}), not {settings.planner!r}"
            )
        options["exemplars"] = settings.exemplars
    if settings.planner == "oracle" and bank is not None:
        options["bank"] = bank  # the gold plans are written in the words of the bank in use
    planner = open_planner(settings.planner, **options)
    if settings.plan_batch <= 1 or not local:  # a chat server or the oracle gains nothing from it
        return planner
    workers = max(1, os.cpu_count() or 1)  # the local planner decodes at most one batch per core
    return BatchingPlanner(planner, settings.plan_batch, settings.plan_batch_ms, workers=workers)


class _LazyAlternatives:
    """The planner's other plans for a question, asked for only when a plan fails: a planner
    that decodes greedily computes its other beams then, not for every question."""

    def __init__(
        self,
        planner: Any,
        planned: Any,
        question: str,
        linked: Mapping[str, str],
        gold: str | None,
        retries: int,
        deadline: float | None,
    ) -> None:
        self._planner, self._planned, self._retries, self._deadline = planner, planned, retries, deadline
        self._request = (question, dict(linked), gold)
        self._plans: tuple[Any, ...] | None = tuple(getattr(planned, "alternatives", ())) or None

    def plans(self) -> tuple[Any, ...]:
        if self._plans is None:
            self._plans = ()
            ask = getattr(self._planner, "alternatives", None)
            if self._retries and ask is not None:
                from nl2sparql.planner.backends.base import PlanRequest
                from nl2sparql.planner.errors import PlannerError

                try:
                    self._plans = tuple(ask(PlanRequest(*self._request), self._planned.plan, deadline=self._deadline))
                except (PlannerError, DeadlineExceeded):  # the first plan stands
                    self._plans = ()
        return self._plans


class Pipeline:
    """Answers questions over one KG with one memory bank and one planner; thread-safe."""

    def __init__(
        self,
        *,
        bank: Any,
        planner: Any,
        store: Any | None = None,
        linker: Any | None = None,
        settings: Settings | None = None,
        describe_info: Mapping[str, Any] | None = None,
    ) -> None:
        from nl2sparql.reconstruction import PlanCompiler

        self.settings = settings or Settings()
        self.store = store
        self.bank = bank
        self.planner = planner
        self._linker = linker
        self._linker_lock = threading.Lock()
        self.compiler = PlanCompiler(bank, dialect="full-iri")
        self._info = dict(describe_info or {})
        self._discriminator: Any = None

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **flags: Any) -> Pipeline:
        """A pipeline over the configured store/endpoint, bank and planner (the home default otherwise)."""
        from nl2sparql.kg import open_store
        from nl2sparql.memory_bank.bank_file import load_bank

        settings = settings or load_settings(flags)
        ranker = settings.ranker
        if ranker not in ("auto", "zero-shot") and not Path(ranker).expanduser().is_file():
            raise ConfigError(f"no ranker at {ranker}: train one (`nl2sparql ranker train`) or use --ranker zero-shot")
        info: dict[str, Any] = {}
        if settings.endpoint:
            store = open_store(
                "endpoint",
                url=settings.endpoint,
                user=settings.endpoint_user,
                password=settings.endpoint_password,
                token=settings.endpoint_token,
                timeout=settings.timeout,
            )
            info["store"] = {"kind": "endpoint", "location": settings.endpoint}
        else:
            path = Path(settings.store) if settings.store else settings.default_store
            if not path.exists():
                raise ConfigError(f"no store at {path}: run `nl2sparql setup`, or give --store DIR or --endpoint URL")
            store = open_store("oxigraph", path=str(path), timeout=settings.timeout)
            info["store"] = {"kind": "oxigraph", "location": str(path)}
        bank_path = Path(settings.bank) if settings.bank else settings.default_bank
        if not bank_path.exists():
            raise ConfigError(f"no memory bank at {bank_path}: run `nl2sparql setup`, or give --bank FILE")
        bank = load_bank(bank_path)
        info["bank"] = {"location": str(bank_path)}
        planner = _open_planner(settings, bank)
        info["planner"] = {"spec": settings.planner}
        return cls(bank=bank, planner=planner, store=store, settings=settings, describe_info=info)

    @property
    def discriminator(self) -> Any:
        """Grounding, the agent and the scorer over this pipeline's store and bank (built on first use)."""
        if self._discriminator is None:
            with self._linker_lock:
                if self._discriminator is None:
                    from nl2sparql.discriminate import Discriminator

                    ranker = self.settings.ranker
                    self._discriminator = Discriminator(self.bank, self.store, self._linker, ranker=ranker)
        return self._discriminator

    @property
    def linker(self) -> Any:
        """The entity linker over the store's labels, built (or read from its cache) on first use."""
        if self._linker is None:
            with self._linker_lock:
                if self._linker is None:
                    if self.store is None:
                        raise ConfigError("no entities given and no store to link them against")
                    from nl2sparql.config import data_dir
                    from nl2sparql.kg.linker import EntityLinker

                    location = self._info.get("store", {}).get("location")
                    # The mention prior (which n-grams really name the topic entity) is learned
                    # from WebQSP train for the embedded Freebase default only.
                    training = []
                    data = data_dir(required=False)
                    if location == str(self.settings.default_store) and data is not None:
                        webqsp = data / "webqsp" / "WebQSP.train.json"
                        training = [webqsp] if webqsp.is_file() else []
                    self._linker = EntityLinker.from_store(self.store, training=training)
        return self._linker

    # -- answering ---------------------------------------------------------------------

    def ask(self, question: str, entities: Mapping[str, str] | None = None, **options: Any) -> AskResult:
        """The answers to ``question`` with the plan, SPARQL and trace that produced them."""
        result: AskResult | None = None
        for event in self.ask_stream(question, entities, **options):
            result = event.result
        assert result is not None
        return result

    def translate(self, question: str, entities: Mapping[str, str] | None = None, **options: Any) -> AskResult:
        """The plan and SPARQL for ``question``, without running the query."""
        options["execute"] = False
        return self.ask(question, entities, **options)

    def ask_stream(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str | None = None,
        limit: int | None = None,
        deadline: float | None = None,
        execute: bool | None = None,
        gold_sparql: str | None = None,
    ) -> Iterator[StageEvent]:
        """One :class:`StageEvent` per finished stage; the last one (``result``) holds the answer."""
        text = check_question(question)
        dialect = dialect or self.settings.dialect
        if dialect not in DIALECTS:
            raise InvalidQuestion(f"unknown dialect {dialect!r}: choose one of {', '.join(DIALECTS)}")
        limit = self.settings.limit if limit is None else limit
        if limit is not None and limit < 0:
            raise InvalidQuestion(f"limit must be zero or positive, got {limit}")
        execute = self.settings.execute if execute is None else execute
        timings: dict[str, float] = {}
        result = AskResult(question=text)

        def event(stage: Stage, began: float, **changes: Any) -> StageEvent:
            nonlocal result
            elapsed = (time.perf_counter() - began) * 1000
            if stage != "result":
                timings[stage] = elapsed
            result = replace(result, timings_ms=dict(timings), **changes)
            return StageEvent(stage, elapsed, result)

        began = time.perf_counter()
        _check_deadline(deadline, "linking")
        linked = self._entities(text, entities, execute)
        yield event("linked", began, entities=linked)

        from nl2sparql.discriminate import applies

        ranked: tuple[Ranked, ...] = ()
        planner_name = str(getattr(self.planner, "name", ""))
        if applies(self.settings.candidates, self.bank, self.store, planner_name):
            began = time.perf_counter()
            _check_deadline(deadline, "planning")
            chosen = self.discriminator.choose(
                text, entities, dialect=dialect, deadline=deadline, timeout=self.settings.timeout
            )
            ranked = tuple(Ranked(c.steps, c.shape, round(c.score, 4), c.source) for c in chosen.candidates[:5])
            if chosen.adopted is not None:
                adopted = chosen.adopted
                planned_ms = (time.perf_counter() - began) * 1000 - chosen.run_ms
                timings["planned"] = planned_ms
                result = replace(result, type=adopted.shape, plan=adopted.steps, candidates=ranked)
                yield StageEvent("planned", planned_ms, replace(result, timings_ms=dict(timings)))
                began = time.perf_counter()
                # a translation returns the query, not its answers
                answers = self._answers(chosen.answers if execute else (), limit)
                stage: Stage = "executed" if execute else "compiled"
                timings[stage] = chosen.run_ms + (time.perf_counter() - began) * 1000
                result = replace(result, sparql=chosen.sparql, answers=answers, timings_ms=dict(timings))
                yield StageEvent(stage, timings[stage], result)
                yield event("result", time.perf_counter())
                return
            result = replace(result, candidates=ranked)

        began = time.perf_counter()
        _check_deadline(deadline, "planning")
        from nl2sparql.planner.errors import PlannerError

        try:
            planned = self.planner.plan(text, linked, gold_sparql, deadline=deadline)
        except PlannerError as exc:
            yield event("planned", began, error=f"planning failed: {exc}")
            yield event("result", time.perf_counter())
            return
        plan_lines = tuple(line for line in planned.text.splitlines() if line.strip())
        yield event("planned", began, type=planned.plan.type, plan=plan_lines)

        began = time.perf_counter()
        _check_deadline(deadline, "recall")
        alternatives = _LazyAlternatives(
            self.planner, planned, text, linked, gold_sparql, self.settings.plan_retries, deadline
        )
        store = self.store if execute else None
        seen: RecallMemo = {}  # the question's recalls, which its retried plans mostly repeat
        tried: list[tuple[Any, Any]] = []
        failure: str | None = None
        # One loop over the candidate plans: the planner's plan, then (KELGoP's retry) its other
        # plans, until one answers (or, without execution, compiles to a query).
        for index, plan in enumerate(self._plans(planned.plan, alternatives)):
            if index and deadline is not None and deadline - time.monotonic() <= 0:
                break  # the deadline stops the retries, not the question: what was tried stands
            try:
                resolved = self.compiler.resolve(plan, linked)
                recalls = self.compiler.recall(resolved, seen)
            except Nl2SparqlError as exc:
                if index == 0:
                    failure = f"recall failed: {exc}"
                    if not self.settings.plan_retries or not alternatives.plans():
                        yield event("recalled", began, error=failure)
                        yield event("result", time.perf_counter())
                        return
                    yield event("recalled", began)  # the planner's other plans are tried next
                    began = time.perf_counter()
                continue
            if index == 0:
                yield event("recalled", began, recalled=_recalled(resolved, recalls))
                began = time.perf_counter()
                _check_deadline(deadline, "compile")
            try:
                compiled = self.compiler.compile_resolved(
                    resolved, recalls, store=store, timeout=self._timeout(deadline)
                )
            except Nl2SparqlError as exc:
                failure = failure or f"compilation failed: {exc}"
                continue
            tried.append((plan, compiled))
            if compiled.answers if execute else compiled.reconstruction.query is not None:
                break
        adopted = _adopted(tried, execute)
        if adopted is None:
            yield event("compiled", began, error=failure)
            yield event("result", time.perf_counter())
            return
        plan, compiled = adopted
        if plan is not planned.plan:
            from nl2sparql.plan.writer import format_plan

            result = replace(
                result,
                type=plan.type,
                plan=tuple(line for line in format_plan(plan).splitlines() if line.strip()),
                recalled=_recalled(compiled.resolved, compiled.recalls),
            )
        reconstruction = compiled.reconstruction
        attempts = tuple(
            Attempt(sparql=a.sparql or "", error=a.error, answers=a.answers, plan_type=plan.type)
            for plan, tried_compiled in tried
            for a in tried_compiled.reconstruction.attempts
        )
        from nl2sparql.compiler.generator import generate

        sparql = generate(reconstruction.query, dialect) if reconstruction.query is not None else None
        compile_ms = (time.perf_counter() - began) * 1000
        if not execute:
            yield event("compiled", began, sparql=sparql, attempts=attempts, error=reconstruction.error)
            yield event("result", time.perf_counter())
            return
        # Execution-guided repair runs the candidates while compiling; the time spent in the
        # store is reported as the execute stage.
        execute_ms = sum(
            a.elapsed_ms
            for _, tried_compiled in tried
            for a in tried_compiled.reconstruction.attempts
            if getattr(a, "elapsed_ms", None)
        )
        timings["compiled"] = max(compile_ms - execute_ms, 0.0)
        result = replace(result, sparql=sparql, attempts=attempts)
        yield StageEvent("compiled", timings["compiled"], replace(result, timings_ms=dict(timings)))

        began = time.perf_counter()
        answers = self._answers(compiled.answers or (), limit)
        error = reconstruction.error if not answers else None
        if not answers and error is None:
            error = "the query returned no answers"
        timings["executed"] = execute_ms + (time.perf_counter() - began) * 1000
        result = replace(result, answers=answers, error=error, timings_ms=dict(timings))
        yield StageEvent("executed", timings["executed"], result)
        yield event("result", time.perf_counter())

    # -- helpers -----------------------------------------------------------------------

    def _plans(self, first: Any, alternatives: _LazyAlternatives) -> Iterator[Any]:
        """The plans a question tries: the planner's, then at most ``plan_retries`` of its
        others, computed only when the first did not do (a greedy planner's other beams)."""
        yield first
        yield from tuple(alternatives.plans())[: self.settings.plan_retries]

    def _timeout(self, deadline: float | None) -> float:
        """The store's timeout for the next query, no later than the caller's deadline."""
        left = None if deadline is None else deadline - time.monotonic()
        return min(self.settings.timeout, left) if left is not None else self.settings.timeout

    def _entities(self, question: str, entities: Mapping[str, str] | None, execute: bool = True) -> dict[str, str]:
        """The caller's entities, checked against the store, or the linker's. A translation
        (nothing runs) keeps named ids the store lacks: the query may be meant for a bigger KG."""
        if entities:
            if not isinstance(entities, Mapping):
                raise InvalidQuestion("entities must map entity ids to names")
            if any(not str(entity_id).strip() for entity_id in entities):
                raise InvalidQuestion("an entity id is empty")
            if self.store is None:
                return {str(k): str(v or k) for k, v in entities.items()}
            from nl2sparql.kg.linker import validate_entity_ids

            given = {str(k): str(v or "") for k, v in entities.items()}
            return validate_entity_ids(self.store, given, keep_named_unknown=not execute)
        return self.linker.link_entities(question, k=2)

    def _answers(self, ids: Sequence[str], limit: int | None) -> tuple[Answer, ...]:
        """The first ``limit`` answers (all without one), each with its name where it has one."""
        kept = list(ids)[:limit] if limit is not None else list(ids)
        names = self._names(kept)
        return tuple(Answer(i, names.get(i)) for i in kept)

    def _names(self, ids: list[str]) -> dict[str, str]:
        entity_ids = [i for i in ids if i.startswith(("m.", "g.", "http"))]
        if not entity_ids or self.store is None:
            return {}
        from nl2sparql.kg.local_names import iri_name

        iris = {i if i.startswith("http") else FREEBASE_NS + i: i for i in entity_ids}
        labels = self.store.labels(list(iris))
        names = {iris[iri]: name for iri, name in labels.items() if iri in iris}
        # Unlabelled entities of graphs other than Freebase are shown by their local names.
        for iri, entity_id in iris.items():
            name = names.get(entity_id) or iri_name(iri)
            if name:
                names[entity_id] = name
        return names

    def describe(self) -> dict[str, Any]:
        """The loaded KG, bank and planner, for ``nl2sparql info`` and the service's Describe."""
        info = {key: dict(value) for key, value in self._info.items()}
        if self.store is not None:
            stats = self.store.stats()
            info.setdefault("store", {}).update(triples=stats.triples, predicates=len(stats.predicates))
        counts = self.bank.counts()
        info.setdefault("bank", {}).update(counts=counts, embedder=self.bank.meta.embedder)
        info.setdefault("planner", {}).update(self.planner.info())
        return info

    def close(self) -> None:
        self.planner.close()
        if self.store is not None:
            self.store.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
