"""Planning data from KG patterns (LPKG): grounded query shapes with gold plans and questions.

Why: the gold plans of WebQSP and CWQ are few (about 3.8k) and mostly one or two hops;
a planner trained on them alone rarely sees three-hop chains, intersections of three
sets, unions or counts. LPKG (Wang et al., 2024) fills that gap by grounding the BetaE
query patterns in a KG and verbalising each instance. This module does the same on any
store the project can open, for the patterns :data:`PATTERNS`: ``1p 2p 3p`` (chains),
``2i 3i`` (intersections), ``2u`` (union), ``ip pi`` (mixed), ``compare``,
``superlative``, ``count`` and ``ask`` (a yes/no question on one relation, half of them
false, as QALD-style question sets ask them).

How, and why so:

* The walks take the relations of :mod:`.pattern_graph`: the one-input statements of a
  bank derived from the store, so a path through a CVT is one step, worded as the memory
  words it.
* Instances are random walks with a fixed seed (one generator per pattern, so a pattern's
  instances do not depend on how many of the others were asked for). Each is written as
  a gold-style query (``PREFIX ns:`` ... with WebQSP's ``FILTER (?x != topic)``) and run
  on the store, read-only: its answers, 1 to :data:`MAX_ANSWERS` of them and none an
  entity of the question, are the instance's answers.
* The plan is written from that query by the synthesiser that writes the gold plans
  (:class:`~nl2sparql.training.synthesise.PlanSynthesiser`), so the sentences, the type
  line and the ``Make sure`` / ``Rank`` / ``Count`` / ``Combine`` steps are the gold
  plans' own; an instance whose plan reads statements other than the ones walked (the
  synthesiser may start from the other end of an intersection) is dropped, since its
  question would not say what its plan says.
* Questions are templates over the descriptions (:mod:`.pattern_questions`): no LLM.

:mod:`.pattern_data` writes the pairs and checks them by reconstruction. Entities must
be in the Freebase namespace (``ns:``), as everywhere in the planner data.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nl2sparql.compiler import generate, parse
from nl2sparql.compiler.assemble import normalise_name
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.memory_bank.build_store import FREEBASE_NS
from nl2sparql.memory_bank.statement import Entry, Statement
from nl2sparql.planner.errors import PlannerDataError
from nl2sparql.planner.pairs import PATTERN_PREFIX, PlanPair, make_pair
from nl2sparql.planner.target_text import STEP_SEPARATOR
from nl2sparql.training import pattern_questions as say
from nl2sparql.training.pattern_graph import MAX_ANSWERS, PatternGraph, Relation, store_statements

__all__ = [
    "ATTEMPTS_PER_INSTANCE",
    "MAX_ANSWERS",
    "PATTERNS",
    "Instance",
    "PatternGenerator",
    "PatternReport",
    "Skip",
    "generate_instances",
]

PATTERNS: tuple[str, ...] = (
    *("1p", "2p", "3p", "2i", "3i", "2u", "ip", "pi"),
    *("compare", "superlative", "count", "ask"),
)
#: how many other entities of a relation an ``ask`` draws its false candidates from
FALSE_POOL = 20
#: a walk gives up when a set on its way holds more than this many nodes
MAX_SET = 100
#: attempts per wanted instance before a pattern gives up
ATTEMPTS_PER_INSTANCE = 60

_PREFIX = f"PREFIX ns: <{FREEBASE_NS}>"
# CVT variables of the queries written here, and the names the synthesiser gives them in UNION branches.
_CVT_VARS = tuple(f"?c{n}{suffix}" for n in range(1, 5) for suffix in ("", "_u1", "_u2"))
_OPERATORS = {"greater than": ">", "less than": "<", "after": ">", "before": "<"}


class Skip(Exception):
    """An attempt that gave no instance; the message is the reason the report counts."""


# -- instances ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Instance:
    """A grounded pattern: the question, its entities, the gold-style query, its answers, the pair."""

    pattern: str
    question: str
    entities: Mapping[str, str]
    sparql: str
    answers: tuple[str, ...]
    pair: PlanPair

    @property
    def id(self) -> str:
        return self.pair.id

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "pattern": self.pattern,
            "question": self.question,
            "entities": dict(self.entities),
            "sparql": self.sparql,
            "answers": list(self.answers),
        }


@dataclass(slots=True)
class _Draft:
    """A walk, before the store and the synthesiser have had their say."""

    anchors: list[str]
    lines: list[str]
    relations: list[Relation]
    slots: dict[str, str]
    extra: tuple[str, ...] = ()
    head: str = "SELECT DISTINCT ?x"
    tail: str = ""
    exactly: int | None = None
    #: an ``ask``: the answer the walk expects ("true" or "false")
    truth: str | None = None


def _size_reason(size: int, low: int, high: int) -> str:
    if size == 0:
        return "no answers"
    return f"{size} answers, not {low}" if low == high else f"more than {high} answers"


def _hop(relation: Relation, source: str, target: str, cvt: str) -> str:
    slots = {"?e1": source, "?e2": target, "?cvt": cvt}
    return " ".join(slots.get(t, t) for t in relation.statement.sparql.split()).replace(" . ", " .\n")


def _choice(rng: random.Random, items: Sequence[Any], why: str) -> Any:
    if not items:
        raise Skip(why)
    return rng.choice(items)


class PatternGenerator:
    """Grounds patterns in one store; ``make(pattern, number, rng)`` gives an instance or raises :class:`Skip`."""

    def __init__(self, graph: PatternGraph, store: Any, synthesiser: Any | None = None) -> None:
        self.graph = graph
        self.store = store
        if synthesiser is None:
            from nl2sparql.kg.freebase_schema import load_schema
            from nl2sparql.memory_bank.build_queries import QueryDecomposer
            from nl2sparql.memory_bank.cvt import FixedJudge
            from nl2sparql.training.synthesise import PlanSynthesiser

            synthesiser = PlanSynthesiser(QueryDecomposer(schema=load_schema(), judge=FixedJudge(_CVT_VARS)))
        self.synthesiser = synthesiser
        self.seen: set[str] = set()

    # -- walks -----------------------------------------------------------------------------

    def _name(self, node: str) -> str:
        return self.graph.names[node]

    def _start(self, rng: random.Random) -> tuple[Relation, str]:
        relation = _choice(rng, self.graph.rooted, "no relation")
        return relation, rng.choice(relation.anchors)

    def _step(self, rng: random.Random, frontier: set[str]) -> tuple[Relation, set[str]]:
        node = rng.choice(sorted(frontier))
        relation = _choice(rng, self.graph.starts.get(node, []), "a walk reached a dead end")
        reached = relation.outputs(frontier)
        if len(reached) > MAX_SET:
            raise Skip(f"a set on the way holds more than {MAX_SET} nodes")
        return relation, reached

    def _meeting(self, rng: random.Random, node: str, avoid: Sequence[str]) -> tuple[Relation, str]:
        """Another relation that reaches ``node``, and a named anchor of it not in ``avoid``."""
        relation = _choice(rng, self.graph.ends.get(node, []), "no other relation reaches the node")
        anchors = [a for a in relation.backward.get(node, ()) if a in self.graph.names and a not in avoid]
        return relation, _choice(rng, anchors, "no other named entity reaches the node")

    def _chain(self, rng: random.Random, hops: int) -> _Draft:
        relation, x = self._start(rng)
        relations, frontier = [relation], set(relation.forward[x])
        for _ in range(hops - 1):
            relation, frontier = self._step(rng, frontier)
            relations.append(relation)
        names = [f"?v{n}" for n in range(1, hops)] + ["?x"]
        lines = [_hop(relations[0], f"ns:{x}", names[0], "?c1")]
        lines += [_hop(r, names[i], names[i + 1], f"?c{i + 2}") for i, r in enumerate(relations[1:])]
        np = say.about(relations[0].phrase, self._name(x))
        for r in relations[1:]:
            np = say.over(r.phrase, np)
        return _Draft([x], lines, relations, {"a": np})

    def _intersection(self, rng: random.Random, branches: int) -> _Draft:
        relation, x = self._start(rng)
        meet = rng.choice(relation.forward[x])
        relations, anchors = [relation], [x]
        for _ in range(branches - 1):
            other, anchor = self._meeting(rng, meet, anchors)
            relations.append(other)
            anchors.append(anchor)
        lines = [
            _hop(r, f"ns:{a}", "?x", f"?c{i + 1}") for i, (r, a) in enumerate(zip(relations, anchors, strict=True))
        ]
        phrases = [say.about(r.phrase, self._name(a)) for r, a in zip(relations, anchors, strict=True)]
        return _Draft(anchors, lines, relations, dict(zip("abc", phrases, strict=False)))

    def _union(self, rng: random.Random) -> _Draft:
        relation, x = self._start(rng)
        other = _choice(rng, self.graph.ends.get(rng.choice(relation.forward[x]), []), "no other relation")
        y = _choice(rng, [a for a in other.anchors if a != x], "no other anchor")
        first, second = set(relation.forward[x]), set(other.forward[y])
        if first <= second or second <= first:
            raise Skip("one side of the union holds the other")
        lines = [
            "{ " + _hop(relation, f"ns:{x}", "?x", "?c1") + " }\nUNION\n{ " + _hop(other, f"ns:{y}", "?x", "?c2") + " }"
        ]
        slots = {"a": say.about(relation.phrase, self._name(x)), "b": say.about(other.phrase, self._name(y))}
        return _Draft([x, y], lines, [relation, other], slots)

    def _ip(self, rng: random.Random) -> _Draft:
        both = self._intersection(rng, 2)
        (r1, r2), (x, y) = both.relations, both.anchors
        meeting = set(r1.forward[x]) & set(r2.forward.get(y, ()))
        relation, _ = self._step(rng, meeting)
        lines = [line.replace("?x", "?v1") for line in both.lines] + [_hop(relation, "?v1", "?x", "?c3")]
        np = say.over_both(relation.phrase, both.slots["a"], both.slots["b"])
        return _Draft([x, y], lines, [r1, r2, relation], {"a": np})

    def _pi(self, rng: random.Random) -> _Draft:
        chain = self._chain(rng, 2)
        x = chain.anchors[0]
        reached = chain.relations[1].outputs(chain.relations[0].forward[x])
        other, y = self._meeting(rng, rng.choice(sorted(reached)), [x])
        lines = [*chain.lines, _hop(other, f"ns:{y}", "?x", "?c3")]
        slots = {"a": chain.slots["a"], "b": say.about(other.phrase, self._name(y))}
        return _Draft([x, y], lines, [*chain.relations, other], slots)

    def _valued(self, rng: random.Random) -> tuple[Relation, Relation, str, dict[str, tuple[str, ...]]]:
        """A set (``relation`` of ``x``) at least two of whose members have a value of ``value``."""
        value = _choice(rng, self.graph.values, "no value relation")
        member = rng.choice(value.anchors)
        relation, x = self._meeting(rng, member, [])
        members = set(relation.forward[x]) - {x}
        if len(members) > MAX_ANSWERS:
            raise Skip(f"more than {MAX_ANSWERS} answers")
        valued = {m: value.forward[m] for m in sorted(members) if m in value.forward}
        if len(valued) < 2:
            raise Skip("fewer than two answers have a value")
        return relation, value, x, valued

    def _value_draft(self, relation: Relation, value: Relation, x: str) -> _Draft:
        lines = [_hop(relation, f"ns:{x}", "?x", "?c1"), _hop(value, "?x", "?num", "?c2")]
        np = say.about(relation.phrase, self._name(x))
        slots = {"a": np, "many": say.plural(np), "value": say.value_noun(value.phrase)}
        return _Draft([x], lines, [relation, value], slots)

    def _compare(self, rng: random.Random) -> _Draft:
        relation, value, x, valued = self._valued(rng)
        op = rng.choice(("greater than", "less than") if value.kind == "number" else ("after", "before"))
        symbol = _OPERATORS[op]
        if value.kind == "number":
            lexical = {float(v): v for vs in valued.values() for v in sorted(vs)}
            points = sorted(lexical)
            cuts = [(lexical[p], p) for p in (points[:-1] if symbol == ">" else points[1:])]
            keep = lambda cut, v: float(v) > cut if symbol == ">" else float(v) < cut  # noqa: E731
        else:
            years = sorted({int(v[:4]) for vs in valued.values() for v in vs})
            cuts = [(str(y), f"{y:04d}-01-01") for y in sorted({*years, *(y + 1 for y in years)})]
            keep = lambda cut, v: v[:10] > cut if symbol == ">" else v[:10] < cut  # noqa: E731
        fitting = []
        for written, cut in cuts:
            kept = [m for m, vs in valued.items() if any(keep(cut, v) for v in vs)]
            if 0 < len(kept) < len(valued):
                fitting.append(written)
        number = _choice(rng, fitting, "no value splits the answers")
        draft = self._value_draft(relation, value, x)
        if value.kind == "number":
            draft.lines.append(f"FILTER (?num {symbol} {number}) .")
        else:
            draft.lines.append(
                f'FILTER (xsd:dateTime(?num) {symbol} "{int(number):04d}-01-01T00:00:00"^^xsd:dateTime) .'
            )
        draft.slots.update(op=rng.choice(say.OPERATOR_WORDS[(value.kind, op)]), n=number)
        return draft

    def _superlative(self, rng: random.Random) -> _Draft:
        relation, value, x, valued = self._valued(rng)
        descending = rng.random() < 0.5
        key = (lambda v: float(v)) if value.kind == "number" else (lambda v: v[:10])
        best = {m: (max if descending else min)(key(v) for v in vs) for m, vs in valued.items()}
        top = (max if descending else min)(best.values())
        if sum(1 for b in best.values() if b == top) > 1:
            raise Skip("a tie for first place")
        draft = self._value_draft(relation, value, x)
        draft.tail = "ORDER BY DESC(?num) LIMIT 1" if descending else "ORDER BY ?num LIMIT 1"
        draft.exactly = 1
        draft.slots["most"] = rng.choice(say.SUPERLATIVE_WORDS[(value.kind, descending)])
        return draft

    def _count(self, rng: random.Random) -> _Draft:
        draft = self._chain(rng, 1 if rng.random() < 0.6 else 2)
        many = say.plural(draft.slots["a"])
        draft.slots.update(many=many, bare_many=many.removeprefix("the "))
        noun = say.count_noun(draft.relations[0].phrase) if len(draft.relations) == 1 else None
        if noun is not None:
            draft.slots.update(have=noun, name=self._name(draft.anchors[0]))
            draft.extra = (say.COUNT_HAVE,)
        draft.head = "SELECT (COUNT(DISTINCT ?x) AS ?n)"
        return draft

    def _ask(self, rng: random.Random) -> _Draft:
        """Is ``y`` the relation's value for ``x``? Half the walks pick a ``y`` that is not: a
        value the relation gives other entities, so the question is plausible and false."""
        relation, x = self._start(rng)
        truth = rng.random() < 0.5
        values = set(relation.forward[x])
        if truth:
            pool = values
        else:
            others = rng.sample(relation.anchors, min(FALSE_POOL, len(relation.anchors)))
            pool = {v for a in others for v in relation.forward[a]} - values
        named = sorted(v for v in pool if v in self.graph.names and v != x)
        y = _choice(rng, named, "no named value" if truth else "no false value")
        slots = {"a": say.about(relation.phrase, self._name(x)), "y": self._name(y)}
        lines = [_hop(relation, f"ns:{x}", f"ns:{y}", "?c1")]
        return _Draft([x, y], lines, [relation], slots, head="ASK", truth="true" if truth else "false")

    def draft(self, pattern: str, rng: random.Random) -> _Draft:
        match pattern:
            case "1p" | "2p" | "3p":
                return self._chain(rng, int(pattern[0]))
            case "2i" | "3i":
                return self._intersection(rng, int(pattern[0]))
            case "2u":
                return self._union(rng)
            case "ip":
                return self._ip(rng)
            case "pi":
                return self._pi(rng)
            case "compare":
                return self._compare(rng)
            case "superlative":
                return self._superlative(rng)
            case "count":
                return self._count(rng)
            case "ask":
                return self._ask(rng)
        raise ValueError(f"unknown pattern {pattern!r}; known: {', '.join(PATTERNS)}")

    # -- from a walk to an instance ------------------------------------------------------------

    def make(self, pattern: str, number: int, rng: random.Random) -> Instance:
        """The ``number``-th instance of ``pattern`` (raises :class:`Skip` with the reason it failed)."""
        draft = self.draft(pattern, rng)
        entities = {a: self._name(a) for a in draft.anchors}
        if len({normalise_name(n) for n in entities.values()}) < len(entities):
            raise Skip("two entities share a name")
        answer_filter = [] if draft.truth else [f"FILTER (?x != ns:{draft.anchors[0]})"]
        body = "\n".join([*answer_filter, *draft.lines])
        sparql = f"{_PREFIX}\n{draft.head}\nWHERE {{\n{body}\n}}" + (f"\n{draft.tail}" if draft.tail else "")
        if sparql in self.seen:
            raise Skip("the same query again")
        if draft.truth:
            answers = (self.truth(sparql),)
            if answers != (draft.truth,):
                raise Skip("the store does not answer as the walk expects")
        else:
            answers = self.answers(sparql)
            self._check_size(draft, answers, entities)
        try:
            synthesis = self.synthesiser.synthesise(sparql, entities, list(entities))
        except Nl2SparqlError as exc:
            raise Skip(f"no plan: {type(exc).__name__}") from None
        read = Counter(e.key for e in synthesis.entries.values() if isinstance(e, Statement))
        if read != Counter(r.statement.key for r in draft.relations):
            raise Skip("the plan reads another statement")
        question = say.question(rng, pattern, draft.slots, draft.extra)
        try:
            pair = make_pair(f"{PATTERN_PREFIX}{pattern}-{number:06d}", question, entities, synthesis.plan)
        except Nl2SparqlError as exc:
            raise Skip(f"no pair: {type(exc).__name__}") from None
        if STEP_SEPARATOR.strip() in pair.output:
            raise Skip("plan holds ';'")
        self.seen.add(sparql)
        return Instance(pattern, question, entities, sparql, answers, pair)

    @staticmethod
    def _check_size(draft: _Draft, answers: tuple[str, ...], entities: Mapping[str, str]) -> None:
        low, high = (draft.exactly, draft.exactly) if draft.exactly else (1, MAX_ANSWERS)
        counted = draft.head.startswith("SELECT (COUNT")
        size = int(answers[0]) if counted and answers else len(answers)
        if not low <= size <= high:
            raise Skip(_size_reason(size, low, high))
        if not counted and set(answers) & set(entities):
            raise Skip("an answer is an entity of the question")

    def truth(self, sparql: str) -> str:
        """An ``ASK`` query's answer on the store, as the pipeline gives it: ``true`` or ``false``."""
        return "true" if self.store.ask(generate(parse(sparql, "virtuoso"), "full-iri")) else "false"

    def answers(self, sparql: str) -> tuple[str, ...]:
        """The answers ``sparql`` has on the store: entity ids, or literal values."""
        rows = self.store.select(generate(parse(sparql, "virtuoso"), "full-iri")).rows
        found = []
        for row in rows:
            term = next(iter(row.values()), None)
            if term is not None:
                found.append(term.value.removeprefix(FREEBASE_NS) if term.type == "uri" else term.value)
        return tuple(sorted(set(found)))


# -- the run --------------------------------------------------------------------------------------


@dataclass(slots=True)
class PatternReport:
    """What a run made per pattern, what it wanted, and why attempts gave nothing."""

    seed: int = 0
    wanted: dict[str, int] = field(default_factory=dict)
    made: Counter[str] = field(default_factory=Counter)
    attempts: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    unavailable: dict[str, str] = field(default_factory=dict)
    relations: int = 0
    value_relations: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "relations": self.relations,
            "value_relations": self.value_relations,
            "wanted": self.wanted,
            "made": {p: self.made[p] for p in self.wanted},
            "attempts": {p: self.attempts[p] for p in self.wanted},
            "skipped": dict(sorted(self.skipped.items())),
            "unavailable": self.unavailable,
            "seconds": round(self.seconds, 1),
        }

    def lines(self) -> list[str]:
        made = ", ".join(f"{p} {self.made[p]}/{n}" for p, n in self.wanted.items())
        out = [
            f"pattern pairs: {sum(self.made.values())} in {self.seconds:.0f} s "
            f"({self.relations} relations, {self.value_relations} with values; seed {self.seed})",
            f"  made/wanted: {made}",
        ]
        out += [f"  unavailable: {p}: {why}" for p, why in self.unavailable.items()]
        by_pattern: dict[str, list[str]] = {}
        for key, count in sorted(self.skipped.items()):
            pattern, _, reason = key.partition(": ")
            by_pattern.setdefault(pattern, []).append(f"{reason} {count}")
        out += [f"  skipped {p}: " + "; ".join(reasons) for p, reasons in by_pattern.items()]
        return out


def _quotas(total: int, patterns: Sequence[str]) -> dict[str, int]:
    share, extra = divmod(total, len(patterns)) if patterns else (0, 0)
    return {p: share + (1 if i < extra else 0) for i, p in enumerate(patterns)}


def generate_instances(
    store: Any,
    total: int,
    seed: int = 0,
    patterns: Sequence[str] = PATTERNS,
    entries: Iterable[Entry] | None = None,
    graph: PatternGraph | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Instance], PatternReport]:
    """``total`` instances spread evenly over the ``patterns`` the store can ground.

    ``entries``: the statements of a bank built from ``store`` (default: built here);
    ``graph``: a loaded :class:`PatternGraph` (skips reading the store again). Each
    pattern draws from its own generator seeded with ``(seed, pattern)``, so the same
    seed, store and statements give the same instances.
    """
    unknown = [p for p in patterns if p not in PATTERNS]
    if unknown:
        raise PlannerDataError(f"unknown pattern(s) {', '.join(unknown)}; known: {', '.join(PATTERNS)}")
    started = time.perf_counter()
    if graph is None:
        graph = PatternGraph.load(store, entries if entries is not None else store_statements(store), progress)
    report = PatternReport(seed=seed, relations=len(graph.rooted), value_relations=len(graph.values))
    for pattern in patterns:
        why = graph.unavailable(pattern)
        if why is not None:
            report.unavailable[pattern] = why
    report.wanted = _quotas(total, [p for p in patterns if p not in report.unavailable])
    generator = PatternGenerator(graph, store)
    instances: list[Instance] = []
    for pattern, wanted in report.wanted.items():
        rng = random.Random(f"{seed}:{pattern}")
        budget = ATTEMPTS_PER_INSTANCE * wanted + 100
        while report.made[pattern] < wanted and report.attempts[pattern] < budget:
            report.attempts[pattern] += 1
            try:
                instance = generator.make(pattern, report.made[pattern], rng)
            except Skip as skip:
                report.skipped[f"{pattern}: {skip}"] += 1
                continue
            instances.append(instance)
            report.made[pattern] += 1
        if progress:
            progress(f"{pattern}: {report.made[pattern]}/{wanted} in {report.attempts[pattern]} attempts")
    report.seconds = time.perf_counter() - started
    return instances, report
