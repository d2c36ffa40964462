"""Plan -> SPARQL through the memory: recall for every step, then the compiler's reconstruction.

The compiler never imports the memory bank or a model (ARCHITECTURE.md), so this thin
layer joins them: it resolves the plan's mentions (:func:`~nl2sparql.compiler.assemble.
resolve_plan`), searches the bank with each step's sentence in the memory's own form,
hands the scored candidates to :func:`~nl2sparql.compiler.reconstruct.reconstruct` as
plain data, and, when a store is given, runs each attempt so that a query returning
nothing makes way for the next candidates (execution-guided repair).

A time window (``Make sure ?v holds during 2011``) is recalled in a second round: its
sentence names the CVT's type (``Make sure the sports team roster ?e1 holds during
?e2``), which is only known once the ``Find`` that assigned ``?v`` has been recalled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nl2sparql.compiler import generate
from nl2sparql.compiler.assemble import Entities, Recalled, ResolvedPlan, resolve_plan, statement_triples
from nl2sparql.compiler.ast import IRI, XSD_BOOLEAN, XSD_DATETIME, XSD_INTEGER, AskQuery, Query, Var
from nl2sparql.compiler.foreign_ids import kept_without_freebase_ids
from nl2sparql.compiler.lowering import LoweringOptions
from nl2sparql.compiler.lowering import style as lowering_style
from nl2sparql.compiler.lowering.options import XSD_FLOAT, ValueType
from nl2sparql.compiler.reconstruct import (
    DEFAULT_MAX_ATTEMPTS,
    Reconstruction,
    reconstruct,
)
from nl2sparql.memory_bank.bank import MemoryBank, embedding_text
from nl2sparql.memory_bank.describe import words
from nl2sparql.memory_bank.recall import Candidate, Recall, RecallSettings
from nl2sparql.memory_bank.statement import Constraint, Statement
from nl2sparql.plan.reader import check_plan_size, read_plan
from nl2sparql.plan.steps import Answer, Find, MakeSure, Plan, check_plan

FREEBASE_NS = "http://rdf.freebase.com/ns/"

__all__ = [
    "CompileResult",
    "PlanCompiler",
    "freebase_options",
    "freebase_range",
    "freebase_value_type",
    "memory_text",
    "to_recalled",
]

#: Freebase value types -> XSD types (``fb_roles`` ranges)
FREEBASE_VALUE_TYPES: Mapping[str, str] = {
    "type.datetime": XSD_DATETIME,
    "type.int": XSD_INTEGER,
    "type.float": XSD_FLOAT,
}
#: Recall for plan sentences. The sentences are written in the memory's own form
#: (``?e2 is the sibling of the person ?e1``), so similarity alone ranks well and the
#: support prior only breaks ties (FAISS rows are in support order). Measured with oracle
#: plans on WebQSP test part-A, WebQSP-train bank: gold statement at rank 1 for 95.9% of
#: steps with weight 0, 93.9% with 0.005, 92.5% with the bank's default 0.02.
RECALL = RecallSettings(candidates=10, support_weight=0.0)

#: one question's recalls so far, by section and sentence (:meth:`PlanCompiler.recall`)
RecallMemo = dict[tuple[str, str], Recall]


def to_recalled(candidate: Candidate) -> Recalled:
    """A memory candidate as the compiler's plain :class:`Recalled`."""
    entry = candidate.entry
    if isinstance(entry, Statement):
        return Recalled(
            entry.id,
            "graph",
            entry.sparql,
            entry.inputs,
            entry.output,
            entry.description,
            candidate.score,
            support=entry.support,
        )
    assert isinstance(entry, Constraint)
    return Recalled(
        entry.id,
        entry.kind,
        entry.sparql,
        entry.inputs,
        None,
        entry.description,
        candidate.score,
        tuple((c.term, c.label) for c in entry.constants),
        entry.support,
    )


@dataclass(frozen=True, slots=True)
class _Sentence:
    description: str


def memory_text(sentence: str) -> str:
    """A step's sentence (``?e2 is the sibling of the person ?e1``) in the form the bank embeds
    its entries' descriptions (:func:`~nl2sparql.memory_bank.bank.embedding_text`), so that a
    sentence that says what a statement says scores as high as it can."""
    return embedding_text(_Sentence(sentence))  # type: ignore[arg-type]


def _schema(schema: Any | None) -> Any | None:
    if schema is not None:
        return schema
    try:
        from nl2sparql.kg.freebase_schema import load_schema

        return load_schema()
    except Exception:  # noqa: BLE001 - no schema files: literals are typed by their look
        return None


def freebase_value_type(schema: Any | None = None) -> ValueType | None:
    """``predicate IRI -> XSD type`` from the Freebase schema's ranges (``None`` without a schema)."""
    schema = _schema(schema)
    if schema is None:
        return None

    def value_type(predicate: str) -> str | None:
        rng = schema.range(predicate.rsplit("/", 1)[-1])
        return FREEBASE_VALUE_TYPES.get(rng) if rng else None

    return value_type


def freebase_range(schema: Any | None = None) -> Callable[[str], str | None] | None:
    """``predicate IRI -> the Freebase type of its objects`` (``None`` without a schema)."""
    schema = _schema(schema)
    if schema is None:
        return None

    def range_of(predicate: str) -> str | None:
        return schema.range(predicate.rsplit("/", 1)[-1])

    return range_of


def freebase_options(style: str = "webqsp", schema: Any | None = None, **options: Any) -> LoweringOptions:
    """Lowering options for Freebase: a style, and value types and ranges from the schema."""
    schema = _schema(schema)
    return LoweringOptions(
        style=lowering_style(style),
        value_type=freebase_value_type(schema),
        range_of=freebase_range(schema),
        **options,
    )


@dataclass(frozen=True, slots=True)
class CompileResult:
    """What compiling one plan produced: the resolved plan, the recalls and the reconstruction."""

    plan: Plan
    resolved: ResolvedPlan
    recalls: Mapping[int, Recall]
    reconstruction: Reconstruction
    answers: tuple[str, ...] | None = None
    recalled: Mapping[int, tuple[Recalled, ...]] = field(default_factory=dict)

    @property
    def sparql(self) -> str | None:
        return self.reconstruction.sparql

    @property
    def query(self) -> Query | None:
        return self.reconstruction.query

    def to_json(self) -> dict[str, Any]:
        return {
            "sparql": self.reconstruction.sparql,
            "error": self.reconstruction.error,
            "answers": list(self.answers) if self.answers is not None else None,
            "recalled": {str(i + 1): r.to_json() for i, r in self.recalls.items()},
            "attempts": [a.to_json() for a in self.reconstruction.attempts],
        }


class PlanCompiler:
    """Compiles plans against one memory bank (and, optionally, runs them on a store)."""

    def __init__(
        self,
        bank: MemoryBank,
        *,
        options: LoweringOptions | None = None,
        settings: RecallSettings = RECALL,
        dialect: str = "sparql11",
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        value_type: ValueType | None = None,
    ) -> None:
        self.bank = bank
        if options is None:
            # A graph other than Freebase: the plainest SPARQL, no Freebase schema, no answer
            # language filter (its answers are its own IRIs and literals).
            own = bank.meta.namespace != FREEBASE_NS
            options = LoweringOptions(style=lowering_style("plain"), language=None) if own else freebase_options()
            if value_type is not None:
                options = replace(options, value_type=value_type)
        self.options = options
        self.settings = settings
        self.dialect = dialect
        self.max_attempts = max_attempts

    # -- recall ----------------------------------------------------------------------------

    def recall(self, resolved: ResolvedPlan, seen: RecallMemo | None = None) -> dict[int, Recall]:
        """Scored candidates for every ``Find`` and ``Make sure`` step (two rounds, see module doc).

        ``seen``: the recalls of one question's earlier plans, by section and sentence. The
        plans a failed plan is retried with are its beams, which mostly repeat its sentences;
        those are recalled once (at 16 clients, retries had made half of a service's recall)."""
        requests = resolved.recall_requests()
        steps = resolved.plan.steps
        windows = {i for i, _, _ in requests if isinstance(steps[i], MakeSure) and steps[i].op == "holds during"}  # type: ignore[union-attr]
        seen = {} if seen is None else seen
        recalls = self._search([(i, section, text) for i, section, text in requests if i not in windows], seen)
        for index in sorted(windows):
            sentences = self._window_sentences(resolved, index, recalls)
            searched = (self._search([(index, "constraint", text)], seen).get(index) for text in sentences)
            found = [recall for recall in searched if recall is not None]
            if found:  # a bank without constraints (one built from a store) recalls none
                recalls[index] = _merged(found, self.settings.candidates)
        return recalls

    def _search(self, requests: Sequence[tuple[int, str, str]], seen: RecallMemo) -> dict[int, Recall]:
        out: dict[int, Recall] = {}
        for section in ("graph", "constraint"):
            batch = [(i, memory_text(text)) for i, s, text in requests if s == section]
            if not batch or not self.bank.entries(section):
                continue
            new = list(dict.fromkeys(text for _, text in batch if (section, text) not in seen))
            found = self.bank.recall_batch(new, section, self.settings) if new else []
            seen.update({(section, text): recall for text, recall in zip(new, found, strict=True)})
            out.update({i: seen[section, text] for i, text in batch})
        return out

    def _window_sentences(self, resolved: ResolvedPlan, index: int, recalls: Mapping[int, Recall]) -> list[str]:
        """``Make sure the <type> ?e1 holds during ?e2`` for what the window may be on: the CVT
        of the statement that assigned the variable, and the variable itself."""
        step = resolved.plan.steps[index]
        assert isinstance(step, MakeSure)
        owner = next(
            (
                i
                for i, s in enumerate(resolved.plan.steps[:index])
                if isinstance(s, Find) and s.target == step.var and i in recalls and recalls[i].candidates
            ),
            None,
        )
        kinds: list[str] = []
        entry = recalls[owner].candidates[0].entry if owner is not None else None
        if isinstance(entry, Statement):
            output = Var(entry.output[1:])
            for t in statement_triples(entry.sparql):
                if not isinstance(t.predicate, IRI):
                    continue
                local = t.predicate.value.rsplit("/", 1)[-1]
                if t.subject == Var("cvt"):
                    kinds.append(local.rsplit(".", 1)[0])
                elif t.object == output and self.options.range_of is not None:
                    kinds.append(self.options.range_of(t.predicate.value) or "")
                elif t.subject == output:
                    kinds.append(local.rsplit(".", 1)[0])
        sentences = [f"Make sure the {words(kind)} ?e1 holds during ?e2" for kind in dict.fromkeys(kinds) if kind]
        return sentences or ["Make sure ?e1 holds during ?e2"]

    # -- compile ---------------------------------------------------------------------------

    def resolve(self, plan: str | Plan, entities: Mapping[str, str] | None) -> ResolvedPlan:
        """Parse (when text) and check ``plan``, then match its mentions to ``entities``. On a
        graph other than Freebase, checks against Freebase ids are left out first
        (:mod:`~nl2sparql.compiler.foreign_ids`)."""
        lines: Sequence[int] = ()
        if isinstance(plan, str):
            plan, lines, last = read_plan(plan)
            check_plan(plan, lines, last)
        else:
            check_plan_size(steps=len(plan.steps))
            check_plan(plan)
        if self.bank.meta.namespace != FREEBASE_NS:
            kept = kept_without_freebase_ids(plan)
            if len(kept) < len(plan.steps):
                plan = replace(plan, steps=tuple(plan.steps[i] for i in kept))
                lines = [lines[i] for i in kept] if lines else lines
        return resolve_plan(plan, Entities(entities, self.bank.meta.namespace), lines)

    def compile(
        self,
        plan: str | Plan,
        entities: Mapping[str, str] | None,
        *,
        store: Any | None = None,
        timeout: float | None = None,
    ) -> CompileResult:
        """Recall, reconstruct and (with ``store``) run ``plan``; every attempt is in the trace.

        Raises the plan's :class:`~nl2sparql.plan.steps.PlanSyntaxError` /
        :class:`~nl2sparql.plan.steps.PlanError`, an
        :class:`~nl2sparql.compiler.assemble.EntityMatchError` for a mention that names no
        entity, or a :class:`~nl2sparql.compiler.reconstruct.ReconstructionError`.
        """
        resolved = self.resolve(plan, entities)
        return self.compile_resolved(resolved, self.recall(resolved), store=store, timeout=timeout)

    def compile_resolved(
        self,
        resolved: ResolvedPlan,
        recalls: Mapping[int, Recall],
        *,
        store: Any | None = None,
        timeout: float | None = None,
    ) -> CompileResult:
        """Reconstruct a plan already resolved and recalled (:meth:`resolve`, :meth:`recall`)."""
        recalled = {i: tuple(to_recalled(c) for c in r.candidates) for i, r in recalls.items()}
        execute = None
        answer_var = resolved.plan.answer.name if resolved.plan.answer else None
        if store is not None:

            def execute(query: Query) -> Sequence[Any]:
                return run_query(store, query, answer_var, timeout)

        result = reconstruct(
            resolved,
            recalled,
            options=self.options,
            dialect=self.dialect,
            execute=execute,
            max_attempts=self.max_attempts,
        )
        answers = None
        if store is not None and result.rows is not None:
            namespace = self.bank.meta.namespace
            columns = _columns(resolved.plan) or [answer_var]
            answers = tuple(dict.fromkeys(_answer(row, var, namespace) for row in result.rows for var in columns))
        return CompileResult(resolved.plan, resolved, recalls, result, answers, recalled)


def run_query(store: Any, query: Query, answer_var: str | None, timeout: float | None) -> Sequence[Any]:
    """The rows of ``query`` on ``store``; an ``ASK`` answers one row, its ``true`` or ``false``
    under the answer variable, so a yes/no plan answers (no is an answer, not a failure)."""
    text = generate(query, "full-iri")
    if isinstance(query, AskQuery):
        from nl2sparql.kg.terms import Term

        value = "true" if store.ask(text, timeout=timeout) else "false"
        return [{answer_var or "answer": Term.literal(value, XSD_BOOLEAN)}]
    return store.select(text, timeout=timeout).rows  # type: ignore[no-any-return]


def _columns(plan: Plan) -> list[str | None]:
    """The answer's columns (``The answer is ?x and ?v1.``): every one of them is an answer."""
    answer = next((step for step in plan.steps if isinstance(step, Answer)), None)
    return [var.name for var in answer.columns] if answer is not None and not answer.exists else []


def _merged(recalls: Sequence[Recall], limit: int) -> Recall:
    """One recall from several searches for the same step: each entry once, at its best score."""
    best: dict[str, Candidate] = {}
    for recall in recalls:
        for candidate in recall.candidates:
            if candidate.entry.id not in best or candidate.score > best[candidate.entry.id].score:
                best[candidate.entry.id] = candidate
    ranked = sorted(best.values(), key=lambda c: (-c.score, c.rank))[:limit]
    candidates = tuple(replace(c, rank=rank) for rank, c in enumerate(ranked, 1))
    first = recalls[0]
    return Recall(" | ".join(r.sentence for r in recalls), candidates[:1], candidates, first.rule)


def _answer(row: Mapping[str, Any], var: str | None, namespace: str) -> str:
    term = row.get(var) if var else next(iter(row.values()), None)
    if term is None:
        return ""
    value = getattr(term, "value", str(term))
    return value.removeprefix(namespace) if getattr(term, "type", "uri") == "uri" else value
