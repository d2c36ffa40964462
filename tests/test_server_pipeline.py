"""A small, real pipeline for the service tests, and the tests that it keeps the service's contract.

The service drives any :class:`~nl2sparql.server.protocol.AnsweringPipeline`. Until (and
beside) the full pipeline, the service tests run over :class:`GraphPipeline`: it does each
stage for real on the Freebase-shaped fixture graph of ``conftest.py`` in an rdflib store:
links mentions by the graph's names, writes a MemQ-style plan, recalls statements from a
tiny memory by word overlap, compiles SPARQL in the asked dialect, and runs the queries in
recall order until one answers (execution-guided repair, every attempt in the trace).
It can be slowed (``stage_seconds``), held before a stage (``hold``) or made deaf to its
deadline (``heeds_deadline=False``) to test deadlines, cancellation and the concurrency
bound, and it counts the streams it started, finished and had closed early.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import fixture_graph_nt

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.rdflib_store import RdflibStore
from nl2sparql.kg.store import NAME_PREDICATE, NS, Store
from nl2sparql.results import Answer, AskResult, Attempt, Candidate, Recalled, StageEvent
from nl2sparql.server.protocol import AnsweringPipeline

DIALECTS = ("sparql11", "full-iri", "virtuoso")
_STOP = frozenset(
    ("a", "an", "the", "of", "is", "are", "was", "were", "who", "whom", "what", "which", "where", "when")
    + ("did", "do", "does", "in", "to", "by", "for", "and", "s", "person", "persons", "people")
)


class UnknownEntity(Nl2SparqlError):
    """An entity id the graph does not name."""


@dataclass(frozen=True, slots=True)
class Statement:
    id: str
    structure: int
    description: str
    pattern: str  # over ?e1 (input) and ?e2 (output), prefixed names in ns:


MEMORY: tuple[Statement, ...] = (
    Statement(
        "t-sibling",
        2,
        "?e2 is the sibling of the person ?e1",
        "?e1 ns:people.person.sibling_s ?c . ?c ns:people.sibling_relationship.sibling ?e2 . FILTER(?e2 != ?e1)",
    ),
    Statement(
        "t-spouse",
        2,
        "?e2 is the spouse the person ?e1 married",
        "?e1 ns:people.person.spouse_s ?c . ?c ns:people.marriage.spouse ?e2 . FILTER(?e2 != ?e1)",
    ),
    Statement(
        "t-birthplace",
        1,
        "?e2 is the place where the person ?e1 was born",
        "?e1 ns:people.person.place_of_birth ?e2 .",
    ),
    Statement("t-gender", 1, "?e2 is the gender of the person ?e1", "?e1 ns:people.person.gender ?e2 ."),
    Statement(
        "t-film",
        2,
        "?e2 is a film the actor ?e1 played in",
        "?e1 ns:film.actor.film ?c . ?c ns:film.performance.film ?e2 .",
    ),
    Statement(
        "t-container",
        1,
        "?e2 is the country containing the city ?e1",
        "?e1 ns:location.location.containedby ?e2 .",
    ),
)


def _words(text: str) -> set[str]:
    words = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _STOP:
            continue
        words.add(word[:-1] if len(word) > 4 and word.endswith("s") else word)
    return words


class GraphPipeline:
    """Answers one-hop and CVT questions about named entities of a small graph."""

    def __init__(
        self,
        store: Store,
        *,
        stage_seconds: float = 0.0,
        hold: threading.Event | None = None,
        hold_before: str = "planned",
        heeds_deadline: bool = True,
    ) -> None:
        self.store = store
        self.stage_seconds = stage_seconds
        self.hold = hold
        self.hold_before = hold_before
        self.heeds_deadline = heeds_deadline
        names = store.select(f"SELECT ?s ?n WHERE {{ ?s <{NAME_PREDICATE}> ?n . FILTER(langMatches(lang(?n), 'en')) }}")
        self.names = {row["s"].freebase_id: row["n"].value for row in names.rows}
        self._lock = threading.Lock()
        self.started = self.finished = self.closed_early = 0
        self.deadlines: list[float | None] = []

    # -- the Protocol -----------------------------------------------------------------------
    def ask(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str = "sparql11",
        limit: int | None = None,
        deadline: float | None = None,
        execute: bool = True,
    ) -> AskResult:
        *_, last = self.ask_stream(question, entities, dialect=dialect, limit=limit, deadline=deadline, execute=execute)
        return last.result

    def translate(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str = "sparql11",
        limit: int | None = None,
        deadline: float | None = None,
    ) -> AskResult:
        return self.ask(question, entities, dialect=dialect, limit=limit, deadline=deadline, execute=False)

    def describe(self) -> dict[str, Any]:
        """In the shape ``Pipeline.describe`` gives."""
        stats = self.store.stats()
        structures = Counter(str(s.structure) for s in MEMORY)
        return {
            "store": {
                "kind": self.store.name,
                "location": "(memory)",
                "triples": stats.triples,
                "predicates": len(stats.predicates),
            },
            "bank": {
                "location": "(memory)",
                "counts": {"structure": dict(sorted(structures.items())), "constraint": {}},
                "embedder": "word overlap",
            },
            "planner": {"spec": "rules", "statements": [s.id for s in MEMORY]},
        }

    def ask_stream(
        self,
        question: str,
        entities: Mapping[str, str] | None = None,
        *,
        dialect: str = "sparql11",
        limit: int | None = None,
        deadline: float | None = None,
        execute: bool = True,
    ) -> Iterator[StageEvent]:
        if dialect not in DIALECTS:
            raise Nl2SparqlError(f"unknown dialect {dialect!r}")
        with self._lock:
            self.started += 1
            self.deadlines.append(deadline)
        done = False
        try:
            heeded = deadline if self.heeds_deadline else None
            yield from self._stages(question, entities, dialect, limit, heeded, execute)
            done = True
        finally:
            with self._lock:
                if done:
                    self.finished += 1
                else:
                    self.closed_early += 1

    # -- the stages ---------------------------------------------------------------------------
    def _stages(
        self,
        question: str,
        given: Mapping[str, str] | None,
        dialect: str,
        limit: int | None,
        deadline: float | None,
        execute: bool,
    ) -> Iterator[StageEvent]:
        timings: dict[str, float] = {}
        result = AskResult(question=question)

        def stage(name: str, key: str, started: float, **changes: Any) -> StageEvent:
            nonlocal result
            elapsed = (time.perf_counter() - started) * 1000
            timings[key] = elapsed
            result = _replace(result, timings_ms=dict(timings), **changes)
            return StageEvent(name, elapsed, result)  # type: ignore[arg-type]

        started = self._pause("linked", deadline)
        entities = self._link(question, given)
        yield stage("linked", "link", started, entities=entities)

        started = self._pause("planned", deadline)
        mention = next(iter(entities.values()), None)
        if mention is None:
            yield stage("planned", "plan", started, error="no entity of the knowledge graph is named in the question")
            yield StageEvent("result", 0.0, result)
            return
        relation = " ".join(
            w for w in re.findall(r"[\w']+", question) if w.lower() not in _words_of(mention) and w.lower() not in _STOP
        )
        plan = (
            "Type: composition",
            f"Find the {relation} of {mention}, assign it to ?x.",
            "The answer is ?x.",
        )
        yield stage("planned", "plan", started, type="composition", plan=plan)

        started = self._pause("recalled", deadline)
        wanted = _words(relation)
        scored = sorted(
            ((len(wanted & _words(s.description)) / max(len(wanted), 1), s) for s in MEMORY),
            key=lambda pair: (-pair[0], pair[1].id),
        )
        recalled = [(score, s) for score, s in scored if score > 0][:3]
        candidates = tuple(Candidate(s.id, s.description, s.pattern, round(score, 4)) for score, s in recalled)
        yield stage("recalled", "recall", started, recalled=(Recalled(plan[1], candidates),))

        started = self._pause("compiled", deadline)
        entity = next(iter(entities))
        queries = [
            (_query(s.pattern, entity, dialect, limit), _query(s.pattern, entity, "full-iri", limit))
            for _, s in recalled
        ]
        attempts = tuple(Attempt(shown, plan_type="composition") for shown, _ in queries)
        error = None if queries else f"no memory statement matches {relation!r}"
        yield stage(
            "compiled",
            "compile",
            started,
            sparql=queries[0][0] if queries else None,
            attempts=attempts,
            error=error,
        )
        if not execute or not queries:
            yield StageEvent("result", 0.0, result)
            return

        started = self._pause("executed", deadline)
        tried: list[Attempt] = []
        answers: tuple[Answer, ...] = ()
        chosen = queries[0][0]
        for shown, runnable in queries:
            timeout = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            rows = self.store.select(runnable, timeout=timeout).rows
            ids = [row["e2"].freebase_id for row in rows]
            tried.append(Attempt(shown, None, len(ids), "composition"))
            if ids:
                labels = self.store.labels(ids)
                answers, chosen = tuple(Answer(i, labels.get(i)) for i in ids), shown
                break
        yield stage(
            "executed",
            "execute",
            started,
            sparql=chosen,
            attempts=tuple(tried),
            answers=answers,
            error=None if answers else "every query came back empty",
        )
        yield StageEvent("result", 0.0, result)

    def _link(self, question: str, given: Mapping[str, str] | None) -> dict[str, str]:
        if given:
            unknown = [i for i in given if i not in self.names]
            if unknown:
                raise UnknownEntity(f"unknown entity id {unknown[0]!r}: the knowledge graph has no such entity")
            return {i: name or self.names[i] for i, name in given.items()}
        lowered = question.lower()
        found = [(len(name), mid, name) for mid, name in self.names.items() if name.lower() in lowered]
        return {mid: name for _, mid, name in sorted(found, reverse=True)[:1]}

    def _pause(self, stage: str, deadline: float | None) -> float:
        """Wait as configured before ``stage``, stopping with TimeoutError at the deadline."""
        if self.hold is not None and stage == self.hold_before:
            while not self.hold.wait(0.01):
                _check(deadline, stage)
        end = time.monotonic() + self.stage_seconds
        while time.monotonic() < end:
            _check(deadline, stage)
            time.sleep(min(0.01, max(end - time.monotonic(), 0)))
        _check(deadline, stage)
        return time.perf_counter()


def _check(deadline: float | None, stage: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TimeoutError(f"the deadline passed before stage {stage}")


def _words_of(name: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[\w']+", name)}


def _replace(result: AskResult, **changes: Any) -> AskResult:
    fields = {name: getattr(result, name) for name in AskResult.__dataclass_fields__}
    return AskResult(**{**fields, **changes})


def _query(pattern: str, entity: str, dialect: str, limit: int | None) -> str:
    body = pattern.replace("?e1", f"ns:{entity}")
    tail = f" LIMIT {limit}" if limit else ""
    if dialect == "full-iri":
        body = re.sub(r"\bns:([\w.]+)", lambda m: f"<{NS}{m.group(1)}>", body)
        return f"SELECT DISTINCT ?e2 WHERE {{ {body} }}{tail}"
    text = f"SELECT DISTINCT ?e2 WHERE {{ {body} }}{tail}"
    return text if dialect == "virtuoso" else f"PREFIX ns: <{NS}>\n{text}"


# -- fixtures shared by the service tests ------------------------------------------------------


def graph_store(tmp_path: Path) -> RdflibStore:
    path = tmp_path / "graph.nt"
    path.write_text(fixture_graph_nt(), encoding="utf-8")
    return RdflibStore(path)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RdflibStore:
    return graph_store(tmp_path_factory.mktemp("server-graph"))


# -- the pipeline's own tests -------------------------------------------------------------------


def test_it_keeps_the_service_protocol(store: RdflibStore) -> None:
    assert isinstance(GraphPipeline(store), AnsweringPipeline)


def test_it_answers_a_cvt_question_from_the_graph(store: RdflibStore) -> None:
    result = GraphPipeline(store).ask("Who are the siblings of Gus Orr?")
    assert result.entities == {"m.0p_gus": "Gus Orr"}
    assert [a.id for a in result.answers] == ["m.0p_hal"] and result.answers[0].name == "Hal Orr"
    assert result.recalled[0].candidates[0].statement_id == "t-sibling"
    assert result.sparql is not None and result.sparql.startswith("PREFIX ns:")
    assert set(result.timings_ms) == {"link", "plan", "recall", "compile", "execute"}


def test_it_streams_every_stage_in_order_and_the_result_last(store: RdflibStore) -> None:
    pipeline = GraphPipeline(store)
    events = list(pipeline.ask_stream("Where was Ada Quill born?", dialect="full-iri"))
    assert [e.stage for e in events] == ["linked", "planned", "recalled", "compiled", "executed", "result"]
    assert [a.name for a in events[-1].result.answers] == ["Porta"]
    assert "<http://rdf.freebase.com/ns/people.person.place_of_birth>" in (events[-1].result.sparql or "")
    assert (pipeline.started, pipeline.finished, pipeline.closed_early) == (1, 1, 0)


def test_it_repairs_by_trying_the_next_candidate(store: RdflibStore) -> None:
    # "married" and "spouse" recall the spouse statement first; Cy Quill has no spouse but a sibling
    result = GraphPipeline(store).ask("Cy Quill married which spouse, or else which sibling?")
    assert [c.statement_id for c in result.recalled[0].candidates] == ["t-spouse", "t-sibling"]
    assert len(result.attempts) >= 2 and result.attempts[0].answers == 0
    assert [a.name for a in result.answers] == ["Dee Quill"]


def test_unknown_entity_ids_are_refused(store: RdflibStore) -> None:
    with pytest.raises(UnknownEntity, match="m.0nope"):
        GraphPipeline(store).ask("who is it", {"m.0nope": ""})


def test_a_passed_deadline_stops_it(store: RdflibStore) -> None:
    pipeline = GraphPipeline(store, stage_seconds=0.05)
    with pytest.raises(TimeoutError, match="deadline"):
        pipeline.ask("Who are the siblings of Gus Orr?", deadline=time.monotonic() + 0.06)
    assert pipeline.closed_early == 1


def test_the_real_pipeline_class_keeps_the_protocol_too() -> None:
    from nl2sparql.pipeline import Pipeline

    assert issubclass(Pipeline, AnsweringPipeline)
