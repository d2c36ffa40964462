"""Gold-plan synthesis: the plan a gold SPARQL query answers, the inverse of reconstruction.

The planner learns to write plans from examples, and the benchmarks give queries, not
plans. This module writes the plan for a query from the same pieces reconstruction
reads back: the memory bank's decomposition cuts the query into CVT-aware statements
and constraint statements, and each becomes a step in the describer's words:

* a graph statement -> ``Find <its description, inputs filled in>, assign it to ?v.``
  (entities by their name in the question, variables as ``?v``); a statement that ends
  at a constant (``?x ns:people.person.gender ns:m.05zppz``) assigns a new variable
  that a ``Make sure ?v is Male.`` then pins;
* comparisons -> ``Make sure ?v is before 1971.``; WebQSP's ``?x != topic`` ->
  ``Make sure ?x is not Justin Bieber.``; time windows on a CVT -> ``Make sure ?v holds
  during 2015-08-10.`` (on the variable the CVT's statement assigns);
* ``ORDER BY ... LIMIT`` -> ``Rank``; ``COUNT`` -> ``Count``; ``AVG``/``SUM``/``MIN``/``MAX``
  -> ``Compute``; two UNION branches -> their steps and a ``Combine``; then ``The answer
  is ?x.``
* ``FILTER(CONTAINS(LCASE(STR(?x)), "word"))`` (or ``REGEX(?x, "word", "i")``) -> ``Make
  sure ?x contains "word".``;
* the analytic shapes (:class:`_Shape`): several projected variables -> ``The answer is ?x
  and ?v1.``; ``GROUP BY ?g`` -> ``Count ?v for each ?g, ...`` and its ``HAVING`` ->
  ``Make sure ?n is greater than 3.``; ``OPTIONAL { one statement }`` -> ``Find ..., assign
  it to ?v if any.``; ``FILTER NOT EXISTS { one statement }`` (or ``MINUS``) -> ``Make sure
  nothing is the nickname of ?x.``; ``LIMIT 2 OFFSET 2`` -> ``keep results 3 to 4``;
  ``BIND(?a - ?b AS ?d)`` or ``((MAX(?y) - MIN(?y)) AS ?d)`` -> ``Compute ?a minus ?b, ...``;
* ``ASK`` -> ``The answer is whether ?x exists.`` (a query with no variable: its last
  triple's object becomes ``?x`` and a ``Make sure ?x is ...``); two counts compared
  (``ASK { {SELECT (COUNT(?a) AS ?n1) ...} {SELECT (COUNT(?b) AS ?n2) ...} FILTER(?n1 >
  ?n2) }``) -> both counts and ``Make sure ?n1 is greater than ?n2.``

Any graph, not only Freebase: entity ids are IRIs of the graph's own namespaces (full, or
short with a bank's prefixes), and :meth:`PlanSynthesiser.for_bank` describes the
statements in a bank's words and cuts them at its CVTs. A query whose entities are not
given (QALD files name none) is read with the entities it names, each called by the words
of its IRI's local name, as the entity linker calls unlabelled entities.

The first line, ``Type:``, comes from the query's shape (:func:`plan_type`). Every plan
is checked before it is returned: it must format, parse back to itself and name the
inputs it meant once the reconstruction's entity matcher reads it, so the oracle
planner and the training data never hold a plan that reconstruction misreads.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nl2sparql.compiler import SparqlSyntaxError, parse
from nl2sparql.compiler import ast as q
from nl2sparql.compiler.assemble import Entities, compact_term, resolve_plan
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.local_names import VOCABULARIES, local_name_words
from nl2sparql.memory_bank.build_queries import QueryDecomposer, example_topics
from nl2sparql.memory_bank.decompose import Decomposition, Occurrence, decompose
from nl2sparql.memory_bank.from_ast import graph_from_query, labels_from_comments, term_text
from nl2sparql.memory_bank.query_graph import is_var
from nl2sparql.memory_bank.statement import CVT_SLOT, Constraint, Entry, Statement
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.refs import split_find
from nl2sparql.plan.steps import (
    YES_NO,
    Absent,
    Answer,
    Calculate,
    Combine,
    Compute,
    Count,
    Find,
    Literal,
    MakeSure,
    Mention,
    Plan,
    PlanError,
    Rank,
    Ref,
    Step,
    Var,
)
from nl2sparql.plan.writer import format_plan

__all__ = ["PlanSynthesiser", "Synthesis", "SynthesisError", "plan_type", "query_entities"]

ANSWER = "x"
FREEBASE = "http://rdf.freebase.com/ns/"
_SLOT = re.compile(r"\?e[1-9][0-9]*\b")
_COMPARISON_WORDS = {"<": "less than", ">": "greater than", "<=": "at most", ">=": "at least"}
_DATE_WORDS = {"<": "before", ">": "after"}
#: SPARQL aggregates -> ``Compute`` functions
_FUNCTIONS = {"AVG": "average", "SUM": "sum", "MIN": "minimum", "MAX": "maximum"}
_PLAIN_WORDS = re.compile(r"[\w' -]+")
_WINDOW = re.compile(r"FILTER\(xsd:dateTime\(\?\w+\) (?P<op>[<>]=?) \?e2\)")


class SynthesisError(Nl2SparqlError):
    """A query whose plan cannot be written (a construct the plan language has no step for)."""


@dataclass(frozen=True, slots=True)
class Synthesis:
    """A synthesised plan, its canonical text, and the memory entry behind each step.

    ``entries[i]`` is the graph statement (for a ``Find``) or constraint statement (for a
    ``Make sure``) the step stands for: what recall should find for it.
    """

    plan: Plan
    text: str
    entries: Mapping[int, Entry] = field(default_factory=dict)
    language_filter: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "plan": self.text.splitlines(),
            "entries": {str(i + 1): e.id for i, e in self.entries.items()},
            "language_filter": self.language_filter,
        }


def plan_type(steps: Sequence[Step]) -> str:
    """The question type a plan's steps show.

    ``yes-no`` (the answer is whether a value exists), ``count``, ``aggregation`` (a
    ``Compute``), ``superlative``, ``comparative``, ``union``, ``conjunction`` (a variable
    two ``Find`` steps assign), ``composition`` (a chain) or ``simple`` (one ``Find``).
    """
    if any(isinstance(s, Answer) and s.exists for s in steps):
        return YES_NO
    if any(isinstance(s, Count) for s in steps):
        return "count"
    if any(isinstance(s, Compute) for s in steps):
        return "aggregation"
    if any(isinstance(s, Rank) for s in steps):
        return "superlative"
    if any(isinstance(s, MakeSure) and s.op not in ("is", "holds during", "contains") for s in steps):
        return "comparative"
    if any(isinstance(s, Combine) for s in steps):
        return "union"
    targets = [s.target for s in steps if isinstance(s, Find)]
    if len(targets) != len(set(targets)):
        return "conjunction"
    return "composition" if len(targets) > 1 else "simple"


class PlanSynthesiser:
    """Writes gold plans with one decomposer (schema, CVT judge, describer) for a whole corpus.

    ``namespace`` and ``prefixes`` are the KG's (a bank's ``meta``): short entity ids are
    read in them (``data:JohnLennon``, or ``JohnLennon`` in ``namespace``); Freebase's by default.
    """

    def __init__(
        self,
        decomposer: QueryDecomposer | None = None,
        namespace: str = FREEBASE,
        prefixes: Mapping[str, str] | None = None,
    ) -> None:
        self.decomposer = decomposer or QueryDecomposer()
        self.namespace = namespace
        self.prefixes = dict(prefixes or {})

    @classmethod
    def for_bank(cls, bank: Any) -> PlanSynthesiser:
        """Plans in ``bank``'s words: its descriptions, its CVTs, its namespaces. A Freebase
        bank gets the Freebase decomposer (schema, templates), as before."""
        if bank.meta.namespace == FREEBASE:
            return cls(prefixes=bank.meta.prefixes)
        from nl2sparql.kg.graph_schema import GraphSchema
        from nl2sparql.memory_bank.cvt import SignatureJudge
        from nl2sparql.memory_bank.describe_bank import BankDescriber
        from nl2sparql.memory_bank.describe_graph import GraphDescriber

        judge = SignatureJudge.from_statements(bank.entries("graph"))
        describer = BankDescriber(bank, GraphDescriber(GraphSchema()))
        decomposer = QueryDecomposer(judge=judge, describer=describer)
        return cls(decomposer, namespace=bank.meta.namespace, prefixes=bank.meta.prefixes)

    def compact(self, entity_id: str) -> str:
        """An entity id in the decomposer's compact form: ``ns:m.0abc`` or ``<http://...>``."""
        text = entity_id.strip()
        if text.startswith("<") and text.endswith(">"):
            text = text[1:-1]
        if text.startswith(("http://", "https://")):
            return term_text(q.IRI(text))
        prefix, colon, local = text.partition(":")
        if colon and prefix != "ns" and prefix in self.prefixes:
            return term_text(q.IRI(self.prefixes[prefix] + local))
        if self.namespace and self.namespace != FREEBASE:
            return term_text(q.IRI(self.namespace + text))
        return text if text.startswith("ns:") else f"ns:{text}"

    def synthesise_example(self, example: Any) -> Synthesis:
        """The plan of a dataset example (:class:`~nl2sparql.kg.datasets.Example`)."""
        if not getattr(example, "gold_sparql", None):
            raise SynthesisError(f"{example.id}: no gold SPARQL")
        return self.synthesise(example.gold_sparql, example.entities, example_topics(example))

    def synthesise(
        self, sparql: str, entities: Mapping[str, str] | None, topics: Iterable[str] | None = None
    ) -> Synthesis:
        """The plan of ``sparql`` (Virtuoso dialect, as WebQSP / CWQ write it).

        ``entities``: the question's ``{id: name}``; ``topics``: the ids the query starts
        from (default: the entity the WebQSP boiler-plate ``?x != ns:m...`` names, else all).
        """
        try:
            query = parse(sparql, "virtuoso")
        except SparqlSyntaxError as exc:
            raise SynthesisError(f"gold query does not parse: {exc}") from None
        if not isinstance(query, q.SelectQuery | q.AskQuery):
            raise SynthesisError(f"a {type(query).__name__} has no plan; only SELECT and ASK queries do")
        if not entities:
            entities, named_topics = query_entities(query)
            topics = named_topics if topics is None and entities else topics
        ids = {self.compact(k): v for k, v in entities.items()}
        table = {_iri_of(k): v for k, v in ids.items()}
        labels = {**labels_from_comments(sparql), **{k: v for k, v in ids.items() if v}}
        topic_list = None if topics is None else [self.compact(t) for t in topics]
        writer = _Writer(self.decomposer, query, table, labels, topic_list)
        writer.own_graph = self.namespace != FREEBASE
        return writer.write()


# -- the writer ---------------------------------------------------------------------------------


class _Writer:
    def __init__(
        self,
        decomposer: QueryDecomposer,
        query: q.SelectQuery | q.AskQuery,
        entities: Mapping[str, str],
        labels: Mapping[str, str],
        topics: list[str] | None,
    ) -> None:
        self.decomposer = decomposer
        self.exists = isinstance(query, q.AskQuery)
        self.compared = _compared_aggregates(query) if self.exists else None
        self.query: q.SelectQuery = _as_select(query) if self.exists and self.compared is None else query  # type: ignore[assignment]
        self.table = Entities(entities)
        self.labels = labels
        self.topics = topics
        self.steps: list[Step] = []
        self.entries: dict[int, Entry] = {}
        self.names: dict[str, str] = {}  # query term -> plan variable name
        self.assigned: set[str] = set()  # query variables a step has assigned
        self.counter = 0
        self._window_entries: dict[str, Entry] = {}
        self.placeholders: dict[str, str] = {}  # constant standing for a union's variable -> the variable
        self._extra_topics: list[str] = []
        self.graph_topics: frozenset[str] = frozenset(topics if topics is not None else _entity_ids(self.table))
        self.unions = [n for n in self.query.where.walk() if isinstance(n, q.Union)]
        self.texts: list[tuple[str, str, bool]] = []
        self.own_graph = False  # a graph other than Freebase: every constant needs a name
        self.optional_vars: dict[str, int] = {}  # query variable only an OPTIONAL binds -> its group

    # -- variables and refs ---------------------------------------------------------------------

    def var_for(self, term: str) -> str:
        if term not in self.names:
            self.counter += 1
            self.names[term] = f"v{self.counter}"
        return self.names[term]

    def mention(self, term: str) -> Ref:
        """How the plan names a constant: the question's name for it, a label, or its id."""
        try:
            node = compact_term(term)
        except Nl2SparqlError as exc:
            raise SynthesisError(f"constant {term} cannot be read: {exc}") from None
        if isinstance(node, q.Literal):
            return _plan_literal(node)
        if not isinstance(node, q.IRI):
            raise SynthesisError(f"{term} is not a constant")
        name = self.labels.get(term)
        if name and self.table.match(name) == node:
            return Mention(name)
        if self.own_graph:  # no Freebase id to fall back on: reconstruction could not read it
            raise SynthesisError(f"{term} names none of the question's entities ({', '.join(self.table.known())})")
        return Mention(term.removeprefix("ns:"))

    def ref(self, term: str) -> Ref:
        if term in self.placeholders:
            return Var(self.names[self.placeholders[term]])
        if is_var(term):
            if term not in self.assigned:
                raise SynthesisError(f"{term} is used before a statement assigns it")
            return Var(self.names[term])
        return self.mention(term)

    # -- the plan -------------------------------------------------------------------------------

    def write(self) -> Synthesis:
        if self.compared is not None:
            self._write_compared(*self.compared)
        else:
            self._write_select()
        return self._finish()

    def _write_select(self) -> None:
        shape = _analytic_shape(self.query)
        if shape is not None:
            self._write_analytic(shape)
            return
        projection = self.query.projection or ()
        if len(projection) != 1:
            raise SynthesisError(f"the query projects {len(projection)} terms; a plan has one answer")
        item = projection[0]
        self.query = self._take_text_filters(self.query)
        _refuse_unsupported(self.query.where)
        answer_term, function = self._answer_term(item)
        self.names[answer_term] = ANSWER
        rest = self.query
        if function not in (None, "count"):
            rest = rest.replace(projection=(q.Var(answer_term[1:]),))
        if self.unions:
            rest = self._union(answer_term)
        d = self._decompose(rest, self._extra_topics) if any(rest.where.find_all(q.TriplePattern)) else None
        if d is not None:
            self._graph(d, answer_term)
        elif answer_term not in self.assigned:
            raise SynthesisError(f"no statement assigns the answer {answer_term}")
        self._answer_filters()
        self._text_steps()
        for occ in d.constraints if d is not None else ():
            if isinstance(occ.entry, Constraint) and occ.entry.kind == "order":
                self._rank(occ)
        if function is not None:
            target = "n" if "n" not in self.names.values() else f"n{self.counter}"
            self.steps.append(_aggregate_step(function, Var(ANSWER), Var(target)))
            self.steps.append(Answer(Var(target), self.exists))
        else:
            self.steps.append(Answer(Var(ANSWER), self.exists))

    # -- the analytic shapes ----------------------------------------------------------------

    def _write_analytic(self, shape: _Shape) -> None:
        """Steps for a query with several columns, groups, optional values, absences, an
        offset or arithmetic (:class:`_Shape`): its graph part first, then what is computed
        from it, then the ranking and the answer columns."""
        self.query = self._take_text_filters(shape.graph)
        _refuse_unsupported(self.query.where)
        self.names[shape.columns[0]] = ANSWER
        self.optional_vars = dict(shape.optional_vars)
        needed = shape.needed()
        d = self._decompose(self.query.replace(projection=tuple(q.Var(v[1:]) for v in needed)))
        self._graph(d, needed[0])
        missing = [v for v in needed if v not in self.assigned]
        if missing:
            raise SynthesisError(f"no statement assigns {', '.join(missing)}")
        self._check_optionals(shape)
        self._answer_filters()
        self._text_steps()
        for group in shape.absent:
            self._absent(group)
        for var, (op, a, b) in shape.binds.items():
            self._calculate(op, a, b, var)
        self._aggregate_steps(shape)
        if shape.order is not None:
            self._analytic_rank(shape)
        columns = [Var(self.names[c]) for c in shape.columns]
        self.steps.append(Answer(columns[0], self.exists, tuple(columns[1:])))

    def _check_optionals(self, shape: _Shape) -> None:
        """One ``Find`` for each ``OPTIONAL``: a longer optional chain has no plan step."""
        counts: dict[int, int] = {}
        for step in self.steps:
            if isinstance(step, Find) and step.optional:
                term = next(t for t, name in self.names.items() if name == step.target.name)
                counts[shape.optional_vars[term]] = counts.get(shape.optional_vars[term], 0) + 1
        if any(n != 1 for n in counts.values()) or len(counts) != len(set(shape.optional_vars.values())):
            raise SynthesisError("an OPTIONAL has a plan step only when it holds one statement")

    def _absent(self, group: q.GroupPattern) -> None:
        """``Make sure nothing is <description>.`` for a ``NOT EXISTS`` / ``MINUS`` of one statement
        read from the plan's variables."""
        inside = {f"?{n.name}" for n in group.walk() if isinstance(n, q.Var)}
        outer = sorted(inside & self.assigned)
        if not outer or any(not isinstance(p, q.BGP) for p in group.patterns):
            raise SynthesisError("a NOT EXISTS / MINUS has a plan step only for triples about a plan variable")
        swap = {v[1:]: q.IRI(f"{FREEBASE}absent.{v[1:]}") for v in outer}
        for v in outer:
            self.placeholders[f"ns:absent.{v[1:]}"] = v
        local = sorted(inside - set(outer))
        where = group.transform(lambda n: swap.get(n.name, n) if isinstance(n, q.Var) else n)
        sub = q.SelectQuery(projection=tuple(q.Var(v[1:]) for v in local), where=where)  # type: ignore[arg-type]
        graph = graph_from_query(sub, [f"ns:absent.{v[1:]}" for v in outer], self.labels)
        d = decompose(graph, self.decomposer.judge, self.decomposer.describe)
        statements = [o for o in d.statements if isinstance(o.entry, Statement)]
        if d.problems or d.constraints or len(statements) != 1:
            raise SynthesisError("a NOT EXISTS / MINUS has a plan step only when it holds one statement")
        occ = statements[0]
        entry = occ.entry
        assert isinstance(entry, Statement)
        if occ.binding(entry.output or "") not in local:
            raise SynthesisError("a NOT EXISTS / MINUS whose statement ends at a constant has no plan step")
        inputs = [self.ref(occ.binding(slot) or "") for slot in entry.inputs]
        find = self._find_step(entry, inputs, Var("none"))
        self.entries[len(self.steps)] = entry
        self.steps.append(Absent(find.description, find.refs))

    def _calculate(self, op: str, a: str, b: str, target: str) -> None:
        for term in (a, b):
            if term not in self.assigned:
                raise SynthesisError(f"arithmetic on {term}, which no step assigns")
        self.steps.append(Calculate(op, Var(self.names[a]), Var(self.names[b]), Var(self.var_for(target))))
        self.assigned.add(target)

    def _aggregate_steps(self, shape: _Shape) -> None:
        """``Count``/``Compute`` per group for every aggregate, the ``HAVING`` tests on them, then
        the arithmetic of the projection on their results."""
        per = tuple(Var(self.names[g]) for g in shape.groups if g in self.assigned)
        if len(per) != len(shape.groups):
            raise SynthesisError("GROUP BY a variable no statement assigns")
        for target, (function, var) in shape.aggregates.items():
            if var not in self.assigned:
                raise SynthesisError(f"an aggregate of {var}, which no statement assigns")
            step = _aggregate_step(function, Var(self.names[var]), Var(self.var_for(target)))
            self.steps.append(replace(step, per=per))
            self.assigned.add(target)
        for target, word, value, negated in shape.having:
            self.steps.append(MakeSure(Var(self.names[target]), word, _reread_value(value, word), negated))
        for var, (op, a, b) in shape.computed.items():
            self._calculate(op, a, b, var)

    def _analytic_rank(self, shape: _Shape) -> None:
        assert shape.order is not None
        key_term, descending = shape.order
        if key_term not in self.assigned:
            raise SynthesisError(f"ORDER BY {key_term}: not a plan variable")
        if shape.limit is None:
            raise SynthesisError("ORDER BY without LIMIT has no plan step")
        key = Var(self.names[key_term])
        first = Var(self.names[shape.columns[0]])
        ranked = None if key == first else first
        self.steps.append(Rank(ranked, key, descending, shape.limit, shape.offset))

    def _write_compared(self, subs: Sequence[q.SelectQuery], op: str, left: str, right: str) -> None:
        """Each sub-select's steps and its count (or computation), then the comparison of the two
        (or of the one with a constant: ``FILTER(?avg > 40)``)."""
        for number, sub in enumerate(subs, 1):
            item = (sub.projection or (None,))[0]
            if not isinstance(item, q.Alias):
                raise SynthesisError("a compared sub-select must project one aggregate (COUNT(?v) AS ?n)")
            sub = _suffixed(sub, {item.var.name}, f"_s{number}")
            answer_term, function = self._answer_term(sub.projection[0])  # type: ignore[index,arg-type]
            _refuse_unsupported(sub.where)
            self.var_for(answer_term)
            plain = sub.replace(projection=(q.Var(answer_term[1:]),))
            self._graph(self._decompose(plain), answer_term)
            target = term_text(item.var)
            counted = Var(self.names[answer_term])
            self.steps.append(_aggregate_step(function or "count", counted, Var(self.var_for(target))))
            self.assigned.add(target)
        word = {"=": "is", "!=": "is"}.get(op) or _COMPARISON_WORDS.get(op)
        if word is None or left not in self.assigned or (is_var(right) and right not in self.assigned):
            raise SynthesisError(f"FILTER({left} {op} {right}) compares nothing the sub-selects compute")
        a, b = Var(self.names[left]), self.ref(right)
        if isinstance(b, Literal):
            b = _reread_value(b, word)
        self.steps.append(MakeSure(a, word, b, negated=op == "!="))
        self.steps.append(Answer(a, exists=True))

    def _finish(self) -> Synthesis:
        plan = Plan(plan_type(self.steps), tuple(self.steps))
        try:
            text = format_plan(plan, check=True)
            if parse_plan(text) != plan:
                raise SynthesisError("the plan does not read back as itself")
        except PlanError as exc:
            raise SynthesisError(f"the plan cannot be written: {exc}") from None
        has_language = any(isinstance(p, q.Filter) and _is_language_filter(p.expr) for p in self.query.where.patterns)
        return Synthesis(plan, text, dict(self.entries), has_language)

    def _decompose(self, query: q.SelectQuery, extra_topics: Sequence[str] = ()) -> Decomposition:
        topics = [*(self.topics or ()), *extra_topics]
        graph = graph_from_query(query, topics, self.labels)
        if self.topics is None and not (graph.topics - set(extra_topics)):
            entities = [k for k in self.labels if k in _entity_ids(self.table)]
            graph = graph_from_query(query, [*entities, *extra_topics], self.labels)
        self.graph_topics = graph.topics - set(extra_topics)
        d = decompose(graph, self.decomposer.judge, self.decomposer.describe)
        problems = [p for p in d.problems if not p.startswith("FILTER") or "!=" not in p]
        if problems:
            raise SynthesisError("; ".join(problems))
        return d

    def _answer_term(self, item: q.Var | q.Alias) -> tuple[str, str | None]:
        """The answer's query term and what is computed of it (``count``, ``average``, ...; ``None``)."""
        if isinstance(item, q.Var):
            return term_text(item), None
        agg = item.expr
        if isinstance(agg, q.Aggregate) and isinstance(agg.expr, q.Var):
            if agg.name == "COUNT":
                return term_text(agg.expr), "count"
            if agg.name in _FUNCTIONS:
                return term_text(agg.expr), _FUNCTIONS[agg.name]
        raise SynthesisError(f"projection {item} has no plan step")

    # -- text matches ---------------------------------------------------------------------------

    def _take_text_filters(self, query: q.SelectQuery) -> q.SelectQuery:
        """The query without its top-level text filters, which :meth:`_text_steps` writes as steps."""
        kept = []
        for element in query.where.patterns:
            found = _text_match(element.expr) if isinstance(element, q.Filter) else None
            if found is None:
                kept.append(element)
            else:
                self.texts.append(found)
        return query.replace(where=q.GroupPattern(tuple(kept))) if self.texts else query

    def _text_steps(self) -> None:
        for term, word, negated in self.texts:
            if term not in self.assigned:
                raise SynthesisError(f"a text filter on {term}, which no statement assigns")
            self.steps.append(MakeSure(Var(self.names[term]), "contains", Literal(word, "string"), negated))

    def _graph(self, d: Decomposition, answer: str) -> None:
        if self.query.group_by or self.query.having:
            raise SynthesisError("GROUP BY / HAVING have no plan step")
        pending = [o for o in d.statements if isinstance(o.entry, Statement)]
        constraints = [o for o in d.constraints if o.entry.kind in ("equals", "comparison", "time_window")]
        constraints = [o for o in constraints if not self._sink_equals(o)]
        cvt_owner: dict[str, str] = {}
        windows = self._windows(constraints)
        while pending:
            ready = next((o for o in pending if self._ready(o)), None)
            if ready is None:
                raise SynthesisError("the statements cannot be ordered from the topic entities")
            pending.remove(ready)
            self._find(ready, cvt_owner)
            self._flush_constraints(constraints, windows, cvt_owner)
        if constraints or windows:
            left = [o.entry.sparql for o in constraints] + [f"time window on {k}" for k in windows]
            raise SynthesisError(f"constraints on nothing the plan assigns: {left}")
        if answer not in self.assigned:
            raise SynthesisError(f"no statement assigns the answer {answer}")

    def _ready(self, occ: Occurrence) -> bool:
        entry = occ.entry
        assert isinstance(entry, Statement)
        for slot in entry.inputs:
            term = occ.binding(slot)
            if term is None or (is_var(term) and term not in self.assigned):
                return False
        return True

    def _find(self, occ: Occurrence, cvt_owner: dict[str, str]) -> None:
        entry = occ.entry
        assert isinstance(entry, Statement)
        out_term = occ.binding(entry.output) or ""
        if out_term in self.placeholders:
            raise SynthesisError("a statement outside a UNION reaches the union's variable")
        constant = not is_var(out_term)
        target = self.var_for(f"{out_term}@{len(self.steps)}" if constant else out_term)
        self.assigned.add(out_term if not constant else f"{out_term}@{len(self.steps)}")
        inputs = [self.ref(occ.binding(slot) or "") for slot in entry.inputs]
        find = self._find_step(entry, inputs, Var(target))
        if out_term in self.optional_vars:
            find = Find(find.description, find.refs, find.target, optional=True)
        self.entries[len(self.steps)] = entry
        self.steps.append(find)
        cvt = occ.binding(CVT_SLOT)
        if cvt is not None:
            cvt_owner.setdefault(cvt, target)
        if constant:
            value = self.mention(out_term)
            self.steps.append(MakeSure(Var(target), "is", value))

    def _find_step(self, entry: Statement, inputs: Sequence[Ref], target: Var) -> Find:
        """The ``Find`` for ``entry``: its description with the inputs written in, if that reads
        back to the same inputs; else the description without slots and the inputs after ``of``."""
        prefix = f"{entry.output} is "
        if not entry.description.startswith(prefix):
            raise SynthesisError(f"description of {entry.id} does not start with {prefix!r}: {entry.description!r}")
        body = entry.description[len(prefix) :]
        order = [s for s in dict.fromkeys(_SLOT.findall(body)) if s in entry.inputs]
        if sorted(order) != sorted(entry.inputs):
            raise SynthesisError(f"description of {entry.id} does not name its inputs: {entry.description!r}")
        by_slot = dict(zip(entry.inputs, inputs, strict=True))
        wanted = [by_slot[s] for s in order]
        natural = _SLOT.sub(lambda m: _ref_words(by_slot[m.group()]), body)
        description, refs = split_find(" ".join(natural.split()))
        candidates = [Find(description, refs, target)]
        bare = " ".join(_SLOT.sub(" ", body).split())
        bare = re.sub(r"\s+(of|with|by|and)$", "", bare)
        candidates.append(Find(bare, tuple(wanted), target))
        expected = tuple(self._term(ref) for ref in wanted)
        for find in candidates:
            if "{" in find.description or "}" in find.description:
                continue
            try:
                reread = _reread(format_plan(Plan(None, (find,))))
                resolved = resolve_plan(Plan(None, (reread,)), self.table)
            except Nl2SparqlError:
                continue
            if reread == find and resolved.finds[0].inputs == expected:
                return find
        raise SynthesisError(f"no Find sentence for {entry.id} reads back with its inputs: {natural!r}")

    def _term(self, ref: Ref) -> q.Node:
        if isinstance(ref, Var):
            return q.Var(ref.name)
        if isinstance(ref, Literal):
            return q.Literal(ref.value)
        match = self.table.match(ref.text)
        if match is None:
            raise SynthesisError(f"{ref.text!r} names no entity of the question")
        return match

    # -- constraints ---------------------------------------------------------------------------

    def _sink_equals(self, occ: Occurrence) -> bool:
        """``equals`` constraints on a constant a statement ends at: written with that ``Find``."""
        if occ.entry.kind != "equals":
            return False
        bound = occ.binding("?e1")
        return bound is not None and not is_var(bound)

    def _windows(self, constraints: list[Occurrence]) -> dict[str, list[tuple[str, str]]]:
        """Time windows by node: ``[(op, date), ...]`` (``<=`` bounds the start, ``>=`` the end)."""
        out: dict[str, list[tuple[str, str]]] = {}
        for occ in [o for o in constraints if o.entry.kind == "time_window"]:
            constraints.remove(occ)
            node, date = occ.binding("?e1") or "", occ.binding("?e2") or ""
            for m in _WINDOW.finditer(occ.entry.sparql):
                out.setdefault(node, []).append((m["op"], date))
            self._window_entries.setdefault(node, occ.entry)
        return out

    def _flush_constraints(
        self,
        constraints: list[Occurrence],
        windows: dict[str, list[tuple[str, str]]],
        cvt_owner: Mapping[str, str],
    ) -> None:
        for occ in list(constraints):
            terms = [occ.binding(s) or "" for s in occ.entry.inputs]
            if all(not is_var(t) or t in self.assigned for t in terms):
                constraints.remove(occ)
                self._constraint(occ)
        for node in list(windows):
            owner = cvt_owner.get(node) or (self.names[node] if node in self.assigned else None)
            if owner is None:
                continue
            for value in _window_values(windows.pop(node)):
                self.entries[len(self.steps)] = self._window_entries[node]
                self.steps.append(MakeSure(Var(owner), "holds during", value))

    def _constraint(self, occ: Occurrence) -> None:
        entry = occ.entry
        var_term = occ.binding("?e1") or ""
        if var_term in self.optional_vars:
            raise SynthesisError(f"a test inside an OPTIONAL (on {var_term}) has no plan step")
        if not is_var(var_term) or var_term not in self.assigned:
            raise SynthesisError(f"constraint {entry.sparql} is not on a plan variable")
        var = Var(self.names[var_term])
        if entry.kind == "equals":
            assert isinstance(entry, Constraint)
            term = entry.constants[0].term if entry.constants else ""
            value = self.mention(term)
            if isinstance(value, Literal) and "str(" in entry.sparql.lower():
                value = Literal(value.value, "string")
            self.entries[len(self.steps)] = entry
            self.steps.append(MakeSure(var, "is", value))
            return
        op = entry.sparql.split()[1]
        value_term = occ.binding("?e2") or ""
        value = self.ref(value_term)
        dated = "xsd:dateTime" in entry.sparql or "dateTime" in value_term
        if op in ("=", "!="):
            if isinstance(value, Literal) and value.kind != "string" and not is_var(value_term):
                value = _plan_literal(compact_term(value_term))
            self.entries[len(self.steps)] = entry
            self.steps.append(MakeSure(var, "is", value, negated=op == "!="))
            return
        word = (_DATE_WORDS.get(op) if dated else None) or _COMPARISON_WORDS.get(op)
        if word is None:
            raise SynthesisError(f"comparison {op} has no plan words")
        if isinstance(value, Literal):
            value = _reread_value(value, word)
        self.entries[len(self.steps)] = entry
        self.steps.append(MakeSure(var, word, value))

    def _answer_filters(self) -> None:
        """``?x != ns:topic`` / ``?x != ?c``: dropped by the decomposition, kept in the plan."""
        topics = set(self.graph_topics)
        for element in self.query.where.patterns:
            if not isinstance(element, q.Filter):
                continue
            expr = element.expr
            if not (isinstance(expr, q.BinaryOp) and expr.op == "!="):
                continue
            left, right = term_text(expr.left), term_text(expr.right)
            if not is_var(left):
                left, right = right, left
            if not is_var(left) or not (right in topics or is_var(right)):
                continue
            if left not in self.assigned or (is_var(right) and right not in self.assigned):
                raise SynthesisError(f"FILTER({left} != {right}) is on a variable the plan does not assign")
            self.steps.append(MakeSure(Var(self.names[left]), "is", self.ref(right), negated=True))

    def _rank(self, occ: Occurrence) -> None:
        key_term = occ.binding("?e1") or ""
        if key_term not in self.assigned:
            raise SynthesisError(f"ORDER BY {key_term}: not a plan variable")
        text = occ.entry.sparql
        if "OFFSET" in text:
            raise SynthesisError("ORDER BY ... OFFSET has no plan step")
        limit = re.search(r"LIMIT (\d+)", text)
        if limit is None:
            raise SynthesisError("ORDER BY without LIMIT has no plan step")
        key = Var(self.names[key_term])
        ranked = None if key.name == ANSWER else Var(ANSWER)
        self.entries[len(self.steps)] = occ.entry
        self.steps.append(Rank(ranked, key, "DESC(" in text, int(limit.group(1))))

    def _union(self, answer: str) -> q.SelectQuery:
        """Steps for each branch of the query's UNION, a ``Combine``, and the query without it.

        The rest of the query is returned with the union's variable replaced by a constant
        that counts as a topic, so its statements read from the union's result.
        """
        if len(self.unions) != 1:
            raise SynthesisError("more than one UNION")
        union = self.unions[0]
        elements = [p for p in self.query.where.patterns if not _holds(p, union)]
        if len(elements) == len(self.query.where.patterns):
            raise SynthesisError("a UNION below the top level of the query")
        outside = q.SelectQuery(
            projection=self.query.projection,
            where=q.GroupPattern(tuple(elements)),
            order_by=self.query.order_by,
            limit=self.query.limit,
            offset=self.query.offset,
        )
        inside = {n.name for n in union.walk() if isinstance(n, q.Var)}
        shared = inside & {n.name for n in outside.walk() if isinstance(n, q.Var)}
        if len(shared) != 1:
            raise SynthesisError(f"a UNION sharing {len(shared)} variables with the rest of the query")
        var = f"?{shared.pop()}"
        sides = []
        for number, branch in enumerate(union.patterns, 1):
            local = {name: q.Var(f"{name}_u{number}") for name in inside if f"?{name}" != var}
            renamed = branch.transform(lambda n, m=local: m.get(n.name, n) if isinstance(n, q.Var) else n)
            target = self.var_for(f"{var}@branch{number}")
            self.names[var], saved = target, self.names.get(var)
            sub = q.SelectQuery(projection=(q.Var(var[1:]),), where=renamed)  # type: ignore[arg-type]
            self._graph(self._decompose(sub), var)
            self.assigned.discard(var)
            if saved is not None:
                self.names[var] = saved
            else:
                del self.names[var]
            sides.append(target)
        if len(sides) != 2:
            raise SynthesisError(f"a UNION of {len(sides)} branches (Combine joins two)")
        combined = self.names.get(var) or self.var_for(var)
        self.steps.append(Combine(Var(sides[0]), Var(sides[1]), Var(combined)))
        self.assigned.add(var)
        placeholder = f"ns:union.{var[1:]}"
        self.placeholders[placeholder] = var
        swap = {var[1:]: q.IRI(FREEBASE + placeholder[3:])}
        rest = outside.where.transform(lambda n: swap.get(n.name, n) if isinstance(n, q.Var) else n)
        self._extra_topics = [placeholder]
        self.topics = []  # the rest reads from the union's result; its other constants are values
        return outside.replace(where=rest)


_REFUSED = (q.SubSelect, q.Optional, q.Minus, q.Bind, q.Values, q.Service, q.Graph)


def _refuse_unsupported(where: q.GroupPattern) -> None:
    """Parts a plan has no step for (the decomposition would flatten them and change the meaning)."""
    for node in where.walk():
        if isinstance(node, _REFUSED):
            raise SynthesisError(f"{type(node).__name__} has no plan step")


@dataclass(slots=True)
class _Shape:
    """What a query asks beyond one plain answer, taken apart for :meth:`_Writer._write_analytic`.

    ``graph``: the query with only its graph part (triples, filters) left; ``columns``: the
    projected variables; ``aggregates``: alias -> (function, aggregated variable);
    ``computed``: alias -> arithmetic on aliases or variables; ``binds``: ``BIND``
    arithmetic; ``having``: (alias, comparison word, value, negated); ``optional_vars``:
    variable only an ``OPTIONAL`` binds -> that group's number.
    """

    graph: q.SelectQuery
    columns: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    aggregates: dict[str, tuple[str, str]] = field(default_factory=dict)
    computed: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    binds: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    having: list[tuple[str, str, Literal, bool]] = field(default_factory=list)
    absent: list[q.GroupPattern] = field(default_factory=list)
    optional_vars: dict[str, int] = field(default_factory=dict)
    order: tuple[str, bool] | None = None
    limit: int | None = None
    offset: int = 0

    def needed(self) -> list[str]:
        """The variables the graph part must assign: columns, groups, what is aggregated, the key."""
        wanted = [c for c in self.columns if c not in self.aggregates and c not in self.computed]
        wanted += self.groups + [var for _f, var in self.aggregates.values()]
        wanted += [t for _op, a, b in self.binds.values() for t in (a, b) if t not in self.binds]
        if self.order is not None and self.order[0] not in self.aggregates and self.order[0] not in self.computed:
            wanted.append(self.order[0])
        wanted = [v for v in dict.fromkeys(wanted) if v not in self.binds]
        if not wanted:
            raise SynthesisError("the query assigns nothing from the graph")
        return wanted


_ARITHMETIC = {"+": "plus", "-": "minus", "*": "times", "/": "divided by"}


def _analytic_shape(query: q.SelectQuery) -> _Shape | None:
    """The analytic parts of ``query``, or ``None`` for a query the plain writer handles (one
    projected term, no groups, no OPTIONAL, NOT EXISTS, MINUS, BIND or OFFSET)."""
    projection = query.projection or ()
    tops = query.where.patterns
    plain = (
        len(projection) == 1
        and not (query.group_by or query.having or query.offset)
        and (isinstance(projection[0], q.Var) or _aggregate(projection[0].expr) is not None)
        and not any(isinstance(p, q.Optional | q.Minus | q.Bind) or _not_exists(p) is not None for p in tops)
    )
    if plain:
        return None
    shape = _Shape(query)
    kept = [p for p in tops if not _take_element(shape, p)]
    kept = [e for p in kept for e in (p.pattern.patterns if isinstance(p, q.Optional) else (p,))]
    _take_projection(shape, projection)
    _take_groups(shape, query)
    shape.graph = q.SelectQuery(projection=query.projection, where=q.GroupPattern(tuple(kept)))
    return shape


def _take_element(shape: _Shape, element: q.Node) -> bool:
    """Record ``element`` if it is an analytic part (and so not a graph part) of the query."""
    absent = _not_exists(element)
    if absent is not None or isinstance(element, q.Minus):
        shape.absent.append(absent if absent is not None else element.pattern)  # type: ignore[union-attr]
        return True
    if isinstance(element, q.Bind):
        shape.binds[term_text(element.var)] = _arithmetic(element.expr)
        return True
    return False


def _take_projection(shape: _Shape, projection: Sequence[q.Var | q.Alias]) -> None:
    if not projection:
        raise SynthesisError("SELECT * has no plan answer")
    for item in projection:
        name = term_text(item if isinstance(item, q.Var) else item.var)
        shape.columns.append(name)
        if isinstance(item, q.Alias):
            found = _aggregate(item.expr)
            if found is not None:
                shape.aggregates[name] = found
            else:
                shape.computed[name] = _arithmetic(item.expr, shape)


def _take_groups(shape: _Shape, query: q.SelectQuery) -> None:
    for group in query.group_by:
        if not isinstance(group, q.Var):
            raise SynthesisError(f"GROUP BY {group} has no plan step (only variables)")
        shape.groups.append(term_text(group))
    for condition in query.having:
        shape.having.append(_having(condition, shape))
    grouped = [var for _f, var in shape.aggregates.values() if var in shape.groups]
    if grouped:
        raise SynthesisError(f"GROUP BY / HAVING: an aggregate of the group variable {grouped[0]} has no plan step")
    if (shape.aggregates or shape.having) and not shape.groups and len(shape.columns) > len(shape.aggregates):
        raise SynthesisError("a projection of variables and aggregates without GROUP BY")
    if query.order_by:
        if len(query.order_by) != 1:
            raise SynthesisError("ORDER BY more than one key has no plan step")
        key = _strip_text(query.order_by[0].expr)
        key = key.args[0] if isinstance(key, q.FunctionCall) and len(key.args) == 1 else key
        name = _operand(key, shape)
        shape.order = (name, query.order_by[0].descending)
    shape.limit, shape.offset = query.limit, query.offset or 0
    for element in query.where.patterns:
        if isinstance(element, q.Optional):
            _take_optional(shape, query, element)


def _take_optional(shape: _Shape, query: q.SelectQuery, element: q.Optional) -> None:
    """The variables only ``element`` binds: the ``Find`` that assigns one is optional."""
    inside = {term_text(n) for n in element.pattern.walk() if isinstance(n, q.Var)}
    rest = [p for p in query.where.patterns if p is not element]
    outside = {term_text(n) for p in rest for n in p.walk() if isinstance(n, q.Var)}
    if any(not isinstance(p, q.BGP) for p in element.pattern.patterns):
        raise SynthesisError("an OPTIONAL with more than triples has no plan step")
    if not inside - outside:
        raise SynthesisError("an OPTIONAL that binds no variable of its own has no plan step")
    number = len(set(shape.optional_vars.values()))
    shape.optional_vars.update({v: number for v in inside - outside})


def _not_exists(element: q.Node) -> q.GroupPattern | None:
    if isinstance(element, q.Filter) and isinstance(element.expr, q.NotExists):
        return element.expr.pattern
    return None


def _aggregate(expr: q.Node) -> tuple[str, str] | None:
    """``COUNT(?v)`` -> ``("count", "?v")``, ``AVG(?v)`` -> ``("average", "?v")``; else ``None``."""
    if isinstance(expr, q.Aggregate) and isinstance(expr.expr, q.Var) and not expr.separator:
        if expr.name == "COUNT":
            return "count", term_text(expr.expr)
        if expr.name in _FUNCTIONS and not expr.distinct:
            return _FUNCTIONS[expr.name], term_text(expr.expr)
    return None


def _operand(expr: q.Node, shape: _Shape | None) -> str:
    """A variable, or (with ``shape``) an aggregate, named by the alias that holds it."""
    if isinstance(expr, q.Var):
        return term_text(expr)
    found = _aggregate(expr) if shape is not None else None
    if found is None or shape is None:
        raise SynthesisError(f"{expr} has no plan step (arithmetic on variables and aggregates only)")
    for alias, aggregate in shape.aggregates.items():
        if aggregate == found:
            return alias
    alias = f"?agg{len(shape.aggregates)}"
    shape.aggregates[alias] = found
    return alias


def _arithmetic(expr: q.Node, shape: _Shape | None = None) -> tuple[str, str, str]:
    """``?a - ?b`` -> ``("minus", ?a, ?b)``; ``100 * ?a / ?b`` (or ``?a * 100 / ?b``, ``?a / ?b *
    100``) -> ``("as a percentage of", ?a, ?b)``; aggregates become aliases of ``shape``."""
    percentage = _percentage(expr)
    if percentage is not None:
        return "as a percentage of", _operand(percentage[0], shape), _operand(percentage[1], shape)
    if isinstance(expr, q.BinaryOp) and expr.op in _ARITHMETIC:
        return _ARITHMETIC[expr.op], _operand(expr.left, shape), _operand(expr.right, shape)
    raise SynthesisError(f"{expr} has no plan step (one arithmetic operation on two values)")


def _percentage(expr: q.Node) -> tuple[q.Node, q.Node] | None:
    def hundred(node: q.Node) -> bool:
        return isinstance(node, q.Literal) and node.lexical in ("100", "100.0")

    if isinstance(expr, q.BinaryOp) and expr.op == "/" and isinstance(expr.left, q.BinaryOp):
        top = expr.left
        if top.op == "*" and hundred(top.left):
            return top.right, expr.right
        if top.op == "*" and hundred(top.right):
            return top.left, expr.right
    if isinstance(expr, q.BinaryOp) and expr.op == "*" and hundred(expr.right):
        inner = expr.left
        if isinstance(inner, q.BinaryOp) and inner.op == "/":
            return inner.left, inner.right
    return None


def _having(condition: q.Node, shape: _Shape) -> tuple[str, str, Literal, bool]:
    """``COUNT(?m) > 3`` -> ``(alias of the count, "greater than", 3, False)``."""
    if isinstance(condition, q.BinaryOp) and isinstance(condition.left, q.Literal):
        flipped = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(condition.op, condition.op)
        condition = q.BinaryOp(flipped, condition.right, condition.left)
    if not (isinstance(condition, q.BinaryOp) and isinstance(condition.right, q.Literal)):
        raise SynthesisError(f"HAVING {condition} has no plan step (an aggregate compared with a constant)")
    alias = _operand(condition.left, shape)
    if alias not in shape.aggregates:
        raise SynthesisError(f"HAVING {condition} does not test an aggregate")
    word = {"=": "is", "!=": "is"}.get(condition.op) or _COMPARISON_WORDS.get(condition.op)
    if word is None:
        raise SynthesisError(f"HAVING {condition} has no plan words")
    return alias, word, _plan_literal(condition.right), condition.op == "!="


def _holds(element: q.Node, union: q.Union) -> bool:
    """Whether ``element`` is ``union`` or a group holding only it."""
    if element is union:
        return True
    return isinstance(element, q.GroupPattern) and len(element.patterns) == 1 and _holds(element.patterns[0], union)


def _entity_ids(table: Entities) -> set[str]:
    return {term_text(q.IRI(iri)) for iri in table.names}


def _iri_of(compact: str) -> str:
    """``<http://x/a>`` -> ``http://x/a``; Freebase's ``ns:m.0abc`` stays as it is (the table reads it)."""
    return compact[1:-1] if compact.startswith("<") else compact


def _aggregate_step(function: str, var: Var, target: Var) -> Count | Compute:
    return Count(var, target) if function == "count" else Compute(function, var, target)


def query_entities(query: q.Node) -> tuple[dict[str, str], list[str]]:
    """The entities a query names, ``{iri: name}``, and the topics among them.

    Every IRI in a subject or object (or compared in a FILTER) that is neither Freebase's nor
    a vocabulary's (RDF, RDFS, OWL, XSD, SKOS), named by the words of its local name as the
    entity linker names unlabelled entities (``.../JohnLennonM`` -> ``John Lennon M``). A
    class (the object of ``rdf:type``) is named too but is no topic: it is a value the
    answer is checked against (``Make sure ?v is Band``).
    """
    predicates: set[str] = set()
    classes: set[str] = set()
    for t in query.find_all(q.TriplePattern):
        if isinstance(t.predicate, q.IRI):
            predicates.add(t.predicate.value)
            if t.predicate.value == q.RDF_TYPE and isinstance(t.object, q.IRI):
                classes.add(t.object.value)
    placed = {n.value for t in query.find_all(q.TriplePattern) for n in (t.subject, t.object) if isinstance(n, q.IRI)}
    names: dict[str, str] = {}
    for node in query.find_all(q.IRI):
        iri = node.value
        if iri in names or iri.startswith((FREEBASE, *VOCABULARIES)) or (iri in predicates and iri not in placed):
            continue
        words = local_name_words(iri)
        if words is not None and not any(isinstance(n, q.FunctionCall) and n.iri == node for n in query.walk()):
            names[iri] = words[0]
    return names, [iri for iri in names if iri not in classes]


def _as_select(query: q.AskQuery) -> q.SelectQuery:
    """An ``ASK`` read as the ``SELECT`` of one variable whose existence it asks about.

    The variable is the last one its triples name; a query with none gets one: the last
    triple's object becomes ``?x`` with ``FILTER(?x = object)``, so that the plan finds it
    and then makes sure of it (``Make sure ?x is Liverpool C.``).
    """
    if query.group_by or query.having or query.order_by or query.values is not None:
        raise SynthesisError("an ASK with GROUP BY, HAVING, ORDER BY or VALUES has no plan")
    found = [n.name for t in _required_triples(query.where) for n in (t.subject, t.object) if isinstance(n, q.Var)]
    if found:
        return q.SelectQuery(projection=(q.Var(found[-1]),), where=query.where)
    last = next((t for t in reversed(list(query.where.find_all(q.TriplePattern)))), None)
    if last is None or isinstance(last.object, q.BlankNode):
        raise SynthesisError("an ASK with no triple pattern to find anything with")
    var = q.Var(ANSWER)
    where = query.where.transform(lambda n: n.replace(object=var) if n == last else n)
    assert isinstance(where, q.GroupPattern)
    check = q.Filter(q.BinaryOp("=", var, last.object))
    return q.SelectQuery(projection=(var,), where=q.GroupPattern((*where.patterns, check)))


def _required_triples(where: q.GroupPattern) -> list[q.TriplePattern]:
    """The triples of ``where`` outside ``OPTIONAL``, ``MINUS`` and ``NOT EXISTS``: what every row has."""
    kept = [p for p in where.patterns if not isinstance(p, q.Optional | q.Minus) and _not_exists(p) is None]
    return [t for p in kept for t in p.find_all(q.TriplePattern)]


def _compared_aggregates(query: q.AskQuery) -> tuple[list[q.SelectQuery], str, str, str] | None:
    """``ASK { {SELECT (COUNT(?a) AS ?n1) ...} {SELECT (COUNT(?b) AS ?n2) ...} FILTER(?n1 > ?n2) }``
    (or one sub-select compared with a constant): the sub-selects, the operator and the two
    compared terms; ``None`` for any other ASK."""
    subs, tests = [], []
    for element in query.where.patterns:
        inner = element.patterns[0] if isinstance(element, q.GroupPattern) and len(element.patterns) == 1 else element
        if isinstance(inner, q.SubSelect):
            subs.append(inner.query)
        elif isinstance(element, q.Filter):
            tests.append(element.expr)
        else:
            return None
    if not subs:
        return None
    if len(subs) > 2 or len(tests) != 1:
        raise SynthesisError("an ASK over sub-selects has a plan only for one or two of them compared by one FILTER")
    test = tests[0]
    if isinstance(test, q.BinaryOp) and not isinstance(test.left, q.Var) and isinstance(test.right, q.Var):
        flipped = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(test.op, test.op)
        test = q.BinaryOp(flipped, test.right, test.left)
    wanted = q.Var if len(subs) == 2 else (q.Literal, q.IRI)
    if not (isinstance(test, q.BinaryOp) and isinstance(test.left, q.Var) and isinstance(test.right, wanted)):
        raise SynthesisError(f"FILTER {test} does not compare what the sub-selects compute")
    return subs, test.op, term_text(test.left), term_text(test.right)


def _suffixed(query: q.SelectQuery, keep: set[str], suffix: str) -> q.SelectQuery:
    """``query`` with its variables (but ``keep``) renamed apart from another sub-select's."""
    renamed = query.transform(lambda n: q.Var(n.name + suffix) if isinstance(n, q.Var) and n.name not in keep else n)
    assert isinstance(renamed, q.SelectQuery)
    return renamed


def _text_match(expr: q.Node) -> tuple[str, str, bool] | None:
    """``CONTAINS(LCASE(STR(?x)), "word")``, ``REGEX(STR(?x), "word", "i")`` (or negated with
    ``!``) -> ``(?x, word, negated)``; ``None`` for any other filter. A regular expression that
    is more than plain words has no plan step."""
    negated = isinstance(expr, q.UnaryOp) and expr.op == "!"
    call = expr.operand if isinstance(expr, q.UnaryOp) and expr.op == "!" else expr
    if not (isinstance(call, q.BuiltinCall) and call.name in ("CONTAINS", "REGEX") and len(call.args) >= 2):
        return None
    subject, needle = _strip_text(call.args[0]), call.args[1]
    if not isinstance(subject, q.Var) or not isinstance(needle, q.Literal):
        return None
    if call.name == "REGEX" and not _PLAIN_WORDS.fullmatch(needle.lexical):
        raise SynthesisError(f"REGEX pattern {needle.lexical!r} is not plain words; only those have a plan step")
    return term_text(subject), needle.lexical.lower(), negated


def _strip_text(expr: q.Node) -> q.Node:
    """``LCASE(STR(?x))`` -> ``?x``."""
    while isinstance(expr, q.BuiltinCall) and expr.name in ("LCASE", "UCASE", "STR") and len(expr.args) == 1:
        expr = expr.args[0]
    return expr


def _ref_words(ref: Ref) -> str:
    if isinstance(ref, Var):
        return str(ref)
    if isinstance(ref, Literal):
        return f'"{ref.value}"' if ref.kind == "string" else ref.value
    return ref.text


def _plan_literal(node: q.Literal) -> Literal:
    """How a plan writes a constant: quoted strings, bare numbers and dates.

    A complete ``dateTime`` at midnight is written as the date (``1971-01-01T00:00:00``
    -> ``1971-01-01``), and January 1st as the year: lowering writes both back the same way.
    """
    text = node.lexical
    if node.datatype is None or node.lang is not None:
        return Literal(text, "string")
    if node.datatype == q.XSD_DATETIME and text.endswith("T00:00:00"):
        text = text.removesuffix("T00:00:00")
        text = text.removesuffix("-01-01") if re.fullmatch(r"\d{4}-01-01", text) else text
    if re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", text):
        return Literal(text, "date")
    if re.fullmatch(r"[-+]?\d+(\.\d+)?", text):
        return Literal(text, "number")
    return Literal(text, "string")


def _reread_value(value: Literal, word: str) -> Literal:
    """A literal as the parser reads it after ``word`` (a year after before/after, say)."""
    if value.kind in ("number", "year") and re.fullmatch(r"\d{4}", value.value):
        return Literal(value.value, "year" if word in ("before", "after") else "number")
    return value


def _window_values(bounds: list[tuple[str, str]]) -> list[Literal]:
    """``holds during`` values for a node's window bounds (start <= S, end >= E)."""
    starts = sorted(_day(d) for op, d in bounds if op.startswith("<"))
    ends = sorted(_day(d) for op, d in bounds if op.startswith(">"))
    if not starts or not ends:
        raise SynthesisError("a time window with only a start or only an end has no plan step")
    start, end = starts[0], ends[-1]
    if start == end:
        return [_date_literal(start)]
    if start < end:  # held all through [start, end]: two windows combine into these bounds
        return [_date_literal(start), _date_literal(end)]
    year = re.fullmatch(r"(\d{4})-12-31", start)
    if year and end == f"{year[1]}-01-01":
        return [Literal(year[1], "year")]
    month = re.fullmatch(r"(\d{4}-\d{2})-(\d{2})", start)
    if month and end == f"{month[1]}-01" and int(month[2]) == _last_day(month[1]):
        return [Literal(month[1], "date")]
    raise SynthesisError(f"time window start <= {start}, end >= {end} has no plan step")


def _day(term: str) -> str:
    """The date of a ``dateTime`` bound (``"2015-08-10T00:00:00"^^xsd:dateTime`` -> ``2015-08-10``)."""
    node = compact_term(term)
    text = node.lexical if isinstance(node, q.Literal) else term
    return text.removesuffix("T00:00:00")


def _last_day(month: str) -> int:
    year, number = (int(part) for part in month.split("-"))
    return calendar.monthrange(year, number)[1] if 1 <= number <= 12 else -1


def _date_literal(text: str) -> Literal:
    if re.fullmatch(r"\d{4}", text):
        return Literal(text, "year")
    if re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", text):
        return Literal(text, "date")
    raise SynthesisError(f"time window date {text!r} is not a date")


def _reread(text: str) -> Find:
    from nl2sparql.plan.reader import read_plan

    plan = read_plan(text)[0]
    step = plan.steps[0]
    if not isinstance(step, Find):
        raise SynthesisError("not a Find")
    return step


def _is_language_filter(expr: q.Node) -> bool:
    return any(isinstance(n, q.BuiltinCall) and n.name == "LANGMATCHES" for n in expr.walk())


def gold_entities(example: Any) -> dict[str, str]:
    """The example's entities; for a file that names none (QALD), those its gold query names,
    each called by the words of its local name (as the entity linker calls unlabelled ones)."""
    if example.entities or not example.gold_sparql:
        return dict(example.entities)
    try:
        return query_entities(parse(example.gold_sparql, "virtuoso"))[0]
    except Nl2SparqlError:
        return {}
